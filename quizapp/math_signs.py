"""Signs of numbers in authored formulas: a minus (or plus) that opens a bracket, follows a comma, a relation or
another operator is a sign, drawn close to its operand, not an operator spaced between two operands.

latex2mathml writes every ``-`` as a bare ``<mo>&#x02212;</mo>`` in the row it stands in. A browser decides an
``<mo>``'s spacing from its form, and without a ``form`` attribute the form from its place in that row
(MathML Core, ``<mo>``, "the algorithm for determining the form of an embellished operator": only the first
child of a row is prefix, only the last postfix), so in ``[-1, -2]`` or ``f(a, -b)`` the signs are taken as
binary minus and drawn with the medium space on both sides that ``a - b`` has: "[ − 1, − 2]". This module
marks every sign (:func:`checkers.mathparse.signs.is_sign`, TeX's rule) ``form="prefix"``: no space, as ``-x``
at the start of a formula has. ``a - b`` keeps its binary minus.

Only the form of an operator changes: no element is added, removed or moved, so the line-break points
(:mod:`quizapp.math_breaks`) stay as they were.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from checkers.mathparse.signs import is_sign

__all__ = ["mark_prefix_signs"]

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_Q = "{" + MATHML_NS + "}"

#: Elements whose children are read as one row (an ``<mrow>``, or an element that wraps an inferred one).
ROWS = frozenset({"math", "mrow", "msqrt", "mstyle", "mpadded", "mphantom", "menclose", "merror", "mtd"})


def _local(tag: str) -> str:
    return tag[len(_Q):] if tag.startswith(_Q) else tag


def mark_prefix_signs(mathml: str) -> str:
    """``mathml`` (one ``<math>`` element as latex2mathml writes it) with every sign marked ``form="prefix"``;
    unchanged when there is none, or when it is not plain MathML."""
    if "<!" in mathml or "<?" in mathml:  # no DTD, no processing instruction: only latex2mathml's plain XML
        return mathml
    try:
        math = ET.fromstring(mathml)
    except ET.ParseError:
        return mathml
    if _local(math.tag) != "math":
        return mathml
    marked = False
    for el in math.iter():
        if _local(el.tag) not in ROWS:
            continue
        row = list(el)
        for i, item in enumerate(row):
            if not item.get("form") and is_sign(row, i):
                item.set("form", "prefix")
                marked = True
    if not marked:
        return mathml
    for node in math.iter():  # the namespace goes back as one xmlns attribute, not a prefix on each tag
        node.tag = _local(node.tag)
    math.set("xmlns", MATHML_NS)
    return ET.tostring(math, encoding="unicode", short_empty_elements=True)
