"""Input help per part: a placeholder and a one-line syntax note that fit what the part asks.

Written by the author (a part's ``placeholder:``) or derived from the part's kind and names, never from its
answer: a symbolic part says which names it takes ("an expression in p, q"), a numeric part shows number
forms, a derivation part says "one step per line". The cheat sheet of the maths syntax (every page links it)
is :data:`CHEAT_SHEET`: ``(what you type, what it means)`` rows, the forms ``checkers.mathparse`` reads.
"""

from __future__ import annotations

from typing import Any, Mapping

from .i18n import N_, gettext

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


def _names(part: Mapping[str, Any]) -> str:
    names = list(part.get("variables") or [])
    return ", ".join(str(n) for n in names)


def placeholder(part: Mapping[str, Any]) -> str | None:
    """The input's placeholder: the author's, else one derived from the part's kind and names."""
    if part.get("placeholder"):
        return str(part["placeholder"])
    kind = part.get("kind")
    if kind == "symbolic":
        names = _names(part)
        return gettext("An expression in %(names)s", names=names) if names else gettext("An expression")
    if kind == "numeric":
        return gettext("A number, e.g. 0.25, 1e-3 or ln(2)/2")
    if kind == "array":
        return gettext("Numbers separated by spaces, e.g. 0.1 0.2 0.3")
    if kind == "derivation":
        return gettext("One step per line, each following from the line before")
    return None


def syntax_help(part: Mapping[str, Any]) -> str | None:
    """One line under the input saying what it takes (None for kinds that need no typing help)."""
    kind = part.get("kind")
    if kind in ("symbolic", "derivation"):
        names = _names(part)
        text = gettext("Write * for products, ^ for powers, ln() and exp() for logs and exponentials.")
        return (text + " " + gettext("Names you may use: %(names)s.", names=names)) if names else text
    if kind == "numeric":
        return gettext("A number or an expression of numbers only, such as ln(2)/2.")
    return None


def cheat_sheet() -> list[dict[str, str]]:
    return [{"type": typed, "means": gettext(means)} for typed, means in CHEAT_SHEET]
