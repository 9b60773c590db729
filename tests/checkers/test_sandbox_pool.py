import threading
import time

import pytest

from checkers import grading, sandbox


@pytest.fixture(scope="module")
def pool():
    p = sandbox.WorkerPool(2, preload=("sympy",))
    yield p
    p.shutdown()


def test_runs_and_returns(pool):
    assert pool.run(sandbox.probe_echo, {"a": [1, 2]}) == {"a": [1, 2]}


def test_timeout_kills_and_pool_recovers(pool):
    pid_before = {pool.run(sandbox.probe_pid) for _ in range(4)}
    t0 = time.monotonic()
    with pytest.raises(sandbox.TaskTimeout):
        pool.run(sandbox.probe_sleep, 30, timeout=0.5)
    assert time.monotonic() - t0 < 0.5 + 0.5
    assert pool.run(sandbox.probe_echo, 7, timeout=30) == 7
    assert pool.stats.timeouts >= 1
    deadline = time.monotonic() + 30
    while pool._count < pool.size or len(pool._idle) < pool.size:  # the replacement comes up in the background
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert {pool.run(sandbox.probe_pid) for _ in range(8)} != pid_before


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


def test_timeout_from_a_thread(pool):
    out = []

    def work():
        t0 = time.monotonic()
        try:
            pool.run(sandbox.probe_sleep, 10, timeout=0.3)
        except sandbox.TaskTimeout:
            out.append(time.monotonic() - t0)

    t = threading.Thread(target=work)
    t.start()
    t.join(5)
    assert out and out[0] < 0.8


def test_inprocess_switch():
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(True)
    try:
        assert sandbox.run(sandbox.probe_pid) == __import__("os").getpid()
    finally:
        sandbox.set_inprocess(before)


def test_symbolic_grading_in_the_real_pool_from_a_thread():
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        out = []
        V = {"p": {"domain": "probability"}, "q": {"domain": "probability"}}

        def work():
            out.append(grading.check_symbolic("q/p - log(q/p) - 1", "q/p - log q + log p - 1", V))
            out.append(grading.check_symbolic("q/p - log(q/p) - 1", "q/p + log(q/p) - 1", V))

        t = threading.Thread(target=work)
        t.start()
        t.join(120)
        assert [v.status for v in out] == ["correct", "incorrect"]
        t0 = time.monotonic()
        v = grading.check_symbolic("x", "x", {"x": {}}, timeout=0.000001)
        assert v.status in ("undecided", "correct")
        assert time.monotonic() - t0 < 1.5
    finally:
        sandbox.set_inprocess(before)


def test_guarded_grading_turns_a_timeout_into_undecided():
    from checkers.kinds.symbolic import run_guarded
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        t0 = time.monotonic()
        v = run_guarded(sandbox.probe_sleep, 5, timeout=0.3)
        assert time.monotonic() - t0 < 0.8
        assert (v.status, v.note) == ("undecided", "timeout") and not v.consumes_attempt
        assert v.feedback["en"] and v.feedback["zh"]
    finally:
        sandbox.set_inprocess(before)


def test_an_unpicklable_task_is_refused_without_losing_the_worker():
    p = sandbox.WorkerPool(1, preload=())
    try:
        for _ in range(3):  # a leaked worker would make the next call wait for the queue timeout
            with pytest.raises(sandbox.SandboxError):
                p.run(sandbox.probe_echo, lambda: 1, timeout=5)
        t0 = time.monotonic()
        assert p.run(sandbox.probe_echo, 3, timeout=5) == 3
        assert time.monotonic() - t0 < 2
    finally:
        p.shutdown()
