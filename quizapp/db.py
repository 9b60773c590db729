"""SQLAlchemy 2.0 engine and one session per request (or per CLI command).

SQLite connections get ``journal_mode=WAL``, ``busy_timeout``, ``foreign_keys=ON`` and
``synchronous=FULL`` on connect: concurrent writers (threads, and the worker processes of ``quizapp serve``)
wait for each other instead of failing with "database is locked", readers never wait for a writer, and a
commit returns only once the WAL is synced, so an attempt answered with 201 survives a power loss
(``NORMAL`` syncs only at checkpoints: a crash of the machine could drop acknowledged attempts; the cost
is measured by ``benchmarks/bench_load.py``). The driver opens a transaction only at the first write
(pysqlite's default), so a write transaction holds the lock from its first INSERT to its commit and never
has to upgrade a stale read snapshot. Any other URL (PostgreSQL through psycopg) is used unchanged.

Usage inside a request or app context::

    from quizapp.db import get_session
    session = get_session()          # the same Session for the whole request; closed on teardown
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

EXTENSION_KEY = "quizapp.db"


class Database:
    """An engine and its session factory for one application."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 30_000, echo: bool = False):
        self.url = url
        self.engine: Engine = make_engine(url, busy_timeout_ms=busy_timeout_ms, echo=echo)
        self.Session = sessionmaker(self.engine, expire_on_commit=False)

    def dispose(self) -> None:
        self.engine.dispose()


def make_engine(url: str, *, busy_timeout_ms: int = 30_000, echo: bool = False) -> Engine:
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"echo": echo}
    if parsed.get_backend_name() == "sqlite":
        # check_same_thread: waitress hands requests to worker threads; a pooled connection is only
        # ever used by one thread at a time. timeout: the driver's own busy wait, in seconds.
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout_ms / 1000}
        if parsed.database in (None, "", ":memory:"):
            kwargs["poolclass"] = StaticPool
    else:
        kwargs["pool_pre_ping"] = True
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        _install_sqlite_pragmas(engine, busy_timeout_ms)
    return engine


def _install_sqlite_pragmas(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # pragma: no branch - trivial
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()


def init_app(app: Flask) -> Database:
    db = Database(app.config["DATABASE_URL"], busy_timeout_ms=int(app.config.get("SQLITE_BUSY_TIMEOUT_MS", 30_000)),
                  echo=bool(app.config.get("SQLALCHEMY_ECHO", False)))
    app.extensions[EXTENSION_KEY] = db
    app.teardown_appcontext(_close_session)
    return db


def get_db(app: Flask | None = None) -> Database:
    return (app or current_app).extensions[EXTENSION_KEY]


def get_session() -> Session:
    """The session of the current request/app context (created on first use, closed on teardown)."""
    session = g.get("_quizapp_session")
    if session is None:
        session = get_db().Session()
        g._quizapp_session = session
    return session


def _close_session(_exc: BaseException | None) -> None:
    session = g.pop("_quizapp_session", None)
    if session is not None:
        session.close()  # rolls back anything not committed
