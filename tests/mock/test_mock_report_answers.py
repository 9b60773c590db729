"""The mock report shows, for each question, the answers given and each part's verdict (the attempt as
History shows it), and nothing of the kind for a skipped question."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "discover"))  # the small tagged bank

import bank_fixture  # noqa: E402

from checkers.bank import params_for  # noqa: E402
import quiz_testing as testing  # noqa: E402

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def _variant(app, client, n: int) -> int:
    return testing.mock_items(app, client)[n - 1]["variant"]


def _item(html: str, n: int) -> str:
    items = re.split(r'<li data-qid="', html.split('id="mock-items"', 1)[1])
    return items[n]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_shows_each_answer_and_part_verdict(mock_app, lang):
    client = mock_app.test_client()
    token = CSRF.search(client.get(f"/mock?lang={lang}").get_data(as_text=True)).group(1)
    resp = client.post("/mock", data={"csrf_token": token, "level": ["L1", "L2"], "length": "3"})
    assert resp.status_code == 303
    by_id = {q["id"]: q for q in bank_fixture.QUESTIONS}
    right_a = None
    for n in (1, 2, 3):
        page = client.get(f"/mock/{n}").get_data(as_text=True)
        qid = re.search(r'id="mock-question" data-qid="([^"]+)"', page).group(1)
        if n == 1:  # part a right (2p, worked out here), part b wrong
            right_a = repr(2 * params_for(by_id[qid], _variant(mock_app, client, n))["p"])
            form = {"a-a": right_a, "a-b": "yes"}
        elif n == 2:
            form = {"a-a": "0", "a-b": "no"}
        else:
            form = {"skip": "1"}
        assert client.post(f"/mock/{n}", data={"csrf_token": token, **form}).status_code == 303
    html = client.get("/mock/report").get_data(as_text=True)
    first, second, third = _item(html, 1), _item(html, 2), _item(html, 3)
    a1 = first[first.index('id="mock-1-part-a"'):first.index('id="mock-1-part-b"')]
    assert f"<code>{right_a}</code>" in a1 and 'data-status="correct"' in a1 and "1 / 1" in a1
    b1 = first[first.index('id="mock-1-part-b"'):]
    assert 'data-status="incorrect"' in b1 and '<ul class="attempt-options"><li>' in b1
    a2 = second[second.index('id="mock-2-part-a"'):second.index('id="mock-2-part-b"')]
    assert "<code>0</code>" in a2 and 'data-status="incorrect"' in a2
    assert 'data-status="correct"' in second[second.index('id="mock-2-part-b"'):]
    assert 'class="mock-answers"' not in third  # skipped: no answers to show
    word = {"en": "Your answer", "zh": "你的答案"}[lang]
    assert html.count(word) == 4
