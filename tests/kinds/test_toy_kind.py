"""Adding an answer kind is its folder plus one registration line (docs/architecture.md, "Adding a kind").

A toy kind, ``interval`` (a closed interval ``[low, high]``), is written into a temporary folder: its Kind
subclass, its widget (``partial.html``), its authoring starter (``starter.yaml``) and its messages
(``messages.pot`` and the Chinese ``zh.po``, read by checkers.i18n with no build step). Registered with one
line, it is reached through the bank schema, the validate API, an attempt, the question page (its widget,
input help and page field), a mock interview (a plain text form), the OpenAPI document and the authoring
tool's starter, and it keeps the kinds' contract (tests/kinds/kind_contract.py). Nothing outside its
folder names it; its own tests (``tests/test_interval.py`` in its folder) pass; the registry is put back
afterwards.
"""

from __future__ import annotations

import copy
import re
import sys
import textwrap
from pathlib import Path

import pytest

from checkers.bank import BankError, load_question_file, params_for, validate_question
from checkers.kinds import base
from temporary_kind import kind_package, run_own_tests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kind_contract import CHECKS, check_page  # noqa: E402

PACKAGE = "toy_interval_kind"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')

KIND_PY = '''
"""interval: a closed interval [low, high] whose ends are computed from the variant's parameters."""

from __future__ import annotations

import re
from typing import Any, Mapping

from checkers.i18n import msg
from checkers.kinds import shape
from checkers.kinds.base import Examples, Kind
from checkers.params import resolve_value
from checkers.verdict import AnswerParseError, Interpretation, SpecError, Verdict

_NUMBER = r"\\s*([+-]?\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?)\\s*"
_INTERVAL = re.compile(r"^\\[" + _NUMBER + "," + _NUMBER + r"\\]$")


class IntervalKind(Kind):
    name = "interval"
    spec_keys = frozenset({"low", "high"})
    value_keys = ("low", "high")
    plain_form = "text"
    answer_schema = {"type": "string", "description": "a closed interval such as [0.1, 0.4]"}
    public_schema = {"closed": {"type": "boolean", "description": "interval parts: both ends included"}}

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        if "low" not in spec or "high" not in spec:
            raise SpecError("interval part needs low and high")

    def syntax_help(self, part: Mapping[str, Any]) -> dict[str, str]:
        return msg("Write the interval as [low, high], such as [0.1, 0.2].")

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        return {"closed": True}

    def page(self, part: Mapping[str, Any], render) -> dict[str, Any]:
        return {"interval_form_html": render("$[a, b]$")}

    def accept(self, value: Any, field: str) -> str:
        return shape.text(value, field, 80)

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> tuple[float, float]:
        m = _INTERVAL.match(raw) if isinstance(raw, str) else None
        if m is None:
            raise AnswerParseError("Write the interval as [low, high], such as [0.1, 0.2].", 0)
        return float(m.group(1)), float(m.group(2))

    def interpret(self, parsed, spec) -> Interpretation:
        return Interpretation(text=f"[{parsed[0]:g}, {parsed[1]:g}]")

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> list[float]:
        return [float(resolve_value(spec["low"], params)), float(resolve_value(spec["high"], params))]

    def grade(self, parsed, spec, params) -> Verdict:
        low, high = self.expected(spec, params)
        ok = abs(parsed[0] - low) <= 1e-9 * max(1.0, abs(low)) and abs(parsed[1] - high) <= 1e-9 * max(1.0, abs(high))
        if ok:
            return Verdict("correct", 1.0, msg("Correct."), interpreted_as=self.interpret(parsed, spec))
        return Verdict("incorrect", 0.0, msg("Not correct."), interpreted_as=self.interpret(parsed, spec))

    def examples(self, spec, params) -> Examples:
        low, high = self.expected(spec, params)
        return Examples(correct=[f"[{low!r}, {high!r}]"], incorrect=[(f"[{high!r}, {high + 1!r}]", None)],
                        invalid=["[1, 2", "(1, 2)"])
'''

#: The toy kind's messages: its template and its Chinese catalog (docs/translations.md).
MESSAGES = {
    "Correct.": "正确。",
    "Not correct.": "不正确。",
    "Write the interval as [low, high], such as [0.1, 0.2].": "请把区间写成 [下界, 上界]，例如 [0.1, 0.2]。",
}


