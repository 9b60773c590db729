"""The killable worker pool. Nothing here reads a clock: a task built never to finish in time (a sleep
far longer than the limit the test chooses) must come back as ``TaskTimeout`` / ``undecided`` from the
worker, and the pool must replace the killed worker (a fresh pid answers afterwards). Were the limit not
enforced, the sleep would return its value and the ``raises`` would fail."""

import os
import threading

import pytest

from checkers import sandbox
from checkers.kinds.symbolic.standalone import check_symbolic
from checkers.worker_pool import PoolBusy, SandboxError, TaskTimeout, WorkerPool
from sandbox_probes import probe_pid, probe_sleep

#: Far beyond every limit below: the task can only end by being killed.
NEVER = 60


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(2, preload=("sympy",))
    yield p
    p.shutdown()


@pytest.fixture
def one_worker():
    """One worker: a replacement is the only worker there is, so its pid must be a new one."""
    p = WorkerPool(1, preload=())
    yield p
    p.shutdown()


def test_runs_and_returns(pool):
    assert pool.run(sandbox.probe_echo, {"a": [1, 2]}) == {"a": [1, 2]}


def test_timeout_kills_and_pool_recovers(one_worker):
    pid_before = one_worker.run(probe_pid)
    with pytest.raises(TaskTimeout):
        one_worker.run(probe_sleep, NEVER, timeout=0.5)
    assert (one_worker.stats.timeouts, one_worker.stats.replaced) == (1, 1)
    # the next task waits for the replacement (the queue timeout, not a clock in the test, bounds that)
    assert one_worker.run(sandbox.probe_echo, 7, timeout=30) == 7
    assert one_worker.run(probe_pid) != pid_before
    assert one_worker.run(probe_pid) != os.getpid()


def test_exceptions_come_back(pool):
    with pytest.raises(ZeroDivisionError):
        pool.run(divmod, 1, 0)


def test_works_from_non_main_threads(pool):
    results, errors = [], []

    def work(i):
        try:
            results.append(pool.run(sandbox.probe_echo, i, timeout=10))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and sorted(results) == list(range(8))


def test_timeout_from_a_thread(one_worker):
    pid_before = one_worker.run(probe_pid)
    out = []

    def work():
        try:
            out.append(("returned", one_worker.run(probe_sleep, NEVER, timeout=0.3)))
        except TaskTimeout as exc:
            out.append(("timeout", exc.timeout))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert out == [("timeout", 0.3)]
    assert one_worker.stats.timeouts == 1
    assert one_worker.run(probe_pid) != pid_before


def test_inprocess_switch():
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(True)
    try:
        assert sandbox.run(probe_pid) == os.getpid()
    finally:
        sandbox.set_inprocess(before)


def test_symbolic_grading_in_the_real_pool_from_a_thread():
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        out = []
        V = {"p": {"domain": "probability"}, "q": {"domain": "probability"}}

        def work():
            out.append(check_symbolic("q/p - log(q/p) - 1", "q/p - log q + log p - 1", V))
            out.append(check_symbolic("q/p - log(q/p) - 1", "q/p + log(q/p) - 1", V))

        t = threading.Thread(target=work)
        t.start()
        t.join()
        assert [v.status for v in out] == ["correct", "incorrect"]
        # A limit no worker can meet: the answer is a time-out verdict (or, if the worker answered
        # first, the right one), never an exception and never a wait for the whole computation.
        v = check_symbolic("x", "x", {"x": {}}, timeout=0.000001)
        assert (v.status, v.note) in (("undecided", "timeout"), ("correct", v.note)), (v.status, v.note)
        assert not (v.status == "undecided" and v.consumes_attempt)
        # the pool still answers afterwards
        assert check_symbolic("x + 1", "1 + x", {"x": {}}).status == "correct"
    finally:
        sandbox.set_inprocess(before)


def test_guarded_grading_turns_a_timeout_into_undecided():
    from checkers.kinds.symbolic import run_guarded
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        timeouts = sandbox.get_pool().stats.timeouts
        v = run_guarded(probe_sleep, NEVER, timeout=0.3)
        assert (v.status, v.note) == ("undecided", "timeout") and not v.consumes_attempt
        assert v.feedback["en"] and v.feedback["zh"]
        assert sandbox.get_pool().stats.timeouts == timeouts + 1  # the worker was killed, not waited for
        assert sandbox.run(sandbox.probe_echo, 5, timeout=30) == 5
    finally:
        sandbox.set_inprocess(before)


def test_an_unpicklable_task_is_refused_without_losing_the_worker():
    # queue_timeout=0: a call finds its worker idle at once or fails with PoolBusy, so a leaked worker
    # fails the next call outright instead of making it wait.
    p = WorkerPool(1, preload=(), queue_timeout=0)
    try:
        p.start()
        pid = p.run(probe_pid)
        for _ in range(3):
            with pytest.raises(SandboxError) as ei:
                p.run(sandbox.probe_echo, lambda: 1, timeout=5)
            assert not isinstance(ei.value, PoolBusy)
        assert p.run(sandbox.probe_echo, 3, timeout=5) == 3
        assert p.run(probe_pid) == pid and p.stats.replaced == 0
    finally:
        p.shutdown()
