"""The CPUs the processes that checkers start may run on, whatever CPU the process starting them is held to.

A server may hold each of its worker processes to one CPU (``quizapp serve`` does when it runs one worker
per CPU). On Linux a new process inherits the CPU affinity of the thread that starts it, so the grader
pool's processes and the code sandbox started from such a worker would all share that one CPU: a burst of
grading would queue there while another CPU idles, and learner code timed by the wall clock would be
slowed by the worker's own threads. :func:`set_for_children` records the set the children get back, and
every place in checkers that starts a process does so inside :func:`for_children`, which widens the
calling thread's affinity for the start only (affinity is per thread: the worker's other threads stay
where they are). The processes a started child forks later (the fork server's workers, the sandbox's
runs) inherit the child's set. Without a recorded set, children inherit as usual.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterable, Iterator

_children: frozenset[int] | None = None


def set_for_children(cpus: Iterable[int] | None) -> None:
    """Let the processes checkers start from now on run on ``cpus`` (None: inherit the starting thread's)."""
    global _children
    _children = frozenset(cpus) if cpus is not None else None


@contextmanager
def for_children() -> Iterator[None]:
    """Within the block, the calling thread runs on the recorded CPUs, so a process it starts gets them."""
    wanted = _children
    if wanted is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    if before == wanted:
        yield
        return
    os.sched_setaffinity(0, wanted)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
