"""32 threads submit attempts at once to a live waitress server on a SQLite file: every 201 is stored
and no request fails with "database is locked"."""

import json

import pytest
from sqlalchemy import select

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.storage.models import Attempt

N = 32


@pytest.mark.slow
def test_32_concurrent_attempts(app):
    with testing.serve_in_thread(app, threads=16) as url:
        results = testing.post_attempts_concurrently(url, N, timeout=120, join_timeout=180)

    failures = [r for r in results if r is None or r[0] != 201]
    assert not failures, failures[:3]
    assert not any("locked" in json.dumps(r[1]) for r in results)
    ids = {r[1]["attempt_id"] for r in results}
    assert len(ids) == N
    with app.app_context():
        session = get_db(app).Session()
        stored = set(session.scalars(select(Attempt.id)))
        session.close()
    assert ids <= stored and len(stored) == N
