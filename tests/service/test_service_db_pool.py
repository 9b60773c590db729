"""A worker's connection pool holds a connection for each of its request threads at once: a request keeps
its connection from its first query to its end (a submit also while it waits for the writer's turn), so a
smaller pool would make requests queue for a connection while a core is free."""

from __future__ import annotations

import threading

import quiz_testing as testing
from quizapp.config import DEFAULT_THREADS
from quizapp.storage.db import get_db


def test_every_request_thread_gets_a_connection_at_once(tmp_path, db_url):
    app = testing.make_app(tmp_path, database_url=db_url)
    db = get_db(app)
    sessions = [db.Session() for _ in range(DEFAULT_THREADS)]
    held = []

    def check_out_all() -> None:
        for session in sessions:  # a pool smaller than this would block here until its timeout
            session.connection()
            held.append(session)

    worker = threading.Thread(target=check_out_all, daemon=True)
    worker.start()
    worker.join(timeout=20)  # a bound on a hang, not a measurement: the checkouts above never wait
    try:
        assert len(held) == DEFAULT_THREADS and db.engine.pool.checkedout() == DEFAULT_THREADS
    finally:
        for session in held:
            session.close()
        db.dispose()


def test_the_pool_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DB_POOL_SIZE", "3")
    monkeypatch.setenv("DB_POOL_OVERFLOW", "1")
    app = testing.make_app(tmp_path, migrate=False)
    pool = get_db(app).engine.pool
    assert (pool.size(), pool._max_overflow) == (3, 1)  # no public reader of the overflow allowed
