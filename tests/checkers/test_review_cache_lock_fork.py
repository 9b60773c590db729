"""A fork taken while another thread is inside the equivalence memo must not hang the child."""

import os
import threading

import pytest

from checkers import equivalence as eq


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_child_uses_the_memo_while_the_parent_thread_is_inside_it():
    inside = threading.Event()
    release = threading.Event()

    def hold():
        def compute():
            inside.set()
            release.wait()
            return "parent"
        eq._MEMO.get(("held",), compute)

    t = threading.Thread(target=hold)
    t.start()
    try:
        inside.wait()  # the fork below really happens while the other thread is inside the memo
        pid = os.fork()
        if pid == 0:  # child: the memo must answer here even though the parent's thread is inside it
            code = 1
            try:
                code = 0 if eq._MEMO.get(("child",), lambda: "child") == "child" else 1
            finally:
                os._exit(code)
    finally:
        release.set()
        t.join()
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
