"""The checkers' learner-facing text (parse errors, feedback) comes from gettext catalogs: the shared one in
checkers/translations and each registered kind's own (messages.pot and <lang>.po in its folder). No Python
file of the service under checkers/ holds CJK text, every language's catalog is complete with the msgid's
placeholders, each committed template lists exactly what its code asks for (the shared one without the
kinds' folders), a msgid two catalogs hold reads the same in both, a kind's text is served from its own
catalog, and the rendered messages read as the service has always written them."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from checkers import i18n
from checkers.grading import grade
from checkers.kinds import all_kinds, get_kind
from checkers.kinds.choice.checker import _selection_feedback
from checkers.kinds.derivation.checker import parse_lines
from checkers.languages import DEFAULT_LANG, LANGS
from checkers.mathparse import parse_math
from checkers.verdict import AnswerParseError, msg

ROOT = Path(__file__).resolve().parents[2]
CHECKERS = ROOT / "checkers"
TRANSLATIONS = CHECKERS / "translations"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# CJK ideographs and CJK punctuation. Full-width forms (U+FF00-FFEF) are not text here: the maths lexer
# reads the full-width ASCII that Chinese input methods type, and names those characters.
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff]")
#: The extraction command of docs/translations.md (keywords: how checkers/ writes a message).
EXTRACT = ["extract", "-F", "checkers/babel.cfg", "-k", "msg", "-k", "err", "-k", "AnswerParseError",
           "-k", "in_language:2", "--no-location", "--sort-output"]
#: A placeholder that carries English-only technical text (an exception's name, a checker's reason); a
#: translation may leave it out. Every other placeholder appears in every translation.
ENGLISH_ONLY = {"detail"}
#: The folders of the registered kinds that keep their own catalog.
KIND_FOLDERS = sorted({k.folder for k in all_kinds() if (k.folder / "messages.pot").is_file()})


def _read(path: Path) -> Catalog:
    with open(path, "rb") as fh:
        return read_po(fh)


def catalog_problems(catalog: Catalog) -> list[str]:
    problems = []
    for m in catalog:
        if not m.id:
            continue
        wanted = set(PLACEHOLDER.findall(m.id))
        given = set(PLACEHOLDER.findall(m.string or ""))
        if not m.string:
            problems.append(f"untranslated: {m.id!r}")
        elif m.fuzzy:
            problems.append(f"fuzzy: {m.id!r}")
        elif given - wanted or (wanted - given) - ENGLISH_ONLY:
            problems.append(f"placeholders differ: {m.id!r}")
    return problems


def test_no_python_file_under_checkers_holds_cjk_text():
    files = sorted(p for p in CHECKERS.rglob("*.py") if "tests" not in p.relative_to(CHECKERS).parts)
    assert len(files) > 40
    found = {str(p.relative_to(CHECKERS)): [n for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                                            if CJK.search(line)] for p in files}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_check_finds_missing_extra_and_english_only_placeholders():
    cat = Catalog(locale="zh")
    cat.add("Line %(line)s", "第 %(line)s 行")
    cat.add("Too complex (%(detail)s).", "过于复杂。")                 # English-only detail may go
    cat.add("Column %(column)s", "列")                                # a real value may not
    cat.add("Empty.", "空 %(column)s")                                # nor may one appear from nowhere
    assert catalog_problems(cat) == ["placeholders differ: 'Column %(column)s'", "placeholders differ: 'Empty.'"]


def _catalogs(lang: str) -> dict[str, Path]:
    """Every catalog of ``lang`` by name: the shared one and each kind's."""
    found = {"shared": TRANSLATIONS / lang / "LC_MESSAGES" / "checkers.po"}
    found.update({f"kind {folder.name}": folder / f"{lang}.po" for folder in KIND_FOLDERS})
    return found


def _templates() -> dict[str, Path]:
    found = {"shared": TRANSLATIONS / "checkers.pot"}
    found.update({f"kind {folder.name}": folder / "messages.pot" for folder in KIND_FOLDERS})
    return found


