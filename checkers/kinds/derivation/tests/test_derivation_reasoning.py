"""Derivations are graded on reasoning: the goal in form, "show your steps", and key steps (milestones)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkers import grading
from checkers.kinds.derivation.standalone import check_derivation
from checkers.bank import load_bank
from checkers.bank.variants import params_for
from checkers.kinds.derivation import form as F
from checkers.kinds.base import get_kind
from checkers.params import substitute
from checkers.verdict import SpecError

ROOT = Path(__file__).resolve().parents[4] / "questions"
BANK = load_bank(ROOT)
DERIVATIONS = [(q["id"], q, p) for q in BANK for p in q["parts"] if p["kind"] == "derivation"]
SEEDS = range(20)

PQ = {"p": {"domain": "probability"}, "q": {"domain": "probability"}}
X = {"x": {"real": True}}


def test_the_bank_has_derivations_and_each_names_its_key_steps():
    assert len(DERIVATIONS) >= 7
    for qid, _, part in DERIVATIONS:
        assert part.get("key_steps"), f"{qid}: a derivation part names its key steps"
        assert part.get("reference"), qid


@pytest.mark.parametrize("qid,question,part", DERIVATIONS, ids=[d[0] for d in DERIVATIONS])
def test_copying_the_start_or_goal_scores_zero_and_the_reference_full_marks(inprocess, qid, question, part):
    for seed in SEEDS:
        params = params_for(question, seed)
        start, goal = substitute(str(part["start"]), params), substitute(str(part["goal"]), params)
        for lines in ([goal], [start], [start, goal], [start, start, goal]):
            v = grading.grade(lines, part, params)
            assert v.status == "incorrect" and v.score == 0.0, (qid, seed, lines, v.status, v.score, v.note)
            assert v.note == "no_steps" and "steps" in v.feedback["en"] and v.feedback["zh"], (qid, seed, v.note)
        v = grading.grade(substitute(list(part["reference"]), params), part, params)
        assert v.status == "correct" and v.score == 1.0, (qid, seed, v.status, v.note, v.details)
        assert v.details["missing_milestones"] == [] and all(m["found"] for m in v.details["milestones"])


# --- forms ------------------------------------------------------------------------------------------------
def _form(text, variables=PQ, functions=None):
    return F.statement(text, {"variables": variables, "functions": functions or {}})


@pytest.mark.parametrize("a,b", [
    ("q + (1 - p)", "1 - p + q"), ("q - (1 - p)", "q - 1 + p"), ("p*q", "q p"), ("p/q", "p*q^-1"),
    ("p/(q*p)", "p/q/p"), ("ln(q)", "log(q)"), ("e^q", "exp(q)"), ("sqrt(q)", "q^(1/2)"), ("0.50*q", ".5 q"),
    ("q + 0", "q"), ("1*q", "q"), ("q^1", "q"), ("-(-q)", "q"), ("q/2", "½ q"),
])
def test_light_rewrites_keep_the_form(a, b):
    assert _form(a) == _form(b)


@pytest.mark.parametrize("a,b", [
    ("q + q", "2*q"), ("(q + 1)*(q + 1)", "(q + 1)^2"), ("2*3*q", "6*q"), ("q + (1 - q)", "1"),
    ("-ln(q/p)", "ln(p/q)"), ("p*(q + 1)", "p*q + p"),
])
def test_arithmetic_is_a_step_not_a_rewrite(a, b):
    assert _form(a) != _form(b)


def test_user_functions_stay_opaque_calls():
    fn = {"f": {"args": ["x"], "expr": "exp(x) - x - 1"}}
    assert _form("f(ln(q/p))", functions=fn) != _form("q/p - ln(q/p) - 1", functions=fn)


def test_containment_of_a_key_step():
    line = _form("q + (1-q) - p*ln(q/p) - (1-p)*ln((1-q)/(1-p)) - p - (1-p)")
    assert F.line_contains(line, [_form("q + (1 - q)")[1]])          # some terms of the sum
    assert F.line_contains(line, [_form("p + 1 - p")[1]])            # up to an overall sign
    assert F.line_contains(_form("x = 2*(q + p)", {**PQ, **X}), [_form("p + q")[1]])  # inside one side
    assert not F.line_contains(line, [_form("2*q")[1]])
    assert not F.line_contains(_form("1 - p*ln(q/p)"), [_form("1 - 1")[1]])


def test_key_steps_are_matched_in_order():
    assert F.match_in_order([[True, False], [True, False]]) == [0, 0]      # one line may hold two
    assert F.match_in_order([[False, True], [True, False]]) == [1, None]   # the second comes too early
    assert F.match_in_order([[False, False], [False, True]]) == [None, 1]


# --- grading ----------------------------------------------------------------------------------------------
K3 = {"kind": "derivation", "variables": PQ,
      "start": "p*(q/p - ln(q/p) - 1) + (1-p)*((1-q)/(1-p) - ln((1-q)/(1-p)) - 1)",
      "goal": "p*ln(p/q) + (1-p)*ln((1-p)/(1-q))",
      "key_steps": [{"expr": ["q + (1-q)", "1 - 1"], "feedback": {"en": "the ratio term sums to one", "zh": "比值项之和为一"}},
                    {"expr": "-p*ln(q/p) - (1-p)*ln((1-q)/(1-p))",
                     "feedback": {"en": "the log terms with their signs", "zh": "带符号的对数项"}}]}
K3_LINES = ["q + (1-q) - p*ln(q/p) - (1-p)*ln((1-q)/(1-p)) - p - (1-p)",
            "1 - p*ln(q/p) - (1-p)*ln((1-q)/(1-p)) - 1",
            "-p*ln(q/p) - (1-p)*ln((1-q)/(1-p))",
            "p*ln(p/q) + (1-p)*ln((1-p)/(1-q))"]


def test_all_key_steps_and_the_goal_give_full_marks(inprocess):
    v = grading.grade(K3_LINES, K3, {})
    assert v.status == "correct" and v.score == 1.0, v.details
    assert [m["line"] for m in v.details["milestones"]] == [0, 0]   # the first line holds both


def test_a_missing_key_step_is_named_with_partial_credit(inprocess):
    # a valid chain to the goal that skips the ratio term: 2 of 3 checkpoints (key step 2 and the goal)
    lines = [K3["start"], K3_LINES[2], K3_LINES[3]]
    v = grading.grade(lines, K3, {})
    assert v.status == "incorrect" and v.note == "missing_key_steps"
    assert v.score == pytest.approx(2 / 3)
    assert [m["index"] for m in v.details["missing_milestones"]] == [0]
    assert "ratio term" in v.feedback["en"] and "比值项" in v.feedback["zh"]


def test_key_steps_before_a_broken_step_still_count(inprocess):
    ratio_only = "q + (1-q) - p*ln(q/p) - p - (1-p) + (1-p)*ln((1-p)/(1-q))"   # key step 1, not 2
    lines = [ratio_only, "2 - p*ln(q/p) - (1-p)*ln((1-q)/(1-p)) - 1", K3_LINES[3]]
    v = grading.grade(lines, K3, {})
    assert v.status == "incorrect" and v.note == "step_error" and v.details["first_error"] == 1
    assert v.score == pytest.approx(1 / 3)            # key step 1 only; no valid chain to the goal
    assert [m["index"] for m in v.details["missing_milestones"]] == [1]


def test_a_key_step_after_the_goal_line_does_not_count_out_of_order(inprocess):
    lines = [K3["start"], K3_LINES[2], "q + (1 - q) - 1 + p*ln(p/q) + (1-p)*ln((1-p)/(1-q))", K3_LINES[3]]
    v = grading.grade(lines, K3, {})
    assert v.status == "incorrect" and v.score == pytest.approx(2 / 3)   # the two key steps in reverse order


def test_goal_in_value_but_not_in_form(inprocess):
    v = grading.grade(K3_LINES[:3], K3, {})
    assert v.status == "incorrect" and v.note == "goal_form" and v.details["first_error"] is None
    assert v.score == pytest.approx(2 / 3)            # both key steps, but the goal is not written
    assert "form" in v.feedback["en"] and v.feedback["zh"]


def test_lines_that_only_restate_the_start_or_goal_show_no_steps(inprocess):
    spec = {"kind": "derivation", "variables": X, "start": "(x + 1)^2", "goal": "x^2 + 2*x + 1"}
    for lines in (["(x + 1)^2", "(1 + x)^2", "x^2 + 2*x + 1"], ["(x+1)^2 = x^2 + 2x + 1"], ["1 + 2x + x^2"]):
        v = grading.grade(lines, spec, {})
        assert v.status == "incorrect" and v.note == "no_steps" and v.score == 0.0, (lines, v.details)
    v = grading.grade(["(x + 1)^2", "(x + 1)*(x + 1)", "x^2 + 2x + 1"], spec, {})
    assert v.status == "correct", v.details


def test_check_derivation_milestones(inprocess):
    start, goal = "(x + 1)^2", "x^2 + 2*x + 1"
    lines = ["(x + 1)^2", "(x + 1)*(x + 1)", "x^2 + x + x + 1", "x^2 + 2*x + 1"]
    v = check_derivation(lines, start, goal, X, milestones=["x + x"])
    assert v.status == "correct" and v.score == 1.0
    v = check_derivation([lines[0], lines[1], lines[3]], start, goal, X, milestones=["x + x"])
    assert v.status == "incorrect" and v.score == pytest.approx(1 / 2)
    assert v.details["missing_milestones"][0]["expr"] == "x + x"
    with pytest.raises(SpecError, match=r"key_steps\[0\]"):
        check_derivation(lines, start, goal, X, milestones=["x +"])


# --- authoring --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key_steps,problem", [
    ([], "non-empty"),
    ([{"expr": "q + (1 - q)"}], "feedback"),
    ([{"expr": "p = q", "feedback": {"en": "e", "zh": "z"}}], "not an equation"),
    ([{"expr": "ln(p/q)", "feedback": {"en": "e", "zh": "z"}}], "already contained in the goal"),
    ([{"expr": "q/p - ln(q/p) - 1", "feedback": {"en": "e", "zh": "z"}}], "already contained in the start"),
    ([{"expr": "q + (1 - q)", "feedback": {"en": "e", "zh": "z"}, "note": "x"}], "expr and feedback only"),
])
def test_malformed_key_steps_are_refused(key_steps, problem):
    spec = {**K3, "key_steps": key_steps}
    with pytest.raises(SpecError, match=problem):
        get_kind("derivation").validate_spec(spec)
