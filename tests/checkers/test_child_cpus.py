"""Processes that checkers start run on the CPUs recorded for children, not on the one CPU the thread that
starts them is held to (a worker of ``quizapp serve`` held to its CPU): a process started by the grader
pool or the code sandbox from a pinned thread gets the whole set, and the thread itself stays pinned."""

import os
import subprocess
import sys
import threading

import pytest

from checkers import child_cpus
from checkers.worker_pool import WorkerPool
from checkers.coderun import runner
from sandbox_probes import probe_pid

CPUS = frozenset(os.sched_getaffinity(0))
ONE = frozenset({min(CPUS)})


@pytest.fixture
def recorded():
    child_cpus.set_for_children(CPUS)
    yield
    child_cpus.set_for_children(None)


def _in_pinned_thread(fn):
    """Run ``fn()`` on a thread held to one CPU; returns (its result, the thread's CPUs afterwards)."""
    out = {}

    def body():
        os.sched_setaffinity(0, ONE)
        try:
            out["result"] = fn()
        except BaseException as exc:  # noqa: BLE001  # reported on the test's thread
            out["error"] = exc
        out["after"] = frozenset(os.sched_getaffinity(0))

    t = threading.Thread(target=body)
    t.start()
    t.join(120)
    if "error" in out:
        raise out["error"]
    return out["result"], out["after"]


def _started_process_cpus() -> frozenset[int]:
    with child_cpus.for_children():
        proc = subprocess.Popen([sys.executable, "-c", "import os; print(*os.sched_getaffinity(0))"],
                                stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=60)
    return frozenset(int(cpu) for cpu in out.split())


def test_a_process_started_from_a_pinned_thread_gets_the_recorded_cpus(recorded):
    got, after = _in_pinned_thread(_started_process_cpus)
    assert got == CPUS
    assert after == ONE  # the starting thread is held to its CPU again


def test_without_a_recorded_set_a_process_inherits_the_thread_cpus():
    got, after = _in_pinned_thread(_started_process_cpus)
    assert got == ONE and after == ONE


def test_grader_pool_workers_get_the_recorded_cpus(recorded):
    # spawn: each worker starts from the calling thread (a fork server would be shared by the whole test run)
    pool = WorkerPool(1, method="spawn", preload=())
    try:
        pid, after = _in_pinned_thread(lambda: pool.run(probe_pid))
        assert frozenset(os.sched_getaffinity(pid)) == CPUS
        assert after == ONE
    finally:
        pool.shutdown()


def test_code_sandbox_template_gets_the_recorded_cpus(recorded):
    template, after = _in_pinned_thread(runner._Template)
    try:
        assert frozenset(os.sched_getaffinity(template.proc.pid)) == CPUS
        assert after == ONE
    finally:
        template.close()
