"""Unicode vulgar fractions (½, ¾, ...) read as exact fractions; a mixed number like 2½ is refused."""

import pytest
import sympy

from checkers.mathparse import evaluate_numeric, parse_math, symbols_for
from checkers.verdict import AnswerParseError

V = {"Delta": {"real": True}}


def test_half_delta_squared_is_k2():
    d = symbols_for(V)["Delta"]
    assert parse_math("½Δ²", V).expr == d ** 2 / 2
    assert parse_math("¾", V).expr == sympy.Rational(3, 4)


def test_numeric_evaluation():
    assert evaluate_numeric("½ ln(4)", {}) == pytest.approx(0.6931471805599453, rel=1e-15)


def test_mixed_number_is_refused_with_its_column():
    with pytest.raises(AnswerParseError) as err:
        parse_math("2½", V)
    assert err.value.column == 1
