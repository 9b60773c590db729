"""Author pages through the test client: login with CSRF, save/publish/retire forms, tokens, CSP, learners 403."""

from __future__ import annotations

import re

from checkers.bank import dump_question


def test_authoring_login_needs_csrf_and_password(authoring_client, authoring_passwords):
    c = authoring_client
    assert c.get("/author/").status_code == 302  # to the login page
    r = c.post("/author/login", data={"username": "alice", "password": authoring_passwords["alice"]})
    assert r.status_code == 403  # no CSRF token
    c.get("/author/login")
    with c.session_transaction() as sess:
        token = sess["csrf"]
    r = c.post("/author/login", data={"username": "alice", "password": "wrong password!", "csrf_token": token})
    assert r.status_code == 401
    r = c.post("/author/login", data={"username": "alice", "password": authoring_passwords["alice"],
                                      "csrf_token": token})
    assert r.status_code == 302
    with c.session_transaction() as sess:
        assert sess["csrf"] != token  # a fresh session after login
    page = c.get("/author/")
    assert page.status_code == 200 and b"svc-sample-double" in page.data
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert b"<script>" not in page.data and b"author.js" in page.data


def test_authoring_learner_session_gets_403(authoring_client, authoring_passwords, authoring_login):
    authoring_login(authoring_client, "bob", authoring_passwords["bob"])
    assert authoring_client.get("/author/").status_code == 403


def test_authoring_editor_save_publish_retire(authoring_client, authoring_passwords, authoring_login,
                                              authoring_question):
    c = authoring_client
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    text = dump_question(authoring_question("auth-page-q"))
    assert c.post("/author/save", data={"yaml": text}).status_code == 403  # CSRF
    r = c.post("/author/save", data={"yaml": text, "csrf_token": csrf})
    assert r.status_code == 302 and "/author/q/auth-page-q" in r.headers["Location"]
    page = c.get("/author/q/auth-page-q")
    assert b'id="selftest-ok"' in page.data and b'id="publish"' in page.data and b'id="preview-title"' in page.data
    r = c.post("/author/q/auth-page-q/publish", data={"version": "1", "csrf_token": csrf})
    assert r.status_code == 302
    assert c.get("/api/v1/questions/auth-page-q?variant=0").status_code == 200
    # a broken edit is shown with its failures and cannot be published
    broken = authoring_question("auth-page-q")
    broken["parts"][0]["expected"] = {"expr": "2*p +"}
    r = c.post("/author/save", data={"yaml": dump_question(broken), "qid": "auth-page-q", "csrf_token": csrf})
    page = c.get(r.headers["Location"])
    assert b'id="selftest-bad"' in page.data and b"expected answer cannot be computed" in page.data
    r = c.post("/author/q/auth-page-q/publish", data={"version": "2", "csrf_token": csrf})
    assert r.status_code == 409 and b'id="save-failures"' in r.data
    assert c.get("/api/v1/questions/auth-page-q?variant=0").get_json()["version"] == 1
    # schema error: 422, nothing saved
    r = c.post("/author/save", data={"yaml": "id: x", "csrf_token": csrf})
    assert r.status_code == 422 and b"save-errors" in r.data
    # live preview endpoint (JSON + header)
    r = c.post("/author/preview", json={"yaml": text, "seed": 4}, headers={"X-CSRF-Token": csrf})
    assert r.get_json()["ok"] and "preview-title" in r.get_json()["html"]
    assert c.post("/author/preview", json={"yaml": text}).status_code == 403
    # retiring asks first: without the confirmation the question stays published
    r = c.post("/author/q/auth-page-q/retire", data={"csrf_token": csrf})
    assert r.status_code == 200 and b'id="confirm-retire"' in r.data
    assert c.get("/api/v1/questions/auth-page-q?variant=0").status_code == 200
    r = c.post("/author/q/auth-page-q/retire", data={"csrf_token": csrf, "confirm": "yes"})
    assert r.status_code == 302
    assert c.get("/api/v1/questions/auth-page-q?variant=0").status_code == 404


