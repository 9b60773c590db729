"""Backends: resolved AST -> sympy object, and resolved AST -> float.

Only the constructors named here are ever called; numbers are built from Python ints (via
:class:`fractions.Fraction` for decimals), never from strings handed to sympy.  Before any power is
built its numeric base and exponent are measured, because sympy evaluates ``2**(10**10)`` eagerly.
"""

from __future__ import annotations

import gc
import math
from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy
from sympy import Abs, Add, Integer, Max, Min, Mul, Pow, Rational

from ..budget import clock as budget_clock
from .lexer import err
from .limits import BUILD_BUDGET_S, MAX_DEGREE, MAX_GAMMA_ARG, MAX_POWER_BITS, MAX_ROOT

_RELATIONS = {"=": sympy.Eq, "<": sympy.Lt, ">": sympy.Gt, "<=": sympy.Le, ">=": sympy.Ge, "!=": sympy.Ne}


def number(text: str) -> sympy.Rational:
    """Decimal literals are kept exact: ``0.1`` is 1/10, ``2.5e-3`` is 1/400 (never a binary float)."""
    if "." in text or "e" in text or "E" in text:
        f = Fraction(text)
        return Rational(f.numerator, f.denominator)
    return Integer(int(text))


def _too_big(col: int):
    return err("The power at column %(column)s is too large to work with.", col, column=col + 1)


def _bits(r: sympy.Rational) -> int:
    return max(abs(int(r.p)).bit_length(), int(r.q).bit_length())


def _log2_size(base: sympy.Expr) -> float:
    """log2 of the largest integer an exact power of ``base`` is built from (numerator or denominator).

    A rational p/q gives max(log2|p|, log2 q); another number (``sqrt(2)``, ``pi``) the sum over its
    rational atoms, at least 1, since sympy may fold its powers into rationals (sqrt(2)^n = 2^(n/2)).
    """
    if isinstance(base, Rational):
        p, q = abs(int(base.p)), int(base.q)
        return max(math.log2(p) if p > 1 else 0.0, math.log2(q) if q > 1 else 0.0)
    return max(1.0, sum(_log2_size(a) for a in base.atoms(Rational)))


def _check_power(base: sympy.Expr, exp: sympy.Expr, col: int) -> None:
    """Bound the *work* of ``base^exp``: the bits of the result for a numeric base, the degree of
    the expansion for a symbolic one, and the root index; never the look of the exponent."""
    if isinstance(base, Rational) and abs(base) in (0, 1):
        return
    if isinstance(exp, Rational):
        if exp.q > MAX_ROOT:
            raise _too_big(col)
        if base.is_number:
            if _log2_size(base) * abs(float(exp)) > MAX_POWER_BITS:
                raise _too_big(col)
        elif abs(exp) > MAX_DEGREE:
            raise _too_big(col)
    elif base.is_number and exp.is_number:
        # 2^(sqrt(2)*10^6) stays symbolic in sympy, but numeric evaluation later would not.
        try:
            mag = abs(float(exp))
        except (TypeError, ValueError, OverflowError):
            mag = math.inf
        if not mag * _log2_size(base) <= MAX_POWER_BITS:
            raise _too_big(col)


def _check_result(out: sympy.Expr, col: int) -> None:
    # sympy folds (x^a)^b and sqrt(2)^n; re-check what it produced.
    if isinstance(out, Pow):
        _check_power(out.base, out.exp, col)
    if isinstance(out, Rational) and _bits(out) > MAX_POWER_BITS:
        raise _too_big(col)


def guarded_pow(base: sympy.Expr, exp: sympy.Expr, col: int, evaluate: bool = True) -> sympy.Expr:
    if base is sympy.E:
        return guarded_exp(exp, col, evaluate)
    _check_power(base, exp, col)
    out = Pow(base, exp, evaluate=evaluate)
    _check_result(out, col)
    return out


def guarded_exp(arg: sympy.Expr, col: int, evaluate: bool = True) -> sympy.Expr:
    # exp(n*log(b)) evaluates to b**n in sympy: bound that power before sympy builds it.
    for term in Add.make_args(arg):
        c, rest = term.as_coeff_Mul()
        if isinstance(rest, sympy.log) and isinstance(c, Rational):
            _check_power(rest.args[0], c, col)
    out = sympy.exp(arg, evaluate=evaluate)
    _check_result(out, col)
    return out


def _sized(out: Any) -> Any:
    # Products of many allowed powers (10^1000 * 10^1000 * ...) can still outgrow the printers.
    coeff = out.as_coeff_Mul()[0] if isinstance(out, sympy.Mul) else out
    if isinstance(coeff, Rational) and _bits(coeff) > MAX_POWER_BITS:
        raise err("A number in the answer is too large to work with.", None)
    return out


def _presize(args: list[Any]) -> None:
    # Bits of a product (or of a common denominator) are at most the sum of the operands' bits:
    # refuse before sympy spends time multiplying.
    total = 0
    for a in args:
        c = a.as_coeff_Mul()[0] if isinstance(a, sympy.Mul) else a
        if isinstance(c, Rational):
            total += _bits(c)
    if total > MAX_POWER_BITS:
        raise err("A number in the answer is too large to work with.", None)


