"""A formula's spoken form: the text a screen reader reads instead of the MathML.

Not every browser and screen reader reads MathML, so each formula on a page also carries a text
alternative. It is read from the formula's presentation tree -- the one shape that every formula on a
page shares: authored LaTeX (prompts, key points, solutions) converted by latex2mathml, and the
learner's own expression rendered as typed (:mod:`.typed`) for "interpreted as". For example
``p*ln(p/q)`` reads "p times log of p over q" (in Chinese the words come from the catalog, in its order).

Rules, after the way mathematics is read aloud (MathSpeak's "over", "to the power", "sub"; Chinese
reads a fraction denominator first, "q fen zhi p" for p over q):

* tokens: identifiers and numbers as written, Greek letters by name, operators as words; a minus that is a
  sign (after a bracket, a comma, a relation or another operator; :mod:`.signs`) reads "negative";
* a known function (ln, log, exp, sin, min, ...) followed by a bracket: "log of <argument>", the
  argument's brackets not spoken; other brackets are spoken ("open bracket" ... "close bracket");
  without a bracket its argument is the next item, and a sign with its operand (``\\log -x``: "log of
  negative x", not "log of minus x"); a name followed by an operator that needs a left operand
  (``σ - x``, ``σ·x``) is not applied: it is a variable;
* ``mfrac``: "a over b" for two single tokens, else "the fraction ..., end of fraction";
* ``msup``: "x squared" for an exponent of 2, "x to the power n", ", end of power" after a longer one;
* ``msub``: "x sub i"; ``msqrt``/``mroot``: "the square root of ..."; ``munderover``: "sum from a to b".

Every word is an English msgid of the ``checkers`` catalog (:mod:`checkers.i18n`), so each language has
its own word order; :func:`speak_mathml` returns the text in every language at once.

Work is linear in the size of the markup: the callers bound it (a maths span of authored text is at
most ``quizapp.rendering.MAX_MATH_CHARS``, a learner's expression the parser's size limit); nesting
deeper than :data:`checkers.limits.MAX_SPOKEN_DEPTH` is read as its plain characters.
"""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as ET
from typing import Any, Sequence

from ..i18n import N_, Message, msg
from ..languages import LANGS
from ..limits import MAX_SPOKEN_DEPTH, SPOKEN_MEMO, SPOKEN_MEMO_MAX_CHARS
from .signs import BINARY, RELATIONS, SEPARATORS, SIGNS, is_sign

_NS = re.compile(r"^\{[^}]*\}")

#: Greek letters by name (msgids: a Chinese reader hears the Chinese name, not the English word)
_GREEK = {
    "\u03b1": N_("alpha"), "\u03b2": N_("beta"), "\u03b3": N_("gamma"),
    "\u03b4": N_("delta"), "\u03b5": N_("epsilon"), "\u03f5": N_("epsilon"),
    "\u03b6": N_("zeta"), "\u03b7": N_("eta"), "\u03b8": N_("theta"),
    "\u03b9": N_("iota"), "\u03ba": N_("kappa"), "\u03bb": N_("lambda"),
    "\u03bc": N_("mu"), "\u03bd": N_("nu"), "\u03be": N_("xi"),
    "\u03c0": N_("pi"), "\u03c1": N_("rho"), "\u03c3": N_("sigma"),
    "\u03c4": N_("tau"), "\u03c6": N_("phi"), "\u03d5": N_("phi"),
    "\u03c7": N_("chi"), "\u03c8": N_("psi"), "\u03c9": N_("omega"),
    "\u0393": N_("capital gamma"), "\u0394": N_("capital delta"), "\u0398": N_("capital theta"),
    "\u039b": N_("capital lambda"), "\u03a0": N_("capital pi"), "\u03a3": N_("capital sigma"),
    "\u03a6": N_("capital phi"), "\u03a8": N_("capital psi"), "\u03a9": N_("capital omega"),
}

