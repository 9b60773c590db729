"""Line-break points in rendered text (quizapp/math_breaks.py, quizapp/rendering.py): a long inline formula
is drawn as several <math> elements a line may break between, at the places TeX would break (after a
relation or a binary operator) and after list commas; a long inline code span may break after ``_``.
The browser side (nothing runs out of its box at 375 px) is tests/a11y/test_phone_width_browser.py."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import latex2mathml.converter
import pytest

from quizapp.math_breaks import MIN_CHARS, split_inline_mathml
from quizapp.rendering import render_inline, render_markdown

NS = "{http://www.w3.org/1998/Math/MathML}"


def _pieces(latex: str) -> list[ET.Element]:
    return [ET.fromstring(p) for p in split_inline_mathml(latex2mathml.converter.convert(latex))]


def _tokens(el: ET.Element) -> list[str]:
    """The formula's leaf tokens in reading order (what is drawn)."""
    return [(t.text or "").strip() for t in el.iter() if t.tag[len(NS):] in {"mi", "mn", "mo", "mtext"}]


def _last_token(piece: ET.Element) -> str:
    return _tokens(piece)[-1]


ARRAY = "[[-0.52, -1.1, -0.3], [-0.9, -0.2, -1.4]]"


def test_an_array_is_cut_after_each_comma_and_loses_nothing():
    whole = ET.fromstring(latex2mathml.converter.convert(ARRAY))
    pieces = _pieces(ARRAY)
    assert len(pieces) == 6  # five commas between numbers (and rows)
    assert [_last_token(p) for p in pieces[:-1]] == [","] * 5
    joined = [tok for p in pieces for tok in _tokens(p)]
    assert joined == _tokens(whole)  # same tokens, same order
    for p in pieces:
        assert p.tag == NS + "math" and p.get("display") == "inline"
        assert _tokens(p)[0] in {"[", "−"} or re.fullmatch(r"[\d.]+", _tokens(p)[0])


def test_a_sign_stays_with_its_number_and_a_binary_operator_ends_its_piece():
    pieces = _pieces(r"\mathcal{L} = a_1 + b_2 - c_3 \cdot d_4 = -0.25")
    ends = [_last_token(p) for p in pieces[:-1]]
    assert ends == ["=", "+", "−", "·", "="]
    assert _tokens(pieces[-1]) == ["−", "0.25"]  # the sign opens the last piece, not closes the one before


def test_no_break_after_an_opening_bracket_or_a_unary_sign():
    for latex in (r"f\left(-x\right) + (-y) + \min(-a, -b)", ARRAY):
        for piece in _pieces(latex)[:-1]:
            toks = _tokens(piece)
            assert toks[-1] not in {"(", "["}
            if toks[-1] == "−":
                assert len(toks) >= 2 and toks[-2] not in {"(", "[", ",", "=", "+", "−"}


def test_short_display_and_foreign_formulas_stay_whole():
    short = latex2mathml.converter.convert("p = 0.39")
    assert len("p=0.39") < MIN_CHARS and split_inline_mathml(short) == [short]
    display = latex2mathml.converter.convert(ARRAY, display="block")
    assert split_inline_mathml(display) == [display]
    foreign = '<!DOCTYPE math [<!ENTITY a "x">]><math><mi>&a;</mi><mo>=</mo><mi>b</mi></math>'
    assert split_inline_mathml(foreign) == [foreign]
    assert split_inline_mathml("<math><mi>x") == ["<math><mi>x"]  # not XML: left alone


def test_a_flat_left_right_group_opens_with_fences_of_natural_size_and_a_tall_one_stays_whole():
    flat = _pieces(r"\left[0.125, 0.25, 0.5, 0.75, 1.0\right]")
    assert len(flat) == 5
    fences = [el for p in flat for el in p.iter(NS + "mo") if el.get("fence") == "true"]
    assert len(fences) == 2 and all(f.get("stretchy") == "false" for f in fences)
    tall = _pieces(r"\left(\frac{10}{20}, \frac{30}{40}, \frac{50}{60}\right) = 1")
    assert len(tall) == 2  # cut only after "=", outside the group whose fences stretch
    assert any(el.get("stretchy") == "true" for el in tall[0].iter(NS + "mo"))


def test_rendered_prose_draws_the_pieces_under_one_spoken_text():
    html = str(render_markdown(f"Log-probs ${ARRAY}$ per token.", lang="en"))
    drawn = re.search(r'<span aria-hidden="true">(.*?)</span></span>', html).group(1)
    assert drawn.count("<math ") == 6
    assert html.count('class="sr-only"') == 1
    spoken = re.search(r'<span class="sr-only">([^<]*)</span>', html).group(1)
    assert "0.52" in spoken and "1.4" in spoken  # one spoken text for the whole formula


@pytest.mark.parametrize("code, pieces", [
    ("compute_rollout_importance_weights", ["compute_", "rollout_", "importance_", "weights"]),
    ('importance_sampling_level="sequence"', ["importance_", "sampling_", 'level=', '"sequence"']),
    ("torch.nn.functional.log_softmax", ["torch.", "nn.", "functional.", "log_", "softmax"]),
])
def test_long_inline_code_may_break_after_separators_only(code, pieces):
    html = str(render_inline(f"`{code}`"))
    inner = html[len("<code>"):-len("</code>")]
    assert inner.split("<wbr>") == pieces
    assert inner.replace("<wbr>", "") == code  # copying the code copies it unchanged


def test_short_inline_code_is_left_alone():
    assert str(render_inline("`old_log_prob`")) == "<code>old_log_prob</code>"
