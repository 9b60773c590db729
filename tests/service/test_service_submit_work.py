"""The work of one graded submit, counted rather than timed: the SQL statements it runs and the commits it
makes, for a first-time anonymous learner (no cookie yet), a returning anonymous learner and a signed-in
learner. Each statement is named by its verb and table, so an extra query, a flush of an ORM object, a second
commit or a read of earlier attempts on the hot path fails here (each commit is a wait for the disk, each
statement a call into the database that gives up the interpreter)."""

from __future__ import annotations

import re

import pytest

import quiz_testing as testing
from quizapp.storage.db import get_db

QID = testing.SAMPLE_QUESTION["id"]
PASSWORD = "a long passphrase 42"
# The published set's fingerprint is read again only after PUBLISHED_SET_RECHECK seconds: an hour here, so
# that no submit below pays for it (a recheck is the question cache's work, not the submit's).
RECHECK_S = 3600

_TABLE = re.compile(r'^(INSERT INTO|UPDATE|DELETE FROM|SELECT .*? FROM) "?([a-z_]+)"?', re.S)


@pytest.fixture
def app(tmp_path, db_url):
    app = testing.make_app(tmp_path, database_url=db_url, PUBLISHED_SET_RECHECK=RECHECK_S)
    testing.load_sample(app)
    yield app
    get_db(app).dispose()


def _submit(client, variant: int):
    r = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": {"a": "1.0", "b": "yes"}})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r


def _kind(statement: str) -> str:
    """``"SELECT review_cards"``, ``"INSERT attempts"``...: what a statement does to which table."""
    match = _TABLE.match(statement)
    assert match is not None, statement
    return f"{match.group(1).split()[0]} {match.group(2)}"


def _work(app, client, variant: int, seen_out: list | None = None) -> tuple[list[str], int, dict]:
    """The kinds of the statements of one submit (sorted), its commits and its response body; the statements
    themselves are appended to ``seen_out`` when given."""
    with testing.sql_seen(get_db(app).engine) as seen:
        body = _submit(client, variant).get_json()
    if seen_out is not None:
        seen_out.extend(seen.statements)
    return sorted(_kind(s) for s in seen.statements), seen.commits, body


def _warm(app) -> None:
    """Another learner's submit first: the worker's copy of the published questions is filled."""
    _submit(app.test_client(), 0)


def test_a_first_submit_reads_nothing_and_writes_four_rows_in_one_commit(app):
    _warm(app)
    kinds, commits, body = _work(app, app.test_client(), 3)
    # No cookie: the learner is made up for this request, so there is nothing of theirs to read.
    assert kinds == ["INSERT attempts", "INSERT learners", "INSERT practice_summaries", "INSERT review_cards"]
    assert commits == 1
    assert body["practice"]["tries_used"] == 1 and body["review"]["reps"] == 1


def test_a_returning_learners_submit_reads_three_rows_and_writes_three_in_one_commit(app):
    _warm(app)
    client = app.test_client()
    for variant in (3, 4):
        _submit(client, variant)
    kinds, commits, body = _work(app, client, 4)
    # their summary of the question, the hints and solution requests since it, the review card; then the
    # attempt, the summary and the card (the learner's row exists: the summary shows it)
    assert kinds == ["INSERT attempts", "SELECT practice_events", "SELECT practice_summaries", "SELECT review_cards",
                     "UPDATE practice_summaries", "UPDATE review_cards"]
    assert commits == 1
    assert body["practice"]["tries_used"] == 3 and body["review"]["reps"] == 3  # the third submit on the question


def test_a_signed_in_learners_submit_adds_one_read_the_sign_in_check(app):
    _warm(app)
    client = app.test_client()
    assert client.post("/api/v1/account/signup", json={"email": "ada@example.org", "password": PASSWORD}).status_code == 201
    _submit(client, 5)  # the account's first submit: its summary of the question is made
    statements: list[str] = []
    kinds, commits, body = _work(app, client, 5, statements)
    reads = [k for k in kinds if k.startswith("SELECT")]
    writes = [k for k in kinds if not k.startswith("SELECT")]
    # the sign-in is checked against its server-side session (signing out must take effect at once), read
    # with its account in one statement; the rest is a returning learner's submit
    assert reads == ["SELECT learner_accounts", "SELECT practice_events", "SELECT practice_summaries",
                     "SELECT review_cards"], kinds
    [sign_in] = [s for s in statements if _kind(s) == "SELECT learner_accounts"]
    assert "signed_in_sessions" in sign_in, sign_in
    assert writes == ["INSERT attempts", "UPDATE practice_summaries", "UPDATE review_cards"]
    assert commits == 1
    assert body["practice"]["tries_used"] == 2

