"""A tree-walking float evaluator for sympy expressions (fast, and no generated code).

``lambdify`` would ``exec`` generated code, so the tree is walked here: numbers, + * ^, the elementary
functions (real where the point is real and inside the real domain, ``cmath`` otherwise) and the
RLHF staples a parser keeps unevaluated (sigmoid, softplus, logsigmoid, relu, clip). Node types it does
not know fall back to sympy's ``evalf`` with the numbers substituted. A point where a side is not a
finite number gives ``None`` and is skipped by the callers.
"""

from __future__ import annotations

import cmath
import math
from typing import Any, Callable, Mapping

import sympy as sp

from .constants import ATOL, RTOL

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

