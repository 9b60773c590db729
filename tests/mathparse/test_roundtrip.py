"""Property tests: rendering a sympy expression (plain text or LaTeX) and parsing it gives it back."""

import math
import random

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkers.mathparse import evaluate_numeric, parse_math, render_latex, render_plain, symbols_for

V = {
    "x": {"positive": True}, "y": {"positive": True}, "beta": {"positive": True},
    "Delta": {"real": True}, "pi_theta": {"domain": "probability"}, "pi_ref": {"domain": "probability"},
    "r_w": {"positive": True}, "x1": {"positive": True},
}
S = symbols_for(V)
POSITIVE = [S["x"], S["y"], S["beta"], S["pi_theta"], S["pi_ref"], S["r_w"], S["x1"]]
ALL = POSITIVE + [S["Delta"]]

small_int = st.integers(min_value=1, max_value=9)
leaf = st.one_of(st.sampled_from(ALL), small_int.map(sp.Integer),
                 st.tuples(small_int, small_int).map(lambda t: sp.Rational(*t)),
                 st.just(sp.E), st.just(sp.pi))
positive_leaf = st.one_of(st.sampled_from(POSITIVE), small_int.map(sp.Integer), st.just(sp.pi))


def _extend(children):
    positive = st.one_of(positive_leaf, st.builds(lambda a: sp.exp(a), children))
    return st.one_of(
        st.builds(lambda a, b: a + b, children, children),
        st.builds(lambda a, b: a - b, children, children),
        st.builds(lambda a, b: a * b, children, children),
        st.builds(lambda a, b: a / b, children, positive),
        st.builds(lambda a, n: a**n, children, st.integers(min_value=-3, max_value=3)),
        st.builds(sp.exp, children),
        st.builds(sp.log, positive),
        st.builds(sp.sqrt, positive),
        st.builds(lambda a: 1 / (1 + sp.exp(-a)), children),
    )


exprs = st.recursive(leaf, _extend, max_leaves=8)


def _same(a, b) -> bool:
    if a == b:
        return True
    # sympy may fold differently after a round trip (e.g. exp(log x) ordering); compare numerically
    rng = random.Random(0)
    free = sorted(a.free_symbols | b.free_symbols, key=str)
    for _ in range(5):
        point = {s: sp.Rational(rng.randint(1, 99), 100) if s.is_positive else sp.Rational(rng.randint(-300, 300), 100)
                 for s in free}
        va, vb = complex(a.evalf(30, subs=point)), complex(b.evalf(30, subs=point))
        if not (math.isclose(va.real, vb.real, rel_tol=1e-9, abs_tol=1e-12)
                and math.isclose(va.imag, vb.imag, rel_tol=1e-9, abs_tol=1e-12)):
            return False
    return True


def _acceptable(expr) -> bool:
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
        return False
    return all(not (isinstance(a, sp.Rational) and max(abs(a.p), a.q) > 10**12) for a in expr.atoms(sp.Rational))


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(exprs)
def test_plain_round_trip(expr):
    if not _acceptable(expr):
        return
    text = render_plain(expr)
    got = parse_math(text, V).expr
    assert _same(got, expr), (text, got, expr)


@SETTINGS
@given(exprs)
def test_latex_round_trip(expr):
    if not _acceptable(expr):
        return
    text = render_latex(expr)
    got = parse_math(text, V).expr
    assert _same(got, expr), (text, got, expr)


@SETTINGS
@given(exprs)
def test_canonical_text_is_a_fixed_point(expr):
    if not _acceptable(expr):
        return
    pm = parse_math(render_plain(expr), V)
    assert parse_math(pm.text, V).text == pm.text


@settings(max_examples=50, deadline=None)
@given(exprs, st.floats(min_value=0.05, max_value=0.95), st.floats(min_value=-2, max_value=2))
def test_numeric_evaluation_agrees_with_sympy(expr, pos, real):
    if not _acceptable(expr):
        return
    text = render_plain(expr)
    values = {name: (real if name == "Delta" else pos) for name in V}
    try:
        want = float(expr.evalf(30, subs={S[n]: v for n, v in values.items()}))
    except (TypeError, OverflowError):
        return
    if not math.isfinite(want) or abs(want) > 1e100:
        return
    got = evaluate_numeric(text, values)
    assert math.isclose(got, want, rel_tol=1e-7, abs_tol=1e-9), (text, got, want)
