"""The pragmas every SQLite connection of the service gets when it is opened.

``journal_mode=WAL``: readers never wait for a writer, and concurrent writers (threads, and the worker
processes of ``quizapp serve``) wait for each other in the busy handler (``busy_timeout``) instead of failing
with "database is locked". ``foreign_keys=ON``. ``synchronous=FULL``: a commit returns only once the WAL is
synced, so an attempt answered with 201 survives a power loss (``NORMAL`` syncs only at checkpoints: a crash
of the machine could drop acknowledged attempts; the cost is measured by ``benchmarks/bench_load.py``). The
one connection allowed ``NORMAL`` is the group commit's (:mod:`quizapp.storage.group_commit`), which syncs the WAL
itself before answering, and only in WAL mode.
"""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.engine import Engine

SYNCHRONOUS = ("FULL", "NORMAL")


def install(engine: Engine, busy_timeout_ms: int, synchronous: str) -> None:
    """Set the pragmas on every connection ``engine`` opens: WAL, ``busy_timeout_ms``, foreign keys and
    ``synchronous`` (one of :data:`SYNCHRONOUS`; ``FULL`` whatever is asked when the file is not in WAL
    mode, an in-memory database for one)."""
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # pragma: no branch - trivial
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            mode = cursor.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            # NORMAL is safe from corruption only with a WAL (it is then made durable by the group commit's
            # own sync); a file that cannot be put in WAL mode keeps FULL.
            cursor.execute(f"PRAGMA synchronous = {synchronous if str(mode).lower() == 'wal' else 'FULL'}")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()
