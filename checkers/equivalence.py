"""Layered equivalence of two sympy expressions under declared assumptions.

Layers, cheapest first:

1. **structural** — the two trees are identical after the canonicalisation sympy does on
   construction (``a - e`` collapses to ``0``).
2. **numeric refutation** — both sides are evaluated in floating point at seeded points drawn from each
   symbol's domain (probabilities: softmax of random logits or uniform on (0, 1); positive: log-uniform;
   real: normal; integers: small integers). Points where either side is non-finite are skipped; complex
   values are compared as complex numbers. Agreement is ``|a - e| <= atol + rtol * max(|a|, |e|)``.
3. **bounded symbolic confirmation** — ``a - e`` is pushed through cheap rewrites (expand, cancel,
   expand_log / logcombine with ``force`` only when every symbol is positive, powsimp) and, time
   permitting, ``simplify``, under the symbols' assumptions.

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
"""

from __future__ import annotations

import cmath
import math
import random
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping

import sympy as sp

from . import budget, sandbox
from .limits import EQUIVALENCE_CACHE_SIZE
from .memo import Memo, Uncacheable

Outcome = Literal["equal", "not_equal", "undecided"]
MODES = ("equivalent", "same_form", "up_to_constant", "up_to_sign")

RTOL = 1e-9
ATOL = 1e-12
REFUTE_GAP = 1e-6      # relative gap above which a single point refutes without asking the symbolic layer
MIN_POINTS = 4
N_POINTS = 8
MAX_TRIES = 40
SIMPLIFY_MAX_OPS = 60  # simplify() on bigger differences is where time goes to die
#: Numeric agreement this tight at every one of ``n_points`` points is "strong": the symbolic layer then
#: only looks for a proof or a tiny constant difference with its cheap rewrites, for at most
#: ``STRONG_SYMBOLIC_BUDGET`` seconds, and skips ``simplify`` (which could only confirm the "equal").
STRONG_GAP = 1e-11
STRONG_SYMBOLIC_BUDGET = 0.15


@dataclass
class EquivalenceResult:
    outcome: Outcome
    method: str                         # structural | numeric | symbolic | refuted | ... | timeout
    reason: str = ""                    # English, for logs and feedback building
    details: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False

    @property
    def equal(self) -> bool:
        return self.outcome == "equal"


# ---------------------------------------------------------------------------------------------------
# Interrupting sympy at the soft deadline
#
# A single sympy call (``cancel`` of a degree-400 polynomial, ``simplify``) cannot be stopped by checking
# the clock between calls. Inside a sandbox worker the grading runs in the worker's main thread, so an
# interval timer can interrupt it at the deadline; the worker survives and answers ``undecided`` instead
# of being killed at the hard limit. Elsewhere (in-process tests, threads) this is a no-op and the hard
# limit of the pool, or the clock checks between steps, bound the work.

class BudgetExceeded(BaseException):
    """Raised inside sympy by the worker's timer (a BaseException, so sympy's ``except Exception`` can't eat it)."""


_alarm_deadline: float | None = None   # budget.clock() deadline of the armed timer; None when disarmed


def _on_alarm(signum, frame) -> None:  # pragma: no cover - runs in sandbox workers
    global _alarm_deadline
    dl = _alarm_deadline
    if dl is None:
        return
    left = dl - budget.clock()
    if left > 1e-3:  # woke early: sleep on
        signal.setitimer(budget.TIMER, left)
        return
    _alarm_deadline = None
    raise BudgetExceeded()


def _can_interrupt() -> bool:
    return (sandbox.in_worker() and hasattr(signal, "setitimer") and budget.TIMER is not None
            and threading.current_thread() is threading.main_thread())


@contextmanager
def interrupt_at(deadline: float) -> Iterator[None]:
    """Raise :class:`BudgetExceeded` in the body once ``budget.clock()`` (CPU time) passes ``deadline``.

    Only in a sandbox worker's main thread; nests (the earlier deadline wins). The caller catches
    :class:`BudgetExceeded` *outside* the ``with`` block.
    """
    global _alarm_deadline
    if not _can_interrupt():
        yield
        return
    outer = _alarm_deadline
    mine = deadline if outer is None else min(outer, deadline)
    if signal.getsignal(budget.TIMER_SIGNAL) is not _on_alarm:
        signal.signal(budget.TIMER_SIGNAL, _on_alarm)
    _alarm_deadline = mine
    signal.setitimer(budget.TIMER, max(mine - budget.clock(), 1e-4))
    try:
        yield
    finally:
        _alarm_deadline = None
        signal.setitimer(budget.TIMER, 0)
        if outer is not None:
            _alarm_deadline = outer
            signal.setitimer(budget.TIMER, max(outer - budget.clock(), 1e-4))


