"""Attempt writers on SQLite take turns (quizapp.storage.write_turn): one holder at a time among the threads of
a process, and across processes through flock on ``<database>-writers``; other databases pass through."""

import fcntl
import os
import threading

import pytest

import quiz_testing as testing

from quizapp.storage import write_turn as turns
from quizapp.storage.db import get_db
from quizapp.storage.write_turn import write_turn


def _other_process_can_lock(path: str) -> bool:
    """Whether a separate process gets the writers' flock at once (it cannot while a turn is held)."""
    pid = os.fork()
    if pid == 0:  # the child tries once, without waiting, and reports through its exit status
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os._exit(0)
        except OSError:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


@pytest.mark.sqlite_only(reason="writer turns exist for SQLite's single writer; elsewhere they pass through")
def test_a_turn_excludes_other_processes_and_threads(app):
    db = get_db(app)
    path = os.path.abspath(db.engine.url.database) + "-writers"
    inside: list[int] = []
    overlaps: list[int] = []
    lock = threading.Lock()

    def writer(_i: int) -> None:
        session = db.Session()
        try:
            for _ in range(20):
                with write_turn(session):
                    with lock:
                        inside.append(1)
                        if len(inside) > 1:
                            overlaps.append(len(inside))
                    with lock:
                        inside.pop()
        finally:
            session.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads) and overlaps == []

    session = db.Session()
    try:
        with write_turn(session):
            assert not _other_process_can_lock(path)
        assert _other_process_can_lock(path)
    finally:
        session.close()


def test_other_databases_pass_through(tmp_path):
    import quiz_testing as testing

    app = testing.make_app(tmp_path, database_url="sqlite://")  # in memory: no file to lock beside
    session = get_db(app).Session()
    try:
        with write_turn(session):
            pass
    finally:
        session.close()
    assert not any(p.name.endswith("-writers") for p in tmp_path.iterdir())


@pytest.mark.sqlite_only(reason="writer turns exist for SQLite's single writer; elsewhere they pass through")
def test_no_descriptor_outlives_a_turn(tmp_path):
    """A process that writes to many databases (the test suite, a host serving several) keeps no lock file open."""
    import quiz_testing as testing

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    folders = [tmp_path / f"db{i}" for i in range(5)]
    for folder in folders:
        folder.mkdir()
    apps = [testing.make_app(folder) for folder in folders]
    sessions = [get_db(a).Session() for a in apps]
    try:
        for s in sessions:  # a first turn each: connections and their files open now, not in the count below
            with write_turn(s):
                pass
        before = open_fds()
        for _ in range(3):
            for s in sessions:
                with write_turn(s):
                    assert open_fds() == before + 1  # the turn's own lock file
        assert open_fds() == before
    finally:
        for s, a in zip(sessions, apps):
            s.close()
            get_db(a).dispose()


def _learner_rows(db) -> list[str]:
    from sqlalchemy import select

    from quizapp.storage.models import Learner

    session = db.Session()
    try:
        return sorted(session.scalars(select(Learner.id)))
    finally:
        session.close()


def _writes_queued_behind_a_held_turn(db, works: list) -> tuple[list, list[int], list[str]]:
    """Run ``works`` (each a work, or a pair of a work and its rows) through write_together from one thread
    each while the test holds the process's writer turn, so that the first waits for the turn and the others
    queue behind it; returns (results or errors, in order; commits seen; statements run)."""
    from quizapp.storage import group_commit

    path = os.path.abspath(db.engine.url.database)
    out: list = [None] * len(works)

    def run(i: int) -> None:
        session = db.Session()
        work, rows = works[i] if isinstance(works[i], tuple) else (works[i], ())
        try:
            out[i] = group_commit.write_together(session, work, rows)
        except Exception as exc:  # noqa: BLE001 - reported to the test
            out[i] = exc
        finally:
            session.close()

    turn = turns._turn_for(path)
    with testing.sql_seen(db.engine) as watched:
        turn.acquire()
        threads = [threading.Thread(target=run, args=(0,))]
        threads[0].start()
        queue = group_commit._queue_for(path)
        testing.until_queued(queue, lambda: queue.writing)  # the first thread is the writer now, blocked on the turn
        threads += [threading.Thread(target=run, args=(i,)) for i in range(1, len(works))]
        for t in threads[1:]:
            t.start()
        # every write is queued: the first takes the queue once it has the turn
        testing.until_queued(queue, lambda: len(queue.waiting) == len(works))
        turn.release()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads)
    return out, [1] * watched.commits, watched.statements


