"""Review regression: a process forked after the pool started (pre-forking server) gets its own pool."""

import os

import pytest

from checkers import sandbox
from sandbox_probes import probe_pid


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_does_not_use_or_stop_the_parent_workers():
    was_inprocess = sandbox.is_inprocess()
    sandbox.set_inprocess(False)
    try:
        parent_pid = sandbox.run(probe_pid, timeout=30)
        r, w = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the child
            code = 1
            try:
                pid = sandbox.run(probe_pid, timeout=60)
                os.write(w, str(pid).encode())
                sandbox.shutdown()  # what atexit does when the child exits
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        got = os.read(r, 64).decode()
        os.close(r)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert got and int(got) != parent_pid
        # the parent's workers are still there and still answer
        assert sandbox.run(sandbox.probe_echo, 7, timeout=30) == 7
        assert sandbox.get_pool().stats.crashes == 0
    finally:
        sandbox.set_inprocess(was_inprocess)
