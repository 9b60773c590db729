"""Group commit: the attempts a worker process's threads are waiting to store are written in one transaction.

The writer turn (:mod:`quizapp.storage.write_turn`) is the one thing attempts cannot do side by side, and each call
into SQLite in it gives up the interpreter and waits to take it back from the other threads of the process.
:func:`write_together` therefore commits the attempts that a process's threads are waiting to write in one
transaction: the thread that gets the turn writes its own and every queued one, each kind of row as one
statement sent to the driver directly (:mod:`quizapp.storage.sqlite_rows`), and commits once. That commit runs on a
connection of its own with ``synchronous=NORMAL``, so the turn does not include waiting for the disk
(measured under load: 7 ms of a 16 ms turn); the writer passes the turn on, then syncs the WAL itself, and
only then is any attempt of the group answered: as durable as ``FULL``, without holding the others up.
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Callable, Sequence, TypeVar

from sqlalchemy import Insert, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from . import sqlite_rows
from .db_engine import make_engine, sqlite_file, sqlite_options
from .write_turn import write_turn

T = TypeVar("T")

_lock = threading.Lock()
# SQLite engines -> (pid, the group commit's engine, its session factory) in that process.
_group_writers: weakref.WeakKeyDictionary[Engine, tuple[int, Engine, sessionmaker]] = weakref.WeakKeyDictionary()


def _renew() -> None:
    global _lock
    _lock = threading.Lock()  # a child forked while a thread held it must not wait forever
    _queues.clear()  # the parent's queues and writers: the child makes its own
    for _pid, writer, _factory in list(_group_writers.values()):
        writer.dispose(close=False)  # the parent's connection: not closed from here (as the app's engine)
    _group_writers.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew)


def insert_unless_present(table: Table, keys: list[str]) -> dict[str, Insert]:
    """``INSERT ... ON CONFLICT (keys) DO NOTHING`` into ``table``, by dialect name (SQLite and PostgreSQL,
    the databases that have it): built once by its callers, for writes that run in the writer's turn."""
    return {name: insert(table).on_conflict_do_nothing(index_elements=keys)
            for name, insert in (("sqlite", sqlite.insert), ("postgresql", postgresql.insert))}


class _Write:
    """One thread's write waiting for a group commit: its ``rows`` and ``work`` and, once ``done`` (committed
    and synced to disk, or failed), its result or error. Its thread sleeps on a lock of its own until it is
    woken, once: when its write is done, or when the turn passes to it and it writes the queue."""

    __slots__ = ("rows", "work", "ran", "done", "result", "error", "_asleep")

    def __init__(self, work: Callable[[Session], Any], rows: Sequence[tuple]) -> None:
        self.rows, self.work = rows, work
        self.ran = self.done = False  # committed or failed; answered
        self.result, self.error = None, None
        self._asleep = threading.Lock()
        self._asleep.acquire()

    def sleep(self) -> None:
        self._asleep.acquire()

    def wake(self) -> None:
        self._asleep.release()


