"""Mock interview through the pages: set-up, three timed questions with no verdict or solution shown,
then the report per topic; the answers are ordinary attempts."""

from __future__ import annotations

import re
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the small tagged bank

import bank_fixture  # noqa: E402

from checkers.bank import params_for  # noqa: E402
import quiz_testing as testing  # noqa: E402
from quizapp.mock import draw, timing  # noqa: E402

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


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
        variant = testing.mock_items(mock_app, client)[n - 1]["variant"]
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
             {"tags": ["b"], "score": 2.0, "max": 2.0, "seconds": 7, "over_time": True},
             {"tags": ["a"], "skipped": True, "max": 1.0}]
    summary = draw.report(items)
    assert summary["total"] == {"questions": 3, "score": 3.0, "max": 5.0, "seconds": 12, "over_time": 1}
    assert summary["topics"]["a"] == {"questions": 2, "score": 1.0, "max": 3.0, "seconds": 5, "over_time": 0}
    assert summary["topics"]["b"] == {"questions": 2, "score": 3.0, "max": 4.0, "seconds": 12, "over_time": 1}


def test_draw_keeps_form_kinds_and_distinct_questions():
    rows = [{"id": f"q{i}", "level": "L1", "tags": ["t"], "data": {"parts": [{"kind": k}]}}
            for i, k in enumerate(["numeric", "code", "choice", "derivation", "symbolic"])]
    ok = draw.eligible(rows, [], [])
    assert [r["id"] for r in ok] == ["q0", "q2", "q4"]
    picked = draw.draw(ok, 5, 10)
    assert sorted(i["qid"] for i in picked) == ["q0", "q2", "q4"] and all(0 <= i["variant"] < 10 for i in picked)


