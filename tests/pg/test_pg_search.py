"""Question search on PostgreSQL (tsvector + GIN, migration 0006): the same cases as on SQLite's FTS5."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the shared cases

import bank_fixture  # noqa: E402
import cases  # noqa: E402

import quiz_testing as testing  # noqa: E402
from quizapp.storage.db import get_db  # noqa: E402


@pytest.fixture()
def pg_discover_app(tmp_path, pg_url):
    app = testing.make_app(tmp_path, DATABASE_URL=pg_url)
    bank_fixture.load(app, tmp_path / "bank")
    app.config["QUIZ_BANK_PATH"] = str(tmp_path / "bank")
    yield app
    get_db(app).dispose()


def test_pg_search_walk_and_errors(pg_discover_app):
    client = pg_discover_app.test_client()
    cases.check_search(client)
    cases.check_errors(client)
    cases.check_walk(client)
    with get_db(pg_discover_app).engine.connect() as conn:
        index = conn.execute(text("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_question_search_tsv'")).scalar()
        assert index is not None and "gin" in index.lower()
        assert conn.execute(text("SELECT count(*) FROM question_search")).scalar() == len(bank_fixture.QUESTIONS)
