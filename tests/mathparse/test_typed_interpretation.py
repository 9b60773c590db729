""""Interpreted as" shows the expression as typed: order, grouping and digits kept, only implicit
products written out; and what it shows reads back to the same expression."""

import pytest
import sympy

from checkers import grading
from checkers.mathparse import parse_math
from checkers.mathparse.typed import typed_forms

VARS = {"p": {"domain": "probability"}, "q": {"domain": "probability"}, "x": {}, "y": {},
        "Delta": {}, "pi_theta": {"positive": True}, "beta": {"positive": True}}

# typed -> (text shown, LaTeX shown)
TABLE = [
    ("q*p", "q*p", r"q \cdot p"),
    ("2p", "2*p", r"2 \cdot p"),
    ("x + 2x", "x + 2*x", r"x + 2 \cdot x"),
    ("exp(-x) + x - 1", "exp(-x) + x - 1", r"e^{-x} + x - 1"),
    ("2(p+q)", "2*(p + q)", r"2 \cdot \left(p + q\right)"),
    ("1/2x", "1/2*x", r"\frac{1}{2} \cdot x"),
    ("p*ln(p/q)", "p*log(p/q)", r"p \cdot \ln\left(\frac{p}{q}\right)"),
    ("(1-p)ln((1-p)/(1-q))", "(1 - p)*log((1 - p)/(1 - q))",
     r"\left(1 - p\right) \cdot \ln\left(\frac{1 - p}{1 - q}\right)"),
    ("0.50*x", "0.50*x", r"0.50 \cdot x"),
    ("x^2^3", "x^(2^3)", "{x}^{{2}^{3}}"),
    ("-x^2", "-x^2", "-{x}^{2}"),
    ("(-x)^2", "(-x)^2", r"{\left(-x\right)}^{2}"),
    ("Delta - ln(1 + Delta)", "Delta - log(1 + Delta)", r"\Delta - \ln\left(1 + \Delta\right)"),
    ("beta log pi_theta", "beta*log(pi_theta)", r"\beta \cdot \ln\left(\pi_{\theta}\right)"),
    ("sqrt(x) - |y|", "sqrt(x) - abs(y)", r"\sqrt{x} - \left|y\right|"),
    ("p - (q - x)", "p - (q - x)", r"p - \left(q - x\right)"),
    ("(x+y)/(x*y)", "(x + y)/(x*y)", r"\frac{x + y}{x \cdot y}"),
    ("x/y*p", "x/y*p", r"\frac{x}{y} \cdot p"),
]


@pytest.mark.parametrize("typed,text,latex", TABLE, ids=[row[0] for row in TABLE])
def test_rendered_as_typed(typed, text, latex):
    shown_text, shown_latex, mathml = typed_forms(typed, VARS)
    assert (shown_text, shown_latex) == (text, latex)
    assert "<script" not in mathml and mathml.startswith("<")
    # what is shown is the same expression as what was typed (sympy proves the difference is 0)
    assert sympy.simplify(parse_math(shown_text, VARS).expr - parse_math(typed, VARS).expr) == 0


def test_mathml_keeps_the_order_typed():
    _, _, mathml = typed_forms("q*p", VARS)
    assert mathml.index("<mi>q</mi>") < mathml.index("<mi>p</mi>") and "&#183;" in mathml


def test_relation_as_typed():
    text, latex, _ = typed_forms("b*x = x*b", {"b": {}, "x": {}}, allow_relation=True)
    assert text == "b*x = x*b" and latex == r"b \cdot x = x \cdot b"


def test_validate_of_a_symbolic_part_shows_the_typed_form():
    spec = {"id": "f", "kind": "symbolic", "expected": "exp(Delta) - Delta - 1", "variables": {"Delta": {}}}
    out = grading.validate("exp(Delta) - 1 - Delta", spec)
    # sympy's own order would be "-Delta + exp(Delta) - 1"
    assert out["valid"] and out["interpreted_as"]["text"] == "exp(Delta) - 1 - Delta"