# ---------------------------------------------------------------------------------------------------
# Domains and sampling

def symbol_domain(sym: sp.Symbol, variables: Mapping[str, Any] | None = None) -> str:
    """One of probability | positive | nonnegative | negative | posint | integer | real | complex."""
    spec = variables.get(sym.name) if isinstance(variables, Mapping) else None
    if isinstance(spec, Mapping):
        dom = spec.get("domain")
        if dom in ("probability", "unit", "(0,1)"):
            return "probability"
        if dom in ("positive", "nonnegative", "negative", "real", "complex"):
            return dom
        if spec.get("complex") and not any(spec.get(f) for f in ("positive", "negative", "nonnegative",
                                                                  "nonpositive", "real", "integer")):
            return "complex"
        if spec.get("integer") and (spec.get("positive") or spec.get("nonnegative")):
            return "posint"
        for flag in ("positive", "nonnegative", "negative", "integer", "real"):
            if spec.get(flag):
                return flag
    if sym.is_integer:
        return "posint" if sym.is_nonnegative else "integer"
    if sym.is_positive:
        return "positive"
    if sym.is_nonnegative:
        return "nonnegative"
    if sym.is_negative:
        return "negative"
    if sym.is_real:
        return "real"
    if sym.is_complex:
        return "complex"
    # Undeclared symbols are sampled as reals: learners think of them as reals, and real sampling
    # still exposes branch differences such as log(a b) vs log a + log b at negative points.
    return "real"


def _draw(domain: str, rng: random.Random, i: int) -> float:
    if domain == "probability":
        if i % 2:
            return rng.uniform(0.02, 0.98)
        k = rng.randint(2, 5)
        logits = [rng.gauss(0.0, 1.5) for _ in range(k)]
        m = max(logits)
        ex = [math.exp(z - m) for z in logits]
        p = ex[0] / sum(ex)
        return min(max(p, 1e-3), 1 - 1e-3)
    if domain in ("positive", "nonnegative"):
        return math.exp(rng.uniform(-2.5, 2.5))
    if domain == "negative":
        return -math.exp(rng.uniform(-2.5, 2.5))
    if domain == "posint":
        return float(rng.randint(1, 7))
    if domain == "integer":
        return float(rng.choice([-4, -3, -2, -1, 1, 2, 3, 4, 5]))
    if domain == "complex":
        # Imaginary parts beyond ±pi, so that branch differences (log(exp(z)) vs z) show up.
        return complex(rng.gauss(0.0, 1.5), rng.uniform(-6.0, 6.0))
    return rng.gauss(0.0, 1.5)


def sample_points(symbols: Iterable[sp.Symbol], variables: Mapping[str, Any] | None, seed: int,
                  n: int) -> list[dict[sp.Symbol, float]]:
    syms = sorted(symbols, key=lambda s: s.name)
    rng = random.Random(f"equivalence:{seed}:{','.join(s.name for s in syms)}")
    domains = [symbol_domain(s, variables) for s in syms]
    return [{s: _draw(d, rng, i) for s, d in zip(syms, domains)} for i in range(n)]


# ---------------------------------------------------------------------------------------------------
# A tree-walking float evaluator (fast, and no generated code)

class _NonFinite(Exception):
    pass


def _c(x):
    return x if isinstance(x, complex) else complex(x)


def _real_if_close(x):
    if isinstance(x, complex) and abs(x.imag) <= 1e-300:
        return x.real
    return x


def _log(x):
    if isinstance(x, complex) or x <= 0:
        if x == 0:
            raise _NonFinite
        return cmath.log(x)
    return math.log(x)


def _exp(x):
    return cmath.exp(x) if isinstance(x, complex) else math.exp(x)


