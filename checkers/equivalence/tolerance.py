"""Decimals within a stated tolerance: the numeric-only comparison for parts that accept decimal
approximations (``decimals: {rtol, atol}``).

Values must agree within ``|a - e| <= atol + rtol * max(|a|, |e|)`` at every seeded sample point; a
decimal is judged as the approximation it is, so this is never a proof of equivalence.
"""

from __future__ import annotations

from typing import Any, Mapping

import sympy as sp

from .. import budget
from .constants import MAX_TRIES, MIN_POINTS, N_POINTS
from .evaluator import close, evaluate
from .interrupt import BudgetExceeded, interrupt_at
from .result import EquivalenceResult, jsonable
from .sampling import sample_points

def check_within_tolerance(expected: sp.Basic, answer: sp.Basic, variables: Mapping[str, Any] | None = None,
                           *, rtol: float, atol: float, seed: int = 0, time_budget: float = 0.5,
                           n_points: int = N_POINTS) -> EquivalenceResult:
    """Values agree within ``|a - e| <= atol + rtol * max(|a|, |e|)`` at every seeded sample point.

    Only for a part that states a tolerance for decimal answers (a decimal is then judged as the
    approximation it is); never a proof of equivalence. Never raises for odd expressions.
    """
    expected, answer = sp.Integer(0) + expected, sp.Integer(0) + answer
    deadline = budget.clock() + time_budget
    try:
        with interrupt_at(deadline + 0.02):
            pts = sample_points(expected.free_symbols | answer.free_symbols, variables, seed, MAX_TRIES)
            valid = 0
            for pt in pts:
                if valid >= n_points:
                    break
                if budget.clock() > deadline:
                    return EquivalenceResult("undecided", "timeout", "time ran out", timed_out=True)
                ve, va = evaluate(expected, pt), evaluate(answer, pt)
                if ve is None or va is None:
                    continue
                valid += 1
                if not close(ve, va, rtol, atol):
                    return EquivalenceResult("not_equal", "tolerance", "outside the tolerance at a sample point",
                                             {"point": {s.name: jsonable(v) for s, v in pt.items()},
                                              "expected_value": jsonable(ve), "answer_value": jsonable(va)})
    except BudgetExceeded:
        return EquivalenceResult("undecided", "timeout", "time ran out", timed_out=True)
    except Exception as exc:  # never a crash on odd expressions
        return EquivalenceResult("undecided", "error", f"could not compare ({type(exc).__name__})")
    if valid < min(MIN_POINTS, n_points):
        return EquivalenceResult("undecided", "too_few_points", f"only {valid} sample points could be evaluated",
                                 {"valid_points": valid})
    return EquivalenceResult("equal", "tolerance", f"within the tolerance at {valid} sample points",
                             {"valid_points": valid, "rtol": rtol, "atol": atol})