#: Operators read as words (msgids); an operator not listed is read as its character.
_OPS = {
    "+": N_("plus"), "-": N_("minus"), "\u2212": N_("minus"), "\u00b1": N_("plus or minus"),
    "\u00b7": N_("times"), "\u22c5": N_("times"), "\u00d7": N_("times"), "*": N_("times"), "\u2217": N_("times"),
    "/": N_("divided by"), "\u00f7": N_("divided by"),
    "=": N_("equals"), "<": N_("is less than"), ">": N_("is greater than"), "\u2264": N_("is at most"),
    "\u2265": N_("is at least"), "\u2260": N_("is not equal to"), "\u2248": N_("is approximately"),
    "\u221d": N_("is proportional to"), "\u2192": N_("tends to"), "\u2208": N_("in"), "\u223c": N_("distributed as"),
    "~": N_("distributed as"), "|": N_("given"), "\u2223": N_("given"), "\u2225": N_("parallel"),
    "\u2016": N_("parallel"), "\u2211": N_("the sum"), "\u220f": N_("the product"), "\u222b": N_("the integral"),
    "\u221e": N_("infinity"), "\u2202": N_("partial"), "\u2207": N_("gradient"), "!": N_("factorial"),
    "%": N_("percent"),
}
_OPEN, _CLOSE = "([{\u27e8", ")]}\u27e9"
#: A minus with nothing to its left (:func:`.signs.is_sign`) reads "negative", as MathSpeak reads it.
_MINUS = {"-", "\u2212"}
_INVISIBLE = {"\u2061", "\u2062", "\u2063", "\u2064", ""}
#: Functions read as "<name> of <argument>": their own word where one exists (msgids), else the name.
_FUNCS = {"ln": N_("log"), "log": N_("log"), "exp": N_("exp"), "min": N_("min"), "max": N_("max"),
          "argmin": N_("arg min"), "argmax": N_("arg max"), "sin": "sin", "cos": "cos", "tan": "tan",
          "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "sigmoid": N_("sigmoid"), "\u03c3": N_("sigmoid"),
          "sqrt": N_("square root"), "abs": N_("absolute value"), "clip": N_("clip"), "KL": "KL",
          "E": N_("expectation"), "\U0001d53c": N_("expectation"), "Var": N_("variance")}
_ACCENTS = {"^": N_("hat"), "\u02c6": N_("hat"), "\u0302": N_("hat"), "\u00af": N_("bar"), "\u203e": N_("bar"),
            "\u2015": N_("bar"), "\u0304": N_("bar"), "~": N_("tilde"), "\u02dc": N_("tilde"), "\u0303": N_("tilde"),
            ".": N_("dot"), "\u02d9": N_("dot"), "\u2192": N_("vector")}
_MARKS = {"*": N_("star"), "\u2217": N_("star"), "\u22c6": N_("star"), "\u2032": N_("prime"), "'": N_("prime"),
          "\u2033": N_("double prime"), "\u22a4": N_("transpose")}
_BIG_OPS = {"\u2211", "\u220f", "\u222b"}
_NAMED = {"\U0001d53c": N_("expectation")}
_SIMPLE = {"mi", "mn", "mtext", "ms"}
_SEQUENCE = {"math", "mrow", "mstyle", "mpadded", "semantics", "menclose", "merror", "mtd", "mphantom"}


def _same(text: str) -> Message:
    return {lang: text for lang in LANGS}


def _word(msgid: str) -> Message:
    return msg(msgid) if msgid else _same("")


def _join(parts: Sequence[Message], sep: str = " ") -> Message:
    return {lang: sep.join(p[lang] for p in parts if p.get(lang)) for lang in LANGS}


def _tag(el: ET.Element) -> str:
    return _NS.sub("", el.tag) if isinstance(el.tag, str) else ""


def _text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def _kids(el: ET.Element) -> list[ET.Element]:
    return [k for k in el if _tag(k) not in ("annotation", "annotation-xml", "none", "mprescripts", "mspace")]


def _is_simple(el: ET.Element) -> bool:
    """A single token (possibly wrapped in rows): read without "end of" markers."""
    while _tag(el) in _SEQUENCE and len(_kids(el)) == 1:
        el = _kids(el)[0]
    return _tag(el) in _SIMPLE or (_tag(el) == "mo" and _text(el) not in _OPS)


