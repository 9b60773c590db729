"""The question list comes from a per-process cache keyed by the set of published versions: a second
listing decodes no version; a publish committed by this process is seen at once, one committed by another
process within ``PUBLISHED_SET_RECHECK`` seconds, and at once by a request for a question id the cache does
not know."""

from contextlib import contextmanager

import pytest
from sqlalchemy import event

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.storage.models import QuestionVersion
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


@pytest.fixture
def frozen_clock(monkeypatch):
    """The cache's clock, stopped: only what the test moves it by passes."""
    now = [1_000.0]
    monkeypatch.setattr(question_cache, "clock", lambda: now[0])
    return now


@contextmanager
def as_another_process(monkeypatch):
    """Commits made in the block reach this process's cache the way another process's do: through the
    database alone (this process is not told of them)."""
    with monkeypatch.context() as m:
        m.setattr(question_cache, "changed_here", lambda: None)
        yield


def _listed(client) -> list[tuple[str, int, list]]:
    return [(q["id"], q["version"], q["tags"]) for q in client.get("/api/v1/questions").get_json()["questions"]]


def test_a_new_published_version_is_listed_at_once(app, client, frozen_clock):
    assert client.get("/api/v1/questions").get_json()["questions"][0]["version"] == 1
    testing.load_sample(app, testing.sample_question(tags=["changed"]))  # publishes version 2, in this process
    listed = client.get("/api/v1/questions").get_json()["questions"]
    assert [(q["version"], q["tags"]) for q in listed] == [(2, ["changed"])]


def test_a_change_committed_elsewhere_is_seen_within_the_recheck_interval(app, client, frozen_clock,
                                                                          monkeypatch):
    qid = testing.SAMPLE_QUESTION["id"]
    assert _listed(client) == [(qid, 1, testing.SAMPLE_QUESTION["tags"])]
    with as_another_process(monkeypatch):
        testing.load_sample(app, testing.sample_question(tags=["changed"]))  # version 2
    interval = app.config["PUBLISHED_SET_RECHECK"]
    frozen_clock[0] += interval * 0.9
    assert _listed(client) == [(qid, 1, testing.SAMPLE_QUESTION["tags"])]  # the copy is trusted this long
    frozen_clock[0] += interval * 0.2
    assert _listed(client) == [(qid, 2, ["changed"])]
    page = client.get(f"/api/v1/questions/{qid}").get_json()
    assert page["version"] == 2


def test_with_no_recheck_interval_every_request_reads_the_set(app, client, frozen_clock, monkeypatch):
    app.config["PUBLISHED_SET_RECHECK"] = 0
    assert len(_listed(client)) == 1
    with as_another_process(monkeypatch):
        testing.load_sample(app, testing.sample_question(tags=["changed"]))
    assert [tags for _id, _v, tags in _listed(client)] == [["changed"]]


def test_a_question_published_elsewhere_is_found_at_once_by_its_id(app, client, frozen_clock, monkeypatch):
    assert len(_listed(client)) == 1
    other = testing.sample_question(id="svc-elsewhere", title={"en": "Published elsewhere", "zh": "别处发布"})
    with as_another_process(monkeypatch):
        testing.load_sample(app, other)
    assert client.get("/api/v1/questions/svc-elsewhere").status_code == 200  # an id not kept: checked at once
    r = client.post("/api/v1/questions/svc-elsewhere/attempts", json={"variant": 0, "answers": {"a": "1.0"}})
    assert r.status_code == 201 and r.get_json()["question_id"] == "svc-elsewhere"
    assert client.get("/api/v1/questions/never-published").status_code == 404
    assert {q for q, _v, _t in _listed(client)} == {testing.SAMPLE_QUESTION["id"], "svc-elsewhere"}


def test_a_change_written_without_the_orm_is_seen_after_the_interval(app, client, frozen_clock):
    """A change that reaches the database some other way (SQL by hand, another program) is found by the
    fingerprint: no message is needed."""
    assert len(_listed(client)) == 1
    engine = get_db(app).engine
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE question_versions SET status = 'retired' WHERE status = 'published'")
    frozen_clock[0] += app.config["PUBLISHED_SET_RECHECK"] + 0.1
    assert _listed(client) == []


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


@pytest.mark.parametrize("raw, expected", [("0", 0.0), ("2.5", 2.5), ("", 1.0)])
def test_the_recheck_interval_comes_from_the_environment(monkeypatch, raw, expected):
    from quizapp.config import DEFAULT_PUBLISHED_SET_RECHECK, from_env

    monkeypatch.setenv("PUBLISHED_SET_RECHECK", raw)
    assert from_env("/nowhere")["PUBLISHED_SET_RECHECK"] == (expected if raw else DEFAULT_PUBLISHED_SET_RECHECK)


@pytest.mark.parametrize("raw", ["-1", "soon", "nan", "inf"])
def test_a_bad_recheck_interval_is_refused_naming_the_variable(monkeypatch, raw):
    from quizapp.config import from_env

    monkeypatch.setenv("PUBLISHED_SET_RECHECK", raw)
    with pytest.raises(RuntimeError, match="PUBLISHED_SET_RECHECK"):
        from_env("/nowhere")
