"""The bounded symbolic layer: does ``a - e`` reduce to zero?

Named RLHF functions are rewritten to exp/log/Max/Min forms (:func:`rewrite_named`), then the
difference goes through cheap rewrites (expand, cancel, expand_log / logcombine / powsimp with
``force`` only when every symbol is positive, and an exp/log normal form) and, when allowed and the
difference has at most ``SIMPLIFY_MAX_OPS`` operations, ``simplify``. Every step checks the deadline,
and a single sympy call is interrupted at it in sandbox workers (:mod:`.interrupt`).

Before that chain, a difference that contains hyperbolic or trigonometric functions gets one cheap
proof of its own (:func:`exp_rational_zero`): every such function is a rational function of ``exp`` of
its argument (``tanh u = (e^u - e^-u)/(e^u + e^-u)``, ``sin u = (e^{iu} - e^{-iu})/(2i)``, ...), so
after that rewrite, expanding the exponents and putting everything over one denominator, an identity
such as ``(1 + tanh(x/2))/2 = sigmoid(x)`` cancels to 0 in milliseconds, where ``simplify`` takes
hundreds. The rewrites are identities for every complex argument (no assumption is used), so the
proof is as sound as the ``cancel`` step of the chain. Likewise inverse hyperbolic functions are
written as logarithms (:func:`log_form`, log rules forced only under declared positivity, as in the
chain) and gamma functions go through ``gammasimp`` (``x gamma(x) = gamma(x + 1)``).
"""

from __future__ import annotations

from typing import Any, Callable

import sympy as sp

from .. import budget
from .constants import SIMPLIFY_MAX_OPS
from .interrupt import BudgetExceeded, interrupt_at

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


#: Functions that are rational functions of ``exp`` of their argument (trigonometric ones of
#: ``exp(i*u)``): :func:`exp_rational_zero` rewrites them before cancelling.
EXP_RATIONAL = (sp.tanh, sp.sinh, sp.cosh, sp.coth, sp.sech, sp.csch,
                sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)


def exp_rational_form(expr: sp.Basic) -> sp.Basic | None:
    """``expr`` with hyperbolic / trigonometric functions written as exp, exponents expanded
    (``exp(a + b) = exp(a) exp(b)``) and over one denominator; ``None`` when it has none of them."""
    if not expr.has(*EXP_RATIONAL):
        return None
    return sp.cancel(sp.together(sp.powsimp(sp.expand(expr.rewrite(list(EXP_RATIONAL), sp.exp)))))


#: Inverse hyperbolic functions, logarithms in disguise: :func:`log_form` rewrites them.
INVERSE_HYPERBOLIC = (sp.asinh, sp.acosh, sp.atanh, sp.acoth)


def log_form(expr: sp.Basic, force: bool) -> sp.Basic | None:
    """``expr`` with inverse hyperbolic functions written as logarithms (``atanh u = (log(1 + u) -
    log(1 - u))/2``, ``asinh u = log(u + sqrt(u^2 + 1))``, sympy's principal-branch forms), the logs
    expanded (with ``force`` only when every symbol is positive, as in the chain) and multiplied out;
    ``None`` when it has none of them."""
    if not expr.has(*INVERSE_HYPERBOLIC):
        return None
    return sp.expand(sp.expand_log(expr.rewrite(list(INVERSE_HYPERBOLIC), sp.log), force=force))


def rational_polynomial_nonzero(expr: sp.Basic) -> bool:
    """``expr`` is a polynomial in its symbols, with rational or algebraic coefficients (``sqrt(2)``),
    that is not zero and not a number (``x/3 - 333333333333333 x/10^15``). Over those coefficient
    fields a polynomial's expanded form is canonical, so ``simplify`` cannot reduce it to 0 or to a
    constant and is skipped; the verdict stays ``unknown``, as ``simplify`` would have left it."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    if not syms or not expr.is_polynomial(*syms):
        return False
    try:
        poly = sp.Poly(expr, *syms, extension=True)  # sqrt(2) joins QQ<sqrt(2)>, where zero is exact
    except (sp.PolynomialError, NotImplementedError):
        return False
    # over ZZ, QQ or a number field a coefficient is zero exactly when it is 0; a ring over pi or E
    # (or the catch-all EX domain) may hide a zero, so those are left to simplify
    exact = poly.domain in (sp.ZZ, sp.QQ) or poly.domain.is_AlgebraicField
    return exact and not poly.is_zero and not poly.is_ground


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

    if not _too_big(d):
        # cheap proofs for function families, each on the difference as given (the chain below may
        # rearrange it into a form that no longer cancels); a family absent from d costs nothing
        for name, proof in (("exp_rational", exp_rational_form),
                            ("log_form", lambda x: log_form(x, force)),
                            ("gammasimp", lambda x: sp.gammasimp(x) if x.has(sp.gamma) else None)):
            if budget.clock() > deadline:
                return "timeout", name
            try:
                d2 = proof(d)
            except Exception:  # a rewrite sympy cannot do is a proof that did not happen
                continue
            if d2 is not None and (d2 == 0 or d2.is_zero):
                return "zero", name
            if d2 is not None and d2.is_Number:
                return "nonzero", d2
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
        if rational_polynomial_nonzero(d):
            # simplify could only hand the same non-zero polynomial back (neither 0 nor a number)
            return "unknown", d
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

