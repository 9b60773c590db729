"""Fixtures shared across the test folders: ``app``, the service on a migrated SQLite file holding the
sample question (``quizapp.testing``), and ``client``, its test client."""

import pytest

from quizapp import testing


@pytest.fixture
def app(tmp_path):
    app = testing.make_app(tmp_path)
    testing.load_sample(app)
    yield app
    from quizapp.db import get_db
    get_db(app).dispose()


@pytest.fixture
def client(app):
    return app.test_client()
