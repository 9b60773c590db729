"""The question list comes from a per-process cache keyed by the set of published versions: a second
listing decodes no version, and publishing (from this process or any other connection) is seen at once."""

import sqlite3

import pytest
from sqlalchemy import event

import quiz_testing as testing
from quizapp.db import get_db
from quizapp.models import QuestionVersion
from quizapp.services import question_cache
from quizapp.services.questions import list_questions


def test_second_listing_loads_no_version(app, client):
    question_cache.clear()
    seen = []

    def on_load(target, _ctx):  # each QuestionVersion loaded from the database decodes its JSON document
        seen.append(target.id)

    event.listen(QuestionVersion, "load", on_load)
    try:
        first = client.get("/api/v1/questions").get_json()["questions"]
        loaded = len(seen)
        second = client.get("/api/v1/questions").get_json()["questions"]
    finally:
        event.remove(QuestionVersion, "load", on_load)
    assert loaded >= 1 and len(seen) == loaded  # the second request decoded nothing
    assert first == second and [q["id"] for q in first] == [testing.SAMPLE_QUESTION["id"]]


def test_a_new_published_version_is_listed_at_once(app, client):
    assert client.get("/api/v1/questions").get_json()["questions"][0]["version"] == 1
    testing.load_sample(app, testing.sample_question(tags=["changed"]))  # publishes version 2
    listed = client.get("/api/v1/questions").get_json()["questions"]
    assert [(q["version"], q["tags"]) for q in listed] == [(2, ["changed"])]


@pytest.mark.sqlite_only(reason="the other process writes the SQLite file with the sqlite3 module")
def test_a_change_made_by_another_process_is_seen(app, client):
    assert len(client.get("/api/v1/questions").get_json()["questions"]) == 1
    # Another process retires the question behind this one's back (plain sqlite3, not this app's engine).
    path = app.config["DATABASE_URL"].removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE question_versions SET status = 'retired' WHERE status = 'published'")
    assert client.get("/api/v1/questions").get_json()["questions"] == []


def test_rows_handed_out_are_copies(app):
    with app.app_context():
        session = get_db(app).Session()
        row = list_questions(session)[0]
        row["status"] = "mine"  # a caller annotating its rows (the discovery page does)
        assert "status" not in list_questions(session)[0]
        session.close()


def test_a_submit_reads_the_published_version_once(app, client):
    engine = get_db(app).engine
    statements = []

    def on_execute(_conn, _cursor, statement, _params, _context, _many):
        if "FROM question_versions" in statement:
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", on_execute)
    try:
        r = client.post(f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts",
                        json={"variant": 3, "answers": {"a": "1.0", "b": "yes"}})
    finally:
        event.remove(engine, "before_cursor_execute", on_execute)
    assert r.status_code == 201
    published = [s for s in statements if "status" in s and "question_versions.question_id" in s]
    assert len(published) == 1, statements


def test_the_memo_follows_a_publish_in_the_same_session(app):
    from quizapp.services.questions import add_version, published_version

    with app.app_context():
        session = get_db(app).Session()
        first = published_version(session, testing.SAMPLE_QUESTION["id"])
        newer = add_version(session, testing.sample_question(tags=["again"]), content_hash="x" * 64,
                            status="published")
        assert published_version(session, testing.SAMPLE_QUESTION["id"]) is newer is not first
        session.rollback()
        session.close()