def test_every_kind_keeps_its_own_catalog():
    assert {folder.name for folder in KIND_FOLDERS} == {k.folder.name for k in all_kinds()}
    assert len(KIND_FOLDERS) >= 7


def test_every_language_has_a_complete_checkers_catalog():
    templates = {name: {m.id for m in _read(path) if m.id} for name, path in _templates().items()}
    assert len(templates["shared"]) > 150
    assert all(templates.values()), "a template with no message"
    for lang in LANGS:
        if lang == DEFAULT_LANG:
            continue  # the msgids are the English text
        for name, path in _catalogs(lang).items():
            catalog = _read(path)
            assert catalog_problems(catalog) == [], (lang, name)
            assert {m.id for m in catalog if m.id} == templates[name], \
                f"{lang}, {name}: run pybabel update (docs/translations.md)"
            assert not catalog.obsolete, f"{lang}, {name}: obsolete entries left over"


def test_a_message_two_catalogs_hold_reads_the_same_in_each():
    for lang in LANGS:
        if lang == DEFAULT_LANG:
            continue
        seen: dict[str, tuple[str, str]] = {}
        for name, path in _catalogs(lang).items():
            for m in _read(path):
                if m.id:
                    first = seen.setdefault(m.id, (name, m.string))
                    assert first[1] == m.string, f"{lang}: {m.id!r} reads differently in {first[0]} and {name}"


def _extract(tmp_path: Path, folder: Path) -> set[str]:
    out = tmp_path / f"{folder.name}.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "-q", *EXTRACT, "-o", str(out),
                    str(folder.relative_to(ROOT))], cwd=ROOT, check=True, capture_output=True)
    return {m.id for m in _read(out) if m.id}


def test_checkers_templates_are_current(tmp_path):
    """Extracting checkers/ (without the kinds' folders) and each kind's folder again gives the committed
    templates' msgids (nothing added, nothing stale)."""
    for name, path in _templates().items():
        fresh = _extract(tmp_path, CHECKERS if name == "shared" else path.parent)
        committed = {m.id for m in _read(path) if m.id}
        assert fresh - committed == set(), f"new text not in {name}'s template: run pybabel extract"
        assert committed - fresh == set(), f"{name}'s template lists text the code no longer uses"


def test_the_shared_template_leaves_the_kinds_text_out():
    shared = {m.id for m in _read(TRANSLATIONS / "checkers.pot") if m.id}
    derivation_only = {m.id for m in _read(get_kind("derivation").folder / "messages.pot") if m.id}
    assert "Line %(line)s: %(message)s" in derivation_only
    assert "Line %(line)s: %(message)s" not in shared
    assert "The answer is empty." in shared  # the maths parser's, outside every kind's folder


def test_a_kinds_text_comes_from_its_own_catalog():
    folder = get_kind("freetext").folder
    text = "Compare your answer with the key points of the solution."
    assert msg(text)["zh"] != text
    i18n.remove_message_folder(folder)
    try:
        assert msg(text)["zh"] == text  # no other catalog holds it
    finally:
        i18n.add_message_folder(folder)
    assert msg(text)["zh"] == i18n.folder_messages(folder, "zh")[text] != text


def test_every_language_has_a_compiled_catalog():
    for lang in LANGS:
        if lang != DEFAULT_LANG:
            assert (TRANSLATIONS / lang / "LC_MESSAGES" / "checkers.mo").is_file(), \
                f"{lang}: run scripts/setup (pybabel compile -D checkers -d checkers/translations)"


def _parse_error(text: str, variables: dict | None = None) -> AnswerParseError:
    with pytest.raises(AnswerParseError) as info:
        parse_math(text, variables or {"x": {}})
    return info.value


