"""Fixtures for the authoring tests: an app on a migrated database (``db_url``: SQLite and PostgreSQL) with the
sample question, an author, a learner with credentials, and their API tokens (one of the author's revoked)."""

from __future__ import annotations

import copy

import pytest

import quiz_testing as testing

AUTHOR_PASSWORD = "correct horse battery"
LEARNER_PASSWORD = "learner password 123"


def author_question(qid: str = "auth-t-double", **changes) -> dict:
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = qid
    data["tags"] = ["kl", "authoring-test"]
    data.update(changes)
    return data


@pytest.fixture
def authoring_question():
    return author_question


@pytest.fixture
def authoring_app(tmp_path, db_url):
    app = testing.make_app(tmp_path, database_url=db_url)
    testing.load_sample(app)
    from quizapp.auth import create_author, create_token, revoke_token
    from quizapp.storage.db import get_db

    with app.app_context():
        s = get_db(app).Session()
        author = create_author(s, "alice", AUTHOR_PASSWORD)
        learner = create_author(s, "bob", LEARNER_PASSWORD, role="learner")
        _, author_token = create_token(s, author.id, "ci")
        _, learner_token = create_token(s, learner.id, "bob's")
        revoked_row, revoked_token = create_token(s, author.id, "old")
        revoke_token(s, revoked_row.id)
        app.config["TEST_AUTH"] = {"author_id": author.id, "learner_id": learner.id,
                                   "author_token": author_token, "learner_token": learner_token,
                                   "revoked_token": revoked_token}
        s.close()
    yield app
    get_db(app).dispose()


@pytest.fixture
def authoring_client(authoring_app):
    return authoring_app.test_client()


@pytest.fixture
def authoring_creds(authoring_app):
    return authoring_app.config["TEST_AUTH"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def authoring_bearer():
    return bearer


@pytest.fixture
def authoring_passwords():
    return {"alice": AUTHOR_PASSWORD, "bob": LEARNER_PASSWORD}


@pytest.fixture
def authoring_login():
    return testing.author_login
