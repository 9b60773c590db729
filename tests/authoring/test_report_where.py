"""The self-test report says where a failure outside any part is: the text field a view breaks on (not
always ``prompt``), the stage (parameters, invariants, question text, solution) in the page's language, and
never a bare dash in the "Where" column."""

from __future__ import annotations

import copy
import re

import pytest

import quiz_testing as testing
from checkers.bank import dump_question
from checkers.bank.report import question_report

BROKEN = "{{p:.2q}}"  # "q" is no format code: filling this placeholder raises in every variant


def _question(qid: str, mutate) -> dict:
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = qid
    mutate(data)
    return data


def _worked(d):
    d["solution"]["worked"]["en"] = f"$2p = {BROKEN}$"


def _key_point(d):
    d["solution"]["key_points"]["zh"] = [f"把 {BROKEN} 加倍。"]


def _title(d):
    d["title"]["zh"] = f"加倍 {BROKEN}"


def _part_prompt(d):
    d["parts"][0]["prompt"]["en"] = f"What is $2p$ for p = {BROKEN}?"


def _option(d):
    d["parts"][1]["options"][1]["text"]["en"] = f"No ({BROKEN})"


VIEW_CASES = [(_worked, "solution.worked.en", "solution"), (_key_point, "solution.key_points.zh[0]", "solution"),
              (_title, "title.zh", "question"), (_part_prompt, "parts[0].prompt.en", "question"),
              (_option, "parts[1].options[1].text.en", "question")]


@pytest.mark.parametrize(("mutate", "field", "stage"), VIEW_CASES)
def test_a_view_failure_names_its_text_and_stage(mutate, field, stage):
    failures = question_report(_question("where-view", mutate), 3)["failures"]
    assert [(f["part"], f["check"], f["field"], f.get("stage")) for f in failures] == [(None, "view", field, stage)]


def test_parameters_that_fail_in_some_variants_name_the_params_stage():
    # log(p - 0.3) is undefined for p <= 0.3; p is drawn in [0.2, 0.8] and seed 0 (the schema's) is above 0.3
    data = _question("where-params", lambda d: d["params"].update(q={"expr": "log(p - 0.3)"}))
    failures = question_report(data, 20)["failures"]
    assert failures and {(f["part"], f["check"], f["field"], f["stage"]) for f in failures} == {
        (None, "params", "params", "params")}


def test_an_invariant_names_the_invariants_stage():
    data = _question("where-inv", lambda d: d.update(invariants=[
        {"id": "big", "claim": "p exceeds 0.5", "left": "p", "op": ">", "right": 0.5}]))
    failures = question_report(data, 20)["failures"]
    assert failures and {(f["part"], f["field"], f["stage"]) for f in failures} == {(None, "invariants[0]", "invariants")}


def test_a_part_failure_has_no_question_stage():
    # the known mistake "p" written as 2*p equals the answer: a failure of part a
    data = _question("where-part", lambda d: d["parts"][0]["mistakes"][0].update(expr="2*p"))
    failures = question_report(data, 3)["failures"]
    assert failures and all(f["part"] == "a" and "stage" not in f for f in failures)


# --------------------------------------------------------------------------- the authoring pages


def _where_cells(page: str) -> list[str]:
    return re.findall(r'<td class="where">(.*?)</td>', page, re.S)


def _text(cell: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


@pytest.fixture
def author(authoring_client, authoring_passwords, authoring_login):
    token = authoring_login(authoring_client, "alice", authoring_passwords["alice"])
    return authoring_client, token


def _in_zh(url: str) -> str:
    return url + ("&" if "?" in url else "?") + "lang=zh"


def _save(author, data: dict):
    client, token = author
    text = dump_question(data)
    resp = client.post("/author/save", data={"yaml": text, "csrf_token": token})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return text, resp.headers["Location"]


def test_the_editor_names_the_broken_solution_text_in_both_languages(author):
    client, _ = author
    text, editor = _save(author, _question("where-edit-worked", _worked))
    line = next(i for i, row in enumerate(text.splitlines(), 1) if BROKEN in row)
    page = client.get(editor).get_data(as_text=True)
    cells = _where_cells(page)
    assert len(cells) == 1
    assert f'data-line="{line}"' in cells[0]
    assert "<code>solution.worked.en</code>" in cells[0] and _text(cells[0]).endswith("Solution")
    zh = _where_cells(client.get(_in_zh(editor)).get_data(as_text=True))
    assert len(zh) == 1 and _text(zh[0]).endswith("解答")


def test_the_editor_names_the_params_stage(author):
    client, _ = author
    _text_, editor = _save(author, _question("where-edit-params",
                                             lambda d: d["params"].update(q={"expr": "log(p - 0.3)"})))
    cells = _where_cells(client.get(editor).get_data(as_text=True))
    assert len(cells) == 1 and _text(cells[0]).endswith("params Parameters")
    zh = _where_cells(client.get(_in_zh(editor)).get_data(as_text=True))
    assert _text(zh[0]).endswith("params 参数")


def test_a_problem_with_no_place_is_the_question_as_a_whole(author):
    """A document that is no mapping is refused with no field: never a bare dash. (An id that exists names
    its ``id`` field: tests/authoring/test_editor_refusals.py.)"""
    client, token = author
    text = "- not\n- a question\n"
    for lang, words in (("en", "The question as a whole"), ("zh", "整道题")):
        resp = client.post("/author/save", query_string={"lang": lang}, data={"yaml": text, "csrf_token": token})
        assert resp.status_code == 422
        cells = _where_cells(resp.get_data(as_text=True))
        assert [_text(c) for c in cells] == [words]
