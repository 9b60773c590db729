"""Expensive symbolic work (expand / cancel / simplify of large powers) stays within the time budget,
and a result cut short by the budget is never cached.

The interruption of a single long sympy call only works inside a sandbox worker (its main thread), so
these tests run the equivalence layer in a one-worker pool: every call lands on the same worker and
its cache can be inspected.

No clock is read here. The soft budget counts the worker's CPU time, so what it cuts short does not
depend on the load; the tests check the mechanism instead of the latency: a proof that cannot finish
within the budget comes back ``undecided`` / ``timed_out`` from the *same* worker (interrupted, never
killed at the hard limit), and is not cached. Latency figures: ``benchmarks/bench_hostile.py``.
"""

import pytest

from checkers import equivalence as eq
from checkers.budget import clock as work_clock
from checkers import sandbox
from checkers.kinds.symbolic.standalone import check_symbolic
from checkers.mathparse import parse_math
from checkers.worker_pool import WorkerPool
from sandbox_probes import probe_pid

V = {"x": {"real": True}, "y": {"real": True}}

#: Equal, but proving it means multiplying out polynomials of degree 400 (seconds of sympy time).
BIG_E, BIG_A = "(x+1)^200*(x-1)^200", "(x^2-1)^200"


def P(text):
    return parse_math(text, V).expr


@pytest.fixture(scope="module")
def one_worker():
    pool = WorkerPool(1)
    pool.start()
    yield pool
    pool.shutdown()


#: The pool's hard wall-clock limit in these tests: far beyond every soft budget below, so reaching it
#: (a killed worker, counted in ``stats.timeouts``) means the soft budget did not stop the work.
HARD_LIMIT_S = 30


def _compare(pool, *args, **kwargs):
    return pool.run(eq.check_equivalence, *args, timeout=HARD_LIMIT_S, **kwargs)


def test_a_long_sympy_call_is_interrupted_at_the_budget_and_not_cached(one_worker):
    pid = one_worker.run(probe_pid)
    one_worker.run(eq.clear_cache)
    # require_proof: the numeric agreement cannot settle it, so the symbolic layer works to the deadline
    r = _compare(one_worker, P(BIG_E), P(BIG_A), V, time_budget=0.3, require_proof=True)
    assert r.outcome == "undecided" and r.timed_out
    assert one_worker.run(eq.cache_size) == 0
    # the worker was interrupted, not killed
    assert one_worker.run(probe_pid) == pid and one_worker.stats.timeouts == 0


def test_strong_numeric_agreement_is_enough_and_a_cut_short_proof_is_not_cached(one_worker):
    one_worker.run(eq.clear_cache)
    r = _compare(one_worker, P(BIG_E), P(BIG_A), V, time_budget=0.6)
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
    pid = one_worker.run(probe_pid)
    r = _compare(one_worker, P(e), P(a), V, time_budget=0.4)
    assert r.outcome in allowed, (e, a, r)
    # the soft budget ended the work: the worker answered itself, it was not killed at the hard limit
    assert one_worker.run(probe_pid) == pid and one_worker.stats.timeouts == 0


def test_finished_results_are_cached_in_the_worker(one_worker):
    one_worker.run(eq.clear_cache)
    r = _compare(one_worker, P("exp(x) exp(y)"), P("exp(x + y)"), V)
    assert r.outcome == "equal" and not r.timed_out
    assert one_worker.run(eq.cache_size) == 1


def test_the_facade_answers_big_powers_within_its_limit():
    # The facade's hard limit (chosen here) ends whatever its soft budget does not: a verdict comes
    # back, right or undecided, never an exception or a wrong verdict.
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        check_symbolic("x", "x", V)  # start the default pool before the first big power
        for e, a, ok in [(BIG_E, BIG_A, ("correct", "undecided")),
                         ("(x+1)^200", "(x^2+2x+1)^100 + 1", ("incorrect", "undecided")),
                         ("(x+1)^300 - (x-1)^300", "2 (x+1)^300 - (x+1)^300 - (x-1)^300", ("correct", "undecided"))]:
            v = check_symbolic(e, a, V, timeout=1.0)
            assert v.status in ok, (e, a, v.status, v.details)
            assert not v.consumes_attempt or v.status != "undecided"
    finally:
        sandbox.set_inprocess(before)


def test_symbolic_zero_respects_a_spent_deadline(inprocess):
    assert eq.symbolic_zero(P(BIG_E) - P(BIG_A), work_clock() - 1)[0] == "timeout"