class _Queue:
    """The writes of this process waiting for one database's turn, and whether a thread is writing them (or
    has been asked to: the turn is handed from one group's writer to the first write queued behind it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: list[_Write] = []
        self.writing = False


_queues: dict[str, tuple[int, _Queue]] = {}  # database file -> (pid, its queue in this process)


def _queue_for(path: str) -> _Queue:
    pid = os.getpid()
    with _lock:  # renewed after fork
        hit = _queues.get(path)
        if hit is None or hit[0] != pid:
            hit = _queues[path] = (pid, _Queue())
        return hit[1]


def write_together(session: Session, work: Callable[[Session], T], rows: Sequence[tuple] = ()) -> T:
    """Run ``rows`` (``(statement, parameters)`` pairs, in order; see :func:`_run_rows` for a third item),
    then ``work(s)``, in a write transaction that is committed before this returns; return what ``work``
    returns.

    On a SQLite file the writes that other threads of this process are waiting to make join it (group
    commit, module docstring): the thread that gets the turn runs every waiting write on the group commit's
    session ``s`` (:func:`_group_writer`), in one transaction, commits once, hands the turn to the first
    write queued meanwhile and syncs the WAL to disk (:func:`_sync_to_disk`); then it wakes the others of
    its group with their result. Each waiting thread is woken once, when there is something for it to do (with
    one condition for the whole queue, every waiting thread would wake at each step and take the interpreter
    back only to sleep again). A statement that several writes of the group give in ``rows``
    runs once, with all their parameters (an INSERT as one statement with a VALUES group per row): the turn
    is held for as few statements as there are kinds of row, not one per row and write, and statements the
    writes share must come in the same order in each. The rows are bound before the turn. Then each
    ``work`` runs. If anything fails, the transaction is rolled back and each write is run again alone, so
    a failing write costs no other. ``work`` must therefore only write through the session it is given, and
    may run on another thread. Elsewhere (PostgreSQL, which lets writers of different rows proceed together)
    it all runs in ``session``'s own transaction."""
    path = sqlite_file(session)
    if path is None:
        try:
            _run_rows(session, [rows])
            result = work(session)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return result
    queue, mine = _queue_for(path), _Write(work, _bind_rows(session, rows))
    with queue.lock:
        queue.waiting.append(mine)
        leading = not queue.writing
        queue.writing = True
    if not leading:
        mine.sleep()  # until done, or until the turn is handed to this write
    if not mine.done:  # this thread writes the queue, its own write included
        _write_queue(queue, mine, session, path)
    if mine.error is not None:
        raise mine.error
    return mine.result


def _write_queue(queue: _Queue, mine: _Write, session: Session, path: str) -> None:
    """The writer's part of :func:`write_together` (its own write ``mine``): every write waiting in
    ``queue`` once the turn is taken, in one group; then each of them is answered."""
    batch: list[_Write] | None = None

    def take() -> list[_Write]:
        nonlocal batch
        with queue.lock:
            batch, queue.waiting = queue.waiting, []
        return batch

    synced = False
    try:
        try:
            with _group_writer(session.get_bind())() as writer:
                # The connection is checked out before the turn and given back after it: the turn, which
                # the other workers wait for, holds the statements and the commit only.
                writer.connection()
                with write_turn(session):
                    # Taken now, not before waiting for the turn: the writes queued meanwhile (while another
                    # worker held it) join this group rather than each group paying for a turn of its own.
                    _commit_together(writer, take())
        finally:
            if batch is None:  # the turn could not be taken: the writes waiting fail with this one
                take()
            with queue.lock:  # the process's next group may take the turn while this one syncs
                following = queue.waiting[0] if queue.waiting else None
                queue.writing = following is not None  # handed on: the next write leads its group
            if following is not None:
                following.wake()
        _sync_to_disk(path)
        synced = True
    finally:
        for write in batch:
            if write.error is None and not (synced and write.ran):  # the turn or the sync failed
                write.error = RuntimeError("the write was not made durable" if write.ran else "the write was not run")
            write.done = True
        for write in batch:
            if write is not mine:
                write.wake()


def _group_writer(engine: Engine) -> sessionmaker:
    """This process's session factory for the group commits on the SQLite file of ``engine``: an engine of
    its own with one connection and ``synchronous=NORMAL``, so the commit in the writer's turn does not wait
    for the disk; :func:`_sync_to_disk` makes the group durable once the turn is passed on, before any of
    its writes returns. Every other write keeps ``engine`` and its ``FULL``."""
    pid = os.getpid()
    with _lock:
        hit = _group_writers.get(engine)
        if hit is not None and hit[0] == pid:
            return hit[2]
        options = sqlite_options.get(engine, {})
        writer = make_engine(engine.url.render_as_string(hide_password=False), pool_size=1, pool_overflow=0,
                             synchronous="NORMAL", **options)
        factory = sessionmaker(writer, expire_on_commit=False)
        _group_writers[engine] = (pid, writer, factory)
        return factory