@pytest.mark.parametrize("text, en, zh", [
    ("", "The answer is empty.", "答案为空。"),
    ("x +", "The answer ends with the operator '+' (column 3); something is missing after it.",
     "答案以运算符“+”结尾（第 3 列），后面缺少内容。"),
    ("(x", "Unbalanced brackets: '(' at column 1 is never closed.", "括号不匹配：第 1 列的“(”没有闭合。"),
    ("y", "Unknown name 'y' at column 1. Variables you may use: x.", "第 1 列的名称“y”未定义。可以使用的变量：x。"),
    ("\\foo{x}", "Unknown LaTeX command \\foo at column 1.", "第 1 列有无法识别的 LaTeX 命令 \\foo。"),
    ("x ‽", "Unexpected character '‽' (U+203D) at column 3.", "第 3 列出现无法识别的字符 '‽'（U+203D）。"),
])
def test_parse_errors_read_as_before_in_every_language(text, en, zh):
    err = _parse_error(text)
    assert (err.message, err.message_zh) == (en, zh)
    assert err.texts == {"en": en, "zh": zh}


def test_an_unknown_name_with_a_suggestion_reads_as_before():
    err = _parse_error("betta", {"beta": {}})
    assert err.message == "Unknown name 'betta' at column 1. Did you mean 'beta'? Variables you may use: beta."
    assert err.message_zh == "第 1 列的名称“betta”未定义。你是不是想输入“beta”？可以使用的变量：beta。"


def test_a_parse_error_keeps_its_languages_across_processes():
    err = _parse_error("x +")
    again = pickle.loads(pickle.dumps(err))
    assert (again.message, again.message_zh, again.column) == (err.message, err.message_zh, 2)


def test_a_derivation_line_prefixes_the_parser_message_in_each_language():
    with pytest.raises(AnswerParseError) as info:
        parse_lines(["x = 1", "x = (1"], {"variables": {"x": {}}})
    assert info.value.message == "Line 2: Unbalanced brackets: '(' at column 5 is never closed."
    assert info.value.message_zh == "第 2 行：括号不匹配：第 5 列的“(”没有闭合。"
    assert info.value.field == "answer[1]"


def test_composed_feedback_reads_as_before():
    assert _selection_feedback(1, 2) == {
        "en": "Not quite: 1 of your selected options is not correct; you missed 2 correct options.",
        "zh": "不完全对：你选的选项中有 1 个不正确；漏选了 2 个正确选项。"}
    assert _selection_feedback(0, 1)["en"] == "Not quite: you missed 1 correct option."
    verdict = grade("0.30", {"kind": "numeric", "expected": 0.3, "tolerance": {"rtol": 1e-6}}, {})
    assert verdict.feedback == {"en": "Correct.", "zh": "正确。"}
    verdict = grade("3", {"kind": "numeric", "expected": 0.3, "tolerance": {"rtol": 1e-6}}, {})
    assert verdict.feedback == {"en": "Off by a factor of 10^1: check units and the decimal point.",
                                "zh": "相差 10^1 倍：检查单位和小数点。"}


def test_values_are_filled_in_after_translation_and_may_be_messages():
    inner = msg("Correct.")
    assert msg("Line %(line)s: %(message)s", line=3, message=inner) == {"en": "Line 3: Correct.",
                                                                        "zh": "第 3 行：正确。"}
    assert i18n.join(["a", "b", "c"]) == {"en": "a; b; c", "zh": "a；b；c"}
    assert i18n.join([]) == ""
    assert msg("") == {lang: "" for lang in LANGS}  # never gettext(""), the catalog's header


def test_a_missing_catalog_gives_english(monkeypatch, tmp_path):
    monkeypatch.setattr(i18n, "TRANSLATIONS", tmp_path)
    i18n.catalog.cache_clear()
    try:
        assert msg("The answer is empty.") == {lang: "The answer is empty." for lang in LANGS}
    finally:
        monkeypatch.undo()
        i18n.catalog.cache_clear()
    assert msg("The answer is empty.")["zh"] == "答案为空。"
