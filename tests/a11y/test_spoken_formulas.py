"""Every formula has a text alternative that does not rely on MathML: the spoken form read from its
presentation tree (checkers/mathparse/spoken.py), in each language's own words and order, carried by the
"interpreted as" preview, the solution's expected formulas and every authored formula the server renders."""

import re

import latex2mathml.converter
import pytest

from checkers import grading
from checkers.limits import MAX_SPOKEN_DEPTH
from checkers.mathparse.spoken import speak_mathml
from checkers.mathparse.typed import typed_forms
from quizapp.rendering import render_inline, render_markdown

NAMES = {n: {} for n in ("p", "q", "x", "y", "a", "b", "n", "beta")}


def _typed(text: str) -> dict:
    return speak_mathml(typed_forms(text, NAMES, allow_relation=True)[2])


@pytest.mark.parametrize("typed, spoken", [
    ("p*ln(p/q)", "p times log of p over q"),
    ("2x", "2 times x"),
    ("b + a", "b plus a"),                                   # the order typed, as the learner sees it
    ("x/2/y", "the fraction x over 2 over y, end of fraction"),
    ("(b + a)*x", "open bracket b plus a close bracket times x"),
    ("x^2 - 1", "x squared minus 1"),
    ("x^(n + 1)", "x to the power n plus 1, end of power"),
    ("sqrt(x)", "the square root of x"),
    ("beta*ln(p/q) <= 2", "beta times log of p over q is at most 2"),
])
def test_a_learner_expression_reads_as_typed(typed, spoken):
    assert _typed(typed)["en"] == spoken


@pytest.mark.parametrize("latex, en, zh", [
    ("[-1, -2]", "open bracket negative 1, negative 2 close bracket", "左括号 负 1, 负 2 右括号"),
    ("(-x)", "open bracket negative x close bracket", "左括号 负 x 右括号"),
    ("f(a, -b)", "f open bracket a, negative b close bracket", "f 左括号 a, 负 b 右括号"),
    ("x = -1", "x equals negative 1", "x 等于 负 1"),
    ("a - b", "a minus b", "a 减 b"),                        # subtraction stays "minus", 减
    ("e^{-x} - 1", "e to the power negative x, end of power minus 1", "e 的 负 x 次方，次方结束 减 1"),
    # a function without brackets takes the sign with its operand (tests/mathparse/test_spoken_function_signs.py)
    (r"\log -x", "log of negative x", "负 x 的 log"),
])
def test_a_sign_reads_negative_and_subtraction_minus(latex, en, zh):
    """A minus with nothing to its left is a number's sign: "negative" (MathSpeak), 负 -- not 减, subtract."""
    assert speak_mathml(latex2mathml.converter.convert(latex)) == {"en": en, "zh": zh}


def test_a_typed_sign_reads_negative():
    assert _typed("-x + y") == {"en": "negative x plus y", "zh": "负 x 加 y"}
    assert _typed("x - y")["en"] == "x minus y"


def test_chinese_words_and_order_come_from_the_catalog():
    zh = _typed("p/q")["zh"]
    # a fraction is read denominator first in Chinese: q, then p
    assert zh.index("q") < zh.index("p") and "over" not in zh
    assert _typed("a + b")["zh"] != _typed("a + b")["en"]


@pytest.mark.parametrize("latex, spoken", [
    (r"\frac{\pi^*(y|x)}{\pi_{\mathrm{ref}}(y|x)}",
     "the fraction pi star open bracket y given x close bracket over pi sub ref open bracket y given x "
     "close bracket, end of fraction"),
    (r"\sum_{i=1}^n x_i^2", "the sum from i equals 1 to n x sub i squared"),
    (r"\hat{A}_t", "A hat sub t"),
    (r"\ln\left(\frac{p}{q}\right)", "log of p over q"),
    (r"\mathbb{E}_{x\sim p}[r]", "expectation sub x distributed as p open bracket r close bracket"),
])
def test_authored_latex_reads_well(latex, spoken):
    assert speak_mathml(latex2mathml.converter.convert(latex))["en"] == spoken


def test_bad_or_deep_markup_never_raises():
    assert speak_mathml("<mrow><mi>x</mi>")["en"] == "x"  # not well formed: its characters
    assert speak_mathml(None) == {"en": "", "zh": ""}
    deep = "<mrow>" * (MAX_SPOKEN_DEPTH * 3) + "<mi>x</mi>" + "</mrow>" * (MAX_SPOKEN_DEPTH * 3)
    assert speak_mathml(deep)["en"] == "x"


def test_the_preview_carries_the_spoken_form():
    symbolic = grading.validate("p*ln(p/q)", {"kind": "symbolic", "variables": {"p": {}, "q": {}},
                                              "expected": "p"})
    assert symbolic["interpreted_as"]["spoken"]["en"] == "p times log of p over q"
    derivation = grading.validate(["b + a", "= a + b"], {"kind": "derivation", "variables": {"a": {}, "b": {}},
                                                         "start": "b + a", "goal": "a + b"})
    # one spoken line per step, so the page labels each step's formula
    assert derivation["interpreted_as"]["spoken"]["en"].split("\n") == ["b plus a", "equals a plus b"]


def test_rendered_formulas_carry_words_and_hide_the_drawing():
    for lang, words in (("en", "p over q"), ("zh", None)):
        out = str(render_markdown(r"Let $\frac{p}{q}$ be the ratio.", lang=lang))
        hidden = re.search(r'<span class="sr-only">([^<]+)</span><span aria-hidden="true"><math ', out)
        assert hidden, out
        assert hidden.group(1) == words if words else ("over" not in hidden.group(1) and "q" in hidden.group(1))
    # the drawing itself is unchanged
    assert latex2mathml.converter.convert("x^2").split(">", 1)[1][:40] in str(render_inline("$x^2$"))


def test_a_spoken_form_read_again_is_the_same_and_its_own_copy():
    from checkers.limits import SPOKEN_MEMO_MAX_CHARS
    from checkers.mathparse import spoken

    markup = typed_forms("x^2 - 1", NAMES, allow_relation=True)[2]
    first = speak_mathml(markup)
    first["en"] = "changed by a caller"  # what a caller does to its copy never reaches the next reader
    again = speak_mathml(markup)
    assert again["en"] == "x squared minus 1" and again is not first
    hits = spoken._remembered.cache_info().hits
    speak_mathml(markup)
    assert spoken._remembered.cache_info().hits == hits + 1  # read from the memo, not parsed again
    long_markup = "<mi>x</mi>" * (SPOKEN_MEMO_MAX_CHARS // 10 + 1)  # too long to keep: read each time
    size = spoken._remembered.cache_info().currsize
    assert speak_mathml(long_markup)["en"].startswith("x x")
    assert spoken._remembered.cache_info().currsize == size
