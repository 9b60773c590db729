"""Expensive symbolic work (expand / cancel / simplify of large powers) stays within the time budget,
and a result cut short by the budget is never cached.

The interruption of a single long sympy call only works inside a sandbox worker (its main thread), so
these tests run the equivalence layer in a one-worker pool: every call lands on the same worker and
its cache can be inspected.
"""

import time

import pytest

from checkers import equivalence as eq
from checkers.budget import clock as work_clock
from checkers import grading, sandbox
from checkers.mathparse import parse_math

V = {"x": {"real": True}, "y": {"real": True}}

#: Equal, but proving it means multiplying out polynomials of degree 400 (seconds of sympy time).
BIG_E, BIG_A = "(x+1)^200*(x-1)^200", "(x^2-1)^200"


def P(text):
    return parse_math(text, V).expr


@pytest.fixture(scope="module")
def one_worker():
    pool = sandbox.WorkerPool(1)
    pool.start()
    yield pool
    pool.shutdown()


def _timed(pool, *args, **kwargs):
    t0 = time.monotonic()
    out = pool.run(eq.check_equivalence, *args, timeout=10, **kwargs)
    return out, time.monotonic() - t0


def test_a_long_sympy_call_is_interrupted_at_the_budget_and_not_cached(one_worker):
    pid = one_worker.run(sandbox.probe_pid)
    one_worker.run(eq.clear_cache)
    # require_proof: the numeric agreement cannot settle it, so the symbolic layer works to the deadline
    r, wall = _timed(one_worker, P(BIG_E), P(BIG_A), V, time_budget=0.3, require_proof=True)
    assert wall < 0.3 + 0.4, wall
    assert r.outcome == "undecided" and r.timed_out
    assert one_worker.run(eq.cache_size) == 0
    # the worker was interrupted, not killed
    assert one_worker.run(sandbox.probe_pid) == pid and one_worker.stats.timeouts == 0


def test_strong_numeric_agreement_is_enough_and_a_cut_short_proof_is_not_cached(one_worker):
    one_worker.run(eq.clear_cache)
    r, wall = _timed(one_worker, P(BIG_E), P(BIG_A), V, time_budget=0.6)
    assert wall < 0.6, wall
    assert (r.outcome, r.method) == ("equal", "numeric")
    assert r.timed_out  # the symbolic confirmation was cut short ...
    assert one_worker.run(eq.cache_size) == 0  # ... so the result is not remembered


@pytest.mark.parametrize("e,a,allowed", [
    # a difference of 1e-40 is invisible to floats; finding it symbolically means expanding degree 200
    ("(x+1)^200", "(x^2 + 2x + 1)^100 + 1/10^40", ("equal", "not_equal", "undecided")),
    ("(x+y)^120 - (x-y)^120", "(y+x)^120 - (x-y)^120 + 1/10^30", ("not_equal",)),
    ("(x+1)^999", "(x+1)^998 (1 + x) + 1", ("not_equal",)),
    ("(x+1)^300 (x-1)^300", "(x^2-1)^300", ("equal", "undecided")),
    ("(x+1)^200", "(x^2 + 2x + 1)^100 + x/10^6", ("not_equal", "undecided")),
])
def test_large_powers_finish_within_the_budget(one_worker, e, a, allowed):
    r, wall = _timed(one_worker, P(e), P(a), V, time_budget=0.4)
    assert wall < 0.4 + 0.4, (e, a, wall)
    assert r.outcome in allowed, (e, a, r)


def test_finished_results_are_cached_in_the_worker(one_worker):
    one_worker.run(eq.clear_cache)
    r, _ = _timed(one_worker, P("exp(x) exp(y)"), P("exp(x + y)"), V)
    assert r.outcome == "equal" and not r.timed_out
    assert one_worker.run(eq.cache_size) == 1


def test_the_facade_answers_big_powers_within_a_second():
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        grading.check_symbolic("x", "x", V)  # start the default pool off the clock
        for e, a, ok in [(BIG_E, BIG_A, ("correct", "undecided")),
                         ("(x+1)^200", "(x^2+2x+1)^100 + 1", ("incorrect", "undecided")),
                         ("(x+1)^300 - (x-1)^300", "2 (x+1)^300 - (x+1)^300 - (x-1)^300", ("correct", "undecided"))]:
            t0 = time.monotonic()
            v = grading.check_symbolic(e, a, V)
            assert time.monotonic() - t0 < 1.0, (e, a)
            assert v.status in ok, (e, a, v.status, v.details)
    finally:
        sandbox.set_inprocess(before)


def test_symbolic_zero_respects_a_spent_deadline(inprocess):
    assert eq.symbolic_zero(P(BIG_E) - P(BIG_A), work_clock() - 1)[0] == "timeout"
