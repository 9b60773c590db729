"""Questions, validate and attempts endpoints through Flask's test client: success and every error class."""

import json

from checkers.params import resolve_value
from checkers.bank import params_for
from quiz_testing import SAMPLE_QUESTION


def _error(resp, status, field="__any__"):
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()
    assert set(body) == {"error"}
    assert {"code", "message", "field"} <= set(body["error"])
    if field != "__any__":
        assert body["error"]["field"] == field, body
    assert "Traceback" not in resp.get_data(as_text=True)
    return body["error"]


def _right_answer(variant):
    params = params_for(SAMPLE_QUESTION, variant)
    return resolve_value(SAMPLE_QUESTION["parts"][0]["expected"], params)


def test_list_questions(client):
    resp = client.get("/api/v1/questions")
    assert resp.status_code == 200
    qs = resp.get_json()["questions"]
    assert [q["id"] for q in qs] == ["svc-sample-double"]
    q = qs[0]
    assert q["title"] == "Double it" and q["level"] == "L1" and "kl" in q["tags"]
    assert q["parts"] == [{"id": "a", "kind": "numeric"}, {"id": "b", "kind": "choice"}]
    assert client.get("/api/v1/questions?lang=zh").get_json()["questions"][0]["title"] == "加倍"


def test_list_filters(client):
    assert client.get("/api/v1/questions?level=L2").get_json()["questions"] == []
    assert len(client.get("/api/v1/questions?level=L1&tag=service-test").get_json()["questions"]) == 1
    assert client.get("/api/v1/questions?tag=nope").get_json()["questions"] == []
    _error(client.get("/api/v1/questions?level=L9"), 422, "level")
    _error(client.get("/api/v1/questions?lang=fr"), 422, "lang")


def test_get_question_variant(client):
    body = client.get("/api/v1/questions/svc-sample-double?variant=7&lang=en").get_json()
    assert body["variant"] == 7 and body["id"] == "svc-sample-double"
    assert [p["id"] for p in body["parts"]] == ["a", "b"]
    text = json.dumps(body)
    assert "expected" not in text and "mistakes" not in text and "correct" not in text
    again = client.get("/api/v1/questions/svc-sample-double?variant=7").get_json()
    assert again["prompt"] == body["prompt"]
    fresh = client.get("/api/v1/questions/svc-sample-double").get_json()
    assert 0 <= fresh["variant"] < 1_000_000


def test_get_question_errors(client):
    e = _error(client.get("/api/v1/questions/no-such-question"), 404, "question_id")
    assert e["code"] == "unknown_question"
    _error(client.get("/api/v1/questions/svc-sample-double?variant=1000000"), 422, "variant")
    _error(client.get("/api/v1/questions/svc-sample-double?variant=-1"), 422, "variant")
    _error(client.get("/api/v1/questions/svc-sample-double?variant=abc"), 422, "variant")


