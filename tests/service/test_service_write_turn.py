"""Attempt writers on SQLite take turns (quizapp.db.write_turn): one holder at a time among the threads of
a process, and across processes through flock on ``<database>-writers``; other databases pass through."""

import fcntl
import os
import threading

import pytest

from quizapp.db import get_db, write_turn


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
