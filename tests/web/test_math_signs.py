"""Signs in authored formulas (quizapp/math_signs.py, quizapp/rendering.py): a minus or plus with nothing to its
left to subtract from -- after an opening bracket, a comma, a relation, another operator, a function name or a
large operator -- is drawn as a sign (``form="prefix"``), so ``[-1, -2]`` reads as two negative numbers; a
binary ``a - b`` keeps its operator spacing, and a long formula never breaks a line between a sign and its
operand. The browser side (the sign drawn with no space) is tests/a11y/test_signs_browser.py; the words ("negative
1", 负 1) are tests/a11y/test_spoken_formulas.py."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import latex2mathml.converter
import pytest

from checkers.mathparse.spoken import speak_mathml
from checkers.mathparse.signs import SIGNS
from quizapp.math_breaks import split_inline_mathml
from quizapp.math_signs import mark_prefix_signs
from quizapp.rendering import render_inline, render_markdown, render_math

NS = "{http://www.w3.org/1998/Math/MathML}"
P, B = "prefix", None  # a sign, a binary operator


def _signs(mathml: str) -> list[str | None]:
    """The ``form`` of every ``+ - ± ∓`` operator in reading order (fences are not signs)."""
    return [el.get("form") for el in ET.fromstring(mathml).iter(NS + "mo") if (el.text or "").strip() in SIGNS]


def _marked(latex: str) -> str:
    return mark_prefix_signs(latex2mathml.converter.convert(latex))


@pytest.mark.parametrize("latex, forms", [
    ("[-1, -2]", [P, P]),
    ("(-x)", [P]),
    ("f(a, -b)", [P]),
    ("a - b", [B]),
    (r"\left[-1, -2\right]", [P, P]),
    ("x = -1", [P]),
    ("-a + b", [P, B]),
    ("a + (+1)", [B, P]),
    (r"a \cdot -b", [P]),
    (r"\max(-a, b)", [P]),            # after "(" (latex2mathml writes \max as <mo>max</mo>)
    (r"\log -x", [P]),                # after a function name, as TeX (Op atom)
    (r"\sum_{i=1}^n -x_i", [P]),      # after a large operator with limits
    (r"\langle -a \rangle", [P]),     # \langle is an <mi>
    ("x: -1", [P]),
    ("|-a|", [P]),                    # the first | opens
    ("|a| - b", [B]),                 # the second | closes
    (r"\|-a\| - b", [P, B]),
    ("(a+b)^2 - c", [B, B]),          # a closing bracket with a script is an operand
    ("n! - 1", [B]),
    ("x' - y", [B]),
    (r"a \; - b", [B]),               # a space is looked past
    (r"a_1 + \cdots - a_n", [B, B]),  # an ellipsis stands for terms
    (r"e^{-x} - 1", [P, B]),
    (r"\begin{bmatrix}-1 & 2 - 3\end{bmatrix}", [P, B]),
    (r"\frac{-1}{2}", [P]),
])
def test_a_sign_is_prefix_and_a_binary_operator_is_not(latex, forms):
    assert _signs(latex2mathml.converter.convert(latex)) == [None] * len(forms)  # latex2mathml marks none
    assert _signs(_marked(latex)) == forms


def _shape(el: ET.Element) -> list[tuple]:
    """Every element's tag, text and attributes but ``form``: what the drawing is besides the signs' form."""
    return [(e.tag.split("}")[-1], (e.text or "").strip(), sorted((k, v) for k, v in e.attrib.items() if k != "form"))
            for e in el.iter()]


@pytest.mark.parametrize("latex", [
    "[[-0.52, -1.1], [-0.9, -0.2]]", r"\mathcal{L} = -\frac{1}{2}(a - b)^2", r"\left(-\frac{1}{2}\right)",
])
def test_only_the_form_of_signs_changes(latex):
    before = latex2mathml.converter.convert(latex)
    after = mark_prefix_signs(before)
    assert after != before
    assert _shape(ET.fromstring(after)) == _shape(ET.fromstring(before))
    assert speak_mathml(after) == speak_mathml(before)  # the words are the same


def test_markup_without_a_sign_or_foreign_markup_comes_back_unchanged():
    for latex in ("a - b", r"p = 0.39", r"\frac{a}{b}"):
        mathml = latex2mathml.converter.convert(latex)
        assert mark_prefix_signs(mathml) == mathml
    foreign = '<!DOCTYPE math [<!ENTITY a "x">]><math><mo>(</mo><mo>-</mo><mi>&a;</mi></math>'
    assert mark_prefix_signs(foreign) == foreign
    assert mark_prefix_signs("<math><mo>(</mo><mo>-</mo>") == "<math><mo>(</mo><mo>-</mo>"  # not XML
    assert mark_prefix_signs("<mrow><mo>(</mo><mo>-</mo><mi>x</mi></mrow>") == \
        "<mrow><mo>(</mo><mo>-</mo><mi>x</mi></mrow>"  # not one <math> element


def _drawn(html: str) -> str:
    return "".join(re.findall(r'<span aria-hidden="true">(.*?)</span>', html))


def test_rendered_formulas_keep_the_prefix_form_through_the_sanitiser_and_the_line_breaks():
    html = str(render_inline("The log-probs $[-0.52, -1.1, -0.3, -0.9]$ and the gap $a - b$.", lang="en"))
    pieces = re.findall(r"<math .*?</math>", _drawn(html))
    assert len(pieces) > 2  # the long list is cut after its commas ...
    forms = [f for p in pieces for f in _signs(p)]
    assert forms == [P, P, P, P, B]  # ... and each number keeps its sign; a - b keeps its binary minus
    display = str(render_math("f(a, -b) = [-1, -2]", display=True, lang="en"))
    assert _signs(re.search(r"<math .*?</math>", display).group(0)) == [P, P, P]


def test_the_spoken_text_is_the_formula_as_written():
    latex = "[-1, -2]"
    html = str(render_markdown(f"${latex}$", lang="en"))
    spoken = re.search(r'<span class="sr-only">([^<]*)</span>', html).group(1)
    assert spoken == speak_mathml(latex2mathml.converter.convert(latex))["en"]


def test_a_line_breaks_after_a_binary_minus_and_never_after_a_sign():
    """The line breaks (quizapp/math_breaks.py) read signs by the same rule: after ``\\log`` or an opening ``|``
    the minus stays with its operand; after a closing ``|`` it is binary, and the line may break after it."""
    for latex, ends, forms in ((r"\log -x_1 + \log -x_2 + \log -x_3", ["+", "+"], [P, B, P, B, P]),
                               (r"|-a_1| + |-a_2| - |a_3|", ["+", "−"], [P, B, P, B])):
        pieces = split_inline_mathml(_marked(latex))
        tokens = [[(t.text or "").strip() for t in ET.fromstring(p).iter() if t.tag[len(NS):] in {"mi", "mn", "mo"}]
                  for p in pieces]
        assert [t[-1] for t in tokens[:-1]] == ends, tokens
        assert [f for p in pieces for f in _signs(p)] == forms