def _bracket(el: ET.Element, chars: str) -> bool:
    return _tag(el) == "mo" and _text(el) in chars


def _visible(items: list[ET.Element]) -> list[ET.Element]:
    return [k for k in items if not (_tag(k) == "mo" and _text(k) in _INVISIBLE)]


def _words(items: list[ET.Element]) -> list[ET.Element]:
    """Runs of upright single letters (``\\mathrm{ref}``, set one ``<mi>`` per letter) as one word."""
    out: list[ET.Element] = []
    for el in items:
        upright = _tag(el) == "mi" and el.get("mathvariant") == "normal" and len(_text(el)) == 1
        if upright and out and out[-1].get("data-word") == "1":
            out[-1].text = (out[-1].text or "") + _text(el)
            continue
        if upright:
            word = ET.Element("mi", {"data-word": "1"})
            word.text = _text(el)
            el = word
        out.append(el)
    return out


class _Speaker:
    def node(self, el: ET.Element, depth: int = 0) -> Message:
        if depth > MAX_SPOKEN_DEPTH:
            return _same(_text(el))
        tag, kids = _tag(el), _kids(el)
        d = depth + 1
        if tag in ("mi", "mtext", "ms"):
            return self.token(_text(el))
        if tag == "mn":
            return _same(_text(el))
        if tag == "mo":
            return self.operator(_text(el))
        if tag == "mfrac" and len(kids) == 2:
            num, den = self.node(kids[0], d), self.node(kids[1], d)
            if _is_simple(kids[0]) and _is_simple(kids[1]):
                return msg("%(num)s over %(den)s", num=num, den=den)
            return msg("the fraction %(num)s over %(den)s, end of fraction", num=num, den=den)
        if tag == "msup" and len(kids) == 2:
            return self.power(self.node(kids[0], d), kids[1], d)
        if tag in ("msub", "msubsup") and _text(kids[0]) in _BIG_OPS:
            return self.limits("munder" if tag == "msub" else "munderover", kids, d)
        if tag == "msub" and len(kids) == 2:
            return msg("%(base)s sub %(sub)s", base=self.node(kids[0], d), sub=self.node(kids[1], d))
        if tag == "msubsup" and len(kids) == 3:
            base = msg("%(base)s sub %(sub)s", base=self.node(kids[0], d), sub=self.node(kids[1], d))
            return self.power(base, kids[2], d)
        if tag == "msqrt":
            return msg("the square root of %(x)s", x=self.sequence(kids, d))
        if tag == "mroot" and len(kids) == 2:
            return msg("the %(n)s-th root of %(x)s", n=self.node(kids[1], d), x=self.node(kids[0], d))
        if tag in ("munder", "mover", "munderover") and len(kids) >= 2:
            return self.limits(tag, kids, d)
        if tag == "mtable":
            rows = [_join([self.node(c, d) for c in _kids(r)], ", ") for r in kids]
            return _join(rows, "; ")
        if tag == "mfenced":
            opener, closer = el.get("open", "("), el.get("close", ")")
            inner = _join([self.node(k, d) for k in kids], ", ")
            return _join([self.operator(opener), inner, self.operator(closer)])
        return self.sequence(kids, d)

    def token(self, text: str) -> Message:
        if text in _NAMED:
            return _word(_NAMED[text])
        if text in _OPS and not text.isalnum():  # an operator set as an identifier (latex2mathml's \sim)
            return self.operator(text)
        if text in _GREEK:
            return _word(_GREEK[text])
        if len(text) > 1 and all(ch in _GREEK for ch in text):
            return _join([_word(_GREEK[ch]) for ch in text])
        return _same(text)

    def operator(self, text: str) -> Message:
        if text in _INVISIBLE:
            return _same("")
        if text in _OPEN:
            return _word(N_("open bracket"))
        if text in _CLOSE:
            return _word(N_("close bracket"))
        if text == ",":
            return _same(",")
        return _word(_OPS[text]) if text in _OPS else _same(text)

    def power(self, base: Message, exp: ET.Element, d: int) -> Message:
        if _text(exp) in _MARKS:  # pi^*: a mark, not a power
            return msg("%(base)s %(mark)s", base=base, mark=_word(_MARKS[_text(exp)]))
        if _text(exp) == "2" and _is_simple(exp):
            return msg("%(base)s squared", base=base)
        spoken = self.node(exp, d)
        if _is_simple(exp):
            return msg("%(base)s to the power %(exp)s", base=base, exp=spoken)
        return msg("%(base)s to the power %(exp)s, end of power", base=base, exp=spoken)

    def limits(self, tag: str, kids: list[ET.Element], d: int) -> Message:
        base = self.node(kids[0], d)
        if tag == "mover" and _text(kids[1]) in _ACCENTS:
            return msg("%(base)s %(accent)s", base=base, accent=_word(_ACCENTS[_text(kids[1])]))
        if tag == "munderover" and len(kids) == 3:
            return msg("%(op)s from %(low)s to %(high)s", op=base, low=self.node(kids[1], d),
                       high=self.node(kids[2], d))
        if tag == "munder":
            return msg("%(op)s over %(low)s", op=base, low=self.node(kids[1], d))
        return msg("%(base)s with %(above)s above", base=base, above=self.node(kids[1], d))

    def sequence(self, items: list[ET.Element], d: int) -> Message:
        items = _words(_visible(items))
        out: list[Message] = []
        i = 0
        while i < len(items):
            el = items[i]
            name = _text(el) if _tag(el) in ("mi", "mo") else None  # latex2mathml sets \min as <mo>
            if name in _FUNCS and _applies(items, i):
                arg, i = self.argument(items, i + 1, d)
                word = _FUNCS[name]
                fname = _word(word) if word != name else _same(name)
                out.append(msg("%(name)s of %(arg)s", name=fname, arg=arg))
                continue
            if _text(el) in _MINUS and is_sign(items, i):  # [-1, -2], f(a, -b): a sign, not "subtract"
                out.append(_word(N_("negative")))
            else:
                out.append(self.node(el, d))
            i += 1
        return _join(out)

    def argument(self, items: list[ET.Element], i: int, d: int) -> tuple[Message, int]:
        """The argument of a function at ``items[i]``: a bracketed run (its brackets silent), a fenced
        row, or the next item alone; with the index after it."""
        first = items[i]
        if _bracket(first, _OPEN):
            close = _closing(items, i)
            if close is not None:
                return self.sequence(items[i + 1:close], d), close + 1
        if _tag(first) == "mrow":
            inner = _visible(_kids(first))
            if len(inner) >= 2 and _bracket(inner[0], _OPEN) and _bracket(inner[-1], _CLOSE):
                return self.sequence(inner[1:-1], d), i + 1
        if _is_sign_token(first) and is_sign(items, i) and d < MAX_SPOKEN_DEPTH:
            # \log -x: the sign and its operand are the argument, read "negative x" (its brackets spoken)
            end = _signed_end(items, i)
            return self.sequence(items[i:end], d + 1), end
        return self.node(first, d), i + 1


