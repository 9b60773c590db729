import sympy as sp

from checkers import equivalence as eq
from checkers.mathparse import parse_math

V = {"p": {"domain": "probability"}, "q": {"domain": "probability"}, "x": {"real": True}}


def P(text):
    return parse_math(text, V).expr


def test_layers_report_their_method():
    assert eq.check_equivalence(P("x"), P("x"), V).method == "structural"
    r = eq.check_equivalence(P("log(p/q)"), P("log p - log q"), V)
    assert (r.outcome, r.method) == ("equal", "symbolic")
    r = eq.check_equivalence(P("log(p/q)"), P("log(q/p)"), V)
    assert r.outcome == "not_equal" and "point" in r.details


def test_tiny_constant_difference_is_refuted_symbolically():
    r = eq.check_equivalence(P("x"), P("x + 1/10^12"), V)
    assert (r.outcome, r.method) == ("not_equal", "symbolic")


def test_probability_samples_stay_in_the_open_unit_interval():
    p = sp.Symbol("p", positive=True)
    pts = eq.sample_points([p], V, seed=3, n=200)
    assert all(0 < pt[p] < 1 for pt in pts)


def test_cache_hits_and_timeouts_are_not_cached():
    eq.clear_cache()
    a, b = P("exp(x) exp(x)"), P("exp(2 x)")
    r1 = eq.check_equivalence(a, b, V)
    assert eq.check_equivalence(a, b, V) is r1
    t = eq.check_equivalence(P("sigmoid(x)"), P("1 - sigmoid(-x)"), V, time_budget=0.0)
    assert t.outcome == "undecided" and t.timed_out
    again = eq.check_equivalence(P("sigmoid(x)"), P("1 - sigmoid(-x)"), V)
    assert again.outcome == "equal"


def test_require_proof_turns_numeric_only_agreement_undecided():
    a, b = P("max(x, 0) - max(-x, 0)"), P("x")
    assert eq.check_equivalence(a, b, V).outcome == "equal"
    r = eq.check_equivalence(a, b, V, require_proof=True)
    assert r.outcome in ("equal", "undecided")
    if r.outcome == "equal":
        assert r.method in ("symbolic", "structural")


def test_same_form_definition():
    assert eq.form_problems(P("log(p/q)"), P("log(p) - log(q)"))
    assert eq.form_problems(P("log(p) - log(q)"), P("log(p/q)")) == []


def test_evaluator_handles_complex_and_nonfinite():
    x = sp.Symbol("x", real=True)
    assert eq.evaluate(sp.log(x), {x: -1.0}) == complex(0, 3.141592653589793)
    assert eq.evaluate(1 / x, {x: 0.0}) is None
    assert eq.evaluate(sp.exp(sp.exp(x)), {x: 800.0}) is None
