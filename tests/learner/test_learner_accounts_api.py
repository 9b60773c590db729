"""Accounts: sign-up moves the cookie learner's attempts, a second device sees the same, personal tokens
record attempts and are refused once revoked, sign-in is throttled, export and deletion; bad input is a
4xx envelope naming the field (API) or a message on the page."""

import csv
import io
import re

from quizapp.httpkit.csrf import SESSION_KEY


def test_signup_keeps_cookie_attempts_and_second_device_sees_them(client, app, lm):
    before = lm.answer(client, 1, right=False)
    assert client.post("/api/v1/account/signup",
                       json={"email": "Ada@Example.org", "password": lm.PASSWORD}).status_code == 201
    lm.answer(client, 2, right=True)
    mine = [a["attempt_id"] for a in client.get("/api/v1/attempts").get_json()["attempts"]]
    assert len(mine) == 2 and before["attempt_id"] in mine
    assert client.get(f"/api/v1/attempts/{before['attempt_id']}").status_code == 200

    device2 = app.test_client()
    lm.answer(device2, 3, right=True)  # practised anonymously there first: merged at sign-in
    assert device2.post("/api/v1/account/login",
                        json={"email": "ada@example.org", "password": lm.PASSWORD}).status_code == 200
    theirs = [a["attempt_id"] for a in device2.get("/api/v1/attempts").get_json()["attempts"]]
    assert len(theirs) == 3 and set(mine) <= set(theirs)
    assert client.get("/api/v1/review/queue").get_json()["counts"]["cards"] == 1

    assert client.post("/api/v1/account/logout", json={}).status_code == 200
    assert client.get("/api/v1/attempts").get_json()["attempts"] == []  # signed out: an empty cookie learner
    lm.error(client.get("/api/v1/account"), 401, "Authorization")


def test_signup_and_login_errors_name_the_field(client, signed_up, app, lm):
    other = app.test_client()
    bad = lambda body: other.post("/api/v1/account/signup", json=body)  # noqa: E731
    assert lm.error(bad({"email": "not-an-email", "password": lm.PASSWORD}), 422, "email")["code"] == "invalid_email"
    lm.error(bad({"email": "b@example.org", "password": "short"}), 422, "password")
    lm.error(bad({"email": "b@example.org", "password": "a" * 2000}), 422, "password")
    lm.error(bad({"email": "b@example.org", "password": "aaaaaaaaaaaa"}), 422, "password")
    lm.error(bad({"email": "b@example.org"}), 422, "password")
    lm.error(bad({"email": "b@example.org", "password": lm.PASSWORD, "x": 1}), 422, "x")
    assert lm.error(bad({"email": "ADA@example.org", "password": lm.PASSWORD}), 409, "email")["code"] == "account_exists"
    lm.error(other.post("/api/v1/account/login", json={"email": "ada@example.org", "password": "wrong password!"}),
             401, "password")


def test_login_is_throttled(app, signed_up, lm):
    app.config.update(LOGIN_MAX_FAILURES=2)
    other = app.test_client()
    for _ in range(2):
        lm.error(other.post("/api/v1/account/login", json={"email": "ada@example.org", "password": "nope nope nope"}),
                 401, "password")
    resp = other.post("/api/v1/account/login", json={"email": "ada@example.org", "password": lm.PASSWORD})
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) > 0  # even the right password waits


def test_personal_token_records_attempts_and_is_refused_once_revoked(signed_up, app, lm):
    created = signed_up.post("/api/v1/account/tokens", json={"name": "notebook"})
    assert created.status_code == 201
    token, token_id = created.get_json()["token"], created.get_json()["id"]
    listed = signed_up.get("/api/v1/account/tokens").get_json()["tokens"]
    assert [t["name"] for t in listed] == ["notebook"] and "token" not in listed[0]

    script = app.test_client(use_cookies=False)
    auth = {"Authorization": f"Bearer {token}"}
    made = lm.answer(script, 4, right=False, headers=auth)
    assert made["review"]["last_rating"] == "again"
    assert [a["attempt_id"] for a in signed_up.get("/api/v1/attempts").get_json()["attempts"]] == [made["attempt_id"]]
    assert script.get(f"/api/v1/attempts/{made['attempt_id']}", headers=auth).status_code == 200
    for path in ("/api/v1/attempts", "/api/v1/progress", "/api/v1/review/queue", "/api/v1/account"):
        assert script.get(path, headers=auth).status_code == 200, path
    # the practice blueprint takes the token too: the state is the token's learner's (one wrong try), not an
    # anonymous visitor's
    practice = script.get(f"/api/v1/questions/{lm.QID}/practice?variant=4", headers=auth)
    assert practice.status_code == 200 and practice.get_json()["practice"]["tries_used"] == 1
    check = script.post("/api/v1/check/symbolic", json={"expected": "2*x", "answer": "x+x", "variables": {"x": {}}},
                        headers=auth)
    assert check.status_code == 200 and check.get_json()["status"] == "correct"
    lm.error(script.post("/api/v1/account/tokens", json={}, headers=auth), 403, "Authorization")

    assert signed_up.delete(f"/api/v1/account/tokens/{token_id}").status_code == 200
    lm.error(script.get("/api/v1/attempts", headers=auth), 401, "Authorization")
    lm.error(script.get(f"/api/v1/questions/{lm.QID}/practice?variant=4", headers=auth), 401, "Authorization")
    lm.error(script.post("/api/v1/check/symbolic", json={"expected": "x", "answer": "x"}, headers=auth),
             401, "Authorization")
    lm.error(script.get("/api/v1/attempts", headers={"Authorization": "Basic abc"}), 401, "Authorization")
    lm.error(signed_up.delete("/api/v1/account/tokens/999"), 422, "token_id")