#: Operators that act on what stands before them besides a binary + or - (TeX's Bin, Rel and Punct, the
#: closing brackets, and the typed ``*`` and ``/``): a function name just before one is not applied.
_NEEDS_LEFT = (BINARY - SIGNS) | RELATIONS | SEPARATORS | set(_CLOSE) | {"*", "/", "\u00f7"}


def _is_sign_token(el: ET.Element) -> bool:
    return _tag(el) == "mo" and _text(el) in SIGNS


def _applies(items: list[ET.Element], i: int) -> bool:
    """Whether the function name at ``items[i]`` is applied to what follows: something follows it, and
    that is not an operator needing a left operand (a binary ``-`` by :func:`.signs.is_sign`, ``·``, ``=``,
    a comma, a closing bracket). In ``σ - x`` and ``σ·x`` the σ is a variable, not the sigmoid; in
    ``\\log -x`` the minus is a sign (TeX reads a function name as a large operator) and log applies."""
    if i + 1 >= len(items):
        return False
    nxt = items[i + 1]
    if _tag(nxt) != "mo":
        return True
    text = _text(nxt)
    if text in SIGNS:
        return is_sign(items, i + 1)
    return text not in _NEEDS_LEFT


def _closing(items: list[ET.Element], i: int) -> int | None:
    """The index of the bracket closing the one at ``items[i]`` (any kind, counted by nesting), or None."""
    depth = 0
    for j in range(i, len(items)):
        if _bracket(items[j], _OPEN):
            depth += 1
        elif _bracket(items[j], _CLOSE):
            depth -= 1
            if depth == 0:
                return j
    return None


