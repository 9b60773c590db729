"""The practice endpoints read the learner's stored summary of the question (quizapp.study.summary), not the
learner's history: with 300 attempts on the question, GET /practice, POST /hints, POST /solution and reading
the last attempt back run the statements they run after one attempt, and none of them reads the attempts
table (but for the one attempt read back)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, select

import quiz_testing as testing
from checkers.bank import params_for
from checkers.params import resolve_value
from quizapp.storage.db import get_db
from quizapp.storage.models import Attempt, PracticeSummary, new_id

QID = testing.SAMPLE_QUESTION["id"]
EARLIER = 299  # attempts stored before the last one
FRESH = 9  # the variant the endpoints are asked about: no attempt, hint or request on it


def _right(variant: int) -> dict:
    value = resolve_value(testing.SAMPLE_QUESTION["parts"][0]["expected"], params_for(testing.SAMPLE_QUESTION, variant))
    return {"a": repr(float(value)), "b": "no"}


def _submit(client, variant: int, answers: dict) -> dict:
    r = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": answers})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()


def _learner(app, attempt_id: str) -> str:
    with app.app_context(), get_db(app).Session() as session:
        return session.get(Attempt, attempt_id).learner_id


def _store_earlier_attempts(app, learner: str, n: int) -> None:
    """``n`` wrong attempts on variants 1..4, stored directly and older than everything else; the learner's
    summary row is dropped, so that the next submit rebuilds it from all of them."""
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    wrong = {"a": {"status": "incorrect", "score": 0.0, "counted": True, "weight": 1.0},
             "b": {"status": "incorrect", "score": 0.0, "counted": True, "weight": 1.0}}
    with app.app_context(), get_db(app).Session() as session:
        version = session.scalars(select(Attempt.question_version_id)).first()
        session.add_all(Attempt(id=new_id(), learner_id=learner, question_id=QID, question_version_id=version,
                                variant=1 + i % 4, answers={"a": "0", "b": "yes"}, verdicts=wrong, score=0.0,
                                max_score=2.0, counted=True, lang="en", created_at=start + timedelta(minutes=i))
                        for i in range(n))
        session.execute(delete(PracticeSummary).where(PracticeSummary.learner_id == learner))
        session.commit()


def _learner_with(app, client, earlier: int) -> tuple[str, str]:
    """A learner whose last attempt answers variant 1 right, after ``earlier`` wrong ones: variant 1 is
    revealed and every other variant starts afresh, whatever ``earlier`` is. Returns the learner and the
    last attempt's id."""
    first = _submit(client, 1, {"a": "0", "b": "yes"})
    learner = _learner(app, first["attempt_id"])
    if earlier > 1:
        _store_earlier_attempts(app, learner, earlier - 1)
    last = _submit(client, 1, _right(1))
    assert last["practice"]["solution_reason"] == "correct"
    with app.app_context(), get_db(app).Session() as session:
        assert session.get(PracticeSummary, (learner, QID)).attempts == earlier + 1  # rebuilt from them all
    return learner, last["attempt_id"]


def _shape(statement: str, learner: str) -> str:
    """A statement with its values left out (the learner's id, times, ids), so two learners' compare."""
    return re.sub(r"'[^']*'|\b\d+(\.\d+)?\b", "?", statement.replace(learner, "L"))


def _run(app, client, learner: str, attempt_id: str) -> dict[str, list[str]]:
    """The statements of each practice endpoint on the fresh variant and of the last attempt read back, and
    their answers."""
    calls = {
        "attempt": lambda: client.get(f"/api/v1/attempts/{attempt_id}"),
        "practice": lambda: client.get(f"/api/v1/questions/{QID}/practice?variant={FRESH}"),
        "hint": lambda: client.post(f"/api/v1/questions/{QID}/hints", json={"variant": FRESH, "part": "a"}),
        "solution": lambda: client.post(f"/api/v1/questions/{QID}/solution", json={"variant": FRESH}),
    }
    out = {}
    for name, call in calls.items():
        with testing.sql_seen(get_db(app).engine) as seen:
            r = call()
        assert r.status_code in (200, 201), (name, r.get_data(as_text=True))
        out[name] = [_shape(s.replace(attempt_id, "A"), learner) for s in seen.statements
                     if "count(" not in s]  # the published set's recheck, when due
        out[name + " answer"] = r.get_json()["practice"]
    return out


def test_the_practice_endpoints_do_after_300_attempts_what_they_do_after_one(app, client):
    few = _run(app, client, *_learner_with(app, client, 1))
    other = app.test_client()
    many = _run(app, other, *_learner_with(app, other, EARLIER + 1))
    # the attempt read back is on variant 1, where the two histories differ: its statements must not
    assert many.pop("attempt answer")["solution_reason"] == few.pop("attempt answer")["solution_reason"]
    assert many == few
    for name in ("practice", "hint", "solution"):
        assert not any("FROM attempts" in s for s in many[name]), many[name]
    assert sum("FROM attempts" in s for s in many["attempt"]) == 1, many["attempt"]  # the attempt itself
    # the state they answer from is the whole history's: a fresh count on the fresh variant, one hint, then
    # the solution on request
    assert few["practice answer"]["tries_used"] == 0 and few["hint answer"]["hints_shown"] == {"a": 1}
    assert few["solution answer"]["solution_reason"] == "requested"
