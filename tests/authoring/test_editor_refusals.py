"""A save or publish the editor refuses names where the problem is: the error's ``field`` reaches the report's
Where column (with its line and column when the field is written in the YAML), in English and Chinese; and a
page showing both the refusal and the stored self-test gives each table its own HTML id."""

from __future__ import annotations

import copy
import re
from collections import Counter
from html.parser import HTMLParser

import pytest

import quiz_testing as testing
from checkers.bank import dump_question

SAMPLE_ID = testing.SAMPLE_QUESTION["id"]

#: How the page says "line L, column C" in each language (the catalog's msgstr for zh).
LINE_WORDS = {"en": "line {l}, column {c}", "zh": "第 {l} 行,第 {c} 列"}


@pytest.fixture
def author(authoring_client, authoring_passwords, authoring_login):
    token = authoring_login(authoring_client, "alice", authoring_passwords["alice"])
    return authoring_client, token


def _where_cells(page: str, table_id: str = "save-failures") -> list[str]:
    table = page.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<td class="where">(.*?)</td>', table, re.S)


def _line_of(text: str, prefix: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith(prefix))


class _Ids(HTMLParser):
    """Every ``id`` attribute of a page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.ids += [value for name, value in attrs if name == "id"]


def _ids(page: str) -> list[str]:
    parser = _Ids()
    parser.feed(page)
    return parser.ids


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_id_that_exists_names_the_id_field_and_its_line(author, lang):
    client, token = author
    text = dump_question(copy.deepcopy(testing.SAMPLE_QUESTION))  # the sample is loaded: its id exists
    line = _line_of(text, "id:")
    resp = client.post("/author/save", query_string={"lang": lang}, data={"yaml": text, "csrf_token": token})
    assert resp.status_code == 409
    page = resp.get_data(as_text=True)
    cells = _where_cells(page)
    assert len(cells) == 1
    assert "<code>id</code>" in cells[0]
    assert f'data-line="{line}" data-column="1"' in cells[0]
    assert LINE_WORDS[lang].format(l=line, c=1) in cells[0]
    assert "整道题" not in cells[0] and "The question as a whole" not in cells[0]
    assert SAMPLE_ID in page.split('id="save-failures"', 1)[1]  # the reason names the id that is taken


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_invalid_field_is_named_at_its_line(author, lang):
    client, token = author
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = "refusal-bad-level"
    data["level"] = "L9"  # no such level: a schema failure of the field "level"
    text = dump_question(data)
    line = _line_of(text, "level:")
    resp = client.post("/author/save", query_string={"lang": lang}, data={"yaml": text, "csrf_token": token})
    assert resp.status_code == 422
    cells = _where_cells(resp.get_data(as_text=True))
    assert len(cells) == 1
    assert "<code>level</code>" in cells[0] and LINE_WORDS[lang].format(l=line, c=1) in cells[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_id_that_differs_from_the_edited_question_names_the_id_field(author, lang):
    """A refusal raised without a list of failures (``id_mismatch``) keeps its field too."""
    client, token = author
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = "refusal-other-id"
    text = dump_question(data)
    line = _line_of(text, "id:")
    resp = client.post("/author/save", query_string={"lang": lang},
                       data={"yaml": text, "qid": SAMPLE_ID, "csrf_token": token})
    assert resp.status_code == 422
    cells = _where_cells(resp.get_data(as_text=True))
    assert len(cells) == 1
    assert "<code>id</code>" in cells[0] and LINE_WORDS[lang].format(l=line, c=1) in cells[0]


def test_a_field_outside_the_yaml_is_named_without_a_line(author):
    """An unknown question in the form names ``question_id``: not written in the YAML, so no line (the
    locator would otherwise point at the nearest parent, the top of the file)."""
    client, token = author
    text = dump_question(copy.deepcopy(testing.SAMPLE_QUESTION))
    resp = client.post("/author/save", data={"yaml": text, "qid": "refusal-no-such-question", "csrf_token": token})
    assert resp.status_code == 404
    cells = _where_cells(resp.get_data(as_text=True))
    assert cells == ["<code>question_id</code>"]


def test_a_refused_publish_and_the_stored_report_have_distinct_ids(author):
    client, token = author
    broken = copy.deepcopy(testing.SAMPLE_QUESTION)
    broken["parts"][0]["expected"] = {"expr": "2*p +"}  # cannot be computed: the draft fails its self-test
    saved = client.post("/author/save", data={"yaml": dump_question(broken), "qid": SAMPLE_ID, "csrf_token": token})
    assert saved.status_code == 302
    number = int(saved.headers["Location"].rsplit("version=", 1)[1])
    resp = client.post(f"/author/q/{SAMPLE_ID}/publish", data={"version": str(number), "csrf_token": token})
    assert resp.status_code == 409
    page = resp.get_data(as_text=True)
    ids = _ids(page)
    assert {"save-failures", "selftest-failures"} <= set(ids)
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    # both tables list the same self-test failures, each in its own table
    assert len(_where_cells(page, "save-failures")) == len(_where_cells(page, "selftest-failures")) > 0
