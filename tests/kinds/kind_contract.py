"""The contract every answer kind keeps (``checkers.kinds.base.Kind``), as check functions over one kind:
its folder holds its widget, assets, starter and tests; the starter is a valid question that passes its self-test;
its examples grade as they say; its answers and public fields fit the JSON Schema it declares for the
OpenAPI document; a plain form answers it where it says so; its help and feedback are in every language;
and the question page renders its widget. test_kind_contract.py runs them over the registry,
test_toy_kind.py over a kind registered from a temporary folder."""

from __future__ import annotations

from typing import Any, Mapping

from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_keywords
from babel.messages.pofile import read_po

from checkers import grading, i18n
from checkers.bank import load_question_file, params_for, public_view
from checkers.bank.selftest import selftest
from checkers.kinds.base import Kind
from checkers.languages import DEFAULT_LANG, LANGS

#: Fields of a public part the service itself puts there (checkers.bank.variants.public_view).
COMMON_PUBLIC = {"id", "kind", "prompt", "weight", "title", "hints_total", "placeholder", "hint"}
JSON_TYPES = {"string": str, "number": (int, float), "integer": int, "boolean": bool, "array": list,
              "object": dict, "null": type(None)}
SEEDS = range(3)
#: How docs/translations.md extracts a kind's text (checkers/babel.cfg's rules for one folder).
KEYWORDS = {**DEFAULT_KEYWORDS, **parse_keywords(["msg", "err", "AnswerParseError", "in_language:2"])}
METHODS = [("**/tests/**.py", "ignore"), ("**.py", "python")]


