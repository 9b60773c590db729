"""Line-break points for inline formulas: one long ``$...$`` becomes several ``<math>`` elements side by side.

A browser never breaks a line inside a ``<math>`` element, so a long inline formula (a tensor of log-probs,
a loss written out) is one unbreakable box: on a phone it runs out of its paragraph. Like TeX and KaTeX
(which break inline maths after a relation or a binary operator at the top level; TeXbook ch. 14,
"Line breaking" in the KaTeX docs), this module cuts the formula's top-level row after

- a relation (``=``, ``<``, ``\\le``, ``\\approx``, ``\\to`` ...),
- a binary operator (``+``, ``-``, ``\\times``, ``\\cdot`` ...) that follows an operand (a unary minus
  stays with its number),
- a comma or semicolon, at any bracket depth, so that ``[[-0.52, -1.1], [-0.9, -0.2]]`` wraps between
  its elements,

and returns one ``<math>`` per piece. Adjacent ``<math>`` elements are atomic inlines, between which the
browser may break a line; when the line is wide enough they sit together and read as the one formula. A
``\\left ... \\right`` group whose content is flat (no fraction, root, stacked limits or table) is opened
up too: its fences then keep their natural size, which is the size they had. Display formulas are never cut
(they scroll in their own box). The spoken text is made from the whole formula before this runs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

# Relations and binary operators after which TeX may break a line, list separators and opening brackets: the
# classes the sign rule reads too (a sign follows one of them)
from checkers.mathparse.signs import BINARY, OPENERS, RELATIONS, SEPARATORS, SIGNS, is_sign

__all__ = ["split_inline_mathml"]

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_Q = "{" + MATHML_NS + "}"

#: Elements that make a group tall: its stretchy fences would grow, so the group is not opened up.
_TALL = frozenset({"mfrac", "msqrt", "mroot", "munder", "mover", "munderover", "mtable", "msubsup",
                   "mmultiscripts"})
MAX_PIECES = 200  # a pathological formula is cut at most this often
#: A formula with fewer characters than this fits any line (under 200 px): it is left whole, as a word is.
MIN_CHARS = 16


def _local(tag: str) -> str:
    return tag[len(_Q):] if tag.startswith(_Q) else tag


def _text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def _fenced(el: ET.Element) -> bool:
    """An ``mrow`` from ``\\left ... \\right``: fences at both ends."""
    if _local(el.tag) != "mrow" or len(el) < 2:
        return False
    return all(_local(f.tag) == "mo" and f.get("fence") == "true" for f in (el[0], el[-1]))


def _is_fenced_flat_group(el: ET.Element) -> bool:
    """A ``\\left ... \\right`` group with nothing tall inside (its fences are of natural size)."""
    return _fenced(el) and not any(_local(d.tag) in _TALL for d in el.iter())


def _row(math: ET.Element) -> list[ET.Element]:
    """The formula's top-level sequence: through single wrapping rows, with flat fenced groups opened."""
    items = list(math)
    while len(items) == 1 and _local(items[0].tag) == "mrow" and not _fenced(items[0]):
        items = list(items[0])
    out: list[ET.Element] = []
    for item in items:
        if _is_fenced_flat_group(item):
            for child in item:
                if _local(child.tag) == "mo" and child.get("fence") == "true":
                    child.set("stretchy", "false")
                out.append(child)
        else:
            out.append(item)
    return out


def _operand_before(items: list[ET.Element], i: int) -> bool:
    """Whether ``items[i]`` follows an operand (so an operator there is binary, not a sign)."""
    if i == 0:
        return False
    prev = items[i - 1]
    if _local(prev.tag) != "mo":
        return _local(prev.tag) != "mspace" or _operand_before(items, i - 1)
    text = _text(prev)
    return not (text in RELATIONS or text in BINARY or text in SEPARATORS or text in OPENERS)


def _break_after(items: list[ET.Element], i: int) -> bool:
    item = items[i]
    if i == len(items) - 1 or _local(item.tag) != "mo":
        return False
    text = _text(item)
    if text in SEPARATORS:
        return True
    if text in SIGNS:  # a sign stays with its operand (the rule that draws it as one)
        return not is_sign(items, i)
    if text in RELATIONS or text in BINARY:
        return _operand_before(items, i)
    return False


def _plain(el: ET.Element) -> ET.Element:
    """``el`` with its namespace dropped (the new ``<math>`` declares it) and no text after it."""
    for node in el.iter():
        node.tag = _local(node.tag)
    el.tail = None
    return el


def split_inline_mathml(mathml: str) -> list[str]:
    """The ``<math>`` elements an inline formula is drawn as: ``[mathml]`` unchanged when it is short, has no
    break point or is not the plain MathML latex2mathml writes; else one ``<math>`` per piece, in order."""
    if "<!" in mathml or "<?" in mathml:  # no DTD, no processing instruction: only latex2mathml's plain XML
        return [mathml]
    try:
        math = ET.fromstring(mathml)
    except ET.ParseError:
        return [mathml]
    if _local(math.tag) != "math" or math.get("display") == "block" or len(_text(math)) < MIN_CHARS:
        return [mathml]
    items = _row(math)
    pieces: list[list[ET.Element]] = [[]]
    for i, item in enumerate(items):
        pieces[-1].append(item)
        if _break_after(items, i) and len(pieces) < MAX_PIECES:
            pieces.append([])
    pieces = [p for p in pieces if p]
    if len(pieces) < 2:
        return [mathml]
    out = []
    for piece in pieces:
        body = "".join(ET.tostring(_plain(el), encoding="unicode", short_empty_elements=True) for el in piece)
        out.append(f'<math xmlns="{MATHML_NS}" display="inline"><mrow>{body}</mrow></math>')
    return out