class FakeClock:
    """The server clock the app config injects (``MOCK_CLOCK``): it moves only when a test advances it."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


#: Budgets for these tests, set in the app config (not the defaults), so the pages must read them from there.
BUDGETS = {"L1": 60, "L2": 120, "L3": 240}
GRACE = 5


def _item(client, n):
    return dict(testing.mock_items(client.application, client)[n - 1])


def _remaining(html):
    m = re.search(r'id="mock-timer" data-remaining="(\d+)" data-limit="(\d+)"', html)
    assert m, "no countdown on the page"
    return int(m.group(1)), int(m.group(2))


def test_each_question_is_timed_on_the_server_clock(mock_app):
    clock = FakeClock()
    mock_app.config.update(MOCK_CLOCK=clock, MOCK_SECONDS_BY_LEVEL=dict(BUDGETS), MOCK_GRACE_SECONDS=GRACE)
    client = mock_app.test_client()
    token = _csrf(client)
    assert client.post("/mock", data={"csrf_token": token, "level": ["L1", "L2"], "length": "3"}).status_code == 303
    levels = {q["id"]: q["level"] for q in bank_fixture.QUESTIONS}

    # question 1: its budget by level; the clock starts when the server shows it, a reload does not restart it
    page = client.get("/mock/1").get_data(as_text=True)
    limit1 = BUDGETS[levels[_item(client, 1)["qid"]]]
    assert _remaining(page) == (limit1, limit1)
    assert 'role="timer"' in page and 'aria-live="polite"' in page and 'src="/assets/mock.js"' in page
    assert client.get("/assets/mock.js").status_code == 200 and client.get("/assets/mock.css").status_code == 200
    clock.now += 25
    assert _remaining(client.get("/mock/1").get_data(as_text=True)) == (limit1 - 25, limit1)
    clock.now += 5
    client.post("/mock/1", data={"csrf_token": token, "a-a": "1", "a-b": "no", "seconds": "1"})  # a client's
    first = _item(client, 1)  # figure for the time is ignored: the server's clock says 30 s
    assert (first["seconds"], first["limit"], first["over_time"]) == (30, limit1, False)

    # question 2: answered one second after budget + grace -> stored, and over time
    client.get("/mock/2")
    limit2 = BUDGETS[levels[_item(client, 2)["qid"]]]
    clock.now += limit2 + GRACE + 1
    late = client.get("/mock/2").get_data(as_text=True)
    assert _remaining(late) == (0, limit2) and "Time is up for this question" in late
    assert client.post("/mock/2", data={"csrf_token": token, "a-a": "1", "a-b": "no"}).status_code == 303
    second = _item(client, 2)
    assert (second["seconds"], second["over_time"]) == (limit2 + GRACE + 1, True) and second["attempt"]

    # question 3: skipped long after its time -> no answer, so not over time
    client.get("/mock/3")
    clock.now += 10_000
    client.post("/mock/3", data={"csrf_token": token, "skip": "1"})
    third = _item(client, 3)
    assert third["skipped"] and third["over_time"] is False and third["seconds"] == 10_000

    html = client.get("/mock/report").get_data(as_text=True)
    assert re.search(r'id="mock-over-time">[^<]*time: 1\.</p>', html), html.split("mock-over-time")[1][:200]
    assert f"30 s of {limit1} s" in html and f"{limit2 + GRACE + 1} s of {limit2} s" in html
    assert html.count('class="mock-over"') == 1
    over = re.search(rf'<li data-qid="{second["qid"]}">.*?</li>', html, re.S).group(0)
    assert 'class="mock-over"' in over


def test_an_answer_within_the_grace_seconds_is_in_time(mock_app):
    clock = FakeClock()
    mock_app.config.update(MOCK_CLOCK=clock, MOCK_SECONDS_BY_LEVEL=dict(BUDGETS), MOCK_GRACE_SECONDS=GRACE)
    client = mock_app.test_client()
    token = _csrf(client)
    client.post("/mock", data={"csrf_token": token, "level": "L1", "length": "3"})
    client.get("/mock/1")
    clock.now += BUDGETS["L1"] + GRACE  # on the edge: still in time
    client.post("/mock/1", data={"csrf_token": token, "a-a": "1", "a-b": "no"})
    assert _item(client, 1)["over_time"] is False
    # finishing early closes the question on screen with the time it had used
    client.get("/mock/2")
    clock.now += 12
    client.post("/mock/finish", data={"csrf_token": token})
    assert _item(client, 2)["seconds"] == 12 and _item(client, 2)["skipped"]


def test_timing_functions_on_a_given_clock():
    assert timing.budget_seconds("L2", BUDGETS) == 120
    assert timing.budget_seconds("L9", BUDGETS) == 240  # an unknown level gets the most generous budget
    item = {"limit": 60, "started": None}
    assert timing.remaining_seconds(item, 50.0) == 60  # not shown yet: the whole budget
    item["started"] = 100.0
    assert timing.remaining_seconds(item, 100.2) == 60  # a started second is not lost to rounding
    assert timing.remaining_seconds(item, 159.5) == 1
    assert timing.remaining_seconds(item, 500.0) == 0
    timing.close(item, 165.0, grace=5)
    assert (item["seconds"], item["over_time"]) == (65, False)
    timing.close(item, 165.5, grace=5)
    assert item["over_time"] is True


def test_a_restored_older_cookie_cannot_reopen_an_answered_question(mock_app):
    """The interview's state is on the server: a copy of the cookie taken before answering (or before the
    report) names the same interview, whose questions stay closed."""
    client = mock_app.test_client()
    token = _csrf(client)
    assert client.post("/mock", data={"csrf_token": token, "level": ["L1", "L2"], "length": "3"}).status_code == 303
    client.get("/mock/1")
    before = client.get_cookie("session").value
    assert client.post("/mock/1", data={"csrf_token": token, "skip": "1"}).status_code == 303
    assert client.post("/mock/finish", data={"csrf_token": token}).status_code == 303
    assert client.get("/mock/report").status_code == 200
    client.set_cookie("session", before)  # the cookie from before question 1 was answered
    resp = client.get("/mock/1")
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/mock/report")
    again = client.post("/mock/1", data={"csrf_token": token, "a-a": "1", "a-b": "no"})
    assert again.status_code == 303 and not again.headers["Location"].endswith("/mock/2")
    assert all(item.get("attempt") is None for item in testing.mock_items(mock_app, client))