def fits(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` has a type ``schema`` allows (``type``, and ``items`` for lists): the part of
    JSON Schema the kinds' declarations use."""
    types = schema.get("type")
    if types is None:
        return True
    names = [types] if isinstance(types, str) else list(types)
    for name in names:
        if name in ("number", "integer") and isinstance(value, bool):
            continue
        if isinstance(value, JSON_TYPES[name]):
            if name == "array" and "items" in schema:
                return all(fits(schema["items"], v) for v in value)
            return True
    return False


def starter(kind: Kind) -> dict[str, Any]:
    assert kind.starter_file is not None, f"{kind.name}: no starter.yaml in {kind.folder}"
    return load_question_file(kind.starter_file)


def own_parts(kind: Kind, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    parts = [p for p in data["parts"] if p["kind"] == kind.name]
    assert parts, f"{kind.name}: its starter has no part of the kind"
    return parts


def graded_examples(kind: Kind, data: Mapping[str, Any]) -> list[tuple[dict, dict, Any, str, Any]]:
    """(part, params, raw answer, declared status, declared note) for every example of every seed."""
    out = []
    for part in own_parts(kind, data):
        for seed in SEEDS:
            params = params_for(data, seed)
            ex = kind.examples(part, params)
            if kind.machine_graded:
                assert ex.correct, f"{kind.name}: no correct example"
            out += [(part, params, raw, "correct", None) for raw in ex.correct]
            out += [(part, params, raw, "incorrect", note) for raw, note in ex.incorrect]
            out += [(part, params, raw, "invalid", None) for raw in ex.invalid]
    return out


# ------------------------------------------------------------------------------------------- the checks

def check_files(kind: Kind) -> None:
    assert (kind.folder / "partial.html").is_file(), f"{kind.name}: no partial.html"
    assert all(kind.asset_path(a) is not None for a in kind.assets), f"{kind.name}: a listed asset is missing"
    assert kind.answer_form in ("text", "verbatim", "options")
    assert kind.plain_form in (None, "text", "widget")
    if kind.plain_form == "widget":
        assert (kind.folder / "form.html").is_file(), f"{kind.name}: plain_form is widget but no form.html"


def check_tests(kind: Kind) -> None:
    """A kind's own tests live in its folder (pytest collects ``checkers/kinds``; the wheel leaves them out)."""
    assert sorted((kind.folder / "tests").glob("test_*.py")), f"{kind.name}: no tests/test_*.py in its folder"


def check_starter(kind: Kind) -> None:
    data = starter(kind)
    own_parts(kind, data)
    report = selftest(data, seeds=SEEDS)
    assert report.ok, [f for f in report.failures][:3]


def grade_example(kind: Kind, part: Mapping[str, Any], params: Mapping[str, Any], raw: Any, status: str):
    """A readable example goes through the API's shape check first (so it must fit ``answer_schema``);
    an invalid one is graded as it is (it may be of any JSON type)."""
    if status != "invalid":
        assert fits(kind.answer_schema, raw), f"{kind.name}: {raw!r} is outside its answer_schema"
        raw = kind.accept(raw, "answer")
    return grading.grade(raw, part, params)


def check_examples(kind: Kind) -> None:
    for part, params, raw, status, note in graded_examples(kind, starter(kind)):
        verdict = grade_example(kind, part, params, raw, status)
        if not kind.machine_graded and status != "invalid":
            continue  # self-assessed: no verdict to declare
        assert verdict.status == status, (kind.name, raw, status, verdict.status, verdict.note)
        if note is not None:
            assert verdict.note == note, (kind.name, raw, note, verdict.note)


def check_public_schema(kind: Kind) -> None:
    data = starter(kind)
    for lang in LANGS:
        for part in public_view(data, 0, lang)["parts"]:
            if part["kind"] != kind.name:
                continue
            own = set(part) - COMMON_PUBLIC
            missing = own - set(kind.public_schema)
            assert not missing, f"{kind.name}: public fields without a schema: {missing}"
            for key in own:
                assert fits(kind.public_schema[key], part[key]), (kind.name, key, part[key])


def check_plain_form(kind: Kind) -> None:
    """Where a plain form answers the kind, the form's values of a correct answer grade correct."""
    if kind.plain_form is None:
        return
    data = starter(kind)
    view = {p["id"]: p for p in public_view(data, 0, DEFAULT_LANG)["parts"]}
    params = params_for(data, 0)
    for part in own_parts(kind, data):
        raw = kind.examples(part, params).correct[0]
        values = [str(v) for v in raw] if isinstance(raw, list) else [str(raw)]
        answer = kind.form_answer(values, view[part["id"]])
        assert grading.grade(answer, part, params).status == "correct", (kind.name, values, answer)


def check_messages(kind: Kind) -> None:
    """The kind's own catalog (``messages.pot`` and ``<lang>.po`` in its folder) translates every message
    of its template, and is what serves them; input help and example feedback carry every language, each
    translated (not the English again)."""
    with open(kind.folder / "messages.pot", "rb") as fh:
        wanted = {m.id for m in read_po(fh) if m.id}
    assert wanted, f"{kind.name}: its messages.pot lists no message"
    used = {m[2] for m in extract_from_dir(str(kind.folder), METHODS, keywords=KEYWORDS)}
    assert used == wanted, f"{kind.name}: messages.pot is not its folder's text (docs/translations.md extracts it)"
    for lang in LANGS:
        if lang != DEFAULT_LANG:
            with open(kind.folder / f"{lang}.po", "rb") as fh:
                own = {m.id: m.string for m in read_po(fh) if m.id and m.string and not m.fuzzy}
            assert set(own) == wanted, f"{kind.name}: {lang}.po does not translate exactly its messages.pot"
            assert kind.folder in i18n.message_folders(), f"{kind.name}: its catalog is not served"
            served = {msgid: i18n.in_language(lang, msgid) for msgid in wanted}  # no values: the text as is
            assert served == own, f"{kind.name}: {lang} text not served from its own catalog"
    data = starter(kind)
    messages = []
    for part in public_view(data, 0, DEFAULT_LANG)["parts"]:
        if part["kind"] == kind.name:
            messages += [m for m in (kind.placeholder(part), kind.syntax_help(part)) if m is not None]
    for part, params, raw, status, _note in graded_examples(kind, data):
        messages.append(grade_example(kind, part, params, raw, status).feedback)
    assert messages, f"{kind.name}: nothing to check"
    for m in messages:
        assert set(m) == set(LANGS), (kind.name, m)
        for lang in LANGS:
            if lang != DEFAULT_LANG and m[DEFAULT_LANG].strip():
                assert m[lang].strip() and m[lang] != m[DEFAULT_LANG], f"{kind.name}: not translated to {lang}: {m}"


def check_page(kind: Kind, app) -> None:
    data = starter(kind)
    client = app.test_client()
    for lang in LANGS:
        r = client.get(f"/questions/{data['id']}?variant=0&lang={lang}")
        assert r.status_code == 200, (kind.name, lang)
        html = r.get_data(as_text=True)
        for part in own_parts(kind, data):
            assert f'data-kind="{kind.name}"' in html and f'id="part-{part["id"]}"' in html
            assert f'answer-{part["id"]}' in html, f"{kind.name}: the widget names no answer-{part['id']}"


CHECKS = [check_files, check_tests, check_starter, check_examples, check_public_schema, check_plain_form,
          check_messages]
