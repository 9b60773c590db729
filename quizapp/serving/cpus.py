"""One CPU per worker: when ``quizapp serve`` runs as many workers as the CPUs it may use (its default), each
worker is held to a CPU of its own (Linux ``sched_setaffinity``).

A worker runs its Python on one core at a time (the interpreter lock), and its threads hand that lock to
each other hundreds of times a second. Left free, the kernel wakes a worker's next thread wherever it last
ran, often on the CPU the other worker is busy on, while the other CPU idles until it rebalances.
Measured on two CPUs with two workers under 32 clients submitting (paired runs): the machine idle 6-10% of
the time unpinned, 2.4-3.8% pinned, the workers' share of the CPUs 1.62-1.69 -> 1.73-1.75 cores.

* The master picks the CPU before it forks (gunicorn's ``pre_fork``): the one fewest live workers hold, so
  a worker that replaces a killed one takes the CPU it left, and the new workers of a rolling restart
  (``SIGHUP``), started while the old ones still run, spread as the old ones did.
* The worker holds itself to it right after the fork (``post_fork``), while it has one thread: the threads
  it starts later inherit it. The processes it starts (the grader pool, the code sandbox) are given every
  CPU of the server back (:mod:`checkers.child_cpus`): grading must not queue on the one CPU of the worker
  that asked for it.
* Pinning is left off when the workers are fewer than the CPUs (the CPUs left over would take none of a
  worker's threads, yet a worker's calls into SQLite and the kernel run beside its interpreter on another
  CPU) or more (several would share a CPU that a free scheduler balances), and by ``--no-pin-workers`` (a
  host running other busy services next to this one).
* A worker that cannot be held (a CPU taken offline since the master listed them) runs free, with a warning.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Iterable, Sequence

from checkers import child_cpus

log = logging.getLogger(__name__)


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on (empty where the platform cannot tell or pin)."""
    if not hasattr(os, "sched_getaffinity") or not hasattr(os, "sched_setaffinity"):
        return []
    try:
        return sorted(os.sched_getaffinity(0))
    except OSError:
        return []


def cpus_to_pin(workers: int, wanted: bool | None) -> list[int]:
    """The CPUs the workers are spread over, one each, or ``[]`` for no pinning. ``wanted``: None pins when
    there are as many workers as CPUs and more than one; True pins whenever there are several CPUs (workers
    beyond the CPUs share them evenly); False never."""
    cpus = allowed_cpus()
    if wanted is False or len(cpus) < 2:
        return []
    if wanted is None and workers != len(cpus):
        return []
    return cpus


def choose_cpu(held: Iterable[int], cpus: Sequence[int]) -> int:
    """The CPU of ``cpus`` that the fewest of the live workers' CPUs ``held`` are (the lowest on a tie)."""
    counts = {cpu: 0 for cpu in cpus}
    for cpu in held:
        if cpu in counts:
            counts[cpu] += 1
    return min(cpus, key=lambda cpu: (counts[cpu], cpu))


def assign(server: Any, worker: Any, cpus: Sequence[int]) -> None:
    """gunicorn's ``pre_fork``, in the master: give ``worker`` its CPU (``worker.cpu``) among the live ones'."""
    held = (getattr(w, "cpu", None) for w in server.WORKERS.values())
    worker.cpu = choose_cpu([cpu for cpu in held if cpu is not None], cpus)


def hold(worker: Any, cpus: Sequence[int]) -> None:
    """gunicorn's ``post_fork``, in the new worker: run on ``worker.cpu`` only; the processes it starts for
    grading get all of ``cpus``."""
    try:
        os.sched_setaffinity(0, {worker.cpu})
    except OSError as exc:  # a worker that cannot start would be started again and again
        log.warning("worker runs on any CPU: holding it to CPU %s failed (%s)", worker.cpu, exc)
        return
    child_cpus.set_for_children(cpus)
