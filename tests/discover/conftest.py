from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the shared cases (also run by tests/pg)


@pytest.fixture()
def discover_app(tmp_path, db_url):
    import bank_fixture

    import quiz_testing as testing
    from quizapp.storage.db import get_db

    app = testing.make_app(tmp_path, database_url=db_url)
    bank_fixture.load(app, tmp_path / "bank")
    app.config["QUIZ_BANK_PATH"] = str(tmp_path / "bank")
    yield app
    get_db(app).dispose()