def test_authoring_tokens_page_create_use_revoke(authoring_app, authoring_passwords, authoring_login):
    c = authoring_app.test_client()
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    r = c.post("/author/tokens", data={"name": "laptop", "csrf_token": csrf})
    html = r.get_data(as_text=True)
    token = html.split('id="new-token-value">')[1].split("<")[0]
    assert token.startswith("qa_")
    assert token not in c.get("/author/tokens").get_data(as_text=True)  # shown once
    api = authoring_app.test_client()
    h = {"Authorization": f"Bearer {token}"}
    assert api.get("/api/v1/questions/svc-sample-double/versions", headers=h).status_code == 200
    from quizapp.storage.db import get_db
    from quizapp.storage.models import ApiToken
    s = get_db(authoring_app).Session()
    row = s.query(ApiToken).filter_by(name="laptop").one()
    assert row.token_hash != token and len(row.token_hash) == 64 and row.last_used_at is not None
    s.close()
    assert c.post(f"/author/tokens/{row.id}/revoke", data={"csrf_token": csrf}).status_code == 302
    assert api.get("/api/v1/questions/svc-sample-double/versions", headers=h).status_code == 401


def test_authoring_cli_accounts_and_tokens(authoring_app):
    runner = authoring_app.test_cli_runner()
    r = runner.invoke(args=["create-author", "carol", "--password-stdin"], input="carol password 1\n")
    assert r.exit_code == 0, r.output
    r = runner.invoke(args=["create-author", "carol", "--password-stdin"], input="carol password 1\n")
    assert r.exit_code != 0 and "taken" in r.output
    r = runner.invoke(args=["create-token", "carol", "--name", "cli"])
    assert r.exit_code == 0
    token = [line for line in r.output.splitlines() if line.startswith("qa_")][0]
    api = authoring_app.test_client()
    h = {"Authorization": f"Bearer {token}"}
    assert api.get("/api/v1/export?format=json", headers=h).status_code == 200
    listing = runner.invoke(args=["list-tokens", "carol"]).output
    token_id = listing.split("\t")[0]
    assert token not in listing and "active" in listing
    assert runner.invoke(args=["revoke-token", token_id]).exit_code == 0
    assert api.get("/api/v1/export?format=json", headers=h).status_code == 401
    from quizapp.storage.db import get_db
    from quizapp.storage.models import AuthorCredential
    s = get_db(authoring_app).Session()
    cred = s.query(AuthorCredential).filter_by(username="carol").one()
    assert cred.password_hash.startswith("scrypt:") and "carol password 1" not in cred.password_hash
    s.close()


def test_author_pages_show_times_in_the_authors_zone(authoring_app, authoring_passwords, authoring_login):
    """Author pages state times as <time class="local-time"> (UTC text, rewritten in the browser's zone by
    static/localtime.js), like the learner pages, instead of raw ISO strings or datetimes."""
    c = authoring_app.test_client()
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    c.post("/author/tokens", data={"name": "zone", "csrf_token": csrf})
    html = c.get("/author/tokens").get_data(as_text=True)
    assert '<time class="local-time" datetime="' in html and " UTC</time>" in html
    assert "localtime.js" in html
    assert not re.search(r">\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d", html)  # no raw timestamp left as text


def test_a_refused_token_request_reads_in_the_authors_language(authoring_app, authoring_passwords, authoring_login):
    c = authoring_app.test_client()
    csrf = authoring_login(c, "alice", authoring_passwords["alice"])
    c.get("/author/tokens?lang=zh")  # the language is remembered, as on the learner pages
    page = c.post("/author/tokens", data={"name": "x" * 121, "csrf_token": csrf}).get_data(as_text=True)
    assert "令牌名称最多 120 个字符。" in page and "must be at most" not in page
    page = c.post("/author/tokens/999999/revoke", data={"csrf_token": csrf}, follow_redirects=True).get_data(as_text=True)
    assert "没有这个令牌。" in page and "no token" not in page
    c.get("/author/tokens?lang=en")
    page = c.post("/author/tokens/999999/revoke", data={"csrf_token": csrf}, follow_redirects=True).get_data(as_text=True)
    assert "There is no such token." in page