def _catalog(translations: dict[str, str]) -> str:
    """A .po (or, with empty translations, .pot) file listing ``translations``."""
    entries = "".join(f'\nmsgid "{k}"\nmsgstr "{v}"\n' for k, v in translations.items())
    return 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n' + entries


#: The toy kind's own tests, shipped in its folder as every kind's are (``tests/test_interval.py``).
TESTS_PY = '''
"""The interval kind graded through the facade: both ends must match, and a malformed interval is invalid."""

from checkers import grading

SPEC = {"kind": "interval", "low": {"expr": "1 - eps"}, "high": {"expr": "1 + eps"}}


def test_both_ends_must_match():
    assert grading.grade("[0.75, 1.25]", SPEC, {"eps": 0.25}).status == "correct"
    assert grading.grade("[0.75, 1.5]", SPEC, {"eps": 0.25}).status == "incorrect"


def test_a_malformed_interval_is_invalid():
    assert grading.grade("(0.75, 1.25)", SPEC, {"eps": 0.25}).status == "invalid"
'''

PARTIAL_HTML = '''{#- interval: one text field for [low, high] -#}
<label class="answer-label" for="answer-{{ pid }}">{{ t('your_answer') }} {{ part.interval_form_html }}</label>
<input class="answer answer-interval" id="answer-{{ pid }}" name="{{ pid }}"
       data-closed="{{ 1 if part.closed else 0 }}">
'''

STARTER_YAML = '''id: my-interval-question
level: L1
tags: [kl]
title: {en: "Where the ratio stays", zh: "比值的范围"}
prompt:
  en: "PPO clips the ratio with $\\\\epsilon = {{eps}}$."
  zh: "PPO 用 $\\\\epsilon = {{eps}}$ 截断比值。"
params:
  eps: {uniform: [0.1, 0.3], round: 2}
parts:
  - id: a
    kind: interval
    prompt: {en: "Inside which interval is the ratio left unclipped?", zh: "比值在哪个区间内不被截断？"}
    low: {expr: "1 - eps"}
    high: {expr: "1 + eps"}
solution:
  key_points: {en: ["The clip range is 1 minus and plus epsilon."], zh: ["截断区间是 1 减、加 epsilon。"]}
  pitfalls: {en: ["Using epsilon itself as an end."], zh: ["把 epsilon 本身当作端点。"]}
  worked: {en: "$[1 - {{eps}}, 1 + {{eps}}]$", zh: "$[1 - {{eps}}, 1 + {{eps}}]$"}
'''


@pytest.fixture()
def toy_kind(tmp_path):
    """The toy kind's folder written into ``tmp_path``, imported, and registered with one line."""
    files = {
        "__init__.py": '"""A toy answer kind in its own folder."""\n\nfrom .kind import IntervalKind  # noqa: F401\n',
        "kind.py": textwrap.dedent(KIND_PY).lstrip(),
        "partial.html": PARTIAL_HTML,
        "starter.yaml": STARTER_YAML,
        "tests/test_interval.py": TESTS_PY,
        "messages.pot": _catalog(dict.fromkeys(MESSAGES, "")),
        "zh.po": _catalog(MESSAGES),
    }
    with kind_package(tmp_path, PACKAGE, files) as module:
        yield base.register_kind(module.IntervalKind())  # the one line that adds a kind


def _question(kind) -> dict:
    return load_question_file(kind.starter_file)


def _expected_text(data: dict, variant: int) -> str:
    eps = float(params_for(data, variant)["eps"])
    return f"[{1 - eps!r}, {1 + eps!r}]"


def test_the_bank_schema_knows_the_toy_kind_only_while_registered(toy_kind):
    data = _question(toy_kind)
    validate_question(copy.deepcopy(data))
    bad = copy.deepcopy(data)
    bad["parts"][0]["tolerance"] = 1
    with pytest.raises(BankError) as exc:
        validate_question(bad)
    assert "tolerance" in str(exc.value)
    base.unregister_kind(toy_kind.name)
    try:
        with pytest.raises(BankError) as exc:
            validate_question(copy.deepcopy(data))
        assert exc.value.field == "parts[0].kind"
    finally:
        base.register_kind(toy_kind)