def drop_group_writer(engine: Engine) -> None:
    """Dispose of this process's group commit engine for ``engine`` (the app's database is disposed)."""
    with _lock:
        hit = _group_writers.pop(engine, None)
    if hit is not None and hit[0] == os.getpid():
        hit[1].dispose()


def _sync_to_disk(path: str) -> None:
    """Sync the WAL of the SQLite database at ``path`` to disk: every frame written to it so far, so those
    of the transactions just committed with ``synchronous=NORMAL``. (With NORMAL, SQLite syncs the WAL
    before each checkpoint and the database after it, so frames that a checkpoint moved out of the WAL
    before this sync are on disk already.) No WAL file (not in WAL mode): the database file."""
    try:
        fd = os.open(path + "-wal", os.O_RDONLY)
    except FileNotFoundError:
        fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _NotApplied(Exception):
    """A row that had to change one row changed none, in a statement run for several writes at once: which
    write's row it was is not known, so the group is written again one write at a time."""


def _run_rows(session: Session, writes_rows: Sequence[Sequence[tuple]]) -> None:
    """Run the rows of several writes: each distinct statement once, with the parameters of every write
    that gives it, in an order that keeps each write's own (a statement first seen in a later write goes
    right after the one that comes before it there).

    A row may carry a third item, a dict told under ``"applied"`` whether the row changed one row (an UPDATE
    that finds its row as it was read, an ``INSERT ... ON CONFLICT DO NOTHING`` that inserts): the statement
    of such rows, run for several writes, must change one row per write, or :class:`_NotApplied` is raised
    (and the group is written one write at a time)."""
    order: list[Any] = []
    params: dict[int, list[tuple]] = {}
    for rows in writes_rows:
        previous = -1
        for row in rows:
            stmt = row[0]
            if id(stmt) not in params:
                params[id(stmt)] = []
                order.insert(previous + 1, stmt)
            params[id(stmt)].append(row)
            previous = next(i for i, s in enumerate(order) if s is stmt)
    if not order:
        return
    conn = session.connection()
    cursor = None
    for stmt in order:
        rows = params[id(stmt)]
        values = [row[1] for row in rows]
        if isinstance(stmt, sqlite_rows.Prepared):
            cursor = cursor or conn.connection.driver_connection.cursor()
            result: Any = sqlite_rows.run(cursor, stmt, values)
        else:
            result = conn.execute(stmt, values if len(values) > 1 else values[0])
        outcomes = [row[2] for row in rows if len(row) > 2]
        if not outcomes:
            continue
        changed = result if isinstance(result, int) else result.rowcount
        if len(rows) == 1:
            outcomes[0]["applied"] = changed == 1
        elif changed != len(rows):
            raise _NotApplied(f"{len(rows) - changed} of {len(rows)} rows did not apply")
        else:
            for outcome in outcomes:
                outcome["applied"] = True


def _bind_rows(session: Session, rows: Sequence[tuple]) -> list[tuple]:
    """``rows`` with each statement SQLite's driver can take directly replaced by its
    :class:`quizapp.storage.sqlite_rows.Prepared` form and its parameters bound, before the writer's turn."""
    dialect = session.get_bind().dialect
    out = []
    for row in rows:
        prepared = sqlite_rows.prepare(row[0], dialect, frozenset(row[1]))
        out.append(row if prepared is None else (prepared, prepared.bind(row[1]), *row[2:]))
    return out


def _commit_together(session: Session, batch: list[_Write]) -> None:
    try:
        _run_rows(session, [write.rows for write in batch])
        results = [write.work(session) for write in batch]
        session.commit()
    except Exception as exc:  # noqa: BLE001 - handed to the write's own thread
        session.rollback()
        if len(batch) == 1:
            batch[0].error, batch[0].ran = exc, True
            return
        for write in batch:  # something failed: each alone, so that the others are not lost
            try:
                _run_rows(session, [write.rows])
                write.result = write.work(session)
                session.commit()
            except Exception as alone:  # noqa: BLE001
                session.rollback()
                write.error = alone
            write.ran = True
        return
    for write, result in zip(batch, results):
        write.result, write.ran = result, True
