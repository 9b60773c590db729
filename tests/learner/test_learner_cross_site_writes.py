"""A cross-site form can make the browser POST with this site's cookies, but only as a form or text/plain:
every POST under /api/ that carries cookies and no bearer token must be JSON (415 naming Content-Type), so such
a form can neither mint a token, sign the learner out nor share an attempt. Requests without cookies, with a
bearer token, or with a method no form can send are not affected."""

import pytest

FORM_BODIES = [{"data": {}}, {"data": {"name": "evil"}}, {"data": "name=evil", "content_type": "text/plain"},
               {"data": b"", "content_type": "multipart/form-data; boundary=x"}]


def _share_path(client, lm):
    made = lm.answer(client, 2, right=True)
    return f"/api/v1/attempts/{made['attempt_id']}/share"


@pytest.mark.parametrize("body", FORM_BODIES)
def test_a_form_post_with_the_session_cookie_is_refused(signed_up, lm, body):
    targets = ["/api/v1/account/tokens", "/api/v1/account/logout", _share_path(signed_up, lm)]
    for path in targets:
        resp = signed_up.post(path, **body)
        lm.error(resp, 415, "Content-Type")
    # Nothing happened: no token was minted and the session is still signed in.
    assert signed_up.get("/api/v1/account/tokens").get_json()["tokens"] == []
    assert signed_up.get("/api/v1/account").status_code == 200


def test_the_same_requests_as_json_work(signed_up, lm):
    assert signed_up.post(_share_path(signed_up, lm), json={}).status_code == 201
    assert signed_up.post("/api/v1/account/tokens", json={}).status_code == 201
    assert signed_up.post("/api/v1/account/logout", json={}).status_code == 200


def test_requests_without_cookies_or_with_a_token_are_exempt(app, signed_up, lm):
    token = signed_up.post("/api/v1/account/tokens", json={"name": "nb"}).get_json()["token"]
    script = app.test_client(use_cookies=False)
    made = lm.answer(script, 3, right=True, headers={"Authorization": f"Bearer {token}"})
    resp = script.post(f"/api/v1/attempts/{made['attempt_id']}/share", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    assert script.post("/api/v1/account/logout").status_code == 200  # no cookie: nothing to forge


def test_the_document_lists_the_415(client):
    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    for path in ("/api/v1/account/logout", "/api/v1/attempts/{attempt_id}/share", "/api/v1/account/tokens"):
        assert "415" in paths[path]["post"]["responses"], path


def test_the_csrf_header_also_passes(signed_up, lm):
    """A custom header cannot come from a cross-site form (a script would need a preflight)."""
    resp = signed_up.post("/api/v1/account/logout", headers={"X-CSRF-Token": "anything"})
    assert resp.status_code == 200
