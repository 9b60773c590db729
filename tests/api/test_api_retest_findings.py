"""Findings of the security re-test: each request once answered a 500 or an open redirect.

- ``next=`` is judged as the browser reads the ``Location`` header (tabs and newlines removed, ``\\`` read as
  ``/``), so ``/%09/evil.example`` cannot become ``//evil.example``; a newline is refused, not a 500.
- A variant or a mock length written with digits ``int`` refuses (``²``), digits of other scripts, or 5,000
  digits is an unknown value (the page's usual answer), never a 500.
- ``GET /api/v1/account`` with an author's token (an author has no learner account) is a 403 naming
  ``Authorization``, not a 500.
"""

import pytest

from quizapp.auth import create_author, create_token
from quizapp.storage.db import get_db
from quizapp.safe_redirect import safe_next
from quiz_testing import SAMPLE_QUESTION

QID = SAMPLE_QUESTION["id"]
HOSTILE_NEXT = ["/%09/evil.example", "/%0a/evil.example", "/%0d%0a/evil.example", "/\\evil.example",
                "%09//evil.example", "//evil.example", "https://evil.example/", "/%20/evil.example",
                "/%7f/evil.example", "javascript:alert(1)"]


@pytest.mark.parametrize("target", HOSTILE_NEXT)
def test_appearance_never_redirects_off_site(client, target):
    resp = client.get(f"/appearance?theme=dark&next={target}")
    assert resp.status_code == 303
    assert resp.headers["Location"] == "/"


def test_appearance_keeps_a_path_of_this_site(client):
    resp = client.get("/appearance?theme=dark&next=/find%3Fq%3Dclip")
    assert resp.status_code == 303 and resp.headers["Location"] == "/find?q=clip"


@pytest.mark.parametrize("raw", ["/\t/evil.example", "/\n/x", " /x", "/x\\y", "//x", "http://x/", "/" + "a" * 3000])
def test_safe_next_refuses_what_a_browser_would_send_elsewhere(raw):
    assert safe_next(raw, "/home") == "/home"


def test_safe_next_prefix():
    assert safe_next("/author/q/1", "/author", prefix="/author") == "/author/q/1"
    assert safe_next("/find", "/author", prefix="/author") == "/author"


@pytest.mark.parametrize("variant", ["²", "٣", "³", "1²", "9" * 5000, "-1", "1.0", " "])
def test_question_page_with_a_strange_variant_is_no_500(client, variant):
    resp = client.get(f"/questions/{QID}", query_string={"variant": variant})
    assert resp.status_code < 500, resp.status_code
    # An unreadable variant is drawn anew: the page redirects to (or shows) a real variant.
    assert resp.status_code in (200, 302, 303)


@pytest.mark.parametrize("variant", ["²", "٣", "9" * 5000])
def test_figure_with_a_strange_variant_is_404(client, variant):
    resp = client.get(f"/questions/{QID}/figure.svg", query_string={"variant": variant})
    assert resp.status_code == 404


@pytest.mark.parametrize("length", ["³", "٣", "9" * 5000])
def test_mock_with_a_strange_length_is_422(client, length):
    client.get("/mock")
    with client.session_transaction() as sess:
        token = sess.get("csrf", "")
    resp = client.post("/mock", data={"levels": "L1", "length": length, "csrf_token": token})
    assert resp.status_code in (400, 422), resp.status_code


def test_account_with_an_author_token_is_no_500(app, client):
    with app.app_context():
        session = get_db(app).Session()
        author = create_author(session, "retest-author", "a-long-enough-pass-phrase-7")
        _, token = create_token(session, author.id, "retest")
        session.close()
    resp = client.get("/api/v1/account", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 403, resp.get_data(as_text=True)
    error = resp.get_json()["error"]
    assert error["code"] == "not_a_learner_account" and error["field"] == "Authorization"


def test_every_rate_limited_operation_documents_429_with_retry_after(app, client):
    from quizapp.ops.limits import CHECK_ENDPOINTS, SUBMIT_ENDPOINTS

    paths = client.get("/api/v1/openapi.json").get_json()["paths"]
    limited = [r for r in app.url_map.iter_rules() if r.endpoint in set(SUBMIT_ENDPOINTS) | set(CHECK_ENDPOINTS)]
    assert len(limited) == len(set(SUBMIT_ENDPOINTS) | set(CHECK_ENDPOINTS))
    documented = 0
    for op in (op for ops in paths.values() for op in ops.values()):
        if "429" in op["responses"]:
            assert "Retry-After" in op["responses"]["429"]["headers"]
            documented += 1
    # The eight limited operations, and the throttled sign-in.
    assert documented >= len(limited) + 1
    assert "429" in paths["/api/v1/questions/{qid}/attempts"]["post"]["responses"]
    assert "429" in paths["/api/v1/check/code"]["post"]["responses"]


def _learner_client(app, address):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def test_an_attacker_cannot_lock_a_learner_out(app):
    """Failed sign-ins are counted per email and client address: one attacker's failures lock the attacker's
    address, and the learner still signs in from another one (the total per email over every address is much
    higher, so a spread-out guessing run is still stopped)."""
    owner = _learner_client(app, "10.9.0.1")
    email, password = "victim@example.org", "a long passphrase 42"
    assert owner.post("/api/v1/account/signup", json={"email": email, "password": password}).status_code == 201
    attacker = _learner_client(app, "10.9.0.66")
    statuses = [attacker.post("/api/v1/account/login", json={"email": email, "password": "wrong guess 1234"}
                              ).status_code for _ in range(8)]
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    learner = _learner_client(app, "10.9.0.2")
    assert learner.post("/api/v1/account/login", json={"email": email, "password": password}).status_code == 200


def test_guesses_spread_over_many_addresses_are_still_stopped(app):
    app.config["LOGIN_MAX_FAILURES_PER_USERNAME"] = 6
    owner = _learner_client(app, "10.8.0.1")
    email = "spread@example.org"
    assert owner.post("/api/v1/account/signup", json={"email": email, "password": "a long passphrase 42"}
                      ).status_code == 201
    statuses = [_learner_client(app, f"10.8.1.{i}").post(
        "/api/v1/account/login", json={"email": email, "password": "wrong guess 1234"}).status_code
        for i in range(9)]
    assert statuses[:6] == [401] * 6 and set(statuses[6:]) == {429}