def _add_learner(learner_id: str):
    def work(session):
        from quizapp.learners import ensure_learner

        ensure_learner(session, learner_id)
        return learner_id

    return work


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_writes_waiting_for_the_turn_are_committed_together(app):
    db = get_db(app)
    ids = [f"{i:032x}" for i in range(1, 6)]
    out, commits, _statements = _writes_queued_behind_a_held_turn(db, [_add_learner(i) for i in ids])
    assert out == ids  # each thread gets its own write's result
    assert len(commits) == 1  # the four queued while the first waited for the turn joined it: one commit
    assert set(ids) <= set(_learner_rows(db))


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_the_turn_passes_to_the_writes_queued_during_a_group_and_each_thread_is_woken_once(app, monkeypatch):
    """Writes that queue while a group is being written form the next group, written by the first of them;
    a waiting thread is woken once (to write the next group, or with its result), never to wait again."""
    from quizapp.storage import group_commit

    db = get_db(app)
    ids = [f"{i:032x}" for i in range(51, 55)]
    wakes: list[int] = []
    wake = group_commit._Write.wake

    def counted_wake(write) -> None:
        wakes.append(id(write))
        wake(write)

    monkeypatch.setattr(group_commit._Write, "wake", counted_wake)
    path = os.path.abspath(db.engine.url.database)
    queue = group_commit._queue_for(path)
    in_group, out = threading.Event(), [None] * len(ids)

    def first(session):  # the first group's write holds it until the others have queued behind it
        in_group.set()
        testing.until_queued(queue, lambda: len(queue.waiting) == len(ids) - 1)
        return _add_learner(ids[0])(session)

    def run(i: int) -> None:
        session = db.Session()
        try:
            out[i] = group_commit.write_together(session, first if i == 0 else _add_learner(ids[i]))
        finally:
            session.close()

    with testing.sql_seen(db.engine) as watched:
        threads = [threading.Thread(target=run, args=(0,))]
        threads[0].start()
        assert in_group.wait(60)
        threads += [threading.Thread(target=run, args=(i,)) for i in range(1, len(ids))]
        for t in threads[1:]:
            t.start()
        for t in threads:
            t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert out == ids and watched.commits == 2  # the first alone, then the three queued meanwhile together
    # the second group's writer was woken to write it, the two others with their results: three wakes
    assert len(wakes) == len(set(wakes)) == len(ids) - 1
    assert set(ids) <= set(_learner_rows(db))


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_a_failing_write_in_a_group_costs_no_other(app):
    db = get_db(app)
    ids = [f"{i:032x}" for i in range(11, 16)]

    def broken(session):
        _add_learner("f" * 32)(session)  # written, then the write fails: it must not stay
        raise RuntimeError("this write fails")

    works = [_add_learner(ids[0]), _add_learner(ids[1]), broken, _add_learner(ids[3]), _add_learner(ids[4])]
    out, _commits, _statements = _writes_queued_behind_a_held_turn(db, works)
    assert isinstance(out[2], RuntimeError) and str(out[2]) == "this write fails"  # raised in its own thread
    assert [out[i] for i in (0, 1, 3, 4)] == [ids[i] for i in (0, 1, 3, 4)]
    rows = _learner_rows(db)
    assert {ids[i] for i in (0, 1, 3, 4)} <= set(rows) and "f" * 32 not in rows



def _learner_rows_of(db, ids: list[str]) -> list:
    from quizapp.learners import learner_row

    session = db.Session()
    try:
        return [learner_row(session, i) for i in ids]
    finally:
        session.close()


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_the_same_row_statement_of_a_group_runs_once_for_all_its_writes(app):
    db = get_db(app)
    ids = [f"{i:032x}" for i in range(21, 26)]
    works = [((lambda _s, i=i: i), [row]) for i, row in zip(ids, _learner_rows_of(db, ids))]
    out, commits, statements = _writes_queued_behind_a_held_turn(db, works)
    assert out == ids and len(commits) == 1
    runs = [testing.values_groups(s) for s in statements if s.startswith("INSERT INTO learners")]
    assert runs == [5]  # one statement with a row for each write of the group
    assert set(ids) <= set(_learner_rows(db))


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_a_row_that_fails_in_a_group_costs_no_other_write(app):
    from sqlalchemy import insert
    from sqlalchemy.exc import IntegrityError

    from quizapp.storage.models import Learner

    db = get_db(app)
    ids = [f"{i:032x}" for i in range(31, 35)]
    rows = _learner_rows_of(db, ids)
    there = "e" * 32
    _writes_queued_behind_a_held_turn(db, [_add_learner(there)])
    clash = (insert(Learner.__table__), {"id": there, "role": "learner"})  # a second row with a stored id
    works = [((lambda _s, i=i: i), [row]) for i, row in zip(ids, rows)]
    works.insert(2, ((lambda _s: "clash"), [clash]))
    out, _commits, _statements = _writes_queued_behind_a_held_turn(db, works)
    assert isinstance(out[2], IntegrityError)
    assert [out[i] for i in (0, 1, 3, 4)] == ids
    assert set(ids) <= set(_learner_rows(db))


