"""Which ``+`` or ``-`` in a row of presentation MathML is a sign (``[-1, -2]``, ``f(a, -b)``, ``x = -1``) and which a
binary operator between two operands (``a - b``): the one rule the drawing (``quizapp/math_signs.py`` marks a sign
``form="prefix"``) and the spoken text (:mod:`.spoken` reads it "negative") share.

The rule is TeX's (The TeXbook, Appendix G, rule 5): a binary operator that is first in its list, or follows a
binary operator, a large operator, a relation, an opening bracket or punctuation, is not binary. Read from the
markup latex2mathml and :mod:`.typed` write: a function name (``\\log``, ``\\max``: a multi-letter ``<mi>`` or
``<mo>``) is a large operator, as in TeX (``\\log -x``); ``\\langle`` and ``:`` come as ``<mi>``; a scripted
operator (``\\sum_{i=1}^n``) is its base; a space (``<mspace>``) is looked past. One addition to TeX: a ``|`` or
``‖`` opens when an even number of them stands before it in the row, so ``|-a|`` has a sign (TeX reads ``|`` as
an ordinary symbol and spaces that minus as binary).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Sequence

__all__ = ["SIGNS", "OPENERS", "SEPARATORS", "RELATIONS", "BINARY", "is_sign"]

#: The operators that are a sign when nothing stands before them to subtract from or add to.
SIGNS = frozenset("-−+±∓")
#: Relations (TeX's Rel atoms).
RELATIONS = frozenset("=≠<>≤≥≈≡∝→←↦⇒⇔∼≃≅∈∉⊂⊆≪≫≺≻") | {":=", "≔"}
#: Binary operators (TeX's Bin atoms).
BINARY = frozenset("+−-±∓×·⋅∗∘⊙⊗∪∩∧∨")
#: List separators (TeX's Punct).
SEPARATORS = frozenset(",;")
#: Opening brackets (TeX's Open), and the two fences that open and close alike.
OPENERS = frozenset("([{⟨⌊⌈|‖")
_TWO_WAY = frozenset("|‖")
#: Large operators (TeX's Op atoms).
_LARGE = frozenset("∑∏∐∫∬∭∮⋃⋂⋁⋀⨁⨂⨀")
#: What a sign may follow: TeX's Bin, Op, Rel, Open and Punct (``:`` is a Rel), less the two-way fences.
_NO_LEFT_OPERAND = (OPENERS | SEPARATORS | RELATIONS | BINARY | _LARGE | {":"}) - _TWO_WAY
#: Elements that carry scripts on a base: an operator with scripts is still that operator.
_SCRIPTED = frozenset({"msub", "msup", "msubsup", "munder", "mover", "munderover"})
_NS = re.compile(r"^\{[^}]*\}")


def _tag(el: ET.Element) -> str:
    return _NS.sub("", el.tag) if isinstance(el.tag, str) else ""


def _text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def _leaves_no_operand(el: ET.Element, before: Sequence[ET.Element]) -> bool:
    """Whether ``el`` (with ``before`` ahead of it in the row) is an operator of TeX's Bin, Op, Rel, Open or
    Punct classes, after which a ``+``/``-`` has nothing to its left to act on."""
    tag = _tag(el)
    if tag in _SCRIPTED and len(el):  # \sum_i, \log_2: the base decides; x^2, )^2 are operands
        return _leaves_no_operand(el[0], before)
    if tag not in ("mo", "mi"):  # a number, fraction, root, table, bracketed row: an operand
        return False
    text = _text(el)
    if el.get("form") == "prefix":  # \left( and a sign marked before
        return True
    if text in _TWO_WAY:
        return sum(1 for b in before if _tag(b) in ("mo", "mi") and _text(b) == text) % 2 == 0
    return text in _NO_LEFT_OPERAND or (len(text) > 1 and text.isalpha())


def is_sign(row: Sequence[ET.Element], i: int) -> bool:
    """Whether ``row[i]`` (the children of one ``<mrow>``, in order) is a ``+ - ± ∓`` operator used as a sign."""
    el = row[i]
    if _tag(el) != "mo" or _text(el) not in SIGNS or el.get("form") in ("infix", "postfix"):
        return False
    j = i - 1
    while j >= 0 and _tag(row[j]) == "mspace":
        j -= 1
    return j < 0 or _leaves_no_operand(row[j], row[:j])
