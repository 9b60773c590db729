"""The numeric layer: both sides at seeded points, and a high-precision re-check of agreement.

Agreement is ``|a - e| <= atol + rtol * max(|a|, |e|)``; a point where the sides clearly differ
(relative gap above ``REFUTE_GAP``) refutes. Agreement in double precision alone is confirmed at
``PRECISE_POINTS`` points with ``PRECISE_DIGITS`` digits (:func:`precise_gap`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import sympy as sp

from .. import budget
from .constants import MAX_TRIES, PRECISE_DIGITS, REFUTE_GAP, STRONG_GAP
from .evaluator import close, evaluate, rel_gap
from .sampling import sample_points

def _exact_point(pt: Mapping[sp.Symbol, Any]) -> dict:
    out = {}
    for s, v in pt.items():
        if isinstance(v, complex):
            out[s] = sp.Rational(v.real) + sp.I * sp.Rational(v.imag)
        else:
            out[s] = sp.Rational(v)
    return out


def precise_gap(e: sp.Basic, a: sp.Basic, points: Iterable[Mapping[sp.Symbol, Any]],
                deadline: float, digits: int = PRECISE_DIGITS) -> float | None:
    """Largest relative gap between ``e`` and ``a`` at ``points`` evaluated with ``digits`` digits
    (None when nothing could be evaluated in time)."""
    worst = None
    for pt in points:
        if budget.clock() > deadline:
            break
        try:
            subs = _exact_point(pt)
            ve = complex(e.evalf(digits, subs=subs))
            va = complex(a.evalf(digits, subs=subs))
            diff = (a - e).evalf(digits, subs=subs)
            diff = complex(diff) if diff != 0 else 0j
        except Exception:  # evalf that sympy cannot do is no evidence either way
            continue
        if not all(math.isfinite(z.real) and math.isfinite(z.imag) for z in (ve, va, diff)):
            continue
        # Both sides at 0 (relu vs (x + |x|)/2 at a negative point) may leave evalf noise far below
        # the digits asked for: an absolute floor keeps that from reading as a relative gap of 1.
        if abs(diff) <= 10.0 ** -(digits - 5):
            gap = 0.0
        else:
            scale = max(abs(ve), abs(va))
            gap = abs(diff) / scale if scale > 0 else math.inf
        worst = gap if worst is None else max(worst, gap)
    return worst

@dataclass
class NumericEvidence:
    valid: int = 0
    worst_gap: float = 0.0
    refuted_at: dict | None = None
    marginal: bool = False
    timed_out: bool = False
    max_gap: float = 0.0                          # largest relative gap over all valid points
    values: list = field(default_factory=list)   # (point, expected value, answer value)

    def strong(self, n_points: int) -> bool:
        """Agreement to (almost) machine precision at every one of the requested points."""
        return (self.refuted_at is None and not self.marginal and not self.timed_out
                and self.valid >= n_points and self.max_gap <= STRONG_GAP)


def numeric_compare(e: sp.Basic, a: sp.Basic, variables, seed: int, deadline: float,
                     rtol: float, atol: float, n_points: int, hold: Iterable[sp.Symbol] = ()) -> NumericEvidence:
    """``hold``: symbols given the same value at every point (the first point's)."""
    res = NumericEvidence()
    syms = e.free_symbols | a.free_symbols
    pts = sample_points(syms, variables, seed, MAX_TRIES)
    hold = [s for s in hold if s in syms]
    if hold and pts:
        for pt in pts[1:]:
            pt.update({s: pts[0][s] for s in hold})
    for pt in pts:
        if res.valid >= n_points:
            break
        if budget.clock() > deadline:
            res.timed_out = True
            break
        ve = evaluate(e, pt)
        if ve is None:
            continue
        va = evaluate(a, pt)
        if va is None:
            continue
        res.valid += 1
        res.values.append((pt, ve, va))
        gap = rel_gap(ve, va)
        res.max_gap = max(res.max_gap, gap)
        if not close(ve, va, rtol, atol):
            res.worst_gap = max(res.worst_gap, gap)
            if gap > REFUTE_GAP or abs(ve - va) > 1e3 * atol + REFUTE_GAP * max(abs(ve), abs(va)):
                res.refuted_at = {"point": {s.name: v for s, v in pt.items()}, "expected": ve, "answer": va}
                return res
            res.marginal = True
    return res

