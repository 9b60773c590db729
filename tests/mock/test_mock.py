"""Mock interview through the pages: set-up, three timed questions with no verdict or solution shown,
then the report per topic; the answers are ordinary attempts."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the small tagged bank

import bank_fixture  # noqa: E402

from checkers.bank import params_for  # noqa: E402
from quizapp import testing  # noqa: E402
from quizapp.db import get_db  # noqa: E402
from quizapp.mock import draw  # noqa: E402

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture()
def mock_app(tmp_path):
    app = testing.make_app(tmp_path)
    bank_fixture.load(app, tmp_path / "bank")
    app.config["QUIZ_BANK_PATH"] = str(tmp_path / "bank")
    yield app
    get_db(app).dispose()


def _csrf(client, url="/mock") -> str:
    return CSRF.search(client.get(url).get_data(as_text=True)).group(1)


def test_three_question_mock_interview_ends_with_its_report(mock_app):
    client = mock_app.test_client()
    token = _csrf(client)
    resp = client.post("/mock", data={"csrf_token": token, "level": ["L1", "L2"], "length": "3"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/mock/1")
    assert client.get("/mock/report").headers["Location"].endswith("/mock/1")  # held back until the end
    by_id = {q["id"]: q for q in bank_fixture.QUESTIONS}
    seen = []
    for n in (1, 2, 3):
        page = client.get(f"/mock/{n}").get_data(as_text=True)
        qid = re.search(r'id="mock-question" data-qid="([^"]+)"', page).group(1)
        seen.append(qid)
        with client.session_transaction() as sess:
            variant = sess["mock_interview"]["items"][n - 1]["variant"]
        p = params_for(by_id[qid], variant)["p"]
        answer = {"a-a": repr(2 * p), "a-b": "no"} if n != 2 else {"a-a": "0", "a-b": "yes"}
        resp = client.post(f"/mock/{n}", data={"csrf_token": token, **answer})
        assert resp.status_code == 303
        if n < 3:  # the next question: no verdict, no solution of the one just answered
            assert resp.headers["Location"].endswith(f"/mock/{n + 1}")
            follow = client.get(resp.headers["Location"]).get_data(as_text=True)
            assert "Double p." not in follow and "Score" not in follow
    assert len(set(seen)) == 3
    report = client.get("/mock/report")
    assert report.status_code == 200
    html = report.get_data(as_text=True)
    assert "Mock interview report" in html and "Double p." in html  # the solutions, now
    assert all(f'data-qid="{qid}"' in html for qid in seen)
    assert re.search(r'id="mock-total">Score 4 / 6 ', html), html.split('id="mock-total"')[1][:80]
    for qid in seen:
        assert re.search(rf'href="/questions/{qid}\?variant=\d+"', html)
    # the answers are ordinary attempts
    attempts = client.get("/api/v1/attempts").get_json()["attempts"]
    assert sorted(a["question_id"] for a in attempts) == sorted(seen)


def test_setup_rejects_bad_choices_and_needs_csrf(mock_app):
    client = mock_app.test_client()
    token = _csrf(client)
    assert client.post("/mock", data={"level": "L1", "length": "3"}).status_code == 400  # no CSRF token
    for form in ({"level": "L9", "length": "3"}, {"tag": "nope", "length": "3"}, {"length": "4"},
                 {"length": "3", "tag": "advantages", "level": "L1"}):  # the only such question is L2
        resp = client.post("/mock", data={"csrf_token": token, **form})
        assert resp.status_code == 422 and 'id="mock-error"' in resp.get_data(as_text=True), form


def test_report_counts_each_question_under_each_of_its_topics():
    items = [{"tags": ["a", "b"], "score": 1.0, "max": 2.0, "seconds": 5},
             {"tags": ["b"], "score": 2.0, "max": 2.0, "seconds": 7}, {"tags": ["a"], "skipped": True, "max": 1.0}]
    summary = draw.report(items)
    assert summary["total"] == {"questions": 3, "score": 3.0, "max": 5.0, "seconds": 12}
    assert summary["topics"]["a"] == {"questions": 2, "score": 1.0, "max": 3.0, "seconds": 5}
    assert summary["topics"]["b"] == {"questions": 2, "score": 3.0, "max": 4.0, "seconds": 12}


def test_draw_keeps_form_kinds_and_distinct_questions():
    rows = [{"id": f"q{i}", "level": "L1", "tags": ["t"], "data": {"parts": [{"kind": k}]}}
            for i, k in enumerate(["numeric", "code", "choice", "derivation", "symbolic"])]
    ok = draw.eligible(rows, [], [])
    assert [r["id"] for r in ok] == ["q0", "q2", "q4"]
    picked = draw.draw(ok, 5, 10)
    assert sorted(i["qid"] for i in picked) == ["q0", "q2", "q4"] and all(0 <= i["variant"] < 10 for i in picked)
