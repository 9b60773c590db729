"""The equivalence test's work is bounded: the identities that used to cost ``simplify`` (hundreds of
milliseconds) are proved by the cheap exp-rational layer, a decided pair is answered from the memo
without any layer running again, and near misses of those identities are still refuted.

Work is counted with spies (calls of ``simplify``, of the numeric and symbolic layers); no clock is read.
"""

import functools

import pytest
import sympy as sp

from checkers import equivalence as eq
from checkers.equivalence import compare
from checkers.mathparse import parse_math

V = {"x": {"real": True}, "p": {"domain": "probability"}}

#: Identities between hyperbolic / trigonometric functions and exp forms, each an expected-answer pair.
CHEAP_IDENTITIES = [
    ("(1 + tanh(x/2))/2", "sigmoid(x)"),
    ("sigmoid(x)", "1/2 + tanh(x/2)/2"),
    ("tanh(x)", "(exp(x) - exp(-x))/(exp(x) + exp(-x))"),
    ("2 sigmoid(2 x) - 1", "tanh(x)"),
    ("cosh(x)^2 - sinh(x)^2", "1"),
    ("1 + tan(x)^2", "sec(x)^2"),
]

#: Each identity above with one slip: a factor, a sign, an argument scaled, a tiny constant.
NEAR_MISSES = [
    ("(1 + tanh(x/2))/2", "sigmoid(2 x)"),
    ("sigmoid(x)", "1/2 - tanh(x/2)/2"),
    ("tanh(x)", "(exp(x) - exp(-x))/(exp(x) + exp(-x)) + 1/10^12"),
    ("2 sigmoid(2 x) - 1", "tanh(2 x)"),
    ("cosh(x)^2 - sinh(x)^2", "1 + 1/10^12"),
    ("1 + tan(x)^2", "sec(x)"),
]


def P(text):
    return parse_math(text, V).expr



@pytest.fixture(autouse=True)
def _no_clock(monkeypatch):
    """Work is what these tests bound (the spies); the equivalence test's time budget (0.5 s) is made
    generous, so that a machine loaded by other processes cannot turn a proof into ``undecided``."""
    monkeypatch.setattr(eq, "check_equivalence", functools.partial(eq.check_equivalence, time_budget=120.0))

@pytest.fixture
def simplify_calls(monkeypatch):
    """Counts calls of sympy's simplify (the expensive step of the symbolic layer)."""
    calls = []
    real = sp.simplify

    def spy(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(sp, "simplify", spy)
    return calls


#: Identities decided by the other cheap proofs, with the proof that must decide each.
OTHER_CHEAP_IDENTITIES = [
    ("log((1 + p)/(1 - p))/2", "atanh(p)", "log_form"),
    ("log(x + sqrt(x^2 + 1))", "asinh(x)", "log_form"),
    ("x*gamma(x)", "gamma(x + 1)", "gammasimp"),
]


@pytest.mark.parametrize("expected, answer", CHEAP_IDENTITIES)
def test_hyperbolic_and_trigonometric_identities_are_proved_by_the_cheap_layer(expected, answer, simplify_calls):
    # require_proof: numeric agreement cannot settle it, so a proof must come from the symbolic layer
    r = eq.check_equivalence(P(expected), P(answer), V, require_proof=True, use_cache=False)
    assert (r.outcome, r.method) == ("equal", "symbolic")
    assert "exp_rational" in r.reason
    assert simplify_calls == []


@pytest.mark.parametrize("expected, answer, proof", OTHER_CHEAP_IDENTITIES)
def test_inverse_hyperbolic_and_gamma_identities_are_proved_cheaply(expected, answer, proof, simplify_calls):
    r = eq.check_equivalence(P(expected), P(answer), V, require_proof=True, use_cache=False)
    assert (r.outcome, r.method) == ("equal", "symbolic")
    assert f"({proof})" in r.reason
    assert simplify_calls == []


@pytest.mark.parametrize("expected, answer", [("log((1 + p)/(1 - p))", "atanh(p)"),
                                              ("log(x + sqrt(x^2 + 1))", "asinh(2 x)"),
                                              ("x*gamma(x)", "gamma(x + 2)")])
def test_near_misses_of_the_other_cheap_identities_are_refuted(expected, answer):
    assert eq.check_equivalence(P(expected), P(answer), V, use_cache=False).outcome == "not_equal"


@pytest.mark.parametrize("expected, answer", NEAR_MISSES)
def test_near_misses_of_those_identities_are_refuted(expected, answer):
    r = eq.check_equivalence(P(expected), P(answer), V, use_cache=False)
    assert r.outcome == "not_equal"


def test_the_exp_rational_form_cancels_identities_and_keeps_differences():
    x = sp.Symbol("x", real=True)
    assert eq.exp_rational_form(sp.tanh(x) - sp.sinh(x) / sp.cosh(x)) == 0
    assert eq.exp_rational_form(sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x)) == 0
    assert eq.exp_rational_form(sp.tanh(x) - sp.tanh(2 * x)) != 0
    assert eq.exp_rational_form(sp.cosh(x) ** 2 - sp.sinh(x) ** 2) == 1
    # nothing to rewrite: no form, and no work
    assert eq.exp_rational_form(sp.exp(x) - 1 / (1 + x)) is None