#: One-argument functions built as the sympy function of the same meaning.
_SYMPY_FUNCS: dict[str, Any] = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "sec": sympy.sec, "csc": sympy.csc,
    "cot": sympy.cot, "asin": sympy.asin, "acos": sympy.acos, "atan": sympy.atan, "asec": sympy.asec,
    "acsc": sympy.acsc, "acot": sympy.acot, "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh,
    "sech": sympy.sech, "csch": sympy.csch, "coth": sympy.coth, "asinh": sympy.asinh,
    "acosh": sympy.acosh, "atanh": sympy.atanh, "asech": sympy.asech, "acsch": sympy.acsch,
    "acoth": sympy.acoth, "sign": sympy.sign, "floor": sympy.floor, "ceil": sympy.ceiling,
    "erf": sympy.erf, "erfc": sympy.erfc, "gamma": sympy.gamma,
}


MAX_GC_GRACE = 3


def _collections() -> int:
    # Older generations only: young-generation collections are frequent and cheap.
    return sum(g["collections"] for g in gc.get_stats()[1:])


class SympyBuilder:
    def __init__(self, symbols: Mapping[str, sympy.Symbol],
                 functions: Mapping[str, tuple[list[sympy.Symbol], sympy.Expr]], evaluate: bool = True,
                 budget_s: float | None = BUILD_BUDGET_S):
        self.symbols = symbols
        self.functions = functions
        self.ev = evaluate
        self.budget_s = budget_s
        self.deadline = budget_clock() + budget_s if budget_s is not None else float("inf")
        self.collections = _collections()
        self.grace = MAX_GC_GRACE

    def build(self, node: Any) -> Any:
        out = self._node(node)
        # Checked after each node (post-order), where sympy's evaluation cost is actually paid.
        if budget_clock() > self.deadline and not self._gc_grace():
            raise err("The answer is too complex to process; please simplify it.", None)
        return out

    def _gc_grace(self) -> bool:
        """Extend the budget once per garbage collection that ran meanwhile (at most MAX_GC_GRACE times).

        A collection runs in whichever thread allocated last and scans the whole process: in a large
        process it can cost more CPU time than the whole budget, for reasons that are not the answer's.
        gc's own counters tell that one happened, without a callback that a signal could interrupt.
        """
        now = _collections()
        if now == self.collections or self.grace <= 0 or self.budget_s is None:
            return False
        self.collections = now
        self.grace -= 1
        self.deadline = budget_clock() + self.budget_s
        return True

    def _node(self, node: Any) -> Any:
        kind = node[0]
        ev = self.ev
        if kind == "num":
            return number(node[1])
        if kind == "var":
            return self.symbols[node[1]]
        if kind == "const":
            return sympy.E if node[1] == "E" else sympy.pi
        if kind == "neg":
            return Mul(sympy.S.NegativeOne, self.build(node[1]), evaluate=ev)
        if kind == "sum":
            terms = []
            for sign, sub in node[1]:
                x = self.build(sub)
                terms.append(x if sign > 0 else Mul(sympy.S.NegativeOne, x, evaluate=ev))
            _presize(terms)
            return _sized(Add(*terms, evaluate=ev))
        if kind == "prod":
            factors = []
            for sub, div in node[1]:
                x = self.build(sub)
                factors.append(Pow(x, sympy.S.NegativeOne, evaluate=ev) if div else x)
            _presize(factors)
            return _sized(Mul(*factors, evaluate=ev))
        if kind == "pow":
            return guarded_pow(self.build(node[1]), self.build(node[2]), node[3], ev)
        if kind == "call":
            return self.call(node[1], [self.build(a) for a in node[2]], node[3])
        if kind == "ucall":
            params, body = self.functions[node[1]]
            args = [self.build(a) for a in node[2]]
            return body.xreplace(dict(zip(params, args)))
        if kind == "rel":
            return _RELATIONS[node[1]](self.build(node[2]), self.build(node[3]), evaluate=False)
        raise AssertionError(f"unknown node {kind}")

    def call(self, f: str, a: list[Any], col: int) -> Any:
        ev = self.ev
        x = a[0]
        if f == "exp":
            return guarded_exp(x, col, ev)
        if f == "log":
            if len(a) == 2:
                return sympy.log(x, a[1], evaluate=ev)
            return sympy.log(x, evaluate=ev)
        if f == "log2":
            return sympy.log(x, Integer(2), evaluate=ev)
        if f == "log10":
            return sympy.log(x, Integer(10), evaluate=ev)
        if f == "sqrt":
            return Pow(x, Rational(1, 2), evaluate=ev)
        if f == "abs":
            return Abs(x, evaluate=ev)
        if f == "min":
            return Min(*a, evaluate=ev)
        if f == "max":
            return Max(*a, evaluate=ev)
        if f == "clip":
            return Min(Max(x, a[1], evaluate=ev), a[2], evaluate=ev)
        # The three RLHF staples are spelled out in exp/log so equivalence checking needs no rewrite
        # rules; the preview shows e.g. 1/(1 + exp(-x)).
        if f == "sigmoid":
            return Pow(Add(1, guarded_exp(-x, col, ev), evaluate=ev), -1, evaluate=ev)
        if f == "logsigmoid":
            return -sympy.log(Add(1, guarded_exp(-x, col, ev), evaluate=ev), evaluate=ev)
        if f == "softplus":
            return sympy.log(Add(1, guarded_exp(x, col, ev), evaluate=ev), evaluate=ev)
        if f == "cbrt":
            return guarded_pow(x, Rational(1, 3), col, ev)
        if f == "root":  # principal n-th root, as sympy's root(x, n)
            return guarded_pow(x, Pow(a[1], -1, evaluate=ev), col, ev)
        if f == "gamma" and x.is_number and isinstance(x, Rational) and abs(x) > MAX_GAMMA_ARG:
            # sympy evaluates gamma(n) as (n-1)!: bound the size of that number.
            raise err("The argument of gamma at column %(column)s is too large to work with.", col, column=col + 1)
        if f == "atan2":
            return sympy.atan2(x, a[1], evaluate=ev)
        return _SYMPY_FUNCS[f](x, evaluate=ev)


