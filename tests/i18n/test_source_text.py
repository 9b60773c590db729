"""Interface text lives in the gettext catalogs: no Python file of the app holds Chinese text (question
content lives in YAML files, interface text in quizapp/translations)."""

from __future__ import annotations

import re
from pathlib import Path

QUIZAPP = Path(__file__).resolve().parents[2] / "quizapp"
# CJK ideographs, CJK punctuation, full-width forms.
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def cjk_lines(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if CJK.search(line)]


def test_detector_sees_chinese_and_full_width_punctuation():
    assert cjk_lines('a = "ok"\nb = "提交"\nc = "x，y"\n') == [2, 3]


def test_no_python_file_under_quizapp_holds_cjk_text():
    files = sorted(QUIZAPP.rglob("*.py"))
    assert len(files) > 20
    found = {str(p.relative_to(QUIZAPP)): cjk_lines(p.read_text(encoding="utf-8")) for p in files}
    assert {name: lines for name, lines in found.items() if lines} == {}
