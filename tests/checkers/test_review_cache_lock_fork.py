"""A fork taken while another thread holds the equivalence cache lock must not hang the child."""

import os
import threading

import pytest

from checkers import equivalence as eq


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_child_gets_a_fresh_cache_lock():
    held = threading.Event()
    release = threading.Event()

    def hold():
        with eq._cache_lock:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(60)  # the fork below must really happen while the lock is held
        pid = os.fork()
        if pid == 0:  # child: the lock must be free here even though the parent's thread holds it
            # non-blocking: an inherited held lock fails at once, whatever the load (no timeout to race)
            ok = eq._cache_lock.acquire(blocking=False)
            os._exit(0 if ok else 1)
    finally:
        release.set()
        t.join()
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
