"""The layers put together: :func:`check_equivalence` in each mode, and the cache of decided results.

structural (identical trees, also after rewriting named functions) -> numeric refutation
(:mod:`.numeric`) -> bounded symbolic confirmation (:mod:`.symbolic`), under one time budget; see the
package docstring for the outcomes. Finished results are cached (LRU); results cut short by the time
budget, or by an error another attempt might not hit, are never cached.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import sympy as sp

from .. import budget
from ..limits import EQUIVALENCE_CACHE_SIZE
from ..memo import Memo, Uncacheable
from .constants import (ATOL, MIN_POINTS, MODES, N_POINTS, PRECISE_DIGITS, PRECISE_GAP, PRECISE_POINTS,
                        REFUTE_GAP, RTOL, STRONG_SYMBOLIC_BUDGET)
from .evaluator import close, evaluate
from .form import form_problems
from .interrupt import BudgetExceeded, interrupt_at
from .numeric import numeric_compare, precise_gap
from .result import EquivalenceResult, jsonable
from .symbolic import rewrite_named, symbolic_zero


#: Decided comparisons by their inputs (a worker sees the same expected/answer pairs again and again).
_MEMO = Memo(EQUIVALENCE_CACHE_SIZE)


def clear_cache() -> None:
    _MEMO.clear()


def _cache_key(e, a, variables, mode, seed, rtol, atol, require_proof, constants=()) -> str:
    if isinstance(variables, Mapping):
        vs = repr(sorted((k, sorted(v.items()) if isinstance(v, Mapping) else v) for k, v in variables.items()))
    else:
        vs = repr(variables)
    return "\x1f".join([sp.srepr(e), sp.srepr(a), vs, mode, str(seed), repr(rtol), repr(atol), str(require_proof),
                        ",".join(sorted(constants))])


def check_equivalence(expected: sp.Basic, answer: sp.Basic, variables: Mapping[str, Any] | None = None,
                      mode: str = "equivalent", *, seed: int = 0, time_budget: float = 0.5,
                      rtol: float = RTOL, atol: float = ATOL, n_points: int = N_POINTS,
                      require_proof: bool = False, use_cache: bool = True,
                      constants: Iterable[str] = ()) -> EquivalenceResult:
    """Decide whether ``answer`` matches ``expected`` in ``mode``. Never raises for odd expressions.

    ``require_proof``: numeric agreement alone gives ``undecided`` instead of ``equal``.
    ``constants``: names of given constants (``up_to_constant`` only): the allowed additive constant
    may depend on them, e.g. ``-beta`` when ``beta`` is the KL coefficient of the question.
    """
    if mode not in MODES:
        raise ValueError(f"unknown equivalence mode {mode!r}")
    constants = frozenset(constants or ())
    expected, answer = sp.Integer(0) + expected, sp.Integer(0) + answer  # plain ints become Integers
    def decide() -> EquivalenceResult:
        res, cacheable = _decide(expected, answer, variables, mode, seed, time_budget, rtol, atol, n_points,
                                 require_proof, constants)
        if not cacheable:
            raise Uncacheable(res)
        return res

    if not use_cache:
        return _decide(expected, answer, variables, mode, seed, time_budget, rtol, atol, n_points, require_proof,
                       constants)[0]
    return _MEMO.get(_cache_key(expected, answer, variables, mode, seed, rtol, atol, require_proof, constants),
                     decide)


def _decide(expected, answer, variables, mode, seed, time_budget, rtol, atol, n_points, require_proof,
            constants) -> tuple[EquivalenceResult, bool]:
    """One comparison under its time budget, and whether its result may be remembered (not a time-out,
    not an error that another attempt might not hit)."""
    deadline = budget.clock() + time_budget
    cacheable = True
    try:
        # The layers watch the clock themselves; the timer (in workers) catches a single sympy call
        # that would run past the deadline.
        with interrupt_at(deadline + 0.02):
            res = _check(expected, answer, variables, mode, seed, deadline, rtol, atol, n_points, require_proof,
                         constants)
    except BudgetExceeded:
        res = EquivalenceResult("undecided", "timeout", "time ran out", timed_out=True)
    except RecursionError:
        res = EquivalenceResult("undecided", "error", "expression too deeply nested to compare")
        cacheable = False
    except Exception as exc:  # sympy/mpmath limits (OverflowError from mpmath...): never a crash
        res = EquivalenceResult("undecided", "error", f"could not compare ({type(exc).__name__})")
        cacheable = False
    return res, cacheable and not res.timed_out


def _check(e, a, variables, mode, seed, deadline, rtol, atol, n_points, require_proof,
           constants=frozenset()) -> EquivalenceResult:
    if mode == "up_to_sign":
        r = _equivalent(e, a, variables, seed, deadline, rtol, atol, n_points, require_proof)
        if r.outcome == "equal":
            r.details["sign"] = 1
            return r
        r2 = _equivalent(-e, a, variables, seed, deadline, rtol, atol, n_points, require_proof)
        if r2.outcome == "equal":
            r2.details["sign"] = -1
            return r2
        if "undecided" in (r.outcome, r2.outcome):
            return r if r.outcome == "undecided" else r2
        return r
    if mode == "up_to_constant":
        return _up_to_constant(e, a, variables, seed, deadline, rtol, atol, n_points, require_proof, constants)
    r = _equivalent(e, a, variables, seed, deadline, rtol, atol, n_points, require_proof)
    if mode == "same_form" and r.outcome == "equal":
        problems = form_problems(e, a)
        r.details["form_problems"] = problems
        if problems:
            return EquivalenceResult("not_equal", "form", "equivalent but not in the required form: "
                                     + "; ".join(problems), {**r.details, "equivalent": True})
    return r


def _equivalent(e, a, variables, seed, deadline, rtol, atol, n_points, require_proof) -> EquivalenceResult:
    # 1. structural
    if e == a or (a - e) == 0:
        return EquivalenceResult("equal", "structural", "identical after canonicalisation")
    re_, ra = rewrite_named(e), rewrite_named(a)
    if re_ == ra:
        return EquivalenceResult("equal", "structural", "identical after rewriting named functions")
    # 2. numeric
    num = numeric_compare(e, a, variables, seed, deadline, rtol, atol, n_points)
    details: dict[str, Any] = {"valid_points": num.valid}
    if num.refuted_at is not None:
        pt = num.refuted_at
        return EquivalenceResult("not_equal", "numeric", "values differ at a sample point",
                                 {**details, "point": pt["point"], "expected_value": jsonable(pt["expected"]),
                                  "answer_value": jsonable(pt["answer"])})
    if num.timed_out:
        return EquivalenceResult("undecided", "timeout", "time ran out during numeric comparison", details,
                                 timed_out=True)
    # 3. symbolic. After strong numeric agreement only a proof (method "symbolic") or a tiny constant
    # difference (caught by the cheap rewrites) can change anything, so simplify is skipped and the
    # layer gets a short budget; otherwise it gets the rest of the budget and simplify.
    strong = num.strong(n_points) and not require_proof
    sym_deadline = min(deadline, budget.clock() + STRONG_SYMBOLIC_BUDGET) if strong else deadline
    allow_simplify = not strong
    if require_proof and num.values:
        # Agreement in double precision (a decimal answer such as 2.718281828459045^x for exp(x)) with
        # a gap at PRECISE_DIGITS digits: the sides differ, so simplify cannot prove them equal; the
        # cheap rewrites still run and may find the constant by which they differ.
        gap = precise_gap(e, a, [v[0] for v in num.values[:PRECISE_POINTS]], deadline)
        allow_simplify = gap is None or gap <= PRECISE_GAP
    verdict, info = symbolic_zero(a - e, sym_deadline, allow_simplify=allow_simplify)
    if strong:
        details["numeric_strong"] = True
    if verdict == "zero":
        if num.marginal:
            details["numeric_marginal"] = num.worst_gap
        return EquivalenceResult("equal", "symbolic", f"difference reduces to 0 ({info})", details)
    if verdict == "nonzero":
        return EquivalenceResult("not_equal", "symbolic", f"differs by the constant {info}",
                                 {**details, "difference": str(info)})
    if num.marginal:
        return EquivalenceResult("undecided", "disagree",
                                 "values nearly agree but not within tolerance, and no proof either way",
                                 {**details, "worst_gap": num.worst_gap}, timed_out=verdict == "timeout")
    if num.valid < min(MIN_POINTS, n_points):
        return EquivalenceResult("undecided", "too_few_points",
                                 f"only {num.valid} sample points where both sides are finite, and no proof",
                                 details, timed_out=verdict == "timeout")
    if require_proof:
        return EquivalenceResult("undecided", "unproved", "agrees numerically but no symbolic proof",
                                 details, timed_out=verdict == "timeout")
    gap = precise_gap(e, a, [v[0] for v in num.values[:PRECISE_POINTS]], deadline)
    if gap is not None and gap > PRECISE_GAP:
        return EquivalenceResult("not_equal", "precision",
                                 f"agrees in double precision but differs at {PRECISE_DIGITS} digits "
                                 f"(relative gap {gap:.3g})", {**details, "precise_gap": gap})
    # Equal on numeric evidence; when the symbolic search was cut short the result is not cached.
    return EquivalenceResult("equal", "numeric", f"agrees at {num.valid} sample points", details,
                             timed_out=verdict == "timeout")


def _up_to_constant(e, a, variables, seed, deadline, rtol, atol, n_points, require_proof,
                    constants=frozenset()) -> EquivalenceResult:
    """``a - e`` does not depend on any variable other than the given ``constants``.

    Numerically: the difference is the same at every sample point, where all points share the values
    of the constants (only the other variables move). Symbolically: its derivative in every variable
    that is not a given constant is zero.
    """
    d = a - e
    if d.is_number or (d.free_symbols and all(s.name in constants for s in d.free_symbols)):
        return EquivalenceResult("equal", "structural", "differs by a constant", {"constant": str(d)})
    fixed = {s for s in d.free_symbols if s.name in constants}
    num = numeric_compare(sp.Integer(0), d, variables, seed, deadline, 0, float("inf"), n_points,
                           hold=fixed)
    vals = [v[2] for v in num.values]
    details: dict[str, Any] = {"valid_points": len(vals)}
    if num.timed_out:
        return EquivalenceResult("undecided", "timeout", "time ran out", details, timed_out=True)
    scale_pts = []
    for pt, _, dv in num.values:
        ev_, av = evaluate(e, pt), evaluate(a, pt)
        scale_pts.append(max(abs(ev_ or 0), abs(av or 0), abs(dv)))
    for i in range(1, len(vals)):
        if not close(vals[i], vals[0], rtol * 10, atol + rtol * 10 * max(scale_pts[0], scale_pts[i])):
            gap = abs(vals[i] - vals[0]) / max(scale_pts[0], scale_pts[i], 1e-300)
            if gap > REFUTE_GAP:
                return EquivalenceResult("not_equal", "numeric", "the difference is not constant",
                                         {**details, "differences": [jsonable(vals[0]), jsonable(vals[i])]})
    syms = sorted((s for s in d.free_symbols if s not in fixed), key=lambda s: s.name)
    proved, cut = True, False
    for s in syms:
        verdict, _ = symbolic_zero(sp.diff(d, s), deadline)
        if verdict != "zero":
            proved, cut = False, verdict == "timeout"
            break
    if proved:
        return EquivalenceResult("equal", "symbolic", "the difference has zero derivative", details)
    if len(vals) < MIN_POINTS:
        return EquivalenceResult("undecided", "too_few_points", "too few valid sample points", details,
                                 timed_out=cut)
    if require_proof:
        return EquivalenceResult("undecided", "unproved", "constant numerically but no proof", details,
                                 timed_out=cut)
    return EquivalenceResult("equal", "numeric", "the difference is the same at every sample point",
                             {**details, "constant": jsonable(vals[0]) if vals else None}, timed_out=cut)



def cache_size() -> int:
    return len(_MEMO)
