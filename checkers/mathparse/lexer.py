"""Tokeniser for plain maths and a small LaTeX subset.

Single left-to-right pass, no regex backtracking on untrusted text, every character accounted for:
anything not explicitly understood is an error with its column.  Columns always index the raw text
(no Unicode normalisation is applied, because it would shift columns); the few Unicode spellings we
accept are mapped character by character instead.
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

from ..verdict import AnswerParseError
from .limits import MAX_INPUT_LENGTH, MAX_NUMBER_DIGITS, MAX_SCI_EXPONENT, MAX_TOKENS


class Tok(NamedTuple):
    kind: str   # num | name | cmd | op | end
    val: str
    col: int


def err(msgid: str, col: int | None, **params: object) -> AnswerParseError:
    """A parse error at ``col``: ``msgid`` (English, ``%(name)s`` placeholders) rendered in every language
    from the checkers' gettext catalogs (:mod:`checkers.i18n`)."""
    return AnswerParseError(msgid, col, **params)


GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ", "eta": "η",
    "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
#: Unicode Greek letter -> ASCII name (the name is what variables are declared as).
UNICODE_GREEK = {v: k for k, v in GREEK.items()}
UNICODE_GREEK.update({"ϵ": "epsilon", "ϑ": "theta", "ϕ": "phi", "ς": "sigma", "ϱ": "rho", "ϖ": "pi",
                      "µ": "mu"})
#: LaTeX Greek commands (variants collapse onto the plain letter: learners use them interchangeably).
LATEX_GREEK = dict((k, k) for k in GREEK)
LATEX_GREEK.update({"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varsigma": "sigma",
                    "varrho": "rho", "varpi": "pi"})

_UNICODE_OPS = {
    "−": "-", "–": "-", "‐": "-", "‑": "-", "·": "*", "⋅": "*", "×": "*", "∗": "*", "•": "*",
    "÷": "/", "∕": "/", "≤": "<=", "⩽": "<=", "≥": ">=", "⩾": ">=", "≠": "!=",
}
_SUPERSCRIPT = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
                "⁸": "8", "⁹": "9"}
_SINGLE_OPS = set("+-*/^()[]{},=<>|_!⌊⌋⌈⌉")

#: LaTeX commands that are pure spacing / sizing and carry no maths.
_LATEX_IGNORED = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
                  "biggl", "biggr", "Biggl", "Biggr", "middle", "displaystyle", "textstyle", "quad",
                  "qquad", "limits"}
_LATEX_OPS = {"cdot": "*", "times": "*", "ast": "*", "div": "/", "le": "<=", "leq": "<=",
              "leqslant": "<=", "ge": ">=", "geq": ">=", "geqslant": ">=", "lt": "<", "gt": ">",
              "neq": "!=", "ne": "!=", "lvert": "|", "rvert": "|", "vert": "|", "mid": "|"}
#: LaTeX commands that name an allow-listed function: they become ordinary name tokens.
_LATEX_FUNCS = {"log", "ln", "exp", "min", "max", "lg", "sin", "cos", "tan", "sec", "csc", "cot", "arcsin",
                "arccos", "arctan", "arcsec", "arccsc", "arccot", "sinh", "cosh", "tanh", "coth", "sech",
                "csch", "arsinh", "arcosh", "artanh", "arcsinh", "arccosh", "arctanh", "sgn", "erf", "erfc"}
#: Floor / ceiling brackets, in LaTeX and as Unicode characters.
_ROUNDING_BRACKETS = {"lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉"}
#: LaTeX commands with their own argument syntax, handled by the parser.
LATEX_STRUCT = {"frac", "dfrac", "tfrac", "cfrac", "sqrt", "operatorname", "mathrm", "text", "textrm",
                "mathit", "rm", "textit"}
_SPACING_CHARS = {",", ";", ":", "!", " ", ">"}


