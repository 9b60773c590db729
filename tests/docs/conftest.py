"""A live service for the documentation's examples: the real app on a temporary, migrated SQLite database
holding the question bank, served by waitress on a free port of 127.0.0.1 (as the browser tests do)."""

from __future__ import annotations

import pytest

import quiz_testing as testing


@pytest.fixture(scope="module")
def docs_live_server(tmp_path_factory):
    from quizapp.storage.db import get_db, get_session
    from quizapp.services import questions as qsvc

    tmp = tmp_path_factory.mktemp("docs-live")
    app = testing.make_app(tmp)
    with app.app_context():
        summary = qsvc.load_bank_dir(get_session(), app.config["QUIZ_BANK_PATH"])
        assert summary.added, "the bank holds no questions"
    with testing.serve_in_thread(app, threads=4, name="docs-live-server") as url:
        yield url
    get_db(app).dispose()
