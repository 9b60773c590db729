"""Authorisation matrix: anonymous, invalid token, revoked token, learner (token and session), author session
without CSRF x every authoring endpoint -> 401/403 and nothing changes in the database; the author succeeds."""

from __future__ import annotations

from checkers.bank import dump_question

import pytest
from sqlalchemy import text

import quiz_testing as testing
from quizapp.storage.db import get_db

TABLES = ("learners", "questions", "question_versions", "attempts", "version_checks", "api_tokens",
          "author_credentials")
QID = "svc-sample-double"


def _snapshot(app) -> dict:
    with get_db(app).engine.connect() as conn:
        return {t: sorted(map(repr, conn.execute(text(f"SELECT * FROM {t}")).all())) for t in TABLES}


def _new_question(qid="auth-matrix-new"):
    import copy

    from quiz_testing import SAMPLE_QUESTION
    data = copy.deepcopy(SAMPLE_QUESTION)
    data["id"] = qid
    return data


def _endpoints(attempt_id: str):
    edited = _new_question(QID)
    edited["title"] = {"en": "Edited", "zh": "改"}
    return [
        ("POST", "/api/v1/questions", {"json": _new_question()}),
        ("PUT", f"/api/v1/questions/{QID}", {"json": edited}),
        ("POST", f"/api/v1/questions/{QID}/publish", {}),
        ("GET", f"/api/v1/questions/{QID}/versions", {}),
        ("GET", "/api/v1/export", {}),
        ("GET", f"/api/v1/export?id={QID}", {}),
        ("POST", "/api/v1/import", {"json": {"files": [{"path": "L1/auth-matrix-imp.yaml",
                                                         "content": dump_question(_new_question("auth-matrix-imp"))}]}}),
        ("POST", f"/api/v1/attempts/{attempt_id}/regrade", {}),
        ("DELETE", f"/api/v1/questions/{QID}", {}),
    ]


@pytest.fixture
def matrix_attempt(authoring_app):
    learner = authoring_app.test_client()
    r = learner.post(f"/api/v1/questions/{QID}/attempts", json={"variant": 3, "answers": {"a": "1", "b": "no"}})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["attempt_id"]


CASES = ["anonymous", "garbage_token", "malformed_header", "revoked_token", "learner_token", "learner_session",
         "author_session_no_csrf", "author_session_wrong_csrf"]


@pytest.mark.parametrize("who", CASES)
def test_authoring_matrix_refuses_and_changes_nothing(authoring_app, authoring_creds, matrix_attempt, who,
                                                      authoring_passwords):
    AUTHOR_PASSWORD, LEARNER_PASSWORD = authoring_passwords["alice"], authoring_passwords["bob"]

    client = authoring_app.test_client()
    headers: dict[str, str] = {}
    expected = 401
    if who == "garbage_token":
        headers = {"Authorization": "Bearer qa_not-a-real-token"}
    elif who == "malformed_header":
        headers = {"Authorization": "Basic YWxpY2U6cHc="}
    elif who == "revoked_token":
        headers = {"Authorization": f"Bearer {authoring_creds['revoked_token']}"}
    elif who == "learner_token":
        headers = {"Authorization": f"Bearer {authoring_creds['learner_token']}"}
        expected = 403
    elif who == "learner_session":
        csrf = testing.author_login(client, "bob", LEARNER_PASSWORD)
        headers = {"X-CSRF-Token": csrf}
        expected = 403
    elif who == "author_session_no_csrf":
        testing.author_login(client, "alice", AUTHOR_PASSWORD)
        expected = 403
    elif who == "author_session_wrong_csrf":
        testing.author_login(client, "alice", AUTHOR_PASSWORD)
        headers = {"X-CSRF-Token": "x" * 43}
        expected = 403
    before = _snapshot(authoring_app)
    for method, url, kwargs in _endpoints(matrix_attempt):
        if who.startswith("author_session") and method == "GET":
            continue  # reads need no CSRF token: an author's session may read
        r = client.open(url, method=method, headers=headers, **kwargs)
        assert r.status_code == expected, (who, method, url, r.status_code, r.get_data(as_text=True)[:300])
        err = r.get_json()["error"]
        assert set(err) >= {"code", "message", "field"}
        if expected == 401:
            assert err["code"] in ("unauthorized", "invalid_token")
        assert _snapshot(authoring_app) == before, (who, method, url)
    # the learner's practice API still works for everybody (reads)
    assert client.get(f"/api/v1/questions/{QID}?variant=1").status_code == 200


def test_authoring_matrix_author_succeeds(authoring_app, authoring_creds, matrix_attempt):
    client = authoring_app.test_client()
    h = {"Authorization": f"Bearer {authoring_creds['author_token']}"}
    expected = {"/api/v1/questions": 201, f"/api/v1/questions/{QID}": 201}
    for method, url, kwargs in _endpoints(matrix_attempt):
        r = client.open(url, method=method, headers=h, **kwargs)
        want = expected.get(url, 200) if method in ("POST", "PUT") else 200
        if method == "DELETE":
            want = 200
        assert r.status_code == want, (method, url, r.status_code, r.get_data(as_text=True)[:500])
    # the token's last use is recorded; the revoked one never is
    from quizapp.storage.models import ApiToken
    from quizapp.storage.db import get_db as _db
    s = _db(authoring_app).Session()
    rows = {row.name: row for row in s.query(ApiToken)}
    assert rows["ci"].last_used_at is not None and rows["old"].last_used_at is None
    s.close()


def test_authoring_author_session_with_csrf_header_may_write(authoring_app, authoring_question, authoring_passwords):
    AUTHOR_PASSWORD = authoring_passwords["alice"]

    client = authoring_app.test_client()
    csrf = testing.author_login(client, "alice", AUTHOR_PASSWORD)
    r = client.post("/api/v1/questions", json=authoring_question("auth-session-new"), headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.get_json()


def test_authoring_401_names_bearer_scheme(authoring_client):
    r = authoring_client.post("/api/v1/questions", json={})
    assert r.status_code == 401
    assert r.get_json()["error"]["field"] == "Authorization"
