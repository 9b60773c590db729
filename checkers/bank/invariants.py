"""Per-variant invariants: the comparisons a question's text relies on, checked for every seed.

A question whose sentences depend on its numbers ("row 1 is not clipped", "k3 has the smaller
variance", a choice key fixed in the file) lists them under ``invariants:`` (docs/question-format.md)::

    invariants:
      - id: k3-smaller-variance
        claim: "option b: Var[k3] < Var[k1] under the drawn distributions"
        left:  {call: kl.estimator_moments, args: {...}, output: var, index: [2]}
        op: "<"
        right: {call: kl.estimator_moments, args: {...}, output: var, index: [0]}

Each side is a value spec (a number, a list, an ``expr`` string or ``{value|expr|call}``), resolved with
the variant's parameters by :func:`checkers.params.resolve_value` (the safe parser and the reference
engine: no ``eval``); a string that is exactly ``"{{name}}"`` is the parameter's value, list or number. Lists compare element by element (a number against a list compares with every
element; two lists must have the same length), and the invariant holds only when every comparison does.
``==`` and ``!=`` compare within ``math.isclose(rel_tol=1e-9, abs_tol=1e-12)``: float64 round-off must
not decide a statement about the maths.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Mapping

from ..params import EXACT_PLACEHOLDER, resolve_value, substitute


def _eq(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


#: The operators of an invariant, by their spelling in the file (schema.INVARIANT_OPS lists the same).
OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": _eq, "!=": lambda a, b: not _eq(a, b),
}


class InvariantError(ValueError):
    """A side of an invariant is not a number or list of numbers, or the two sides' lengths differ."""


def _flat(value: Any, side: str) -> list[float]:
    if isinstance(value, bool):
        raise InvariantError(f"{side} is a boolean, not a number")
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        out: list[float] = []
        for v in value:
            out.extend(_flat(v, side))
        return out
    raise InvariantError(f"{side} is {type(value).__name__}, not a number or a list of numbers")


def _side(spec: Any, params: Mapping[str, Any]) -> Any:
    """A side's value: a string that is exactly ``{{name}}`` is the parameter itself (a list stays a list),
    anything else a value spec."""
    if isinstance(spec, str) and EXACT_PLACEHOLDER.match(spec.strip()):
        return substitute(spec.strip(), params)
    return resolve_value(spec, params)


def evaluate(entry: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[bool, Any, Any]:
    """``(holds, left, right)`` for one invariant in one variant; raises when a side cannot be computed."""
    op = OPS.get(entry["op"])
    if op is None:
        raise InvariantError(f"unknown operator {entry['op']!r}")
    left, right = _side(entry["left"], params), _side(entry["right"], params)
    a, b = _flat(left, "left"), _flat(right, "right")
    if len(a) == 1 and len(b) > 1:
        a = a * len(b)
    elif len(b) == 1 and len(a) > 1:
        b = b * len(a)
    if len(a) != len(b) or not a:
        raise InvariantError(f"the sides have {len(a)} and {len(b)} numbers")
    holds = all(math.isfinite(x) and math.isfinite(y) and op(x, y) for x, y in zip(a, b))
    return holds, left, right
