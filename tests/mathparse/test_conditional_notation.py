"""The tutorial's probability notation pi_theta(y|x): the annotation is read as the variable itself,
and nothing that is valid maths without it is ever swallowed."""

import pytest
import sympy

from checkers.mathparse import parse_math, symbols_for
from checkers.verdict import AnswerParseError

V = {"pi_theta": {"domain": "probability"}, "pi_ref": {"domain": "probability"}, "x": {"real": True},
     "y": {"real": True}}
S = symbols_for(V)


@pytest.mark.parametrize("text", ["π_θ(y|x)", "pi_theta(y | x)", r"\pi_\theta(y \mid x)", "pi_theta(y_w|x)",
                                  r"\pi_{\theta}(y_l\mid x)"])
def test_annotation_is_the_variable(text):
    assert parse_math(text, V).expr == S["pi_theta"]


@pytest.mark.parametrize("text,expected", [
    ("pi_theta(x)", lambda s: s["pi_theta"] * s["x"]),            # a product, not an annotation
    ("pi_theta(|x|)", lambda s: s["pi_theta"] * sympy.Abs(s["x"])),
    ("pi_theta(x|y|)", lambda s: s["pi_theta"] * s["x"] * sympy.Abs(s["y"])),
])
def test_valid_maths_is_not_swallowed(text, expected):
    assert sympy.simplify(parse_math(text, V).expr - expected(S)) == 0


def test_a_bar_with_an_operator_inside_is_still_an_error():
    with pytest.raises(AnswerParseError):
        parse_math("pi_theta(y + 1|x)", V)
