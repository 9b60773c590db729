"""The question page states each numeric part's precision under its input (generated, never authored)."""

from __future__ import annotations

import html as htmllib
import re

from checkers.kinds.numeric import precision


def _page(client, qid: str, lang: str) -> str:
    resp = client.get(f"/questions/{qid}?variant=5&lang={lang}")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _precision_line(page: str, pid: str) -> str:
    m = re.search(rf'<p class="precision muted" id="precision-{pid}">(.*?)</p>', page, re.S)
    assert m, f"no precision line for part {pid}"
    return htmllib.unescape(m.group(1))


def test_numeric_part_shows_its_precision_under_the_input(web_client):
    part = {"kind": "numeric", "expected": 1.0}  # web-t-numeric part a: the default 0.1 % band
    page = _page(web_client, "web-t-numeric", "en")
    line = _precision_line(page, "a")
    assert line == precision.statement(part)["en"] and line.startswith("Give at least 4 significant figures")
    # under the input, before the live preview, and announced to screen readers with the input
    assert page.index('id="answer-a"') < page.index('id="precision-a"') < page.index('id="preview-a"')
    assert 'aria-describedby="precision-a"' in page
    zh = _precision_line(_page(web_client, "web-t-numeric", "zh"), "a")
    assert zh == precision.statement(part)["zh"] and "4 位有效数字" in zh


def test_non_numeric_parts_have_no_precision_line(web_client):
    page = _page(web_client, "web-t-derive", "en")
    assert 'class="precision' not in page