def _pow(b, e):
    if isinstance(b, complex) or isinstance(e, complex):
        if b == 0:
            if (e.real if isinstance(e, complex) else e) > 0:
                return 0.0
            raise _NonFinite
        return _c(b) ** _c(e)
    if b < 0 and not float(e).is_integer():
        return _c(b) ** e
    if b == 0 and e < 0:
        raise _NonFinite
    return b ** e


def _sigmoid(x):
    if isinstance(x, complex):
        return 1 / (1 + cmath.exp(-x))
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _softplus(x):
    if isinstance(x, complex):
        return cmath.log(1 + cmath.exp(x))
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _realonly(f):
    def g(*xs):
        if any(isinstance(x, complex) for x in xs):
            if any(abs(x.imag) > 1e-12 for x in xs if isinstance(x, complex)):
                raise _NonFinite  # min/max/abs-of-complex: no meaningful comparison point
            xs = tuple(x.real if isinstance(x, complex) else x for x in xs)
        return f(*xs)
    return g


def _cm(real_f, complex_f):
    return lambda x: complex_f(x) if isinstance(x, complex) else real_f(x)


def _safe_real(real_f, complex_f, ok):
    return lambda x: complex_f(x) if isinstance(x, complex) or not ok(x) else real_f(x)


def _real_domain(real_f, complex_f, ok):
    # A real argument outside the real domain sits on a branch cut, where cmath and sympy pick
    # different sides: skip the point rather than compare values from different conventions.
    def f(x):
        if isinstance(x, complex):
            return complex_f(x)
        if not ok(x):
            raise _NonFinite
        return real_f(x)
    return f


_FUNCS: dict[Any, Callable] = {
    sp.exp: _exp,
    sp.log: _log,
    sp.sin: _cm(math.sin, cmath.sin), sp.cos: _cm(math.cos, cmath.cos), sp.tan: _cm(math.tan, cmath.tan),
    sp.sinh: _cm(math.sinh, cmath.sinh), sp.cosh: _cm(math.cosh, cmath.cosh),
    sp.tanh: _cm(math.tanh, cmath.tanh), sp.atan: _cm(math.atan, cmath.atan),
    sp.asin: _safe_real(math.asin, cmath.asin, lambda x: -1 <= x <= 1),
    sp.acos: _safe_real(math.acos, cmath.acos, lambda x: -1 <= x <= 1),
    sp.Abs: lambda x: abs(x),
    sp.sign: _realonly(lambda x: float((x > 0) - (x < 0))),
    sp.Heaviside: _realonly(lambda x, *h: 1.0 if x > 0 else (0.0 if x < 0 else 0.5)),
    sp.floor: _realonly(math.floor), sp.ceiling: _realonly(math.ceil),
    sp.Min: _realonly(lambda *xs: min(xs)), sp.Max: _realonly(lambda *xs: max(xs)),
    sp.erf: _realonly(math.erf), sp.gamma: _realonly(math.gamma),
    sp.factorial: _realonly(lambda x: math.gamma(x + 1)),
    sp.sec: _cm(lambda x: 1 / math.cos(x), lambda x: 1 / cmath.cos(x)),
    sp.csc: _cm(lambda x: 1 / math.sin(x), lambda x: 1 / cmath.sin(x)),
    sp.cot: _cm(lambda x: 1 / math.tan(x), lambda x: 1 / cmath.tan(x)),
    sp.asec: _real_domain(lambda x: math.acos(1 / x), lambda x: cmath.acos(1 / x), lambda x: abs(x) >= 1),
    sp.acsc: _real_domain(lambda x: math.asin(1 / x), lambda x: cmath.asin(1 / x), lambda x: abs(x) >= 1),
    sp.acot: _cm(lambda x: math.atan(1 / x) if x else math.pi / 2, lambda x: cmath.atan(1 / x)),
    sp.atan2: _realonly(math.atan2),
    sp.sech: _cm(lambda x: 1 / math.cosh(x), lambda x: 1 / cmath.cosh(x)),
    sp.csch: _cm(lambda x: 1 / math.sinh(x), lambda x: 1 / cmath.sinh(x)),
    sp.coth: _cm(lambda x: 1 / math.tanh(x), lambda x: 1 / cmath.tanh(x)),
    sp.asinh: _cm(math.asinh, cmath.asinh),
    sp.acosh: _real_domain(math.acosh, cmath.acosh, lambda x: x >= 1),
    sp.atanh: _real_domain(math.atanh, cmath.atanh, lambda x: -1 < x < 1),
    sp.acoth: _real_domain(lambda x: math.atanh(1 / x), lambda x: cmath.atanh(1 / x), lambda x: abs(x) > 1),
    sp.asech: _real_domain(lambda x: math.acosh(1 / x), lambda x: cmath.acosh(1 / x), lambda x: 0 < x <= 1),
    sp.acsch: _cm(lambda x: math.asinh(1 / x), lambda x: cmath.asinh(1 / x)),
    sp.erfc: _realonly(math.erfc),
    sp.re: lambda x: x.real if isinstance(x, complex) else x,
    sp.im: lambda x: x.imag if isinstance(x, complex) else 0.0,
}