def _bad_char_message(ch: str, col: int) -> AnswerParseError:
    cp = f"U+{ord(ch):04X}"
    cat = unicodedata.category(ch)
    if ch == "\x00":
        return err("Null byte at column %(column)s is not allowed.", col, column=col + 1)
    if cat in ("Cc", "Cf", "Co", "Cs", "Cn"):
        return err("Invisible or control character %(code)s at column %(column)s is not allowed; "
                   "retype the answer without it.", col, code=cp, column=col + 1)
    if ch in "'\"`":
        return err("Quotes (%(char)s) are not allowed in maths answers (column %(column)s).", col, char=ch,
                   column=col + 1)
    if ch == ".":
        return err("A '.' not inside a number (column %(column)s) is not allowed; attribute access is "
                   "not maths.", col, column=col + 1)
    if ch == "∞":
        return err("Infinity is not allowed in answers.", col)
    if ch == "!":
        return err("Factorial '!' (column %(column)s) is not supported.", col, column=col + 1)
    return err("Unexpected character %(char)s (%(code)s) at column %(column)s.", col, char=repr(ch), code=cp,
               column=col + 1)


# Chinese input methods produce full-width ASCII (（ ） ＋ ，); map them one character to one so
# columns still index the raw text.
_VULGAR_FRACTIONS = {"½": ("1", "2"), "⅓": ("1", "3"), "⅔": ("2", "3"), "¼": ("1", "4"), "¾": ("3", "4"),
                     "⅕": ("1", "5"), "⅙": ("1", "6"), "⅛": ("1", "8")}
_FULLWIDTH = {o: o - 0xFEE0 for o in range(0xFF01, 0xFF5F)}
_FULLWIDTH[0x3000] = ord(" ")


