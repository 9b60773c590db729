"""Versions an author can compare and restore: history with who and when, YAML and rendered-prompt diffs,
restore as a new draft, retire only after a confirmation, un-retire; bank questions get a self-test result."""

from __future__ import annotations

import copy

from checkers.bank import dump_question
import quiz_testing as testing
from quizapp.authoring import versions
from quizapp.storage.db import get_db

YAML = {"Content-Type": "application/yaml"}


def _login(client, passwords):
    return testing.author_login(client, "alice", passwords["alice"])


def _two_versions(client, creds, qid):
    h = {"Authorization": f"Bearer {creds['author_token']}", **YAML}
    v1 = dump_question(dict(copy.deepcopy(testing.SAMPLE_QUESTION), id=qid))
    assert client.post("/api/v1/questions", data=v1.encode(), headers=h).status_code == 201
    assert client.post(f"/api/v1/questions/{qid}/publish",
                       headers={"Authorization": h["Authorization"]}).status_code == 200
    v2 = v1.replace("Double it", "Twice the value")
    assert v2 != v1
    assert client.put(f"/api/v1/questions/{qid}", data=v2.encode(), headers=h).status_code == 201
    return v1, v2


def test_history_diff_restore(authoring_client, authoring_creds, authoring_passwords):
    qid = "auth-hist"
    v1, v2 = _two_versions(authoring_client, authoring_creds, qid)
    csrf = _login(authoring_client, authoring_passwords)
    page = authoring_client.get(f"/author/q/{qid}/history?a=1&b=2").get_data(as_text=True)
    assert "alice" in page  # who
    assert "-title: {en: Double it" in page and "+title: {en: Twice the value" in page  # YAML diff
    assert "-# Double it" in page and "+# Twice the value" in page  # what learners see
    r = authoring_client.post(f"/author/q/{qid}/restore", data={"version": 1, "csrf_token": csrf})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/author/q/{qid}?version=3")
    with authoring_client.application.app_context():
        s = get_db(authoring_client.application).Session()
        rows = versions.list_versions(s, qid)
        s.close()
    assert [(v["version"], v["status"]) for v in rows] == [(1, "published"), (2, "draft"), (3, "draft")]
    assert rows[2]["yaml"] == v1 and rows[2]["selftest"]["ok"] is True


def test_retire_asks_first_then_unretire(authoring_client, authoring_creds, authoring_passwords):
    qid = "auth-retire"
    _two_versions(authoring_client, authoring_creds, qid)
    csrf = _login(authoring_client, authoring_passwords)
    confirm = authoring_client.get(f"/author/q/{qid}/retire")
    assert confirm.status_code == 200 and 'id="confirm-retire"' in confirm.get_data(as_text=True)
    # a POST without the confirmation changes nothing
    again = authoring_client.post(f"/author/q/{qid}/retire", data={"csrf_token": csrf})
    assert again.status_code == 200 and authoring_client.get(f"/api/v1/questions/{qid}").status_code == 200
    r = authoring_client.post(f"/author/q/{qid}/retire", data={"csrf_token": csrf, "confirm": "yes"})
    assert r.status_code == 302 and authoring_client.get(f"/api/v1/questions/{qid}").status_code == 404
    assert 'id="unretire"' in authoring_client.get(f"/author/q/{qid}").get_data(as_text=True)
    r = authoring_client.post(f"/author/q/{qid}/unretire", data={"csrf_token": csrf})
    assert r.status_code == 302 and authoring_client.get(f"/api/v1/questions/{qid}").status_code == 200
    assert authoring_client.post(f"/author/q/{qid}/unretire", data={"csrf_token": csrf}).status_code == 302


def test_bank_questions_get_a_selftest_result(authoring_app):
    """The sample question is loaded from a file with no report; the CLI stores one for it."""
    with authoring_app.app_context():
        s = get_db(authoring_app).Session()
        before = [q for q in versions.overview(s) if q["selftest"] is None]
        s.close()
    assert before  # loaded from the bank: nothing stored yet
    result = authoring_app.test_cli_runner().invoke(args=["selftest-stored"])
    assert result.exit_code == 0, result.output
    with authoring_app.app_context():
        s = get_db(authoring_app).Session()
        after = versions.overview(s)
        s.close()
    assert all(q["selftest"] is not None for q in after if q["published"])
    assert f"self-tested {len(before)} version(s)" in result.output


def test_help_page_and_login_form(authoring_client, authoring_passwords):
    login = authoring_client.get("/author/login").get_data(as_text=True)
    assert 'class="login-form"' in login and 'type="password"' in login
    _login(authoring_client, authoring_passwords)
    help_page = authoring_client.get("/author/help").get_data(as_text=True)
    assert "Authorization: Bearer" in help_page and "/api/v1/openapi.json" in help_page
    tokens = authoring_client.get("/author/tokens").get_data(as_text=True)
    assert 'id="api-help-link"' in tokens
