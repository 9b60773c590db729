"""Plain-text maths: operators, implicit multiplication, Greek, subscripts, functions, errors."""

import math

import pytest
import sympy as sp

from checkers.mathparse import (ParsedMath, domain_of, evaluate_numeric, parse_math, render_plain,
                                symbols_for, variable_specs)
from checkers.verdict import AnswerParseError, SpecError

V = {
    "beta": {"positive": True}, "Delta": {"real": True}, "r": {"positive": True},
    "pi_theta": {"domain": "probability"}, "pi_ref": {"domain": "probability"},
    "x": {}, "y": {}, "r_w": {"real": True}, "p": {"domain": "probability"}, "n": {"integer": True},
}
S = symbols_for(V)
beta, Delta, r, x, y, p = S["beta"], S["Delta"], S["r"], S["x"], S["y"], S["p"]
pt, pr, rw = S["pi_theta"], S["pi_ref"], S["r_w"]


def P(text, **kw):
    return parse_math(text, V, **kw).expr


@pytest.mark.parametrize("text, expected", [
    ("exp(-Delta) + Delta - 1", sp.exp(-Delta) + Delta - 1),
    ("x^2", x**2), ("x**2", x**2), ("x^-1", 1 / x), ("2^-1", sp.Rational(1, 2)),
    ("-x^2", -x**2), ("2^3^2", sp.Integer(512)), ("x^y^2", x**(y**2)),
    ("2x", 2 * x), ("2 x", 2 * x), ("x y", x * y), ("xy", x * y), ("(x)(y)", x * y),
    ("2(x+1)", 2 * (x + 1)), ("(x+1)(x-1)", (x + 1) * (x - 1)), ("x(y)", x * y),
    ("beta log r", beta * sp.log(r)), ("beta*log(r)", beta * sp.log(r)),
    ("1/2x", x / 2), ("1/(2x)", 1 / (2 * x)), ("x/y/2", x / y / 2),
    ("β Δ", beta * Delta), ("βΔ", beta * Delta), ("β·Δ", beta * Delta), ("β×Δ", beta * Delta),
    ("x − y", x - y), ("√x", sp.sqrt(x)), ("√(x+1)", sp.sqrt(x + 1)), ("x²", x**2), ("x⁻¹", 1 / x),
    ("pi_theta", pt), ("π_θ", pt), ("pi_ref", pr), ("pi_{ref}", pr), ("r_w", rw), ("r_{w}", rw),
    ("log(pi_theta/pi_ref)", sp.log(pt / pr)), ("ln x", sp.log(x)), ("ln(x)", sp.log(x)),
    ("log x / y", sp.log(x) / y), ("ln 2x", sp.log(2 * x)), ("lnx", sp.log(x)),
    ("log(x, 2)", sp.log(x) / sp.log(2)), ("log_2 x", sp.log(x) / sp.log(2)), ("log_2(x)", sp.log(x, 2)),
    ("log2(x)", sp.log(x, 2)), ("log10(x)", sp.log(x, 10)),
    ("e", sp.E), ("E", sp.E), ("e^x", sp.exp(x)), ("2e^x", 2 * sp.exp(x)), ("exp(x)", sp.exp(x)),
    ("pi", sp.pi), ("2pi", 2 * sp.pi), ("2 pi x", 2 * sp.pi * x),
    ("sqrt(x)", sp.sqrt(x)), ("abs(x)", sp.Abs(x)), ("|x|", sp.Abs(x)), ("|x - y| + 1", sp.Abs(x - y) + 1),
    ("|x||y|", sp.Abs(x) * sp.Abs(y)), ("Abs(x)", sp.Abs(x)),
    ("min(x, y)", sp.Min(x, y)), ("max(x, y, 0)", sp.Max(x, y, 0)), ("Min(x, y)", sp.Min(x, y)),
    ("clip(x, 0, 1)", sp.Min(sp.Max(x, 0), 1)),
    ("tanh(x)", sp.tanh(x)), ("sinh(x) + cosh(x)", sp.sinh(x) + sp.cosh(x)),
    ("sigmoid(x)", 1 / (1 + sp.exp(-x))), ("σ(x)", 1 / (1 + sp.exp(-x))), ("sigma(x)", 1 / (1 + sp.exp(-x))),
    ("logsigmoid(x)", -sp.log(1 + sp.exp(-x))), ("softplus(x)", sp.log(1 + sp.exp(x))),
    ("0.5", sp.Rational(1, 2)), ("0.1x", x / 10), (".5", sp.Rational(1, 2)), ("2e-5", sp.Rational(1, 50000)),
    ("1.5E3", sp.Integer(1500)), ("1 - -0.3", sp.Rational(13, 10)), ("+x", x), ("--x", x),
    ("[x + 1]^2", (x + 1)**2), ("{x + 1}^2", (x + 1)**2),
    ("x\ty\n", x * y), ("（x＋1）", x + 1), ("x^(1/2)", sp.sqrt(x)), ("x^0.5", sp.sqrt(x)),
])
def test_plain_cases(text, expected):
    got = P(text)
    assert got == expected or sp.simplify(got - expected) == 0, (text, got, expected)