#: Named functions a parser may keep unevaluated (matched by lower-case class name).
_NAMED: dict[str, Callable] = {
    "sigmoid": _sigmoid, "sigma": _sigmoid, "logistic": _sigmoid,
    "logsigmoid": lambda x: -_softplus(-x),
    "softplus": _softplus,
    "relu": _realonly(lambda x: max(x, 0.0)),
    "clip": _realonly(lambda x, lo, hi: min(max(x, lo), hi)),
}


def _ev(e, env):
    if e.is_Symbol:
        try:
            return env[e]
        except KeyError:
            raise _NonFinite from None
    if e.is_Number:
        if e.is_infinite or e is sp.nan:
            raise _NonFinite
        if e.is_Integer and abs(e.p) > 2 ** 1000:
            raise _NonFinite
        return float(e) if e.is_real else complex(e)
    if e.is_Add:
        return sum(_ev(a, env) for a in e.args)
    if e.is_Mul:
        r = 1.0
        for a in e.args:
            r *= _ev(a, env)
        return r
    if e.is_Pow:
        return _pow(_ev(e.base, env), _ev(e.exp, env))
    if e is sp.I:
        return 1j
    if e.is_NumberSymbol:
        return float(e)
    f = _FUNCS.get(e.func)
    if f is None:
        f = _NAMED.get(type(e).__name__.lower())
    if f is not None:
        return f(*[_ev(a, env) for a in e.args])
    # Unknown node (Piecewise, special functions...): let sympy do it, with numbers substituted.
    val = e.xreplace({k: sp.Float(v) if not isinstance(v, complex) else sp.Float(v.real) + sp.I * sp.Float(v.imag)
                      for k, v in env.items()}).evalf(15)
    try:
        return complex(val)
    except (TypeError, ValueError):
        raise _NonFinite from None


def evaluate(expr: sp.Basic, point: Mapping[sp.Symbol, float]) -> complex | float | None:
    """Value of ``expr`` at ``point``, or None where it is not a finite number."""
    try:
        v = _ev(expr, point)
    except (_NonFinite, OverflowError, ZeroDivisionError, ValueError, TypeError, RecursionError):
        return None
    v = _real_if_close(v)
    if isinstance(v, complex):
        if not (math.isfinite(v.real) and math.isfinite(v.imag)):
            return None
    elif not math.isfinite(v):
        return None
    return v


def close(a, b, rtol: float = RTOL, atol: float = ATOL) -> bool:
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def rel_gap(a, b) -> float:
    scale = max(abs(a), abs(b))
    return abs(a - b) / scale if scale > 0 else 0.0


# ---------------------------------------------------------------------------------------------------
# Canonical rewriting and the symbolic layer

def _named(e) -> str:
    return type(e).__name__.lower()


def rewrite_named(expr: sp.Basic) -> sp.Basic:
    """Replace sigmoid / softplus / logsigmoid / relu / clip calls by exp/log/Max/Min forms."""
    def rw(e):
        if not e.args:
            return e
        args = [rw(a) for a in e.args]
        n = _named(e)
        if n in ("sigmoid", "sigma", "logistic") and len(args) == 1:
            return 1 / (1 + sp.exp(-args[0]))
        if n == "softplus" and len(args) == 1:
            return sp.log(1 + sp.exp(args[0]))
        if n == "logsigmoid" and len(args) == 1:
            return -sp.log(1 + sp.exp(-args[0]))
        if n == "relu" and len(args) == 1:
            return sp.Max(args[0], 0)
        if n == "clip" and len(args) == 3:
            return sp.Min(sp.Max(args[0], args[1]), args[2])
        if any(a is not b for a, b in zip(args, e.args)):
            return e.func(*args)
        return e
    return rw(expr)


