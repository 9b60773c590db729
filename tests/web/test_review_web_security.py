"""Review findings on the browser side: CSP on every HTML response, body limits, cookie Secure flag."""

from __future__ import annotations

import json

import pytest

import quiz_testing as testing


@pytest.fixture
def app(tmp_path):
    app = testing.make_app(tmp_path)
    testing.load_sample(app)
    yield app
    from quizapp.storage.db import get_db
    get_db(app).dispose()


def test_unknown_page_404_has_csp(app):
    resp = app.test_client().get("/no/such/page")
    assert resp.status_code == 404
    assert "default-src 'self'" in resp.headers.get("Content-Security-Policy", "")
    assert resp.headers.get("X-Content-Type-Options") == "nosniff"


def test_method_not_allowed_page_has_csp(app):
    resp = app.test_client().delete("/")
    assert resp.status_code == 405
    assert "default-src 'self'" in resp.headers.get("Content-Security-Policy", "")


def test_render_refuses_huge_bodies(app):
    body = json.dumps({"items": [], "pad": "x" * (2 * 1024 * 1024)})
    resp = app.test_client().post("/render", data=body, content_type="application/json")
    assert resp.status_code == 413


def test_secure_cookie_flag_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_COOKIE_SECURE", "1")
    app = testing.make_app(tmp_path)
    assert app.config["SESSION_COOKIE_SECURE"] is True
    resp = app.test_client().get("/")
    cookie = resp.headers.get("Set-Cookie", "")
    assert "quiz_learner=" in cookie and "Secure" in cookie and "HttpOnly" in cookie


def test_learner_cookie_secure_over_https(app):
    resp = app.test_client().get("/", base_url="https://localhost")
    cookie = resp.headers.get("Set-Cookie", "")
    assert "quiz_learner=" in cookie and "Secure" in cookie