def test_result_object():
    pm = parse_math("exp(-Delta) + Delta - 1", V)
    assert isinstance(pm, ParsedMath)
    assert pm.relation is False and pm.lhs is None and pm.rhs is None
    assert pm.source == "exp(-Delta) + Delta - 1"
    assert parse_math(pm.text, V).expr == pm.expr
    assert "e^{- \\Delta}" in pm.latex
    assert pm.mathml.startswith("<m")


def test_relations():
    pm = parse_math("x + 1 = y", V, allow_relation=True)
    assert pm.relation and pm.lhs == x + 1 and pm.rhs == y
    assert isinstance(pm.expr, sp.Equality)
    assert parse_math(pm.text, V, allow_relation=True).expr == pm.expr
    assert parse_math("x <= y", V, allow_relation=True).expr == sp.Le(x, y)
    assert parse_math("x ≥ y", V, allow_relation=True).expr == sp.Ge(x, y)
    for bad in ("x = y", "x < y", "x >= y", "x != y"):
        with pytest.raises(AnswerParseError) as ei:
            parse_math(bad, V)
        assert ei.value.column == bad.index(bad.split()[1])
    with pytest.raises(AnswerParseError):
        parse_math("x = y = 1", V, allow_relation=True)
    with pytest.raises(AnswerParseError):
        parse_math("x = ", V, allow_relation=True)


def test_exact_mode():
    assert parse_math("1/2 x", V, exact=True).expr == x / 2
    for bad in ("0.5x", "2e-5", "x + .5"):
        with pytest.raises(AnswerParseError) as ei:
            parse_math(bad, V, exact=True)
        assert "exact" in ei.value.message
        assert ei.value.message_zh != ei.value.message


def test_assumptions_and_domains():
    assert beta.is_positive and pt.is_positive and x.is_real and S["n"].is_integer
    assert symbols_for(V)["beta"] is beta
    assert symbols_for(dict(reversed(list(V.items()))))["pi_theta"] is pt
    d = domain_of("pi_theta", V)
    assert (d.lo, d.hi, d.lo_open, d.hi_open) == (0.0, 1.0, True, True)
    assert domain_of("beta", V).lo == 0.0 and domain_of("beta", V).hi == math.inf
    assert domain_of("x", V).lo == -math.inf
    assert domain_of("n", V).integer
    assert variable_specs(V)["p"].symbol is p
    assert symbols_for({"β": {"positive": True}}) == {"beta": sp.Symbol("beta", positive=True)}
    assert symbols_for(["a", "b"])["a"].is_real
    with pytest.raises(SpecError):
        symbols_for({"log": {}})
    with pytest.raises(SpecError):
        symbols_for({"x": {"domain": "banana"}})
    with pytest.raises(SpecError):
        symbols_for({"x": {"positive": True, "negative": True}})
    with pytest.raises(SpecError):
        domain_of("zz", V)


def test_constants_can_be_shadowed():
    e_var = symbols_for({"e": {}})["e"]
    assert parse_math("e + E", {"e": {}}).expr == e_var + sp.E
    pi_var = symbols_for({"pi": {"positive": True}})["pi"]
    assert parse_math("2 pi", {"pi": {"positive": True}}).expr == 2 * pi_var
    sigma = symbols_for({"sigma": {"positive": True}})["sigma"]
    assert parse_math("sigma^2", {"sigma": {"positive": True}}).expr == sigma**2


def test_per_question_functions():
    fns = {"f": {"args": ["x"], "expr": "exp(x) - x - 1"}, "g": {"args": ["a", "b"], "expr": "a*log(a/b)"}}
    assert parse_math("f(Delta)", V, fns).expr == sp.exp(Delta) - Delta - 1
    assert parse_math("f(-Delta) + 1", V, fns).expr == sp.exp(-Delta) + Delta
    assert parse_math("g(p, 1 - p)", V, fns).expr == p * sp.log(p / (1 - p))
    assert parse_math("f(f(x))", V, fns).expr == sp.exp(sp.exp(x) - x - 1) - (sp.exp(x) - x - 1) - 1
    with pytest.raises(AnswerParseError):
        parse_math("f(x, y)", V, fns)
    with pytest.raises(SpecError):
        parse_math("f(x)", V, {"f": {"args": ["x"], "expr": "exp(x"}})
    with pytest.raises(SpecError):
        parse_math("x", V, {"exp": {"args": ["x"], "expr": "x"}})
    assert evaluate_numeric("f(0.5)", {}, fns) == pytest.approx(math.exp(0.5) - 1.5)


