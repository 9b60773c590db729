"""Answers with large powers of an expression are read and graded: a work guard must never refuse what is
structurally equal to the expected answer, and equal powers need no expansion (8 of the misses on a public
corpus of labelled answer pairs were identical answers refused as "too large")."""

import pytest

from checkers.kinds.symbolic.standalone import check_symbolic

V = {"x": {}, "a": {}, "y": {}}


@pytest.mark.parametrize("expected, answer", [
    ("(x-a)^6000", "(x-a)^6000"),
    ("6000*(x-a)^5999", "6000*(x-a)^5999"),
    ("(x-a)^6000", "(a-x)^6000"),
    ("x^2000*y", "y*x^2000"),
    ("(x+1)^99999", "(x+1)^99998*(x+1)"),
    ("x^3000", "x^1500*x^1500"),
])
def test_equal_large_powers_are_correct(expected, answer):
    verdict = check_symbolic(expected, answer, V)
    assert verdict.status == "correct", (verdict.status, verdict.note, verdict.feedback)


@pytest.mark.parametrize("expected, answer", [
    ("(x-a)^6000", "(x-a)^5999"),
    ("(x+1)^5000", "(x+2)^5000"),
])
def test_different_large_powers_are_not_correct(expected, answer):
    verdict = check_symbolic(expected, answer, V)
    assert verdict.status in ("incorrect", "undecided"), verdict.status
    assert verdict.status != "correct"


def test_the_degree_bound_still_refuses_a_blow_up():
    verdict = check_symbolic("x", "x^1000001", V)
    assert verdict.status == "invalid" and "too large" in verdict.feedback["en"]
