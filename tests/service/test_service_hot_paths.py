"""The hot paths do their work once per published set, not once per request: the API list is encoded once
per language and filter and served as stored bytes until a publish changes the set; the kept views stay
bounded whatever filters clients invent; a numeric attempt reads the published version once."""

import quiz_testing as testing
from quizapp.api import questions as api_questions
from quizapp.services import question_cache


def _counting_summaries(monkeypatch) -> list:
    calls = []
    original = api_questions._summary

    def counted(row, lang):
        calls.append((row["id"], lang))
        return original(row, lang)

    monkeypatch.setattr(api_questions, "_summary", counted)
    return calls


def test_the_list_is_encoded_once_per_published_set(app, client, monkeypatch):
    question_cache.clear()
    calls = _counting_summaries(monkeypatch)
    first = client.get("/api/v1/questions")
    second = client.get("/api/v1/questions")
    assert first.status_code == second.status_code == 200
    assert first.data == second.data and len(calls) == 1  # the second answer was the stored bytes
    assert first.mimetype == "application/json"
    testing.load_sample(app, testing.sample_question(tags=["changed"]))  # publishes version 2
    third = client.get("/api/v1/questions").get_json()["questions"]
    assert len(calls) == 2 and [(q["version"], q["tags"]) for q in third] == [(2, ["changed"])]


def test_each_language_and_filter_has_its_own_body(app, client):
    question_cache.clear()
    en = client.get("/api/v1/questions").get_json()["questions"]
    zh = client.get("/api/v1/questions?lang=zh").get_json()["questions"]
    sample = testing.SAMPLE_QUESTION
    assert en[0]["title"] == sample["title"]["en"] and zh[0]["title"] == sample["title"]["zh"]
    assert client.get("/api/v1/questions?level=" + sample["level"]).get_json()["questions"] == en
    other = next(level for level in ("L1", "L2", "L3") if level != sample["level"])
    assert client.get("/api/v1/questions?level=" + other).get_json()["questions"] == []
    assert client.get("/api/v1/questions?tag=no-such-tag").get_json()["questions"] == []
    assert client.get("/api/v1/questions").get_json()["questions"] == en  # unchanged by the others


def test_kept_views_are_bounded(app, client):
    question_cache.clear()
    for i in range(question_cache.MAX_DERIVED + 20):
        assert client.get(f"/api/v1/questions?tag=invented-{i}").get_json() == {"questions": []}
    kept = [views for _fp, views in question_cache._derived.values()]
    assert kept and all(len(views) <= question_cache.MAX_DERIVED for views in kept)
    # Past the bound a listing is still right, built for that request alone.
    assert [q["id"] for q in client.get("/api/v1/questions?lang=zh").get_json()["questions"]] == [
        testing.SAMPLE_QUESTION["id"]]


def _submit(client, variant: int = 3):
    return client.post(f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts",
                       json={"variant": variant, "answers": {"a": "1.0", "b": "yes"}})


def test_an_attempt_and_its_review_card_are_one_commit(app, client):
    from sqlalchemy import event

    from quizapp.db import get_db
    from quizapp.models import Attempt, ReviewCard

    engine = get_db(app).engine
    commits = []

    def on_commit(_conn):
        commits.append(1)

    event.listen(engine, "commit", on_commit)
    try:
        r = _submit(client)
    finally:
        event.remove(engine, "commit", on_commit)
    assert r.status_code == 201 and r.get_json()["review"] is not None
    assert len(commits) == 1  # with synchronous=FULL each commit waits for the disk
    with app.app_context():
        session = get_db(app).Session()
        assert session.query(Attempt).count() == 1 and session.query(ReviewCard).count() == 1
        session.close()


def test_a_failing_review_card_keeps_the_attempt(app, client, monkeypatch):
    from datetime import datetime, timezone

    from quizapp.db import get_db
    from quizapp.learning import review
    from quizapp.models import Attempt, ReviewCard

    def broken(session, attempt, data, at=None, *, commit=True, history=None):
        session.add(new_row(attempt.learner_id, attempt.question_id, datetime.now(timezone.utc)))
        session.flush()  # the card's row is written inside the attempt's transaction, then it fails
        raise RuntimeError("card update failed")

    new_row = review._new_row
    monkeypatch.setattr(review, "record_attempt", broken)
    r = _submit(client)
    assert r.status_code == 201 and r.get_json()["review"] is None
    with app.app_context():
        session = get_db(app).Session()
        assert session.query(Attempt).count() == 1  # the attempt is stored
        assert session.query(ReviewCard).count() == 0  # the card's half-done write is not
        session.close()


def test_a_submit_reads_the_learners_history_once(app, client, monkeypatch):
    from quizapp.practice import policy

    assert _submit(client, 1).status_code == 201  # an earlier attempt: the history is not empty
    reads = []
    original = policy._timeline

    def counted(*args, **kwargs):
        reads.append(args[1:])
        return original(*args, **kwargs)

    monkeypatch.setattr(policy, "_timeline", counted)
    r = _submit(client, 1)
    assert r.status_code == 201
    assert r.get_json()["practice"]["tries_used"] == 2  # the second try on the question, counted once
    assert len(reads) == 1, reads  # the response's state replays the history read before storing


def test_a_submit_by_a_returning_learner_runs_a_bounded_number_of_statements(app, client):
    from sqlalchemy import event

    from quizapp.db import get_db

    assert _submit(client, 1).status_code == 201  # a history, a learner row and a review card exist
    statements = []

    def seen(_conn, _cursor, statement, *_args):
        statements.append(" ".join(statement.split()))

    engine = get_db(app).engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        r = _submit(client, 1)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert r.status_code == 201 and r.get_json()["review"]["reps"] == 2
    # the published set's fingerprint, the history (attempts, events), the learner upsert, the attempt, the
    # card (read, written) and its savepoint: the version's document and the history are not read again
    assert len(statements) <= 9, statements
    assert sum(s.startswith("SELECT") and "FROM attempts" in s for s in statements) == 1, statements
    assert not any("FROM question_versions" in s and "count(" not in s for s in statements), statements
