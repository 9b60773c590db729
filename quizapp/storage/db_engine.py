"""The SQLAlchemy engine of a database URL, as the service uses it.

A SQLite file gets the service's pragmas on every connection (:mod:`quizapp.storage.sqlite_pragmas`) and a pool of
``pool_size`` connections; SQLite in memory is one shared connection. The driver opens a transaction only at
the first write (pysqlite's default), so a write transaction holds the lock from its first INSERT to its
commit and never has to upgrade a stale read snapshot. Any other URL (PostgreSQL through psycopg) is used
unchanged, with ``pool_pre_ping``.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from . import sqlite_pragmas
from . import json_columns
from ..config import DEFAULT_DB_POOL_OVERFLOW, DEFAULT_DB_POOL_SIZE

# SQLite engines made here -> the options they were made with (the group commit makes its own engine alike).
sqlite_options: weakref.WeakKeyDictionary[Engine, dict[str, Any]] = weakref.WeakKeyDictionary()
# Every engine made here -> its SQLite file, or None: looked up at each attempt's write rather than worked
# out again from the URL.
_files: weakref.WeakKeyDictionary[Engine, str | None] = weakref.WeakKeyDictionary()


def make_engine(url: str, *, busy_timeout_ms: int = 30_000, echo: bool = False,
                pool_size: int = DEFAULT_DB_POOL_SIZE, pool_overflow: int = DEFAULT_DB_POOL_OVERFLOW,
                synchronous: str = "FULL") -> Engine:
    """The engine of ``url``: for a SQLite file with WAL, a busy timeout and ``synchronous`` (``FULL``
    unless it is the group commit's own engine); a pool of ``pool_size`` connections (``pool_overflow`` more
    at busy moments) except for SQLite in memory, which is one shared connection."""
    parsed = make_url(url)
    # The JSON columns (answers, verdicts, a learner's summary...) are encoded on every submit: orjson.
    kwargs: dict[str, Any] = {"echo": echo, "json_serializer": json_columns.dumps_text,
                              "json_deserializer": json_columns.loads_text}
    path = sqlite_path(parsed)
    in_memory = parsed.get_backend_name() == "sqlite" and path is None
    if parsed.get_backend_name() == "sqlite":
        # check_same_thread: waitress hands requests to worker threads; a pooled connection is only
        # ever used by one thread at a time. timeout: the driver's own busy wait, in seconds.
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout_ms / 1000}
        if in_memory:
            kwargs["poolclass"] = StaticPool
    else:
        kwargs["pool_pre_ping"] = True
    if not in_memory:
        kwargs["pool_size"], kwargs["max_overflow"] = pool_size, pool_overflow
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        sqlite_pragmas.install(engine, busy_timeout_ms, synchronous)
        sqlite_options[engine] = {"busy_timeout_ms": busy_timeout_ms, "echo": echo}
    _files[engine] = path
    return engine


def sqlite_path(url: URL) -> str | None:
    """The file of the SQLite database at ``url``, or None (another database, or one in memory)."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return os.path.abspath(url.database)


def sqlite_file(session: Session) -> str | None:
    """The SQLite database file ``session`` writes to, or None (another database, or one in memory)."""
    bind = session.get_bind()
    try:
        return _files[bind]
    except (KeyError, TypeError):  # an engine made elsewhere (a test's own), or a connection
        return sqlite_path(bind.engine.url)
