"""Signing out ends the session on the server: a copy of the session cookie taken while signed in is refused
afterwards (it used to keep working: the cookie is signed, and a signature cannot be taken back). Other
sessions of the same account stay signed in; deleting the account ends them all."""

from sqlalchemy import func, select

from quizapp.storage.db import get_db
from quizapp.storage.models import SignedInSession

PASSWORD = "a long passphrase 42"


def _session_cookie(client):
    return client.get_cookie("session").value


def _count(app):
    with app.app_context():
        s = get_db(app).Session()
        try:
            return s.scalar(select(func.count()).select_from(SignedInSession))
        finally:
            s.close()


def test_a_copied_cookie_is_refused_after_logout(app, lm):
    browser = app.test_client()
    assert browser.post("/api/v1/account/signup", json={"email": "eve@example.org", "password": PASSWORD}).status_code == 201
    stolen = _session_cookie(browser)
    assert browser.get("/api/v1/account").status_code == 200
    assert _count(app) == 1

    assert browser.post("/api/v1/account/logout", json={}).status_code == 200
    assert _count(app) == 0
    replay = app.test_client()
    replay.set_cookie("session", stolen)
    lm.error(replay.get("/api/v1/account"), 401, "Authorization")


def test_logout_ends_only_its_own_session(app, lm):
    first, second = app.test_client(), app.test_client()
    assert first.post("/api/v1/account/signup", json={"email": "sam@example.org", "password": PASSWORD}).status_code == 201
    assert second.post("/api/v1/account/login", json={"email": "sam@example.org", "password": PASSWORD}).status_code == 200
    assert _count(app) == 2
    assert first.post("/api/v1/account/logout", json={}).status_code == 200
    lm.error(first.get("/api/v1/account"), 401, "Authorization")
    assert second.get("/api/v1/account").status_code == 200


def test_deleting_the_account_ends_every_session(app, lm):
    first, second = app.test_client(), app.test_client()
    assert first.post("/api/v1/account/signup", json={"email": "kim@example.org", "password": PASSWORD}).status_code == 201
    assert second.post("/api/v1/account/login", json={"email": "kim@example.org", "password": PASSWORD}).status_code == 200
    resp = first.delete("/api/v1/account", json={"password": PASSWORD})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert _count(app) == 0
    lm.error(second.get("/api/v1/account"), 401, "Authorization")