def test_export_json_and_csv_then_delete_removes_everything(signed_up, app, lm):
    made = lm.answer(signed_up, 5, right=True)
    data = signed_up.get("/api/v1/account/export").get_json()
    assert data["account"]["email"] == "ada@example.org"
    assert [a["attempt_id"] for a in data["attempts"]] == [made["attempt_id"]]
    assert data["attempts"][0]["answers"] == lm.right_answers(5) and len(data["review_cards"]) == 1
    rows = list(csv.DictReader(io.StringIO(signed_up.get("/api/v1/account/export?format=csv").get_data(as_text=True))))
    assert [(r["attempt_id"], r["score"], r["statuses"]) for r in rows] == [
        (made["attempt_id"], "2.0", "a=correct;b=correct")]
    lm.error(signed_up.get("/api/v1/account/export?format=xml"), 422, "format")

    lm.error(signed_up.delete("/api/v1/account", json={"password": "wrong wrong wrong"}), 401, "password")
    gone = signed_up.delete("/api/v1/account", json={"password": lm.PASSWORD})
    assert gone.status_code == 200 and gone.get_json()["attempts_removed"] == 1
    other = app.test_client()
    lm.error(other.post("/api/v1/account/login", json={"email": "ada@example.org", "password": lm.PASSWORD}),
             401, "password")
    from quizapp.storage.db import get_db
    from quizapp.storage.models import Attempt
    with get_db(app).Session() as session:
        assert session.get(Attempt, made["attempt_id"]) is None  # removed, not anonymised


def _csrf(client) -> str:
    with client.session_transaction() as s:
        return s[SESSION_KEY]


def test_account_pages_show_errors_and_need_csrf(client, lm):
    lm.answer(client, 1, right=True)
    assert client.get("/account/signup").status_code == 200
    token = _csrf(client)
    assert client.post("/account/signup", data={"email": "x@example.org", "password": lm.PASSWORD}).status_code == 400
    bad = client.post("/account/signup", data={"csrf_token": token, "email": "nope", "password": lm.PASSWORD})
    assert bad.status_code == 422 and 'id="email-error"' in bad.get_data(as_text=True)
    weak = client.post("/account/signup", data={"csrf_token": token, "email": "x@example.org", "password": "short"})
    assert weak.status_code == 422 and 'id="password-error"' in weak.get_data(as_text=True)
    ok = client.post("/account/signup", data={"csrf_token": token, "email": "x@example.org", "password": lm.PASSWORD})
    assert ok.status_code == 302
    assert 'data-score="2/2"' in client.get("/history").get_data(as_text=True)  # nothing lost
    page = client.get("/account").get_data(as_text=True)
    assert "x@example.org" in page
    made = client.post("/account/tokens", data={"csrf_token": _csrf(client), "name": "nb"})
    assert made.status_code == 201 and re.search(r'id="new-token">qa_', made.get_data(as_text=True))
    assert client.post("/account/logout", data={"csrf_token": _csrf(client)}).status_code == 302
    assert client.get("/account/login").status_code == 200
    wrong = client.post("/account/login", data={"csrf_token": _csrf(client), "email": "x@example.org",
                                                 "password": "not it at all"})
    assert wrong.status_code == 401 and 'id="login-error"' in wrong.get_data(as_text=True)


def test_a_request_without_a_session_cookie_does_not_look_for_an_account(client, app, lm, monkeypatch):
    from quizapp.auth import identity

    signed_in = app.test_client()
    assert signed_in.post("/api/v1/account/signup",
                          json={"email": "eve@example.org", "password": lm.PASSWORD}).status_code == 201
    looks = []
    original = identity.login_manager._load_user  # Flask-Login's search: session, remember-me cookie
    monkeypatch.setattr(identity.login_manager, "_load_user", lambda: looks.append(1) or original())
    lm.answer(client, 1, right=True)  # anonymous: only the learner cookie
    assert looks == []
    assert signed_in.get("/api/v1/account").status_code == 200 and looks  # the session still counts
