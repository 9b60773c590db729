"""checkers.memo: bounded, keyed by the caller, results that must not be kept are not, and a child forked
while another thread is inside the memo goes on using it (the service forks workers from a threaded parent).
"""

from __future__ import annotations

import os
import threading

from checkers import equivalence, params
from checkers.memo import Memo, Uncacheable


def test_a_key_is_computed_once_and_the_least_recently_used_is_evicted():
    memo, calls = Memo(2), []

    def compute(value):
        calls.append(value)
        return value

    assert memo.get({"a": 1}.__repr__(), lambda: compute("a")) == "a"
    assert memo.get("{'a': 1}", lambda: compute("a again")) == "a"   # same key: remembered
    memo.get("b", lambda: compute("b"))
    memo.get("{'a': 1}", lambda: compute("unused"))                   # a is now the most recent
    memo.get("c", lambda: compute("c"))                               # evicts b
    assert len(memo) == 2
    assert memo.get("b", lambda: compute("b2")) == "b2"
    assert calls == ["a", "b", "c", "b2"]


def test_uncacheable_results_and_errors_are_not_remembered():
    memo = Memo(4)

    def timed_out():
        raise Uncacheable("undecided")

    assert memo.get("k", timed_out) == "undecided"
    assert len(memo) == 0
    try:
        memo.get("k", lambda: 1 / 0)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("the computation's error must reach the caller")
    assert memo.get("k", lambda: "decided") == "decided" and len(memo) == 1


def test_the_module_memos_are_library_backed():
    from quizapp.web import views

    for memo in (equivalence._MEMO, params._ENGINE_MEMO, views._VIEW_MEMO, views._BODY_MEMO):
        assert isinstance(memo, Memo)


def test_a_child_forked_while_another_thread_is_inside_the_memo_still_uses_it():
    memo = Memo(8)
    assert memo.get("warm", lambda: "parent") == "parent"
    inside, release = threading.Event(), threading.Event()

    def slow():
        inside.set()
        release.wait()
        return "slow"

    worker = threading.Thread(target=memo.get, args=("slow", slow))
    worker.start()
    inside.wait()  # the other thread is now inside the memo, mid-computation, when the process forks
    pid = os.fork()
    if pid == 0:  # the child: every use of the memo must complete (a lock inherited held would hang here)
        code = 1
        try:
            ok = (memo.get("warm", lambda: "child") == "parent"      # what the parent had stays
                  and memo.get("new", lambda: "child") == "child"     # new keys are computed and kept
                  and memo.get("new", lambda: "again") == "child"
                  and memo.get("slow", lambda: "child") == "child")   # the parent's unfinished entry is absent
            memo.clear()
            code = 0 if ok and len(memo) == 0 else 2
        finally:
            os._exit(code)
    release.set()
    worker.join()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert memo.get("slow", lambda: "recomputed") == "slow"  # the parent kept its own result
