"""Layered equivalence of two sympy expressions under declared assumptions.

Layers, cheapest first:

1. **structural** — the two trees are identical after the canonicalisation sympy does on
   construction (``a - e`` collapses to ``0``).
2. **numeric refutation** — both sides are evaluated in floating point at seeded points drawn from each
   symbol's domain (probabilities: softmax of random logits or uniform on (0, 1); positive: log-uniform;
   real: normal; integers: small integers). Points where either side is non-finite are skipped; complex
   values are compared as complex numbers. Agreement is ``|a - e| <= atol + rtol * max(|a|, |e|)``.
3. **bounded symbolic confirmation** — ``a - e`` is pushed through cheap rewrites (hyperbolic and
   trigonometric functions as exp, cancelled over one denominator; expand, cancel, expand_log /
   logcombine with ``force`` only when every symbol is positive, powsimp) and, time permitting,
   ``simplify``, under the symbols' assumptions (skipped for a non-zero polynomial with rational or
   algebraic coefficients, which it could not reduce further).

Numeric agreement alone is confirmed at two points with 40 significant digits (:func:`precise_gap`),
so exact numbers that differ beyond double precision (``333333333333333/10^15`` vs ``1/3``) are told
apart. Symbols flagged ``complex`` are sampled off the real line; unflagged symbols are real.

Outcome (see :class:`EquivalenceResult`):

* ``equal``      — proved symbolically, or agreement at every valid point (at least ``min_points``),
  or identical structure;
* ``not_equal``  — a valid point where the sides clearly differ (relative gap > ``refute_gap``), or the
  symbolic difference reduces to a non-zero constant;
* ``undecided``  — too few valid points and no proof, a marginal numeric gap the symbolic layer cannot
  settle (the layers disagree), or the time budget ran out before a decision.

The evaluator walks the sympy tree itself (no ``lambdify``, which would ``exec`` generated code) and
falls back to ``evalf`` for node types it does not know.

Modes: ``equivalent``; ``up_to_sign`` (a ≡ e or a ≡ −e); ``up_to_constant`` (a − e is the same number
at every point / its derivative in every symbol is zero; with ``constants`` it may depend on those
given constants); ``same_form`` (see :func:`form_problems`). :func:`check_within_tolerance` is the
numeric-only comparison for parts that accept decimal approximations within a stated tolerance.
Finished results are cached (LRU); results cut short by the time budget are never cached.

One module per job: :mod:`.constants` (tolerances and sizes), :mod:`.result` (the outcome),
:mod:`.interrupt` (stopping sympy at the deadline), :mod:`.sampling` (points from each symbol's
domain), :mod:`.evaluator` (the float evaluator), :mod:`.numeric` (the numeric layer and the
high-precision re-check), :mod:`.symbolic` (the bounded symbolic layer), :mod:`.form` (``same_form``),
:mod:`.tolerance` (decimals within a stated tolerance) and :mod:`.compare` (the layers in each mode,
and the cache). Every public name is importable from ``checkers.equivalence``.
"""

from __future__ import annotations

from .compare import _MEMO, cache_size, check_equivalence, clear_cache  # noqa: F401  (_MEMO: the cache itself)
from .constants import (ATOL, MAX_TRIES, MIN_POINTS, MODES, N_POINTS, PRECISE_DIGITS, PRECISE_GAP, PRECISE_POINTS,
                        REFUTE_GAP, RTOL, SIMPLIFY_MAX_OPS, STRONG_GAP, STRONG_SYMBOLIC_BUDGET, Outcome)
from .evaluator import close, evaluate, rel_gap
from .form import form_problems, tree_size, trivial_subterms
from .interrupt import BudgetExceeded, interrupt_at
from .numeric import precise_gap
from .result import EquivalenceResult
from .sampling import sample_points, symbol_domain
from .symbolic import exp_rational_form, log_form, rational_polynomial_nonzero, rewrite_named, symbolic_zero
from .tolerance import check_within_tolerance

__all__ = ["ATOL", "BudgetExceeded", "EquivalenceResult", "MAX_TRIES", "MIN_POINTS", "MODES", "N_POINTS", "Outcome",
           "PRECISE_DIGITS", "PRECISE_GAP", "PRECISE_POINTS", "REFUTE_GAP", "RTOL", "SIMPLIFY_MAX_OPS", "STRONG_GAP",
           "STRONG_SYMBOLIC_BUDGET", "cache_size", "check_equivalence", "check_within_tolerance", "clear_cache",
           "close", "evaluate", "exp_rational_form", "form_problems", "interrupt_at", "precise_gap",
           "log_form", "rational_polynomial_nonzero", "rel_gap", "rewrite_named",
           "sample_points", "symbol_domain", "symbolic_zero", "tree_size", "trivial_subterms"]
