"""What a word or a bracket means to the parser: the function allow-list and its other spellings,
constants, relations, brackets, and the names a question declares (:class:`Context`).

An unknown name is reported with its column and, when one is close (``difflib``, cutoff 0.6), the
declared name it most likely meant; an undeclared run of typed letters may be split into known names
(``xy`` -> x, y), fewest pieces first.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..lexer import err
from ..limits import MAX_ARGS

_TRIG = ("sin", "cos", "tan", "sec", "csc", "cot")
_HYPERBOLIC = ("sinh", "cosh", "tanh", "sech", "csch", "coth")
#: Functions whose ``f^{-1}`` a reader may take for the inverse function: refused with a hint.
INVERTIBLE = frozenset(_TRIG + _HYPERBOLIC)
#: Allow-listed functions: canonical name -> (min args, max args).  Every elementary function sympy
#: knows, plus the RLHF staples; ``gamma`` is Euler's gamma function (see SOFT_FUNCTIONS).
BUILTINS: dict[str, tuple[int, int]] = {
    "exp": (1, 1), "log": (1, 2), "sqrt": (1, 1), "abs": (1, 1), "min": (1, MAX_ARGS),
    "max": (1, MAX_ARGS), "sigmoid": (1, 1), "logsigmoid": (1, 1), "softplus": (1, 1),
    "clip": (3, 3), "log2": (1, 1), "log10": (1, 1), "cbrt": (1, 1), "root": (2, 2),
    "atan2": (2, 2), "sign": (1, 1), "floor": (1, 1), "ceil": (1, 1), "erf": (1, 1), "erfc": (1, 1),
    "gamma": (1, 1),
    **{f: (1, 1) for f in _TRIG + _HYPERBOLIC},
    **{"a" + f: (1, 1) for f in _TRIG + _HYPERBOLIC},
}
#: Other spellings of allow-listed functions (``Abs``/``Min``/``Max``/``ceiling`` are how sympy
#: prints them; ``arcsin`` and ``arsinh``/``arcsinh`` are the textbook names of ``asin``/``asinh``).
ALIASES = {"ln": "log", "Abs": "abs", "Min": "min", "Max": "max", "lg": "log10", "σ": "sigmoid",
           "ceiling": "ceil", "sgn": "sign", "cosec": "csc",
           **{"arc" + f: "a" + f for f in _TRIG + _HYPERBOLIC},
           **{"ar" + f: "a" + f for f in _HYPERBOLIC}}
#: Names that are a function only while the question declares no variable of that name: ``sigma``
#: (the sigmoid) and ``gamma``/``Gamma`` (Euler's gamma; RL questions use gamma as the discount).
SOFT_FUNCTIONS = {"sigma": "sigmoid", "gamma": "gamma", "Gamma": "gamma"}
SIGMA_NAME = "sigma"
RESERVED = (set(BUILTINS) | set(ALIASES)) - set(SOFT_FUNCTIONS)
CONSTANTS = {"e": "E", "E": "E", "pi": "pi"}
RELOPS = {"=", "<", ">", "<=", ">=", "!="}
OPEN = {"(": ")", "[": "]", "{": "}", "⌊": "⌋", "⌈": "⌉"}
#: Floor and ceiling brackets (``\\lfloor x \\rfloor``, ``⌈x⌉``): the bracket is the function call.
ROUNDING = {"⌊": "floor", "⌈": "ceil"}
CLOSERS = ")]}⌋⌉"


class Context:
    """Names a parse may use.  ``variables``: canonical name -> anything; ``functions``: name ->
    (arg names, body AST)."""

    __slots__ = ("variables", "functions", "exact", "known_words", "expansions")

    def __init__(self, variables: dict[str, Any], functions: dict[str, tuple[list[str], Any]],
                 exact: bool = False):
        self.variables = variables
        self.functions = functions
        self.exact = exact
        self.expansions = 0
        words = {v for v in variables if "_" not in v}
        words |= {c for c in CONSTANTS if c not in variables}
        words |= RESERVED | set(functions)
        words |= {w for w in SOFT_FUNCTIONS if w not in variables}
        self.known_words = words

    def classify(self, word: str) -> str | None:
        if word in self.variables:
            return "var"
        if word in self.functions:
            return "ufunc"
        if word in BUILTINS or word in ALIASES or word in SOFT_FUNCTIONS:
            return "func"
        if word in CONSTANTS:
            return "const"
        return None

    def candidates(self) -> list[str]:
        return sorted(set(self.variables) | set(self.functions) | set(BUILTINS) | {"ln", "e", "pi"})


def _suggest(name: str, ctx: Context) -> str:
    close = difflib.get_close_matches(name, ctx.candidates(), n=1, cutoff=0.6)
    return close[0] if close else ""


def unknown_name(name: str, col: int, ctx: Context):
    hint = _suggest(name, ctx)
    declared = ", ".join(sorted(ctx.variables)) or "none"
    if hint:
        return err("Unknown name '%(name)s' at column %(column)s. Did you mean '%(hint)s'? Variables you may "
                   "use: %(declared)s.", col, name=name, column=col + 1, hint=hint, declared=declared)
    return err("Unknown name '%(name)s' at column %(column)s. Variables you may use: %(declared)s.", col,
               name=name, column=col + 1, declared=declared)


def split_word(word: str, known: set[str]) -> list[str] | None:
    """Split an undeclared run of letters into known names (``xy`` -> x, y), fewest pieces first."""
    n = len(word)
    if n > 64:
        return None
    maxlen = max((len(k) for k in known), default=0)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        if best[i] is None:
            continue
        for j in range(i + 1, min(n, i + maxlen) + 1):
            piece = word[i:j]
            if piece in known:
                cand = best[i] + [piece]
                if best[j] is None or len(cand) < len(best[j]):
                    best[j] = cand
    return best[n]
