"""Review as in Anki: a due question can be rated by the learner (Again / Hard / Good / Easy), which FSRS
schedules; due questions in the list are links that open the question at a new variant in review mode,
where the rating form is offered. The clock of the learner memory is moved instead of waiting."""

import re
from datetime import datetime, timedelta, timezone

import pytest
from fsrs import Card, Rating, Scheduler, State

from quizapp.study import clock as study_clock

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def clock(monkeypatch, app):
    state = {"now": T0}
    monkeypatch.setattr(study_clock, "now", lambda: state["now"])
    yield state


def _due_after_a_miss(client, clock, lm) -> datetime:
    lm.answer(client, 1, right=False)  # Again: a learning step of a minute
    clock["now"] = T0 + timedelta(minutes=5)
    return clock["now"]


@pytest.mark.parametrize("rating", [Rating.Again, Rating.Hard, Rating.Good, Rating.Easy])
def test_a_due_question_takes_the_learners_own_rating_as_fsrs_schedules_it(client, clock, lm, rating):
    at = _due_after_a_miss(client, clock, lm)
    # what FSRS itself does with the same history: Again at T0, then the learner's rating 5 min later
    sched = Scheduler(enable_fuzzing=False)
    card, _ = sched.review_card(Card(card_id=1, state=State.Learning, step=0, due=T0), Rating.Again,
                                review_datetime=T0)
    card, _ = sched.review_card(card, rating, review_datetime=at)
    name = rating.name.lower()
    body = client.post("/api/v1/review/rate", json={"question_id": lm.QID, "rating": name}).get_json()
    assert body["last_rating"] == name and body["self_rated"] is True and body["reps"] == 2
    assert datetime.fromisoformat(body["due"].replace("Z", "+00:00")) == card.due
    assert body["stability"] == pytest.approx(card.stability) and body["difficulty"] == pytest.approx(card.difficulty)


def test_a_question_not_due_cannot_be_rated_twice(client, clock, lm):
    _due_after_a_miss(client, clock, lm)
    assert client.post("/api/v1/review/rate", json={"question_id": lm.QID, "rating": "good"}).status_code == 200
    lm.error(client.post("/api/v1/review/rate", json={"question_id": lm.QID, "rating": "good"}), 409, "question_id")


def test_due_items_are_links_that_open_a_new_variant_in_review_mode(client, clock, lm):
    _due_after_a_miss(client, clock, lm)
    html = client.get("/review").get_data(as_text=True)
    links = re.findall(r'<a class="review-open" href="([^"]+)">Double it</a>', html)
    assert links == [f"/review/open/{lm.QID}"]
    variants = set()
    for _ in range(6):
        resp = client.get(links[0])
        assert resp.status_code == 302
        found = re.fullmatch(rf"/questions/{lm.QID}\?variant=(\d+)&review=1", resp.headers["Location"])
        assert found, resp.headers["Location"]
        variants.add(found.group(1))
    assert len(variants) > 1  # a new variant each time, not the one answered


def test_the_question_page_in_review_mode_offers_the_rating_while_due(client, clock, lm):
    _due_after_a_miss(client, clock, lm)
    page = client.get(f"/questions/{lm.QID}?variant=9&review=1").get_data(as_text=True)
    assert 'id="self-rate"' in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    resp = client.post("/review/rate", data={"csrf_token": token, "question_id": lm.QID, "rating": "easy",
                                             "next": "review"})
    assert resp.status_code == 302
    card = client.get("/api/v1/review/queue").get_json()
    assert card["due"] == [] and card["counts"]["due_now"] == 0
    assert 'id="self-rate"' not in client.get(f"/questions/{lm.QID}?variant=9&review=1").get_data(as_text=True)
    assert 'id="self-rate"' not in client.get(f"/questions/{lm.QID}?variant=9").get_data(as_text=True)


def test_the_rating_form_in_chinese(client, clock, lm):
    _due_after_a_miss(client, clock, lm)
    page = client.get(f"/questions/{lm.QID}?variant=9&review=1&lang=zh").get_data(as_text=True)
    form = page[page.index('id="self-rate"'):page.index("</form>", page.index('id="self-rate"'))]
    assert "自己评分" in form and "Again" not in form
