"""Equations compared by their solutions, numerically.

Equation 1 implies equation 2 when every real root of ``l1 - r1`` in one variable ``v`` (found on a grid
of ``GRID`` points over ``v``'s domain, sign changes refined by bisection, poles rejected), at random
values of the other symbols, also satisfies ``l2 = r2`` within a relative residual of 1e-6. Up to three
variables are tried, preferring one that occurs in both equations, until ``EQ_POINTS`` roots agree.
Two equations are *equivalent* when each implies the other; one direction alone is an implication.
Everything stops at the deadline (``checkers.budget.clock``); too few roots is ``unknown``, never a pass.
"""

from __future__ import annotations

import math

import sympy as sp

from ...budget import clock as work_clock
from ...equivalence import evaluate, sample_points, symbol_domain

GRID = 160
EQ_POINTS = 4


def _domain_grid(domain: str) -> list[float]:
    n = GRID
    if domain == "probability":
        return [1 / (1 + math.exp(-(-9 + 18 * i / (n - 1)))) for i in range(n)]
    if domain in ("positive", "nonnegative"):
        return [math.exp(-9 + 18 * i / (n - 1)) for i in range(n)]
    if domain == "negative":
        return [-math.exp(9 - 18 * i / (n - 1)) for i in range(n)]
    if domain in ("posint", "integer"):
        return []
    return [math.sinh(-9 + 18 * i / (n - 1)) for i in range(n)]


def _real(v):
    if v is None:
        return None
    if isinstance(v, complex):
        return v.real if abs(v.imag) <= 1e-12 * max(1.0, abs(v.real)) else None
    return v


def _roots(f, v: sp.Symbol, base: dict, grid: list[float], deadline: float) -> list[float]:
    """Real roots of f(v) on the grid's range: sign changes refined by bisection; poles rejected."""
    roots: list[float] = []
    prev_x = prev_y = None
    for x in grid:
        if work_clock() > deadline:
            break
        y = _real(evaluate(f, {**base, v: x}))
        if y is not None and y == 0:
            roots.append(x)
        elif y is not None and prev_y is not None and prev_y != 0 and (y > 0) != (prev_y > 0):
            lo, hi, ylo = prev_x, x, prev_y
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                ym = _real(evaluate(f, {**base, v: mid}))
                if ym is None:
                    break
                if ym == 0:
                    lo = hi = mid
                    break
                if (ym > 0) == (ylo > 0):
                    lo, ylo = mid, ym
                else:
                    hi = mid
            r = 0.5 * (lo + hi)
            yr = _real(evaluate(f, {**base, v: r}))
            scale = max(abs(prev_y), abs(y), 1.0)
            if yr is not None and abs(yr) <= 1e-6 * scale:  # a real root, not a pole
                roots.append(r)
        prev_x, prev_y = x, y
        if len(roots) > 8:
            break
    return roots


def _residual_small(lhs, rhs, point) -> bool | None:
    a, b = evaluate(lhs, point), evaluate(rhs, point)
    if a is None or b is None:
        return None
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


def implies(l1, r1, l2, r2, variables, deadline: float, seed: int = 0) -> tuple[str, int]:
    """Does equation 1 imply equation 2? ('yes' | 'no' | 'unknown', number of roots checked)."""
    f1 = l1 - r1
    syms = sorted((f1.free_symbols | l2.free_symbols | r2.free_symbols), key=lambda s: s.name)
    solve_for = [s for s in syms if s in f1.free_symbols and symbol_domain(s, variables) not in ("posint", "integer")]
    # prefer a variable that appears in both equations (it is the one being solved for)
    both = l2.free_symbols | r2.free_symbols
    solve_for.sort(key=lambda s: (s not in both, s.name))
    checked = 0
    for v in solve_for[:3]:
        grid = _domain_grid(symbol_domain(v, variables))
        others = [s for s in syms if s != v]
        pts = sample_points(others, variables, seed + 11, EQ_POINTS * 3)
        for base in pts:
            if checked >= EQ_POINTS * 2 or work_clock() > deadline:
                break
            for root in _roots(f1, v, base, grid, deadline):
                ok = _residual_small(l2, r2, {**base, v: root})
                if ok is None:
                    continue
                checked += 1
                if not ok:
                    return "no", checked
        if checked >= EQ_POINTS:
            return "yes", checked
    return ("yes" if checked >= 2 else "unknown"), checked

def equations_equivalent(l1, r1, l2, r2, variables, deadline) -> tuple[str, str]:
    """('equivalent' | 'implies' | 'no' | 'unknown', reason)."""
    fwd, n1 = implies(l1, r1, l2, r2, variables, deadline)
    if fwd == "no":
        return "no", "a solution of the previous equation does not satisfy this one"
    back, n2 = implies(l2, r2, l1, r1, variables, deadline)
    if fwd == "yes" and back == "yes":
        return "equivalent", "same solutions"
    if fwd == "yes":
        return "implies", "follows from the previous equation (not conversely)"
    if back == "yes":
        # no root found forward; the converse holds: accept only as unknown
        return "unknown", "could not solve the previous equation at enough points"
    if back == "no":
        return "no", "this equation has solutions the previous one does not"
    return "unknown", "could not solve either equation at enough points"
