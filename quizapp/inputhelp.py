"""Input help per part: a placeholder and a one-line syntax note that fit what the part asks.

Written by the author (a part's ``placeholder:``) or given by the part's kind from the part's names, never
from its answer (``Kind.placeholder`` and ``Kind.syntax_help``: the kinds' text, in the checkers' catalog).
The cheat sheet of the maths syntax (every page links it) is :data:`CHEAT_SHEET`: ``(what you type, what it
means)`` rows, the forms ``checkers.mathparse`` reads.
"""

from __future__ import annotations

from typing import Any, Mapping

from checkers.kinds import find_kind

from .i18n import N_, current_lang, gettext, localized

#: The accepted maths syntax, one row per form (what to type, what it means); shown on the question page.
CHEAT_SHEET = (
    ("2*p  ·  2p  ·  2 p", N_("products: * or nothing between a number and a name")),
    ("p/q", N_("division")),
    ("x^2  ·  x**2", N_("powers")),
    ("ln(x)  ·  log(x)", N_("natural logarithm")),
    ("exp(x)  ·  e^x", N_("exponential")),
    ("sqrt(x)", N_("square root")),
    ("sigma(x)", N_("the logistic sigmoid")),
    ("1e-3  ·  0.001", N_("decimal numbers")),
    ("Delta  ·  pi_theta", N_("Greek letters and subscripts by name")),
    ("a = b", N_("one line per step in a derivation; = between the sides")),
)


def _in(message: Mapping[str, str] | None, lang: str | None) -> str | None:
    return localized(message, lang or current_lang()) if message else None


def placeholder(part: Mapping[str, Any], lang: str | None = None) -> str | None:
    """The input's placeholder: the author's, else the part's kind's (``Kind.placeholder``) in ``lang``
    (default: the request's)."""
    if part.get("placeholder"):
        return str(part["placeholder"])
    kind = find_kind(part.get("kind"))
    return _in(kind.placeholder(part), lang) if kind is not None else None


def syntax_help(part: Mapping[str, Any], lang: str | None = None) -> str | None:
    """One line under the input saying what it takes (``Kind.syntax_help``; None where none is needed)."""
    kind = find_kind(part.get("kind"))
    return _in(kind.syntax_help(part), lang) if kind is not None else None


def cheat_sheet() -> list[dict[str, str]]:
    return [{"type": typed, "means": gettext(means)} for typed, means in CHEAT_SHEET]