def test_a_repeat_is_answered_by_the_memo_without_running_any_layer(monkeypatch):
    eq.clear_cache()
    e, a = P("(1 + tanh(x/2))/2"), P("sigmoid(x)")
    first = eq.check_equivalence(e, a, V)
    assert first.outcome == "equal"
    runs = []
    monkeypatch.setattr(compare, "numeric_compare", lambda *args, **kw: runs.append("numeric"))
    monkeypatch.setattr(compare, "symbolic_zero", lambda *args, **kw: runs.append("symbolic"))
    # the same pair, parsed again (new trees, same canonical form): the remembered verdict, no layer run
    again = eq.check_equivalence(P("(1 + tanh(x/2))/2"), P("sigmoid(x)"), V)
    assert again is first and runs == []
    # other assumptions are another question: the layers run (and the spies break them)
    other = {"x": {"positive": True}}
    eq.check_equivalence(parse_math("(1 + tanh(x/2))/2", other).expr, parse_math("sigmoid(x)", other).expr, other)
    assert runs[:1] == ["numeric"]


def test_numeric_agreement_without_a_cheap_proof_is_remembered_too(monkeypatch):
    eq.clear_cache()
    e, a = P("x*gamma(x)"), P("gamma(x + 1)")
    first = eq.check_equivalence(e, a, V)
    assert first.outcome == "equal" and not first.timed_out
    runs = []
    monkeypatch.setattr(compare, "numeric_compare", lambda *args, **kw: runs.append("numeric"))
    assert eq.check_equivalence(P("x*gamma(x)"), P("gamma(x + 1)"), V) is first and runs == []


@pytest.mark.parametrize("expected, answer", [("x/3", "333333333333333 x/10^15"),
                                              ("sqrt(2) x", "14142135623730951 x/10^16")])
def test_a_nonzero_polynomial_difference_skips_simplify_and_stays_unproved(expected, answer, simplify_calls):
    r = eq.check_equivalence(P(expected), P(answer), V, require_proof=True, use_cache=False)
    assert (r.outcome, r.method) == ("undecided", "unproved")
    assert simplify_calls == []


def test_the_polynomial_shortcut_only_takes_exact_coefficient_fields():
    x = sp.Symbol("x", real=True)
    assert eq.rational_polynomial_nonzero(x / 3 - sp.Rational(333333333333333, 10**15) * x)
    assert eq.rational_polynomial_nonzero((sp.sqrt(2) - 1) * x ** 2)
    assert not eq.rational_polynomial_nonzero(sp.expand((x + 1) ** 2 - x ** 2 - 2 * x - 1))
    assert not eq.rational_polynomial_nonzero(sp.pi * x - 3 * x)   # QQ[pi]: left to simplify
    assert not eq.rational_polynomial_nonzero(sp.exp(x) - 1)       # not a polynomial
    assert not eq.rational_polynomial_nonzero(sp.Integer(2))       # a number is the caller's business


def test_a_decimal_that_differs_at_many_digits_skips_simplify(simplify_calls):
    # 2.718281828459045 is the exact number typed: equal to e in double precision, not at 40 digits
    e, a = P("exp(x)"), P("2718281828459045/10^15")
    r = eq.check_equivalence(e, a ** P("x"), V, require_proof=True, use_cache=False)
    assert (r.outcome, r.method) == ("undecided", "unproved")
    assert simplify_calls == []


def test_simplify_still_runs_for_a_proof_when_the_sides_agree_at_many_digits(simplify_calls):
    r = eq.check_equivalence(P("max(x, 0) - max(-x, 0)"), P("x"), V, require_proof=True, use_cache=False)
    assert r.outcome in ("equal", "undecided")
    assert len(simplify_calls) == 1
