"""The writer turn of a SQLite database: the attempt writers of every worker process take it one at a time.

SQLite admits one writer at a time, and a writer that finds the lock taken waits in SQLite's busy handler,
which sleeps in steps of 1, 2, 5, ... up to 100 ms and retries: the lock is often free while every waiter
sleeps, and under many concurrent submits most of the time goes to sleeping. :func:`write_turn` queues the
attempt writers instead (a lock per process, then ``flock`` on a file beside the database across the worker
processes), so each starts the moment the one before it commits. Other writers keep the busy handler.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Iterator

from sqlalchemy.orm import Session

from .db_engine import sqlite_file

try:
    import fcntl
except ImportError:  # no flock (Windows): threads of the one waitress process still queue on the lock
    fcntl = None  # type: ignore[assignment]

_turns_lock = threading.Lock()
_turns: dict[str, tuple[int, threading.Lock]] = {}  # database file -> (pid, its writers' lock in this process)


def _renew_turns() -> None:
    global _turns_lock
    _turns_lock = threading.Lock()  # a child forked while a thread held it must not wait forever
    _turns.clear()  # the parent's locks: the child makes its own


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_turns)


def _turn_for(path: str) -> threading.Lock:
    pid = os.getpid()
    with _turns_lock:
        hit = _turns.get(path)
        if hit is None or hit[0] != pid:
            hit = _turns[path] = (pid, threading.Lock())
        return hit[1]


@contextmanager
def write_turn(session: Session) -> Iterator[None]:
    """Hold this SQLite database's writer turn for the block (one write transaction, ending in its commit):
    threads of a process queue on a lock, processes on ``flock`` of ``<database>-writers``. Waiting is
    bounded by the turn holder's transaction, itself bounded by the busy timeout and the worker timeout (a
    killed holder's flock is released by the kernel). Nothing to do for other databases."""
    path = sqlite_file(session)
    if path is None:
        yield
        return
    with _turn_for(path):
        if fcntl is None:
            yield
            return
        # The lock file is opened per turn (an open and a close beside a commit that syncs to disk), so no
        # descriptor outlives the turn however many databases a process has written to.
        fd = os.open(path + "-writers", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock
