"""Alembic environment for the quiz service.

The database URL comes from, in order: a connection handed over by the app
(``config.attributes["connection"]``, used by ``quizapp db-upgrade`` and the tests), the
``sqlalchemy.url`` option, ``DATABASE_URL``, else the app's default (SQLite under the instance folder).
On PostgreSQL an advisory lock serialises concurrent upgrades (several workers starting at once).
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import text

from quizapp.storage.models import Base

config = context.config
target_metadata = Base.metadata

if config.config_file_name is not None and not config.attributes.get("connection"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

PG_LOCK_KEY = 7_402_115_001  # arbitrary, constant: "quizapp migrations"


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from quizapp import create_app  # reads DATABASE_URL / the instance folder like the app does
    return create_app({"QUIZ_SKIP_DB": True}).config["DATABASE_URL"]


def _configure_and_run(connection) -> None:
    from quizapp.discover.index import autogen_include_name  # the search index's tables are not models

    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite", compare_type=True,
                      include_name=autogen_include_name)
    is_pg = connection.dialect.name == "postgresql"
    if is_pg:
        connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": PG_LOCK_KEY})
    try:
        with context.begin_transaction():
            context.run_migrations()
    finally:
        if is_pg:
            connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": PG_LOCK_KEY})
            connection.commit()


def run_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure_and_run(connection)
        return
    from quizapp.storage.db_engine import make_engine
    engine = make_engine(_url())
    try:
        with engine.connect() as conn:
            _configure_and_run(conn)
            conn.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