def _signed_end(items: list[ET.Element], i: int) -> int:
    """The index after a sign at ``items[i]`` and its operand: further signs, then a bracketed run (read
    with its brackets), a function name with its own argument (``\\log -\\exp -x``), or one item. The same
    bounds :meth:`_Speaker.argument` takes, so that the words inside come out the same. A loop, not
    recursion: a chain of signed functions is as long as the formula."""
    while True:
        while i < len(items) and _is_sign_token(items[i]):
            i += 1
        if i >= len(items):
            return len(items)
        if _bracket(items[i], _OPEN):
            close = _closing(items, i)
            return i + 1 if close is None else close + 1
        name = _text(items[i]) if _tag(items[i]) in ("mi", "mo") else None
        if name not in _FUNCS or not _applies(items, i):
            return i + 1
        arg = i + 1                        # the function's argument, as argument() takes it
        if _bracket(items[arg], _OPEN):
            close = _closing(items, arg)
            if close is not None:
                return close + 1
        if not (_is_sign_token(items[arg]) and is_sign(items, arg)):
            return arg + 1
        i = arg


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s+([,;])", r"\1", text)


def speak_mathml(markup: Any) -> Message:
    """The spoken form of presentation MathML (a ``<math>`` element or the inner markup), in every
    language: ``{"en": ..., "zh": ...}``. Markup that is not well-formed reads as its characters.

    Every answer read shows its spoken form, and learners send the same few answers again and again: the
    last :data:`~checkers.limits.SPOKEN_MEMO` forms of markup up to
    :data:`~checkers.limits.SPOKEN_MEMO_MAX_CHARS` long are kept (a fresh dict is returned each time; the
    kept one is never handed out)."""
    if not isinstance(markup, str) or not markup.strip():
        return _same("")
    return dict(_remembered(markup) if len(markup) <= SPOKEN_MEMO_MAX_CHARS else _spoken(markup))


#: An HTML character reference other than XML's own five (sympy's MathML writes ``&ExponentialE;``,
#: ``&#916;``): XML does not know the named ones, so they become their characters before parsing.
_ENTITY = re.compile(r"&(?!(?:lt|gt|amp|quot|apos);)(?:[A-Za-z][A-Za-z0-9]{0,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


#: sympy's double-struck italic constants read as the letters they stand for (e, i, d).
_PLAIN_LETTERS = {"\u2147": "e", "\u2148": "i", "\u2146": "d"}


def _characters(markup: str) -> str:
    """Character references -> characters, except those XML needs (``&lt;`` and its kin): a spoken
    form is words and characters, never an entity read out letter by letter."""
    def one(m: re.Match[str]) -> str:
        ch = html.unescape(m.group(0))
        if ch == m.group(0) or ch in "<>&\"'":
            return m.group(0)
        return _PLAIN_LETTERS.get(ch, ch)
    return _ENTITY.sub(one, markup)


def _spoken(markup: str) -> Message:
    markup = _characters(markup)
    source = markup if markup.lstrip().startswith("<math") else f"<math>{markup}</math>"
    try:
        root = ET.fromstring(source)
    except ET.ParseError:
        return _same(_tidy(html.unescape(re.sub(r"<[^>]*>", " ", markup))))
    spoken = _Speaker().node(root)
    return {lang: _tidy(text) for lang, text in spoken.items()}


_remembered = functools.lru_cache(maxsize=SPOKEN_MEMO)(_spoken)