def tokenize(text: str) -> list[Tok]:
    if not isinstance(text, str):
        raise err("The answer must be text.", None)
    n = len(text)
    if n > MAX_INPUT_LENGTH:
        raise err("The answer is too long (%(length)s characters; at most %(limit)s).", MAX_INPUT_LENGTH,
                  length=n, limit=MAX_INPUT_LENGTH)
    raw_text = text
    text = text.translate(_FULLWIDTH)
    toks: list[Tok] = []
    push = toks.append
    i = 0
    while i < n:
        if len(toks) > MAX_TOKENS:
            raise err("The answer has too many symbols (at most %(limit)s).", i, limit=MAX_TOKENS)
        ch = text[i]
        if ch in " \t\n\r$" or unicodedata.category(ch) == "Zs":
            i += 1
            continue
        if "0" <= ch <= "9" or (ch == "." and i + 1 < n and "0" <= text[i + 1] <= "9"):
            j = i
            while j < n and "0" <= text[j] <= "9":
                j += 1
            if j < n and text[j] == ".":
                j += 1
                while j < n and "0" <= text[j] <= "9":
                    j += 1
            digits = sum(1 for c in text[i:j] if c != ".")
            if digits > MAX_NUMBER_DIGITS:
                raise err("Number at column %(column)s is too long (at most %(limit)s digits).", i, column=i + 1,
                          limit=MAX_NUMBER_DIGITS)
            # Scientific notation only when digits follow: "2e-5" is a number, "2e" or "2e^x" use e.
            if j < n and text[j] in "eE":
                k = j + 1
                if k < n and text[k] in "+-":
                    k += 1
                m = k
                while m < n and "0" <= text[m] <= "9":
                    m += 1
                if m > k:
                    if m - k > 4 or int(text[k:m]) > MAX_SCI_EXPONENT:
                        raise err("Exponent of the number at column %(column)s is too large.", i, column=i + 1)
                    j = m
            if j < n and text[j] == "." and "0" <= (text[j + 1] if j + 1 < n else "") <= "9":
                raise err("Malformed number at column %(column)s.", i, column=i + 1)
            push(Tok("num", text[i:j], i))
            i = j
            continue
        if ("a" <= ch <= "z") or ("A" <= ch <= "Z"):
            j = i
            while j < n and (("a" <= text[j] <= "z") or ("A" <= text[j] <= "Z") or ("0" <= text[j] <= "9")):
                j += 1
            push(Tok("name", text[i:j], i))
            i = j
            continue
        if ch in UNICODE_GREEK:
            push(Tok("name", UNICODE_GREEK[ch], i))
            i += 1
            continue
        if ch == "\\":
            j = i + 1
            while j < n and (("a" <= text[j] <= "z") or ("A" <= text[j] <= "Z")):
                j += 1
            if j == i + 1:
                nxt = text[j] if j < n else ""
                if nxt in _SPACING_CHARS:
                    i = j + 1
                    continue
                if nxt == "|":
                    push(Tok("op", "|", i))
                    i = j + 1
                    continue
                shown = "\\" + nxt if nxt else "\\"
                raise err("Unknown LaTeX command %(command)s at column %(column)s.", i, command=shown, column=i + 1)
            name = text[i + 1:j]
            i_cmd = i
            i = j
            if name in _LATEX_IGNORED:
                continue
            if name in _LATEX_OPS:
                push(Tok("op", _LATEX_OPS[name], i_cmd))
            elif name in _ROUNDING_BRACKETS:
                push(Tok("op", _ROUNDING_BRACKETS[name], i_cmd))
            elif name in LATEX_GREEK:
                push(Tok("name", LATEX_GREEK[name], i_cmd))
            elif name in _LATEX_FUNCS:
                push(Tok("name", name, i_cmd))
            elif name in LATEX_STRUCT:
                push(Tok("cmd", name, i_cmd))
            elif name == "infty":
                raise err("Infinity is not allowed in answers.", i_cmd)
            else:
                raise err("Unknown LaTeX command %(command)s at column %(column)s.", i_cmd, command="\\" + name,
                          column=i_cmd + 1)
            continue
        if ch == "*" and i + 1 < n and text[i + 1] == "*":
            push(Tok("op", "^", i))
            i += 2
            continue
        if ch == "_" and i + 1 < n and text[i + 1] == "_":
            raise err("Double underscores (column %(column)s) are not allowed.", i, column=i + 1)
        if ch in "<>=!" and i + 1 < n and text[i + 1] == "=":
            op = ch + "="
            if op == "==":
                raise err("Use a single '=' for an equation (column %(column)s).", i, column=i + 1)
            push(Tok("op", op, i))
            i += 2
            continue
        if ch in _UNICODE_OPS:
            push(Tok("op", _UNICODE_OPS[ch], i))
            i += 1
            continue
        if ch == "√":
            push(Tok("cmd", "sqrt", i))
            i += 1
            continue
        if ch in _VULGAR_FRACTIONS:  # ½ -> (1/2): learners paste these from notes and the tutorial
            if i > 0 and "0" <= text[i - 1] <= "9":  # "2½" means 2.5 to a reader, 2·½ to a parser
                raise err("Write a mixed number such as 2%(char)s as a decimal or a fraction (column %(column)s).", i,
                          char=ch, column=i + 1)
            num, den = _VULGAR_FRACTIONS[ch]
            for kind, val in (("op", "("), ("num", num), ("op", "/"), ("num", den), ("op", ")")):
                push(Tok(kind, val, i))
            i += 1
            continue
        if ch in _SUPERSCRIPT or ch == "⁻":
            push(Tok("op", "^", i))
            if ch == "⁻":
                push(Tok("op", "-", i))
                i += 1
            j = i
            while j < n and text[j] in _SUPERSCRIPT:
                j += 1
            if j == i:
                raise err("Incomplete superscript at column %(column)s.", i, column=i + 1)
            push(Tok("num", "".join(_SUPERSCRIPT[c] for c in text[i:j]), i))
            i = j
            continue
        if ch in _SINGLE_OPS and ch != "!":
            push(Tok("op", ch, i))
            i += 1
            continue
        raise _bad_char_message(raw_text[i], i)
    if len(toks) > MAX_TOKENS:
        raise err("The answer has too many symbols (at most %(limit)s).", n, limit=MAX_TOKENS)
    push(Tok("end", "", n))
    return toks