def _all_positive(expr: sp.Basic) -> bool:
    return all(s.is_positive for s in expr.free_symbols)


def _too_big(expr: sp.Basic) -> bool:
    for p in expr.atoms(sp.Pow):
        if p.exp.is_Integer and abs(p.exp) > 12:
            return True
    return sp.count_ops(expr) > 400


def symbolic_zero(diff: sp.Basic, deadline: float, *, allow_simplify: bool = True) -> tuple[str, Any]:
    """Try to reduce ``diff`` to zero. Returns (verdict, info): verdict is zero | nonzero | unknown | timeout.

    ``nonzero`` only when the difference reduces to a non-zero *number* (a definite disproof).
    """
    if budget.clock() > deadline:
        return "timeout", "start"
    try:
        with interrupt_at(deadline):
            return _symbolic_zero(diff, deadline, allow_simplify)
    except BudgetExceeded:
        return "timeout", "interrupted"


def _symbolic_zero(diff: sp.Basic, deadline: float, allow_simplify: bool) -> tuple[str, Any]:
    d = rewrite_named(diff)
    force = _all_positive(d)
    if d == 0 or d.is_zero:
        return "zero", "trivial"
    if d.is_Number:
        return "nonzero", d

    steps: list[tuple[str, Callable[[sp.Basic], sp.Basic]]] = []
    if not _too_big(d):
        steps.append(("expand", lambda x: sp.expand(x)))
    steps += [
        ("cancel", lambda x: sp.cancel(sp.together(x))),
        ("expand_log", lambda x: sp.expand(sp.expand_log(x, force=force))),
        ("powsimp", lambda x: sp.powsimp(sp.powdenest(x, force=force), force=force)),
        ("logcombine", lambda x: sp.logcombine(x, force=force)),
        ("exp_log", lambda x: sp.expand(sp.expand_log(sp.powsimp(x.rewrite(sp.exp), force=force), force=force))),
    ]
    for name, step in steps:
        if budget.clock() > deadline:
            return "timeout", name
        try:
            d2 = step(d)
        except Exception:  # a rewrite that sympy cannot do is just a rewrite that did not help
            continue
        if d2 == 0 or d2.is_zero:
            return "zero", name
        if d2.is_Number:
            return "nonzero", d2
        if sp.count_ops(d2) <= sp.count_ops(d) * 2:
            d = d2
    if allow_simplify and sp.count_ops(d) <= SIMPLIFY_MAX_OPS:
        if budget.clock() > deadline:
            return "timeout", "simplify"
        try:
            d2 = sp.simplify(d)
        except Exception:
            return "unknown", "simplify failed"
        if d2 == 0 or d2.is_zero:
            return "zero", "simplify"
        if d2.is_Number:
            return "nonzero", d2
    return "unknown", d


# ---------------------------------------------------------------------------------------------------
# Numeric layer

#: Agreement in double precision is no proof when exact numbers differ beyond it
#: (``333333333333333/10^15`` vs ``1/3``): before numeric evidence alone says "equal", the two sides
#: are evaluated again at a couple of the points with this many digits, and must agree to PRECISE_GAP.
PRECISE_DIGITS = 40
PRECISE_GAP = 1e-25
PRECISE_POINTS = 2


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
class _Numeric:
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


def _numeric_compare(e: sp.Basic, a: sp.Basic, variables, seed: int, deadline: float,
                     rtol: float, atol: float, n_points: int, hold: Iterable[sp.Symbol] = ()) -> _Numeric:
    """``hold``: symbols given the same value at every point (the first point's)."""
    res = _Numeric()
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


def _jsonable(v):
    if isinstance(v, complex):
        return {"re": v.real, "im": v.imag}
    return v


