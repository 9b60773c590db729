"""Remember me (opt-in at sign-in): Flask-Login's remember cookie carries the same
``<learner id>:<session id>`` as the session, so a browser that lost its session cookie (closed and
reopened) is still signed in, and the server-side checks still apply: sign-out, account deletion and the
sign-in's age end it. Without the option, losing the session cookie signs the learner out."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

from sqlalchemy import select, update

from quizapp.config import SIGN_IN_MAX_DAYS
from quizapp.storage.db import get_db
from quizapp.storage.models import SignedInSession

PASSWORD = "a long passphrase 42"
REMEMBER = "remember_token"


def _sign_up_then_in(app, email: str, **login):
    """A learner who signed up elsewhere, signing in on a fresh browser with ``login`` extra fields."""
    assert app.test_client().post("/api/v1/account/signup",
                                  json={"email": email, "password": PASSWORD}).status_code == 201
    browser = app.test_client()
    resp = browser.post("/api/v1/account/login", json={"email": email, "password": PASSWORD, **login})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return browser, resp


def _restart(browser) -> None:
    """What closing the browser does: session cookies go, persistent ones stay."""
    browser.delete_cookie("session")


def _session_ids(app) -> list[str]:
    with app.app_context():
        s = get_db(app).Session()
        try:
            return list(s.scalars(select(SignedInSession.id)))
        finally:
            s.close()


def test_a_remembered_sign_in_survives_a_browser_restart(app):
    browser, resp = _sign_up_then_in(app, "rem@example.org", remember=True)
    cookie = next(c for c in resp.headers.getlist("Set-Cookie") if c.startswith(REMEMBER + "="))
    attrs = [a.strip().lower() for a in cookie.split(";")]
    assert "httponly" in attrs and "samesite=lax" in attrs
    expires = parsedate_to_datetime(next(a for a in cookie.split(";") if a.strip().lower().startswith("expires="))
                                    .split("=", 1)[1])
    left = expires - datetime.now(timezone.utc)
    assert timedelta(days=SIGN_IN_MAX_DAYS - 1) < left <= timedelta(days=SIGN_IN_MAX_DAYS)
    # the remember cookie names the same server-side session as the session cookie
    value = browser.get_cookie(REMEMBER).value
    sids = _session_ids(app)
    assert len(sids) == 2  # sign-up's browser and this one
    assert value.split("|")[0].partition(":")[2] in sids

    _restart(browser)
    assert browser.get_cookie("session") is None
    me = browser.get("/api/v1/account")
    assert me.status_code == 200, me.get_data(as_text=True)
    assert me.get_json()["email"] == "rem@example.org" and me.get_json()["via"] == "session"


def test_without_remember_a_restart_signs_out(app, lm):
    browser, resp = _sign_up_then_in(app, "norem@example.org")
    assert not any(c.startswith(REMEMBER + "=") for c in resp.headers.getlist("Set-Cookie"))
    assert browser.get("/api/v1/account").status_code == 200
    _restart(browser)
    lm.error(browser.get("/api/v1/account"), 401, "Authorization")


def test_a_remembered_cookie_stops_working_after_sign_out(app, lm):
    browser, _ = _sign_up_then_in(app, "out@example.org", remember=True)
    stolen = browser.get_cookie(REMEMBER).value
    resp = browser.post("/api/v1/account/logout", json={})
    assert resp.status_code == 200
    assert any(c.startswith(REMEMBER + "=;") or (REMEMBER + '=""') in c or "Max-Age=0" in c
               for c in resp.headers.getlist("Set-Cookie") if c.startswith(REMEMBER)), "the cookie was kept"
    replay = app.test_client()
    replay.set_cookie(REMEMBER, stolen)
    lm.error(replay.get("/api/v1/account"), 401, "Authorization")
    # the refused cookie is deleted, not looked up again on every request
    assert replay.get_cookie(REMEMBER) is None


def test_a_remembered_sign_in_ends_with_its_age(app, lm):
    browser, _ = _sign_up_then_in(app, "old@example.org", remember=True)
    with app.app_context():
        s = get_db(app).Session()
        too_old = datetime.now(timezone.utc) - timedelta(days=SIGN_IN_MAX_DAYS, minutes=1)
        s.execute(update(SignedInSession).values(created_at=too_old))
        s.commit()
        s.close()
    _restart(browser)
    lm.error(browser.get("/api/v1/account"), 401, "Authorization")


def test_remember_must_be_a_boolean(app, lm):
    assert app.test_client().post("/api/v1/account/signup",
                                  json={"email": "b@example.org", "password": PASSWORD}).status_code == 201
    body = lm.error(app.test_client().post("/api/v1/account/login", json={
        "email": "b@example.org", "password": PASSWORD, "remember": "yes"}), 422, "remember")
    assert "boolean" in body["message"]
    # sign-up takes no such field
    lm.error(app.test_client().post("/api/v1/account/signup", json={
        "email": "c@example.org", "password": PASSWORD, "remember": True}), 422, "remember")


def test_the_sign_in_page_offers_remember_me(app):
    browser = app.test_client()
    page = browser.get("/account/login").get_data(as_text=True)
    assert 'name="remember"' in page and "Remember me on this device" in page
    assert f"{SIGN_IN_MAX_DAYS} days" in page
    zh = browser.get("/account/login?lang=zh").get_data(as_text=True)
    assert "在此设备上记住我" in zh
    assert app.test_client().post("/api/v1/account/signup",
                                  json={"email": "page@example.org", "password": PASSWORD}).status_code == 201
    browser.get("/account/login")
    with browser.session_transaction() as sess:
        token = sess.get("csrf")
    resp = browser.post("/account/login", data={"csrf_token": token, "email": "page@example.org",
                                                "password": PASSWORD, "remember": "1"})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    assert browser.get_cookie(REMEMBER) is not None
    _restart(browser)
    assert browser.get("/api/v1/account").status_code == 200