def test_the_toy_kinds_own_tests_pass(toy_kind):
    assert run_own_tests(f"{PACKAGE}.tests.test_interval") == 2


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_toy_kind_keeps_the_contract(toy_kind, check):
    check(toy_kind)


def test_validate_attempt_page_and_openapi(toy_kind, kinds_app):
    data = _question(toy_kind)
    app = kinds_app(data)
    client = app.test_client()
    qid, right = data["id"], _expected_text(data, 7)

    r = client.post(f"/api/v1/questions/{qid}/validate", json={"variant": 7, "part": "a", "answer": right})
    assert r.status_code == 200 and r.get_json()["valid"] is True
    r = client.post(f"/api/v1/questions/{qid}/validate", json={"variant": 7, "part": "a", "answer": "(1, 2)"})
    assert r.get_json()["valid"] is False

    r = client.post(f"/api/v1/questions/{qid}/attempts", json={"variant": 7, "answers": {"a": right}})
    assert r.status_code == 201, r.get_json()
    graded = r.get_json()["parts"]["a"]
    assert graded["status"] == "correct" and graded["score"] == 1.0  # the part's own score, not only the total
    eps = float(params_for(data, 7)["eps"])
    assert r.get_json()["solution"]["expected"]["a"] == pytest.approx([1 - eps, 1 + eps])
    r = client.post(f"/api/v1/questions/{qid}/attempts", json={"variant": 7, "answers": {"a": "[0, 1]"}})
    assert r.get_json()["parts"]["a"]["status"] == "incorrect"
    r = client.post(f"/api/v1/questions/{qid}/attempts", json={"variant": 7, "answers": {"a": [1]}})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "answers.a"

    view = client.get(f"/api/v1/questions/{qid}?variant=7").get_json()
    assert view["parts"][0]["kind"] == "interval" and view["parts"][0]["closed"] is True

    check_page(toy_kind, app)
    en = client.get(f"/questions/{qid}?variant=7&lang=en").get_data(as_text=True)
    assert 'class="answer answer-interval"' in en and 'data-closed="1"' in en
    assert "Write the interval as [low, high], such as [0.1, 0.2]." in en  # the kind's syntax line
    assert "<math" in en.split('class="answer answer-interval"')[0].rsplit("answer-label", 1)[1]  # its page field
    zh = client.get(f"/questions/{qid}?variant=7&lang=zh").get_data(as_text=True)
    assert "Write the interval as" not in zh  # the syntax line in Chinese, from the kind's own zh.po
    assert "请把区间写成 [下界, 上界]，例如 [0.1, 0.2]。" in zh

    spec = client.get("/api/v1/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    assert "interval" in schemas["PublicPart"]["properties"]["kind"]["enum"]
    assert schemas["PublicPart"]["properties"]["closed"] == toy_kind.public_schema["closed"]
    assert "a closed interval such as [0.1, 0.4]" in schemas["Answer"]["description"]


def test_a_mock_interview_asks_the_toy_kind_in_a_plain_form(toy_kind, kinds_app):
    data = _question(toy_kind)
    app = kinds_app(data)
    client = app.test_client()
    token = CSRF.search(client.get("/mock").get_data(as_text=True)).group(1)
    r = client.post("/mock", data={"csrf_token": token, "level": "L1", "length": "3"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/mock/1")
    page = client.get("/mock/1").get_data(as_text=True)
    assert f'data-qid="{data["id"]}"' in page and 'name="a-a"' in page
    import quiz_testing as testing

    variant = testing.mock_items(app, client)[0]["variant"]
    r = client.post("/mock/1", data={"csrf_token": token, "a-a": _expected_text(data, variant)})
    assert r.status_code == 303
    item = testing.mock_items(app, client)[0]
    assert item["score"] == 1.0 and item["max"] == 1.0


def test_the_authoring_tool_offers_the_toy_starter(toy_kind, kinds_app):
    from quizapp.authoring import pages

    assert "interval" in pages.starter_kinds()
    assert pages.starter_text("interval") == toy_kind.starter_file.read_text(encoding="utf-8")
    app = kinds_app(_question(toy_kind))
    client = app.test_client()
    import quiz_testing as testing

    testing.author_login(client, "alice", app.config["TEST_AUTHOR_PASSWORD"])
    page = client.get("/author/new?kind=interval").get_data(as_text=True)
    assert 'data-kind="interval"' in page and "my-interval-question" in page and "kind: interval" in page
