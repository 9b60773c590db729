"""The tests in tests/pg/ run on a throwaway PostgreSQL cluster: ``pg_cluster`` (one per session or xdist
worker) and ``pg_url`` (a fresh, empty database per test) come from the root conftest.py, the cluster itself from
tests/support/pg_cluster.py. These tests are PostgreSQL's own (migrations, full-text search, locks); the
database folders' tests run on PostgreSQL too through ``--db``.
"""

from __future__ import annotations

import pytest

import quiz_testing as testing


@pytest.fixture
def pg_app(tmp_path, pg_url):
    """The app on a migrated PostgreSQL database holding the sample question."""
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path, database_url=pg_url)
    testing.load_sample(app)
    yield app
    get_db(app).dispose()
