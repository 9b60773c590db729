"""Learner memory on PostgreSQL: migration 0004's tables are real (timestamps with time zone, cascades),
and a review schedule made on SQLite, copied row by row into PostgreSQL, reads back identically and keeps
scheduling (the move from SQLite to PostgreSQL loses nothing)."""

from datetime import datetime, timezone

from sqlalchemy import select, text

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.study import clock as study_clock
from quizapp.storage.models import Attempt, Learner, LearnerAccount, Question, QuestionVersion, ReviewCard


def _answer(client, variant, answers, headers=None):
    resp = client.post("/api/v1/questions/svc-sample-double/attempts",
                       json={"variant": variant, "answers": answers}, headers=headers or {})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def test_pg_learner_tables_and_cascade(pg_app, monkeypatch):
    # The learner-memory clock at a fixed morning: "upcoming" means later the same UTC day, so a run just
    # before midnight saw the card fall due tomorrow instead.
    monkeypatch.setattr(study_clock, "now", lambda: datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc))
    with get_db(pg_app).engine.connect() as conn:
        types = {r[0]: r[1] for r in conn.execute(text(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'review_cards'"))}
    assert types["due"] == "timestamp with time zone" and types["stability"] == "double precision"
    client = pg_app.test_client()
    _answer(client, 1, {"a": "0", "b": "yes"})
    assert client.post("/api/v1/account/signup",
                       json={"email": "pg@example.org", "password": "a long passphrase 42"}).status_code == 201
    assert [c["question_id"] for c in client.get("/api/v1/review/queue").get_json()["upcoming"]] == ["svc-sample-double"]
    assert len(client.get("/api/v1/attempts").get_json()["attempts"]) == 1
    assert client.delete("/api/v1/account", json={"password": "a long passphrase 42"}).status_code == 200
    with get_db(pg_app).Session() as session:
        assert session.scalars(select(ReviewCard)).all() == [] and session.scalars(select(Attempt)).all() == []


def test_schedule_moves_from_sqlite_to_postgresql(tmp_path, pg_url):
    lite = testing.make_app(tmp_path / "lite", DATABASE_URL=f"sqlite:///{tmp_path / 'lite.sqlite3'}")
    testing.load_sample(lite)
    client = lite.test_client()
    _answer(client, 1, {"a": "0", "b": "yes"})
    queue = client.get("/api/v1/review/queue").get_json()
    pg = testing.make_app(tmp_path / "pg", DATABASE_URL=pg_url)
    tables = (Learner, LearnerAccount, Question, QuestionVersion, Attempt, ReviewCard)
    with get_db(lite).Session() as src, get_db(pg).Session() as dst:
        for model in tables:
            for row in src.scalars(select(model)):
                cols = {c.key: getattr(row, c.key) for c in model.__table__.columns}
                dst.merge(model(**cols))
            dst.flush()
        dst.commit()
    moved = pg.test_client()
    cookie = client.get_cookie(lite.config["LEARNER_COOKIE"]).value
    pg.config["SECRET_KEY"] = lite.config["SECRET_KEY"]
    moved.set_cookie(pg.config["LEARNER_COOKIE"], cookie)
    assert moved.get("/api/v1/review/queue").get_json() == queue
    card = _answer(moved, 2, {"a": "0", "b": "yes"})["review"]
    assert card["reps"] == 2 and card["last_rating"] == "again"
    get_db(lite).dispose()
    get_db(pg).dispose()
