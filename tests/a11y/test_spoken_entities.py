"""A formula's spoken words are characters: sympy's MathML (the expected answer and the "interpreted as"
of a symbolic part) writes ``&ExponentialE;`` and ``&#916;``, which XML does not know; the words read
them as "e" and "capital delta", never as the entity's letters, and XML's own ``&lt;`` still parses."""

import sympy

from checkers.mathparse.render import render_mathml
from checkers.mathparse.spoken import speak_mathml


def test_sympy_entities_are_read_as_their_characters():
    x, delta = sympy.Symbol("x"), sympy.Symbol("Delta")
    spoken = speak_mathml(render_mathml(sympy.exp(delta) + x**2))
    assert "&" not in spoken["en"] and "&" not in spoken["zh"]
    assert spoken["en"] == "x squared plus e to the power capital delta"


def test_xml_escapes_stay_markup_and_unparsable_markup_reads_its_characters():
    assert speak_mathml("<math><mi>a</mi><mo>&lt;</mo><mi>b</mi></math>")["en"] == "a is less than b"
    # not well-formed: the fallback reads the characters, each reference resolved once
    assert speak_mathml("<math><mi>a</mi><mo>&lt;</mo><mi>&#916;</mi><bad></math>")["en"] == "a < Δ"


def test_greek_letters_are_named_in_each_language():
    spoken = speak_mathml("<math><msub><mi>π</mi><mi>θ</mi></msub><mo>+</mo><mi>Δ</mi></math>")
    assert spoken["en"] == "pi sub theta plus capital delta"
    assert spoken["zh"] == "派 下标 西塔 加 大写德尔塔"   # no English word left for a Chinese screen reader
