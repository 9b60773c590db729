"""The derivation kind split by job: each public name is still importable where callers import it
(``checkers.kinds.derivation`` and its ``checker`` module) and is the very object its own module defines,
and the entry module is only the kind."""

import pytest

from checkers import limits
from checkers.kinds import get_kind
from checkers.kinds import derivation
from checkers.kinds.derivation import chain, checker, equations, grade, lines, steps

HOMES = [
    ("Line", lines), ("parse_lines", lines),
    ("GRID", equations), ("EQ_POINTS", equations), ("implies", equations), ("equations_equivalent", equations),
    ("StepResult", steps),
    ("check_chain", chain),
    ("grade_lines", grade), ("soft_budget", grade),
    ("DerivationChecker", checker),
]


@pytest.mark.parametrize("name,home", HOMES, ids=[n for n, _ in HOMES])
def test_public_name_is_its_home_object_everywhere(name, home):
    assert getattr(checker, name) is getattr(home, name)
    assert getattr(derivation, name) is getattr(home, name)


def test_limit_names_stay_public_on_the_kind():
    assert derivation.TOTAL_BUDGET == limits.DERIVATION_BUDGET
    assert derivation.DEFAULT_TIMEOUT == limits.GRADE_TIMEOUT
    assert derivation.MAX_LINES == limits.MAX_GRADED_LINES
    assert derivation.MISTAKE_RESERVE == limits.MISTAKE_RESERVE


def test_the_registered_kind_is_the_entry_modules_class():
    kind = get_kind("derivation")
    assert type(kind) is checker.DerivationChecker
    assert type(kind).__module__ == "checkers.kinds.derivation.checker"


def test_grading_by_the_split_modules_gives_the_same_verdict_as_the_kind():
    spec = {"kind": "derivation", "variables": {"x": {}}, "start": "(x+1)^2", "goal": "x^2 + 2x + 1"}
    v = grade.grade_lines(["(x+1)^2", "= (x+1)(x+1)", "= x^2 + 2x + 1"], spec, {})
    assert v.status == "correct" and v.details["first_error"] is None
    bad = grade.grade_lines(["(x+1)^2", "= x^2 + 1"], spec, {})
    assert bad.status == "incorrect" and bad.note == "step_error" and bad.details["first_error"] == 1
