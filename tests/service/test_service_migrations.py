"""Alembic: upgrade to head on an empty database matches the models; downgrade to base works."""

import quiz_testing as testing
from quizapp.storage.db import get_db


def test_upgrade_matches_models_and_downgrade_to_base(tmp_path):
    testing.assert_migration_round_trip(testing.make_app(tmp_path, migrate=False))


def test_sqlite_pragmas(tmp_path):
    app = testing.make_app(tmp_path)
    with get_db(app).engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar().lower() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    get_db(app).dispose()


def test_postgres_url_builds_an_engine_without_connecting():
    """psycopg is in the test extra; tests/pg/ run migrations and the service on a real PostgreSQL."""
    from quizapp.storage.db_engine import make_engine
    engine = make_engine("postgresql+psycopg://u:p@localhost:1/db")
    assert engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg"
    assert engine.pool._pre_ping  # pool_pre_ping: a restarted server does not fail the next request
    engine.dispose()
