"""Fixtures of the kind tests: an app serving given questions, with an author account."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import quiz_testing as testing


@pytest.fixture()
def kinds_app(tmp_path) -> Callable[..., Any]:
    """``kinds_app(*questions)``: an app (SQLite in ``tmp_path``) serving ``questions``, with an author
    ``alice`` (password in ``app.config["TEST_AUTHOR_PASSWORD"]``)."""
    apps = []

    def make(*questions: dict[str, Any]):
        from quizapp.auth import create_author
        from quizapp.storage.db import get_db

        folder = tmp_path / f"app{len(apps)}"
        folder.mkdir()
        app = testing.make_app(folder)
        testing.load_sample(app, *questions)
        with app.app_context():
            with get_db(app).Session() as s:
                create_author(s, "alice", "kind-tests-password-1")
        app.config["TEST_AUTHOR_PASSWORD"] = "kind-tests-password-1"
        apps.append(app)
        return app

    yield make
    from quizapp.storage.db import get_db

    for app in apps:
        get_db(app).dispose()
