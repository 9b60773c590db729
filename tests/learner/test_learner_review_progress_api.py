"""Spaced review (FSRS ratings from attempts, the learner's own rating of free-text answers, the queue)
and progress (per level and tag, streaks), moving the learner-memory clock instead of waiting."""

from datetime import datetime, timedelta, timezone

import pytest

import quiz_testing as testing
from quizapp.study import clock as study_clock

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def clock(monkeypatch, app):
    """The learner-memory clock, which also stamps attempts (as if answered at that moment)."""
    state = {"now": T0}
    monkeypatch.setattr(study_clock, "now", lambda: state["now"])
    yield state


def test_wrong_answer_is_again_and_due_soon_right_answer_good(client, clock, lm):
    wrong = lm.answer(client, 1, right=False)["review"]
    assert wrong["last_rating"] == "again" and wrong["state"] == "learning"
    queue = client.get("/api/v1/review/queue").get_json()
    assert queue["due"] == [] and [c["question_id"] for c in queue["upcoming"]] == [lm.QID]
    assert queue["counts"]["today"] == 1 and queue["counts"]["cards"] == 1
    clock["now"] = T0 + timedelta(minutes=5)  # the Again learning step (1 min) has passed
    queue = client.get("/api/v1/review/queue").get_json()
    assert [c["question_id"] for c in queue["due"]] == [lm.QID] and queue["counts"]["due_now"] == 1
    right = lm.answer(client, 2, right=True)["review"]
    assert right["last_rating"] == "hard"  # right, but after a miss on the same question just before
    assert right["reps"] == 2


def test_first_try_right_is_good_and_next_due_is_reported(client, clock, lm):
    card = lm.answer(client, 1, right=True)["review"]
    assert card["last_rating"] == "good"
    queue = client.get("/api/v1/review/queue").get_json()
    assert queue["due"] == [] and queue["next_due"] == card["due"]
    html = client.get("/review").get_data(as_text=True)
    assert 'id="review-empty"' in html and "The next question is due at" in html


def test_review_next_serves_a_fresh_variant_of_the_due_question(client, clock, lm):
    lm.answer(client, 1, right=False)
    clock["now"] = T0 + timedelta(minutes=5)
    resp = client.get("/review/next")
    assert resp.status_code == 302 and f"/questions/{lm.QID}?variant=" in resp.headers["Location"]


def test_free_text_waits_for_the_learners_rating(app, clock, lm):
    q = testing.sample_question(id="svc-free", parts=[
        {"id": "f", "kind": "freetext", "prompt": {"en": "Why?", "zh": "为什么?"}, "weight": 0}])
    testing.load_sample(app, q)
    client = app.test_client()
    lm.error(client.post("/api/v1/review/rate", json={"question_id": "svc-free", "rating": "good"}), 409,
             "question_id")
    r = client.post("/api/v1/questions/svc-free/attempts", json={"variant": 0, "answers": {"f": "Because."}})
    assert r.get_json()["review"]["needs_self_rating"] is True
    queue = client.get("/api/v1/review/queue").get_json()
    assert [c["question_id"] for c in queue["pending"]] == ["svc-free"] and queue["due"] == []
    lm.error(client.post("/api/v1/review/rate", json={"question_id": "svc-free", "rating": "great"}), 422, "rating")
    lm.error(client.post("/api/v1/review/rate", json={"question_id": "svc-free"}), 422, "rating")
    rated = client.post("/api/v1/review/rate", json={"question_id": "svc-free", "rating": "easy"}).get_json()
    assert rated["last_rating"] == "easy" and rated["pending_self_rating"] is False
    assert client.get("/api/v1/review/queue").get_json()["pending"] == []


def test_progress_counts_levels_tags_streak_and_mastery(client, clock, lm):
    empty = client.get("/api/v1/progress").get_json()
    assert empty["totals"]["attempts"] == 0 and empty["streak"] == {"current": 0, "longest": 0}
    lm.answer(client, 1, right=False)
    clock["now"] = T0 + timedelta(minutes=5)
    lm.answer(client, 2, right=True)
    clock["now"] = T0 + timedelta(days=1)
    lm.answer(client, 3, right=True)
    before = client.get("/api/v1/progress").get_json()
    assert before["totals"]["mastered"] == 0  # right, but the card is still in its learning steps
    clock["now"] = T0 + timedelta(days=2)
    lm.answer(client, 4, right=True)  # the card graduates to FSRS's Review state: mastered
    body = client.get("/api/v1/progress").get_json()
    assert body["totals"]["seen"] == 1 and body["totals"]["attempts"] == 4
    assert body["totals"]["accuracy"] == pytest.approx(6 / 8, abs=1e-4)
    assert body["levels"]["L1"]["mastered"] == 1 and body["tags"]["kl"]["attempts"] == 4
    assert body["streak"] == {"current": 3, "longest": 3}
    assert [d["date"] for d in body["days"]] == ["2026-03-02", "2026-03-03", "2026-03-04"]
    # time: the first attempt of a sitting counts 2 min, the next one the 5-min gap
    assert body["totals"]["time_spent_s"] == 2 * 60 + 5 * 60 + 2 * 60 + 2 * 60


def test_progress_page_has_svg_charts_with_text_alternatives(client, clock, lm):
    lm.answer(client, 1, right=True)
    for lang, word in (("en", "Mastery per topic"), ("zh", "Progress")):
        html = client.get(f"/progress?lang={lang}").get_data(as_text=True)
        assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart') == 3
        assert html.count("<desc>") == 3 and 'role="img"' in html and 'id="progress-text"' in html
        assert "style=" not in html  # the CSP forbids inline style: colours come from learner.css