def test_validate(client):
    resp = client.post("/api/v1/questions/svc-sample-double/validate",
                       json={"variant": 3, "part": "a", "answer": "0.5"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["valid"] is True and body["error"] is None
    assert set(body["interpreted_as"]) >= {"text", "latex", "mathml"}
    bad = client.post("/api/v1/questions/svc-sample-double/validate",
                      json={"variant": 3, "part": "a", "answer": "2*("}).get_json()
    assert bad["valid"] is False
    assert set(bad["error"]) >= {"message", "column"}


def test_validate_errors(client):
    url = "/api/v1/questions/svc-sample-double/validate"
    _error(client.post("/api/v1/questions/nope/validate", json={"part": "a", "answer": "1"}), 404)
    _error(client.post(url, json={"part": "zz", "answer": "1"}), 422, "part")
    _error(client.post(url, json={"part": "a"}), 422, "answer")
    _error(client.post(url, json={"part": "a", "answer": {"x": 1}}), 422, "answer")
    _error(client.post(url, json={"part": 5, "answer": "1"}), 422, "part")
    _error(client.post(url, json={"part": "a", "answer": "1", "variant": 10**7}), 422, "variant")
    _error(client.post(url, data="{not json", content_type="application/json"), 400)
    _error(client.post(url, data="[1, 2]", content_type="application/json"), 400)
    _error(client.post(url, data="part=a", content_type="application/x-www-form-urlencoded"), 415)
    _error(client.post(url, data=json.dumps({"part": "a", "answer": "1" * 2_000_000}),
                       content_type="application/json"), 413)


def test_submit_attempt_and_read_back(client, app):
    right = _right_answer(11)
    resp = client.post("/api/v1/questions/svc-sample-double/attempts",
                       json={"variant": 11, "answers": {"a": repr(right), "b": "no"}})
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    assert body["score"] == 2 and body["max_score"] == 2 and body["counted"] is True
    assert body["parts"]["a"]["status"] == "correct" and body["parts"]["a"]["counted"] is True
    assert isinstance(body["parts"]["a"]["feedback"], str)
    sol = body["solution"]
    assert sol["key_points"] == ["Double p."] and set(sol["expected"]) == {"a", "b"}
    assert resp.headers["Location"] == f"/api/v1/attempts/{body['attempt_id']}"
    assert "quiz_learner" in resp.headers.get("Set-Cookie", "")

    stored = client.get(f"/api/v1/attempts/{body['attempt_id']}?lang=zh").get_json()
    assert stored["attempt_id"] == body["attempt_id"] and stored["variant"] == 11
    assert stored["answers"] == {"a": repr(right), "b": "no"}
    assert stored["parts"]["a"]["status"] == "correct"
    assert stored["solution"]["key_points"] == ["把 p 加倍。"]


def test_attempt_feedback_language_and_invalid_part(client):
    resp = client.post("/api/v1/questions/svc-sample-double/attempts?lang=zh",
                       json={"variant": 2, "answers": {"a": "not a number", "b": "yes"}})
    assert resp.status_code == 201
    body = resp.get_json()
    assert body["parts"]["a"]["status"] == "invalid" and body["parts"]["a"]["counted"] is False
    assert body["parts"]["b"]["status"] == "incorrect" and body["parts"]["b"]["counted"] is True
    assert body["score"] == 0 and body["counted"] is True
    only_invalid = client.post("/api/v1/questions/svc-sample-double/attempts",
                               json={"variant": 2, "answers": {"a": "(("}}).get_json()
    assert only_invalid["counted"] is False
    assert only_invalid["parts"]["b"]["note"] == "unanswered"


def test_attempt_errors(client):
    url = "/api/v1/questions/svc-sample-double/attempts"
    _error(client.post("/api/v1/questions/nope/attempts", json={"variant": 1, "answers": {}}), 404)
    e = _error(client.post(url, json={"variant": 1, "answers": {"zz": "1"}}), 422, "answers.zz")
    assert e["code"] == "unknown_part"
    _error(client.post(url, json={"variant": 1_000_000, "answers": {}}), 422, "variant")
    _error(client.post(url, json={"variant": "1", "answers": {}}), 422, "variant")
    _error(client.post(url, json={"variant": True, "answers": {}}), 422, "variant")
    _error(client.post(url, json={"answers": {}}), 422, "variant")
    _error(client.post(url, json={"variant": 1, "answers": ["1"]}), 422, "answers")
    _error(client.post(url, json={"variant": 1, "answers": {"a": ["1"]}}), 422, "answers.a")
    _error(client.post(url, json={"variant": 1, "answers": {}, "extra": 1}), 422, "extra")
    _error(client.post(url, json={"variant": 1, "answers": {}, "lang": "xx"}), 422, "lang")
    _error(client.post(url, data="{", content_type="application/json"), 400)
    _error(client.post(url, data='{"variant": NaN, "answers": {}}', content_type="application/json"), 400)
    _error(client.post(url, data="x", content_type="text/plain"), 415)
    _error(client.post(url, data=b"{" + b" " * (2 * 1024 * 1024) + b"}", content_type="application/json"), 413)


def test_get_attempt_unknown(client):
    _error(client.get("/api/v1/attempts/0123456789abcdef0123456789abcdef"), 404, "attempt_id")


def test_unknown_api_route_and_method(client):
    _error(client.get("/api/v1/nothing-here"), 404)
    resp = client.delete("/api/v1/questions")
    _error(resp, 405)


def test_unexpected_error_is_a_bare_500(client, monkeypatch):
    from quizapp.services import questions

    def boom(*a, **k):
        raise RuntimeError("secret internals")
    monkeypatch.setattr(questions, "list_questions", boom)
    resp = client.get("/api/v1/questions")
    e = _error(resp, 500)
    assert e["code"] == "internal_error" and "secret" not in resp.get_data(as_text=True)


def test_cookie_keeps_the_learner(client):
    from quizapp.storage.db import get_db
    from quizapp.storage.models import Attempt, Learner
    right = _right_answer(5)
    for _ in range(2):
        assert client.post("/api/v1/questions/svc-sample-double/attempts",
                           json={"variant": 5, "answers": {"a": repr(right)}}).status_code == 201
    with client.application.app_context():
        s = get_db().Session()
        assert s.query(Learner).count() == 1
        assert s.query(Attempt).count() == 2
        s.close()
