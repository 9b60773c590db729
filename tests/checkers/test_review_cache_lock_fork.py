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
    held.wait(5)
    pid = os.fork()
    if pid == 0:  # child: the lock must be free here even though the parent's thread holds it
        ok = eq._cache_lock.acquire(timeout=2)
        os._exit(0 if ok else 1)
    release.set()
    t.join()
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