@pytest.mark.parametrize("text, name, col", [
    ("z + 1", "z", 0), ("x + bta", "bta", 4), ("pi_old", "pi_old", 0), ("foo(x)", "foo", 0),
    ("sinc(x)", "sinc", 0), ("x + theta", "theta", 4),
])
def test_unknown_names(text, name, col):
    with pytest.raises(AnswerParseError) as ei:
        parse_math(text, V)
    assert ei.value.column == col
    assert repr(name)[1:-1] in ei.value.message
    assert ei.value.message_zh and ei.value.message_zh != ei.value.message


def test_did_you_mean():
    with pytest.raises(AnswerParseError) as ei:
        parse_math("bta * 2", V)
    assert "Did you mean 'beta'" in ei.value.message
    with pytest.raises(AnswerParseError) as ei:
        parse_math("pi_thta", V)
    assert "pi_theta" in ei.value.message


@pytest.mark.parametrize("text, col", [
    ("", 0), ("x +", 2), ("(x", 0), ("x)", 1), ("x + (y", 4), ("()", 0), ("2 3", 2), ("x 2", 2),
    ("f(", None), ("log()", 3), ("x,y", 1), ("x'", 1), ("x!", 1),
])
def test_syntax_errors_have_columns(text, col):
    with pytest.raises(AnswerParseError) as ei:
        parse_math(text, V)
    if col is not None:
        assert ei.value.column == col, ei.value.message


def test_evaluate_numeric():
    assert evaluate_numeric("ln(2)/2", {}) == pytest.approx(math.log(2) / 2)
    assert evaluate_numeric("0.5*log(0.8/0.7)", {}) == pytest.approx(0.5 * math.log(0.8 / 0.7))
    assert evaluate_numeric("1 - p", {"p": 0.25}) == 0.75
    assert evaluate_numeric("1 - -0.3", {}) == pytest.approx(1.3)
    assert evaluate_numeric("2*k", {"k": 1e-05}) == pytest.approx(2e-05)
    assert evaluate_numeric("sigmoid(800)", {}) == 1.0
    assert evaluate_numeric("softplus(-800) + logsigmoid(0)", {}) == pytest.approx(-math.log(2))
    assert evaluate_numeric("e^x pi", {"x": 1}) == pytest.approx(math.e * math.pi)
    assert evaluate_numeric("clip(x, 0.8, 1.2)", {"x": 2}) == 1.2
    assert evaluate_numeric("min(x, 3, 2)", {"x": 5, "flag": True, "lst": [1, 2]}) == 2
    for bad in ("log(0)", "1/0", "sqrt(-1)", "(-8)^(1/3)", "exp(1000)", "2^(10^10)", "x", "1 +", "p = 1"):
        with pytest.raises(AnswerParseError):
            evaluate_numeric(bad, {"p": 0.5})
    with pytest.raises(AnswerParseError):
        evaluate_numeric("p*q", {"p": 0.5, "q": float("nan")})


def test_numeric_matches_symbolic():
    vals = {"beta": 0.3, "Delta": -1.2, "r": 1.7, "x": 0.4, "y": 2.5}
    for text in ("beta log r + exp(-Delta)", "sigmoid(beta Delta) - softplus(x)", "|x - y|^3 / 2",
                 "clip(r, 0.8, 1.2) x", "logsigmoid(beta*(x - y))", "log_2(r) + tanh(x) sinh(y)"):
        sym = parse_math(text, V).expr
        num = float(sym.subs({S[k]: v for k, v in vals.items()}).evalf())
        assert evaluate_numeric(text, vals) == pytest.approx(num, rel=1e-12), text


def test_render_plain_reads_back():
    for text in ("exp(-Delta) + Delta - 1", "|x| - min(x, y)", "sigmoid(beta Delta)", "x^(1/3) + 1/x",
                 "e^(x y) / 2", "log(pi_theta/pi_ref) r_w"):
        expr = P(text)
        assert P(render_plain(expr)) == expr


def test_cache_returns_same_object():
    a = parse_math("beta log r", V)
    b = parse_math("beta log r", dict(V))
    assert a is b
