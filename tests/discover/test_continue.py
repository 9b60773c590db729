""""Continue where you left off": back to the question last answered at the variant it was answered at
(not a new one), and, with nothing answered yet, a page that says so instead of silently opening the first
question."""

from __future__ import annotations

import re

WRONG = {"a": "0", "b": "yes"}  # readable and wrong: a counted attempt that does not master the question


def _answer(client, qid: str, variant: int) -> None:
    resp = client.post(f"/api/v1/questions/{qid}/attempts", json={"variant": variant, "answers": WRONG})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    assert resp.get_json()["score"] < resp.get_json()["max_score"]


def test_continue_reopens_the_variant_last_answered(discover_app):
    client = discover_app.test_client()
    _answer(client, "disc-kl-coins", 4321)
    resp = client.get("/continue")
    assert resp.status_code == 303
    assert resp.headers["Location"].endswith("/questions/disc-kl-coins?variant=4321")
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert re.search(r'id="variant-number">#4321<', page)
    # a later attempt at another variant of another question: that one is where the learner left off
    _answer(client, "disc-group-baseline", 77)
    assert client.get("/continue").headers["Location"].endswith("/questions/disc-group-baseline?variant=77")


def test_continue_without_history_says_so(discover_app):
    client = discover_app.test_client()
    resp = client.get("/continue?lang=en")
    assert resp.status_code == 200, "with nothing answered, Continue must not open a question silently"
    page = resp.get_data(as_text=True)
    assert 'data-reason="first"' in page
    assert "You have not answered any question yet" in page
    # it offers the first question (bank order) and the search, as links the learner chooses
    assert '<a class="btn btn-primary" href="/questions/disc-clip-by-hand" id="continue-first">' in page
    zh = client.get("/continue?lang=zh").get_data(as_text=True)
    assert "你还没有回答过任何题目" in zh and "从第一题开始" in zh


def test_continue_when_everything_is_mastered_says_so(discover_app):
    import bank_fixture
    from checkers.bank import params_for
    from checkers.params import resolve_value

    client = discover_app.test_client()
    for question in bank_fixture.QUESTIONS:
        # right answers: 2p from the engine's own parameter resolution for this variant, and "no"
        value = resolve_value(question["parts"][0]["expected"], params_for(question, 5))
        resp = client.post(f"/api/v1/questions/{question['id']}/attempts",
                           json={"variant": 5, "answers": {"a": repr(float(value)), "b": "no"}})
        assert resp.status_code == 201 and resp.get_json()["score"] == resp.get_json()["max_score"]
    resp = client.get("/continue?lang=en")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert 'data-reason="done"' in page and "Every question is mastered" in page
    assert 'id="continue-first"' not in page
