"""Signing in, signing up and signing out from a page come back to that page (``next=``, read through
``quizapp.safe_redirect``), with its query (``variant=``, ``lang=``) kept; a hostile ``next=`` lands on the
default page (History after signing in or up, the home page after signing out)."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest

import quiz_testing as testing

QID = testing.SAMPLE_QUESTION["id"]
PASSWORD = "a long passphrase 42"
EMAIL = "ret@example.org"


def _href(page: str, element_id: str) -> str:
    found = re.search(rf'<a href="([^"]*)" id="{element_id}"', page)
    assert found, f"no link #{element_id} on the page"
    return html.unescape(found.group(1))


def _next_of(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("next")
    return values[0] if values else None


def _hidden_next(page: str) -> str | None:
    found = re.search(r'<input type="hidden" name="next" value="([^"]*)">', page)
    return html.unescape(found.group(1)) if found else None


def _csrf(client) -> str:
    with client.session_transaction() as sess:
        return sess["csrf"]


def _form_post(client, url: str, **fields):
    """What the browser sends for a form on the page at ``url`` (no ``action``: it posts to ``url``), with the
    page's hidden ``next`` field when it has one."""
    page = client.get(url)
    assert page.status_code == 200, page.get_data(as_text=True)
    data = {"csrf_token": _csrf(client), **fields}
    back = _hidden_next(page.get_data(as_text=True))
    if back is not None:
        data["next"] = back
    return client.post(url, data=data)


@pytest.fixture
def account(app):
    resp = app.test_client().post("/api/v1/account/signup", json={"email": EMAIL, "password": PASSWORD})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return EMAIL


def test_the_sign_in_link_of_a_question_page_names_the_page(client):
    page = client.get(f"/questions/{QID}?variant=3&lang=zh").get_data(as_text=True)
    login = _href(page, "nav-login")
    assert urlsplit(login).path == "/account/login"
    target = _next_of(login)
    assert urlsplit(target).path == f"/questions/{QID}"
    assert parse_qs(urlsplit(target).query) == {"variant": ["3"], "lang": ["zh"]}


def test_a_drawn_variant_and_the_language_are_kept(client):
    """A first visit draws a variant: the link names it (the same question comes back), and ``?lang=``."""
    page = client.get(f"/questions/{QID}?lang=zh").get_data(as_text=True)
    query = parse_qs(urlsplit(_next_of(_href(page, "nav-login"))).query)
    assert query["lang"] == ["zh"]
    drawn = re.search(r'id="variant-number">#(\d+)<', page)
    assert drawn and query["variant"] == [drawn.group(1)]


def test_signing_in_from_a_question_comes_back_to_it(client, account):
    page = client.get(f"/questions/{QID}?variant=3&lang=zh").get_data(as_text=True)
    login = _href(page, "nav-login")
    resp = _form_post(client, login, email=account, password=PASSWORD)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    assert resp.headers["Location"] == _next_of(login)
    assert client.get("/api/v1/account").status_code == 200


def test_a_failed_sign_in_keeps_the_way_back(client, account):
    login = f"/account/login?next=/questions/{QID}%3Fvariant%3D2"
    resp = _form_post(client, login, email=account, password="wrong password 1234")
    assert resp.status_code == 401
    assert _hidden_next(resp.get_data(as_text=True)) == f"/questions/{QID}?variant=2"


def test_signing_up_from_a_question_comes_back_to_it(client):
    page = client.get(f"/questions/{QID}?variant=5").get_data(as_text=True)
    login_page = client.get(_href(page, "nav-login")).get_data(as_text=True)
    signup = _href(login_page, "to-signup")
    assert _next_of(signup) == f"/questions/{QID}?variant=5"
    assert _next_of(_href(client.get(signup).get_data(as_text=True), "to-login")) == _next_of(signup)
    resp = _form_post(client, signup, email="new@example.org", password=PASSWORD)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    assert resp.headers["Location"] == f"/questions/{QID}?variant=5"


HOSTILE = ["//evil.example/x", "https://evil.example/x", "/\\evil.example", "/\t/evil.example", "javascript:alert(1)",
           "evil.example", "/account/login?next=/find", "/account/logout"]


@pytest.mark.parametrize("target", HOSTILE)
def test_a_hostile_or_looping_target_lands_on_history(client, account, target):
    client.get("/account/login")
    resp = client.post("/account/login", data={"csrf_token": _csrf(client), "email": account,
                                               "password": PASSWORD, "next": target})
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/history"


@pytest.mark.parametrize("target", ["//evil.example/x", "/\\evil.example"])
def test_a_hostile_target_in_the_query_is_not_passed_on(client, target):
    page = client.get("/account/login", query_string={"next": target}).get_data(as_text=True)
    assert _hidden_next(page) is None
    assert _next_of(_href(page, "to-signup")) is None


def test_without_a_target_sign_in_still_lands_on_history(client, account):
    assert _form_post(client, "/account/login", email=account, password=PASSWORD).headers["Location"] == "/history"


def test_signing_out_from_the_account_page_comes_back_to_the_page_left(client, account):
    _form_post(client, "/account/login", email=account, password=PASSWORD)
    page = client.get(f"/questions/{QID}?variant=4").get_data(as_text=True)
    account_page = _href(page, "nav-account")
    assert _next_of(account_page) == f"/questions/{QID}?variant=4"
    shown = client.get(account_page).get_data(as_text=True)
    assert _hidden_next(shown) == f"/questions/{QID}?variant=4"
    resp = client.post("/account/logout", data={"csrf_token": _csrf(client), "next": _hidden_next(shown)})
    assert resp.headers["Location"] == f"/questions/{QID}?variant=4"
    assert client.get("/api/v1/account").status_code == 401


@pytest.mark.parametrize("target", ["//evil.example/x", "/account", "/account/export.json"])
def test_signing_out_to_a_hostile_or_account_page_lands_home(client, account, target):
    _form_post(client, "/account/login", email=account, password=PASSWORD)
    client.get("/account")
    resp = client.post("/account/logout", data={"csrf_token": _csrf(client), "next": target})
    assert resp.headers["Location"] == "/"


def test_the_account_page_signed_out_sends_to_sign_in_and_back(client, account):
    resp = client.get("/account")
    assert resp.status_code == 302
    login = resp.headers["Location"]
    assert _next_of(login) == "/account"
    resp = _form_post(client, login, email=account, password=PASSWORD)
    assert resp.headers["Location"] == "/account"
