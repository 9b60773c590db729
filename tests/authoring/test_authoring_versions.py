"""Versioning: publish -> attempt -> edit -> publish; the old attempt still re-grades to its original verdict
against the version it answered, while learners see (and are graded by) the newest published version."""

from __future__ import annotations

from sqlalchemy import select

from checkers.bank import params_for
from quizapp.storage.db import get_db
from quizapp.storage.models import Attempt


def test_authoring_regrade_uses_the_attempts_own_version(authoring_app, authoring_creds, authoring_question):
    author = authoring_app.test_client()
    learner = authoring_app.test_client()
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    qid = "auth-versioned"
    v1 = authoring_question(qid)
    assert author.post("/api/v1/questions", json=v1, headers=h).status_code == 201
    assert author.post(f"/api/v1/questions/{qid}/publish", headers=h).status_code == 200

    seed = 7
    p = params_for(v1, seed)["p"]
    answers = {"a": repr(2 * p), "b": "no"}
    r = learner.post(f"/api/v1/questions/{qid}/attempts", json={"variant": seed, "answers": answers})
    assert r.status_code == 201
    old = r.get_json()
    assert old["parts"]["a"]["status"] == "correct" and old["parts"]["b"]["status"] == "correct"

    v2 = authoring_question(qid)  # the author changes the maths: the answer is now 3p, and "no" is wrong
    v2["parts"][0]["expected"] = {"expr": "3*p"}
    v2["parts"][1]["correct"] = "yes"
    v2["parts"][1]["mistakes"] = [{"answer": "no", "note": "not-symmetric",
                                   "feedback": {"en": "Changed.", "zh": "改了。"}}]
    r = author.put(f"/api/v1/questions/{qid}", json=v2, headers=h)
    assert r.status_code == 201 and r.get_json()["selftest"]["ok"], r.get_json()
    assert learner.get(f"/api/v1/questions/{qid}?variant=1").get_json()["version"] == 1  # draft: not yet
    assert author.post(f"/api/v1/questions/{qid}/publish", headers=h).get_json()["version"] == 2
    assert learner.get(f"/api/v1/questions/{qid}?variant=1").get_json()["version"] == 2

    new = learner.post(f"/api/v1/questions/{qid}/attempts", json={"variant": seed, "answers": answers}).get_json()
    assert new["version_id"] != old["version_id"]
    assert new["parts"]["a"]["status"] == "incorrect" and new["parts"]["b"]["status"] == "incorrect"

    r = author.post(f"/api/v1/attempts/{old['attempt_id']}/regrade", headers=h)
    assert r.status_code == 200
    body = r.get_json()
    assert body["matches"] is True and body["differences"] == []
    assert body["version"] == 1 and body["version_id"] == old["version_id"]
    for pid in ("a", "b"):
        assert body["parts"][pid]["regraded"]["status"] == old["parts"][pid]["status"] == "correct"
        assert body["parts"][pid]["regraded"] == body["parts"][pid]["stored"]
    # the new attempt re-grades against v2
    body2 = author.post(f"/api/v1/attempts/{new['attempt_id']}/regrade", headers=h).get_json()
    assert body2["matches"] and body2["version"] == 2 and body2["parts"]["a"]["regraded"]["status"] == "incorrect"

    versions = author.get(f"/api/v1/questions/{qid}/versions", headers=h).get_json()["versions"]
    assert [(v["version"], v["status"]) for v in versions] == [(1, "retired"), (2, "published")]

    # retire: hidden from learners, attempts kept, and they still re-grade
    r = author.delete(f"/api/v1/questions/{qid}", headers=h)
    assert r.status_code == 200 and r.get_json()["attempts_kept"] == 2
    assert learner.get(f"/api/v1/questions/{qid}?variant=1").status_code == 404
    assert learner.get(f"/api/v1/attempts/{old['attempt_id']}").status_code == 200
    assert author.post(f"/api/v1/attempts/{old['attempt_id']}/regrade", headers=h).get_json()["matches"]
    assert author.delete(f"/api/v1/questions/{qid}", headers=h).status_code == 409


def test_authoring_regrade_detects_a_tampered_verdict(authoring_app, authoring_creds, authoring_question):
    """The comparison can fail: a stored verdict that differs from a fresh grading is reported."""
    client = authoring_app.test_client()
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    r = client.post("/api/v1/questions/svc-sample-double/attempts", json={"variant": 1, "answers": {"b": "no"}})
    aid = r.get_json()["attempt_id"]
    s = get_db(authoring_app).Session()
    attempt = s.scalars(select(Attempt).where(Attempt.id == aid)).one()
    verdicts = dict(attempt.verdicts)
    verdicts["b"] = dict(verdicts["b"], status="incorrect", score=0.0)
    attempt.verdicts = verdicts
    s.commit()
    s.close()
    body = client.post(f"/api/v1/attempts/{aid}/regrade", headers=h).get_json()
    assert body["matches"] is False
    assert {(d["part"], d["key"]) for d in body["differences"]} == {("b", "status"), ("b", "score")}
    # and the CLI agrees (exit code 1)
    result = authoring_app.test_cli_runner().invoke(args=["regrade", aid])
    assert result.exit_code == 1 and '"matches": false' in result.output
    assert client.post("/api/v1/attempts/nope/regrade", headers=h).status_code == 404