def test_rows_keep_each_writes_order():
    """A statement first given by a later write goes right after the one before it there: the learner's
    row before the attempt that needs it, even when the first write of the group had no learner row."""
    from quizapp.storage import group_commit

    class _Conn:
        def __init__(self):
            self.ran = []

        def execute(self, stmt, params):
            self.ran.append((stmt, params if isinstance(params, list) else [params]))

    conn = _Conn()

    class _Session:
        def connection(self):
            return conn

    learner, attempt, card = object(), object(), object()
    group_commit._run_rows(_Session(), [[(attempt, {"a": 1})], [(learner, {"l": 2}), (attempt, {"a": 2}), (card, {"c": 2})]])
    assert conn.ran == [(learner, [{"l": 2}]), (attempt, [{"a": 1}, {"a": 2}]), (card, [{"c": 2}])]


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_no_write_of_a_group_returns_before_the_group_is_on_disk(app, monkeypatch):
    """The group commits with synchronous=NORMAL and syncs the WAL itself after the turn: a write whose sync
    failed is not answered as done, though its transaction committed."""
    from quizapp.storage import group_commit

    def no_disk(_path):
        raise OSError("the disk is gone")

    monkeypatch.setattr(group_commit, "_sync_to_disk", no_disk)
    db = get_db(app)
    ids = [f"{i:032x}" for i in range(41, 46)]
    out, commits, _statements = _writes_queued_behind_a_held_turn(db, [_add_learner(i) for i in ids])
    assert len(commits) == 1 and all(isinstance(o, Exception) for o in out), out
    # the group's writer raises its own sync's error; the writes it made for the others raise too
    assert isinstance(out[0], OSError)
    assert all(isinstance(o, RuntimeError) and "durable" in str(o) for o in out[1:]), out


@pytest.mark.sqlite_only(reason="group commit gathers the writers waiting for SQLite's one writer turn")
def test_when_the_turn_cannot_be_taken_every_queued_write_fails_and_none_waits_on(app, monkeypatch):
    from contextlib import contextmanager

    from quizapp.storage import group_commit

    taken = group_commit.write_turn

    @contextmanager
    def broken_turn(session):
        with taken(session):  # waits while the test holds the turn, as the real one
            pass
        raise OSError("the lock file is gone")
        yield  # pragma: no cover - a generator context manager

    monkeypatch.setattr(group_commit, "write_turn", broken_turn)
    db = get_db(app)
    ids = [f"{i:032x}" for i in range(61, 65)]
    out, commits, _statements = _writes_queued_behind_a_held_turn(db, [_add_learner(i) for i in ids])
    assert commits == [] and isinstance(out[0], OSError)
    assert all(isinstance(o, RuntimeError) and "not run" in str(o) for o in out[1:]), out
    assert not set(ids) & set(_learner_rows(db))


@pytest.mark.sqlite_only(reason="the pragmas are SQLite's")
def test_only_the_group_commit_leaves_the_sync_to_after_the_turn(app):
    from sqlalchemy import text

    from quizapp.storage import group_commit

    db = get_db(app)
    with db.engine.connect() as conn:
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL: every other write
    with group_commit._group_writer(db.engine)() as writer:
        assert writer.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL, then _sync_to_disk
        assert writer.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    assert group_commit._group_writer(db.engine) is group_commit._group_writer(db.engine)  # one per process and database


def test_normal_is_refused_without_a_wal():
    from sqlalchemy import text

    from quizapp.storage.db_engine import make_engine

    engine = make_engine("sqlite://", synchronous="NORMAL")  # in memory: no WAL to sync after the turn
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2
    engine.dispose()
