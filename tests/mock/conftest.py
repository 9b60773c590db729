"""Fixtures of the mock-interview tests: an app holding the small tagged bank (tests/discover)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the small tagged bank

import bank_fixture  # noqa: E402

import quiz_testing as testing  # noqa: E402
from quizapp.storage.db import get_db  # noqa: E402


@pytest.fixture()
def mock_app(tmp_path):
    app = testing.make_app(tmp_path)
    bank_fixture.load(app, tmp_path / "bank")
    app.config["QUIZ_BANK_PATH"] = str(tmp_path / "bank")
    yield app
    get_db(app).dispose()

