"""Signs of numbers in authored formulas: a minus (or plus) that opens a bracket, follows a comma, a relation or
another operator is a sign, drawn close to its operand, not an operator spaced between two operands.

latex2mathml writes every ``-`` as a bare ``<mo>&#x02212;</mo>`` in the row it stands in. A browser decides an
``<mo>``'s spacing from its form, and without a ``form`` attribute the form from its place in that row
(MathML Core, ``<mo>``, "the algorithm for determining the form of an embellished operator": only the first
child of a row is prefix, only the last postfix), so in ``[-1, -2]`` or ``f(a, -b)`` the signs are
taken as binary minus and drawn with the medium space on both sides that ``a - b`` has: "[ − 1, − 2]". This
module marks such a sign ``form="prefix"`` (no space, as in ``-x`` at the start of a formula), by TeX's rule
for the same choice (The TeXbook, Appendix G, rule 5: a binary operator first in a list, or after a binary
operator, a large operator, a relation, an opening bracket or punctuation, is an ordinary symbol). A function
name (``\\log``, ``\\max``: a multi-letter ``<mi>`` or ``<mo>``) is a large operator, as in TeX (``\\log -x``);
one addition: a ``|`` or ``‖`` opens when an even number of them stands before it in the row, so ``|-a|`` has a
sign (TeX, which reads ``|`` as an ordinary symbol, spaces it as binary). ``a - b`` keeps its binary minus.

Only the form of an operator changes: no element is added, removed or moved, so the spoken text (made from the
formula as latex2mathml wrote it) and the line-break points (:mod:`quizapp.math_breaks`) stay as they were.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .math_breaks import BINARY, MATHML_NS, OPENERS, RELATIONS, SEPARATORS

__all__ = ["mark_prefix_signs", "SIGNS"]

_Q = "{" + MATHML_NS + "}"

#: The operators that are a sign when nothing stands before them to subtract from or add to.
SIGNS = frozenset("-−+±∓")
#: Elements whose children are read as one row (an ``<mrow>``, or an element that wraps an inferred one).
ROWS = frozenset({"math", "mrow", "msqrt", "mstyle", "mpadded", "mphantom", "menclose", "merror", "mtd"})
#: Fences that open and close alike: the one after an even number of them opens.
_TWO_WAY = frozenset("|‖")
#: Large operators (a scripted ``\\sum_i`` is one too): TeX's Op atoms.
_LARGE = frozenset("∑∏∐∫∬∭∮⋃⋂⋁⋀⨁⨂⨀")
#: Operators after which a sign has no left operand: TeX's Bin, Op, Rel, Open and Punct (``:`` is a Rel).
_NO_LEFT_OPERAND = (OPENERS | SEPARATORS | RELATIONS | BINARY | _LARGE | {":"}) - _TWO_WAY
#: Elements that carry scripts on a base: an operator with scripts is still that operator (``\\sum_{i=1}^n``).
_SCRIPTED = frozenset({"msub", "msup", "msubsup", "munder", "mover", "munderover"})


def _local(tag: str) -> str:
    return tag[len(_Q):] if tag.startswith(_Q) else tag


def _text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def _opens_nothing_to_its_right(el: ET.Element, before: list[ET.Element]) -> bool:
    """Whether a sign right after ``el`` (with ``before`` in the row ahead of ``el``) has no left operand:
    ``el`` is an operator of TeX's Bin, Op, Rel, Open or Punct classes (see the module docstring)."""
    tag = _local(el.tag)
    if tag in _SCRIPTED and len(el):  # \sum_i, \log_2: the base decides; x^2, )^2 are operands
        return _opens_nothing_to_its_right(el[0], before)
    if tag not in ("mo", "mi"):  # an identifier, number, fraction, root, table: an operand
        return False
    text = _text(el)
    if el.get("form") == "prefix":  # \left( and a sign marked before
        return True
    if text in _TWO_WAY:
        return sum(1 for b in before if _local(b.tag) in ("mo", "mi") and _text(b) == text) % 2 == 0
    # latex2mathml writes most operators as <mo>, but \langle and ":" as <mi>, \log and \exp as <mi>log</mi>,
    # \max and \lim as <mo>max</mo>: a multi-letter name is a function's, a large operator in TeX
    return text in _NO_LEFT_OPERAND or (len(text) > 1 and text.isalpha())


def _mark_row(row: list[ET.Element]) -> bool:
    """Mark the signs of one row; whether any was marked."""
    marked = False
    for i, el in enumerate(row):
        if _local(el.tag) != "mo" or el.get("form") or _text(el) not in SIGNS:
            continue
        j = i - 1
        while j >= 0 and _local(row[j].tag) == "mspace":  # a space is not an operand: look past it
            j -= 1
        if j < 0 or _opens_nothing_to_its_right(row[j], row[:j]):
            el.set("form", "prefix")
            marked = True
    return marked


def _plain(el: ET.Element) -> None:
    """Drop the namespace from every tag (the ``xmlns`` attribute is written back on ``<math>``)."""
    for node in el.iter():
        node.tag = _local(node.tag)


def mark_prefix_signs(mathml: str) -> str:
    """``mathml`` (one ``<math>`` element as latex2mathml writes it) with every sign that has no left operand
    marked ``form="prefix"``; unchanged when there is none, or when it is not plain MathML."""
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
        if _local(el.tag) in ROWS:
            marked = _mark_row(list(el)) or marked
    if not marked:
        return mathml
    _plain(math)
    math.set("xmlns", MATHML_NS)
    return ET.tostring(math, encoding="unicode", short_empty_elements=True)