# ---------------------------------------------------------------------------------------------------
# The entry point

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
    num = _numeric_compare(e, a, variables, seed, deadline, rtol, atol, n_points)
    details: dict[str, Any] = {"valid_points": num.valid}
    if num.refuted_at is not None:
        pt = num.refuted_at
        return EquivalenceResult("not_equal", "numeric", "values differ at a sample point",
                                 {**details, "point": pt["point"], "expected_value": _jsonable(pt["expected"]),
                                  "answer_value": _jsonable(pt["answer"])})
    if num.timed_out:
        return EquivalenceResult("undecided", "timeout", "time ran out during numeric comparison", details,
                                 timed_out=True)
    # 3. symbolic. After strong numeric agreement only a proof (method "symbolic") or a tiny constant
    # difference (caught by the cheap rewrites) can change anything, so simplify is skipped and the
    # layer gets a short budget; otherwise it gets the rest of the budget and simplify.
    strong = num.strong(n_points) and not require_proof
    sym_deadline = min(deadline, budget.clock() + STRONG_SYMBOLIC_BUDGET) if strong else deadline
    verdict, info = symbolic_zero(a - e, sym_deadline, allow_simplify=not strong)
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
    num = _numeric_compare(sp.Integer(0), d, variables, seed, deadline, 0, float("inf"), n_points,
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
                                         {**details, "differences": [_jsonable(vals[0]), _jsonable(vals[i])]})
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
                             {**details, "constant": _jsonable(vals[0]) if vals else None}, timed_out=cut)


# ---------------------------------------------------------------------------------------------------
# Decimals within a stated tolerance

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
                                             {"point": {s.name: _jsonable(v) for s, v in pt.items()},
                                              "expected_value": _jsonable(ve), "answer_value": _jsonable(va)})
    except BudgetExceeded:
        return EquivalenceResult("undecided", "timeout", "time ran out", timed_out=True)
    except Exception as exc:  # never a crash on odd expressions
        return EquivalenceResult("undecided", "error", f"could not compare ({type(exc).__name__})")
    if valid < min(MIN_POINTS, n_points):
        return EquivalenceResult("undecided", "too_few_points", f"only {valid} sample points could be evaluated",
                                 {"valid_points": valid})
    return EquivalenceResult("equal", "tolerance", f"within the tolerance at {valid} sample points",
                             {"valid_points": valid, "rtol": rtol, "atol": atol})


# ---------------------------------------------------------------------------------------------------
# same_form

def tree_size(expr: sp.Basic) -> int:
    return sum(1 for _ in sp.preorder_traversal(expr))


def trivial_subterms(expr: sp.Basic) -> list[str]:
    """Sub-terms a simplified answer would not contain (only possible in unevaluated trees)."""
    found = []
    for node in sp.preorder_traversal(expr):
        if node.is_Add and any(arg == 0 for arg in node.args):
            found.append(f"adds 0 in {node}")
        elif node.is_Mul and any(arg == 1 for arg in node.args):
            found.append(f"multiplies by 1 in {node}")
        elif node.is_Pow and node.exp in (0, 1):
            found.append(f"power {node.exp} in {node}")
        elif isinstance(node, sp.log) and isinstance(node.args[0], sp.exp):
            found.append(f"log(exp(...)) in {node}")
        elif isinstance(node, sp.exp) and isinstance(node.args[0], sp.log):
            found.append(f"exp(log(...)) in {node}")
        elif node.is_Add and len(node.args) != len(set(node.args)):
            found.append(f"repeated term in {node}")
    return found


def form_problems(expected: sp.Basic, answer: sp.Basic) -> list[str]:
    """Why ``answer`` is not in a form comparable to ``expected`` ([] when it is).

    Definition (documented in docs/supported-input.md): the answer's expression tree has no more nodes
    than the expected one's (after sympy's automatic evaluation), and it contains no trivial
    sub-terms (+0, *1, ^1, ^0, log(exp(.)), exp(log(.)), a term repeated in a sum).
    """
    problems = []
    se, sa = tree_size(expected), tree_size(answer)
    if sa > se:
        problems.append(f"the answer has {sa} nodes, the expected form {se}")
    problems += trivial_subterms(answer)
    return problems


def cache_size() -> int:
    return len(_MEMO)


__all__ = ["BudgetExceeded", "EquivalenceResult", "MODES", "cache_size", "check_equivalence", "check_within_tolerance",
           "clear_cache", "precise_gap",
           "evaluate", "form_problems", "interrupt_at",
           "rewrite_named", "sample_points", "symbol_domain", "symbolic_zero", "tree_size"]
