"""Exactness: decimals are judged by an explicit rule, exact numbers are told apart beyond double
precision, complex variables refuse real-only identities, and up_to_constant knows given constants."""

import pytest
import sympy as sp

from checkers import equivalence as eq
from checkers.kinds.symbolic.standalone import check_symbolic
from checkers.kinds import symbolic as sym
from checkers.mathparse import parse_math, symbols_for
from checkers.verdict import SpecError

R = {"x": {"real": True}}
RL = {"r": {"real": True}, "beta": {"positive": True}, "lt": {"real": True}, "lr": {"real": True}}


def P(text, variables=R):
    return parse_math(text, variables).expr


def test_parsed_math_remembers_the_decimals_typed():
    assert parse_math("0.5 x + 1/3 + 2e-3", R).decimals == ("0.5", "2e-3")
    assert parse_math(r"\frac{0.25}{x} + ½", R).decimals == ("0.25",)
    assert parse_math("x/3 + 10^-3", R).decimals == ()


def test_double_precision_agreement_is_confirmed_at_40_digits():
    r = eq.check_equivalence(P("x/3"), P("333333333333333/1000000000000000 x"), R, use_cache=False)
    assert (r.outcome, r.method) == ("not_equal", "precision")
    assert r.details["precise_gap"] > eq.PRECISE_GAP
    ok = eq.check_equivalence(P("sigmoid(x)"), P("(1 + tanh(x/2))/2"), R, use_cache=False)
    assert ok.outcome == "equal"


def test_precise_gap_reads_zero_at_shared_zeros():
    x = symbols_for(R)["x"]
    assert eq.precise_gap(sp.Max(x, 0), (x + sp.Abs(x)) / 2, [{x: -0.7}, {x: -1.3}], float("inf")) == 0.0


def test_a_decimal_is_correct_only_when_it_is_the_exact_value(inprocess):
    v = check_symbolic("x/3", "0.333333333333333 x", R)
    assert (v.status, v.note) == ("incorrect", "inexact-decimal")
    assert "exact value" in v.feedback["en"] and "精确值" in v.feedback["zh"]
    assert v.consumes_attempt
    assert check_symbolic("x/4", "0.25 x", R).status == "correct"
    far = check_symbolic("x/3", "0.7 x", R)
    assert far.status == "incorrect" and far.note != "inexact-decimal"


def test_decimals_tolerance_applies_only_to_decimal_answers(inprocess):
    tol = {"rtol": 1e-3}
    assert check_symbolic("x/3", "0.3333 x", R, decimals=tol).status == "correct"
    assert check_symbolic("x/3", "0.33 x", R, decimals=tol).status == "incorrect"
    assert check_symbolic("x/3", "x/3 + x/10^6", R, decimals=tol).status == "incorrect"


def test_within_tolerance_is_numeric_only():
    r = eq.check_within_tolerance(P("x/3"), P("0.3333 x"), R, rtol=1e-3, atol=0)
    assert (r.outcome, r.method) == ("equal", "tolerance")
    r = eq.check_within_tolerance(P("x/3"), P("0.3 x"), R, rtol=1e-3, atol=0)
    assert r.outcome == "not_equal" and "point" in r.details


@pytest.mark.parametrize("bad", [{"rtol": -1}, {"rtol": True}, {"tol": 1}, {}, [1e-3], {"atol": float("inf")}])
def test_decimals_spec_is_checked(bad):
    with pytest.raises(SpecError):
        sym.decimal_tolerance({"decimals": bad})


def test_complex_variables_are_sampled_off_the_real_line():
    z = symbols_for({"z": {"complex": True}})["z"]
    assert z.is_real is None and z.is_complex
    assert eq.symbol_domain(z, {"z": {"complex": True}}) == "complex"
    pts = eq.sample_points([z], {"z": {"complex": True}}, 0, 8)
    assert any(isinstance(p[z], complex) and abs(p[z].imag) > 3.2 for p in pts)
    assert eq.check_equivalence(z, sp.log(sp.exp(z)), {"z": {"complex": True}}).outcome == "not_equal"
    x = symbols_for(R)["x"]
    assert eq.check_equivalence(x, sp.log(sp.exp(x)), R).outcome == "equal"


def test_up_to_constant_with_given_constants():
    e, a = P("r - beta*(lt - lr)", RL), P("r - beta*(lt - lr + 1)", RL)
    assert eq.check_equivalence(e, a, RL, "up_to_constant").outcome == "not_equal"
    assert eq.check_equivalence(e, a, RL, "up_to_constant", constants=["beta"]).outcome == "equal"
    # numeric and derivative layers, not only the structural shortcut
    a2 = P("r - beta*(lt - lr) + exp(beta) * log(beta + 1)", RL)
    r = eq.check_equivalence(e, a2, RL, "up_to_constant", constants=["beta"], use_cache=False)
    assert r.outcome == "equal"
    bad = P("r - beta*(lt - lr) + beta*lt", RL)
    assert eq.check_equivalence(e, bad, RL, "up_to_constant", constants=["beta"]).outcome == "not_equal"


def test_constants_must_be_declared_variables():
    spec = {"kind": "symbolic", "expected": "r", "variables": RL, "mode": "up_to_constant"}
    with pytest.raises(SpecError):
        sym.constants_of({**spec, "constants": ["gamma"]})
    with pytest.raises(SpecError):
        sym.constants_of({**spec, "constants": [1]})
    assert sym.constants_of({**spec, "constants": ["beta"]}) == ("beta",)
    assert sym.constants_of({**spec, "constants": ["β"]}) == ("beta",)