def check_finite_real(expr: Any, text: str) -> None:
    """Reject 1/0, log(0), sqrt(-1)...: sympy folds them into zoo / nan / I."""
    S = sympy.S
    for a in expr.atoms():
        if a is S.ImaginaryUnit:
            raise err("The answer is not a real number (square root or log of a negative number?).", None)
        if a is S.ComplexInfinity or a is S.NaN or a is S.Infinity or a is S.NegativeInfinity:
            raise err("The answer divides by zero or is otherwise undefined (e.g. log(0), 1/0).", None)


# -- floats ------------------------------------------------------------------------------------

def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


_FLOAT_FUNCS: dict[str, Callable[..., float]] = {
    "exp": math.exp, "sqrt": math.sqrt, "abs": abs, "min": min, "max": max, "sigmoid": _sigmoid,
    "logsigmoid": lambda x: -_softplus(-x), "softplus": _softplus,
    "clip": lambda x, lo, hi: min(max(x, lo), hi), "log2": math.log2, "log10": math.log10,
    "log": lambda x, b=None: math.log(x) if b is None else math.log(x) / math.log(b),
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "sec": lambda x: 1 / math.cos(x),
    "csc": lambda x: 1 / math.sin(x), "cot": lambda x: 1 / math.tan(x), "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "asec": lambda x: math.acos(1 / x),
    "acsc": lambda x: math.asin(1 / x), "acot": lambda x: math.atan(1 / x) if x else math.pi / 2,
    "atan2": math.atan2, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "sech": lambda x: 1 / math.cosh(x), "csch": lambda x: 1 / math.sinh(x), "coth": lambda x: 1 / math.tanh(x),
    "asinh": math.asinh, "acosh": math.acosh, "atanh": math.atanh, "asech": lambda x: math.acosh(1 / x),
    "acsch": lambda x: math.asinh(1 / x), "acoth": lambda x: math.atanh(1 / x),
    "sign": lambda x: float((x > 0) - (x < 0)), "floor": math.floor, "ceil": math.ceil,
    "erf": math.erf, "erfc": math.erfc, "gamma": math.gamma, "cbrt": lambda x: math.pow(x, 1 / 3),
    "root": lambda x, n: math.pow(x, 1 / n),
}


class FloatEvaluator:
    """Numeric twin of :class:`SympyBuilder` (plain floats: fast, and overflow raises)."""

    def __init__(self, values: Mapping[str, float], functions: Mapping[str, tuple[list[str], Any]]):
        self.env = dict(values)
        self.functions = functions

    def ev(self, node: Any) -> float:
        kind = node[0]
        if kind == "num":
            return float(Fraction(node[1])) if "." in node[1] or "e" in node[1].lower() else float(int(node[1]))
        if kind == "var":
            return float(self.env[node[1]])
        if kind == "const":
            return math.e if node[1] == "E" else math.pi
        if kind == "neg":
            return -self.ev(node[1])
        if kind == "sum":
            total = 0.0
            for sign, sub in node[1]:
                total += self.ev(sub) if sign > 0 else -self.ev(sub)
            return total
        if kind == "prod":
            acc = 1.0
            for sub, div in node[1]:
                acc = acc / self.ev(sub) if div else acc * self.ev(sub)
            return acc
        if kind == "pow":
            b, e = self.ev(node[1]), self.ev(node[2])
            return math.pow(b, e)
        if kind == "call":
            return float(_FLOAT_FUNCS[node[1]](*[self.ev(a) for a in node[2]]))
        if kind == "ucall":
            params, body = self.functions[node[1]]
            args = [self.ev(a) for a in node[2]]
            saved = self.env
            self.env = {**saved, **dict(zip(params, args))}
            try:
                return self.ev(body)
            finally:
                self.env = saved
        raise err("A relation (=, <, >) cannot be evaluated to a number.", None)
