"""Every limit and default has exactly one definition: its home module (checkers.limits, the parser's
checkers.mathparse.limits, or quizapp.config for service settings); every other module imports it.

A second ``NAME = ...`` anywhere in the source is how two copies of a limit drift apart (a derivation
allowed 60 lines in one place and 100 in another), so the check is a plain scan of the source text.
"""

from __future__ import annotations

import re
from pathlib import Path

import checkers.limits
import checkers.mathparse.limits
import quizapp.config

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for top in ("checkers", "quizapp") for p in (ROOT / top).rglob("*.py"))

#: Names that used to be defined in several places with different values; now each is an import alias.
FORMER_DUPLICATES = ("DEFAULT_TIMEOUT", "MAX_CHARS", "MAX_ELEMENTS", "MAX_EXPR")


def _limit_names(module) -> set[str]:
    return {n for n, v in vars(module).items()
            if n.isupper() and not n.startswith("_") and isinstance(v, (int, float)) and not isinstance(v, bool)}


def _definitions(name: str) -> list[str]:
    pattern = re.compile(rf"^\s*{name}\s*(:[^=\n]+)?=(?!=)", re.MULTILINE)
    return [f"{p.relative_to(ROOT)}:{s[:m.start()].count(chr(10)) + 1}"
            for p in SOURCES for s in [p.read_text(encoding="utf-8")] for m in pattern.finditer(s)]


def test_every_limit_is_defined_once_in_its_home():
    homes = {checkers.limits: "checkers/limits.py", checkers.mathparse.limits: "checkers/mathparse/limits.py",
             quizapp.config: "quizapp/config.py"}
    checked = 0
    for module, home in homes.items():
        for name in sorted(_limit_names(module)):
            found = _definitions(name)
            assert len(found) == 1 and found[0].startswith(home + ":"), (name, found)
            checked += 1
    assert checked >= 40  # the scan saw the homes' limits (a broken name filter would check nothing)


def test_former_duplicates_are_not_redefined():
    for name in FORMER_DUPLICATES:
        assert _definitions(name) == [], name


def test_the_drifted_pairs_now_read_one_value():
    from checkers import grading
    from checkers.kinds import _common, derivation, freetext, shape
    from checkers.kinds.array import checker as array_checker
    from quizapp.api import questions

    assert derivation.DEFAULT_TIMEOUT == grading.DEFAULT_TIMEOUT == checkers.limits.GRADE_TIMEOUT
    assert derivation.MAX_LINES == checkers.limits.MAX_GRADED_LINES
    assert shape.MAX_LINES == checkers.limits.MAX_LINES
    assert _common.MAX_SHORT_ANSWER == checkers.limits.MAX_SHORT_ANSWER
    assert array_checker.MAX_ELEMENTS == checkers.limits.MAX_GRADED_ARRAY_ELEMENTS
    assert freetext.MAX_CHARS == checkers.limits.MAX_FREETEXT_CHARS
    assert questions.MAX_EXPR == checkers.limits.MAX_TEXT
    assert "nonzero" not in questions.ASSUMPTION_FLAGS  # the parser has no such flag; the API no longer offers it
