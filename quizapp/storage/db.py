"""The application's database: its engine (:mod:`quizapp.storage.db_engine`) and one session per request (or per CLI
command).

Attempts are written differently (:mod:`quizapp.storage.group_commit`, on SQLite in the writer's turn of
:mod:`quizapp.storage.write_turn`); every other read and write goes through the request's session.

Usage inside a request or app context::

    from quizapp.storage.db import get_session
    session = get_session()          # the same Session for the whole request; closed on teardown
"""

from __future__ import annotations

from flask import Flask, current_app, g
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from ..config import DEFAULT_DB_POOL_OVERFLOW, DEFAULT_DB_POOL_SIZE
from .db_engine import make_engine
from .group_commit import drop_group_writer

EXTENSION_KEY = "quizapp.db"


class Database:
    """An engine and its session factory for one application."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 30_000, echo: bool = False,
                 pool_size: int = DEFAULT_DB_POOL_SIZE, pool_overflow: int = DEFAULT_DB_POOL_OVERFLOW):
        self.url = url
        self.engine: Engine = make_engine(url, busy_timeout_ms=busy_timeout_ms, echo=echo, pool_size=pool_size,
                                          pool_overflow=pool_overflow)
        self.Session = sessionmaker(self.engine, expire_on_commit=False)

    def dispose(self) -> None:
        drop_group_writer(self.engine)
        self.engine.dispose()


def init_app(app: Flask) -> Database:
    db = Database(app.config["DATABASE_URL"], busy_timeout_ms=int(app.config.get("SQLITE_BUSY_TIMEOUT_MS", 30_000)),
                  echo=bool(app.config.get("SQLALCHEMY_ECHO", False)),
                  pool_size=int(app.config.get("DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE)),
                  pool_overflow=int(app.config.get("DB_POOL_OVERFLOW", DEFAULT_DB_POOL_OVERFLOW)))
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
