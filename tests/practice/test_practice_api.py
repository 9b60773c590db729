"""The attempt policy and hints on demand through the JSON API (the sample question: 3 tries, part a has
two hints)."""

from checkers.bank import params_for
from checkers.params import resolve_value
from quizapp.storage.db import get_session
from quizapp.storage.models import PracticeEvent, ReviewCard
from quizapp.study.credit import CREDIT_FLOOR, HINT_COST, credit
from quiz_testing import SAMPLE_QUESTION

QID = SAMPLE_QUESTION["id"]


def _right(variant: int) -> dict:
    value = resolve_value(SAMPLE_QUESTION["parts"][0]["expected"], params_for(SAMPLE_QUESTION, variant))
    return {"a": repr(float(value)), "b": "no"}


def _submit(client, variant, answers):
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": answers})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


WRONG = {"a": "0", "b": "yes"}


def test_wrong_answers_hide_the_solution_until_the_third(client):
    first = _submit(client, 5, WRONG)
    assert "solution" not in first
    assert first["practice"] == {"tries_allowed": 3, "tries_used": 1, "tries_left": 2,
                                 "solution_available": False, "solution_reason": None,
                                 "solution_requested": False, "hints_shown": {}}
    stored = client.get(f"/api/v1/attempts/{first['attempt_id']}").get_json()
    assert "solution" not in stored  # reading the attempt back does not leak it either
    state = client.get(f"/api/v1/questions/{QID}/practice?variant=5").get_json()
    assert "solution" not in state and state["practice"]["tries_left"] == 2
    second = _submit(client, 5, WRONG)
    assert "solution" not in second and second["practice"]["tries_left"] == 1
    third = _submit(client, 5, WRONG)
    assert third["practice"]["solution_reason"] == "tries" and third["practice"]["tries_left"] == 0
    assert third["solution"]["key_points"] and set(third["solution"]["expected"]) == {"a", "b"}
    # the first attempt, read back now, may show it too; another variant starts afresh
    assert "solution" in client.get(f"/api/v1/attempts/{first['attempt_id']}").get_json()
    assert "solution" not in _submit(client, 6, WRONG)


def test_a_correct_answer_shows_the_solution(client):
    body = _submit(client, 9, _right(9))
    assert body["practice"]["solution_reason"] == "correct" and "expected" in body["solution"]


def test_invalid_attempts_use_no_try(client):
    body = _submit(client, 4, {"a": "(("})
    assert body["counted"] is False and body["practice"]["tries_used"] == 0 and "solution" not in body


def test_show_solution_is_recorded_and_rated_again(client, app):
    _submit(client, 12, WRONG)
    resp = client.post(f"/api/v1/questions/{QID}/solution", json={"variant": 12, "lang": "zh"})
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    assert body["practice"]["solution_reason"] == "requested" and body["practice"]["solution_requested"]
    assert body["solution"]["key_points"] == ["把 p 加倍。"]
    assert body["review"]["last_rating"] == "again"
    with app.app_context():
        session = get_session()
        kinds = [e.kind for e in session.query(PracticeEvent).filter_by(question_id=QID, variant=12)]
        assert kinds == ["solution"]
        assert session.query(ReviewCard).filter_by(question_id=QID).one().last_rating == 1  # fsrs Again
    # a full answer typed after reading the solution is still rated Again
    after = _submit(client, 12, _right(12))
    assert after["score"] == after["max_score"] and after["review"]["last_rating"] == "again"


def test_hints_in_order_recorded_and_lower_the_credit(client, app):
    public = client.get(f"/api/v1/questions/{QID}?variant=3").get_json()
    part_a = public["parts"][0]
    assert part_a["hints_total"] == 2 and "hint" not in part_a and part_a["title"] == "Doubling"
    first = client.post(f"/api/v1/questions/{QID}/hints", json={"variant": 3, "part": "a"})
    assert first.status_code == 201, first.get_json()
    first = first.get_json()
    assert first["index"] == 0 and first["hint"].startswith("Read the value")
    assert first["credit"] == 1 - HINT_COST and first["practice"]["hints_shown"] == {"a": 1}
    second = client.post(f"/api/v1/questions/{QID}/hints", json={"variant": 3, "part": "a", "lang": "zh"})
    assert second.get_json()["hint"].startswith("加倍就是") and second.get_json()["index"] == 1
    none_left = client.post(f"/api/v1/questions/{QID}/hints", json={"variant": 3, "part": "a"})
    assert none_left.status_code == 409 and none_left.get_json()["error"]["code"] == "no_more_hints"
    state = client.get(f"/api/v1/questions/{QID}/practice?variant=3").get_json()
    assert state["hints"] == {"a": ["Read the value of $p$ from the question.",
                                    "Doubling means adding the number to itself."]}
    # both parts right: part a (weight 1) earns credit(2) of its point, part b its full point
    body = _submit(client, 3, _right(3))
    assert body["parts"]["a"]["status"] == "correct" and body["parts"]["a"]["hints_used"] == 2
    assert abs(body["parts"]["a"]["score"] - credit(2)) < 1e-9 and body["parts"]["b"]["score"] == 1
    assert abs(body["score"] - (1 + credit(2))) < 1e-9
    assert body["review"]["last_rating"] == "hard"  # full marks, but helped
    with app.app_context():
        rows = get_session().query(PracticeEvent).filter_by(question_id=QID, variant=3, kind="hint").all()
        assert sorted(r.hint_index for r in rows) == [0, 1]


def test_credit_rule():
    assert credit(0) == 1.0 and credit(1) == 1 - HINT_COST
    assert credit(100) == CREDIT_FLOOR


def test_practice_errors(client):
    url = f"/api/v1/questions/{QID}/hints"
    for body, status, field in (({"part": "a"}, 422, "variant"), ({"variant": 1, "part": "zz"}, 422, "part"),
                                ({"variant": 10**7, "part": "a"}, 422, "variant"),
                                ({"variant": 1, "part": "b"}, 409, "part"),
                                ({"variant": 1, "part": "a", "x": 1}, 422, "x")):
        resp = client.post(url, json=body)
        assert resp.status_code == status and resp.get_json()["error"]["field"] == field, (body, resp.get_json())
    assert client.post(f"/api/v1/questions/nope/solution", json={"variant": 1}).status_code == 404
    assert client.get(f"/api/v1/questions/{QID}/practice").status_code == 422
