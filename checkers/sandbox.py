"""The process-wide killable pool every grader shares, for work that might not terminate in time.

Usage::

    from checkers import sandbox
    value = sandbox.run(module_level_function, arg1, arg2, timeout=2.0)   # raises worker_pool.TaskTimeout

Functions and arguments travel by pickle, so ``fn`` must be importable by name (module level).
The pool (:class:`checkers.worker_pool.WorkerPool`) starts lazily on first use, keeps its workers warm,
kills and replaces a worker whose task overruns, and shuts down at interpreter exit; a process forked
from one that used it starts a pool of its own.

``set_inprocess(True)`` (or ``CHECKERS_SANDBOX=inprocess``) runs tasks directly in the caller; no
time limit is enforced then, so it is only for tests of pure functions and for debugging.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Any, Callable

from .worker_pool import WorkerPool, in_worker

_kill_listeners: list[Callable[[str], None]] = []


def add_kill_listener(fn: Callable[[str], None]) -> None:
    """Call ``fn(reason)`` whenever a child is killed for overrunning a limit or found dead (``timeout``,
    ``crash``; the code runner adds ``code_timeout``, ``code_output``): the service counts them as a metric."""
    if fn not in _kill_listeners:
        _kill_listeners.append(fn)


def notify_kill(reason: str) -> None:
    """Tell every kill listener that a child was killed for ``reason``."""
    for fn in list(_kill_listeners):
        try:
            fn(reason)
        except Exception:  # noqa: BLE001 - a broken listener must not turn a verdict into a crash
            pass


# -- the readiness check's task (``/readyz``: a worker answers) -------------------------------------
def probe_echo(value: Any) -> Any:
    """``value`` back, from a worker: the pool starts, runs a task and returns its result."""
    return value


# -- the process-wide default pool ------------------------------------------------------------------
_default: WorkerPool | None = None
_default_lock = threading.Lock()
_inprocess = os.environ.get("CHECKERS_SANDBOX", "").lower() == "inprocess"


def set_inprocess(flag: bool) -> None:
    """Run tasks in the calling process (no hard time limit): for tests of pure functions."""
    global _inprocess
    _inprocess = bool(flag)


def is_inprocess() -> bool:
    return _inprocess


def get_pool() -> WorkerPool:
    global _default
    with _default_lock:
        if _default is None:
            size = int(os.environ.get("CHECKERS_SANDBOX_WORKERS", "0")) or None
            mem = int(os.environ.get("CHECKERS_SANDBOX_MEMORY_MB", "2048")) or None
            _default = WorkerPool(size, memory_mb=mem, on_kill=notify_kill)
        return _default


def run(fn: Callable[..., Any], *args: Any, timeout: float = 2.0, **kwargs: Any) -> Any:
    """Run ``fn`` in the default pool (or in-process when :func:`set_inprocess` is on)."""
    if _inprocess or in_worker():
        return fn(*args, **kwargs)
    return get_pool().run(fn, *args, timeout=timeout, **kwargs)


def shutdown() -> None:
    global _default
    with _default_lock:
        pool, _default = _default, None
    if pool is not None:
        pool.shutdown()


atexit.register(shutdown)


def _after_fork_in_child() -> None:
    """A process forked from one that had used the pool (a pre-forking server) must not share its workers.

    The inherited workers' pipes are the parent's: tasks sent from both processes would cross replies,
    and the child's exit-time shutdown would stop the parent's workers. The child starts its own pool
    lazily instead; the inherited objects are dropped without touching the workers.
    """
    global _default, _default_lock
    _default = None
    _default_lock = threading.Lock()
    # The inherited fork server is the parent's child, not ours (``ensure_running`` would fail with
    # ChildProcessError): forget it, so that the child's pool starts a fork server of its own.
    try:
        from multiprocessing import forkserver as _fs  # local: absent where only spawn exists
        server = _fs._forkserver
        alive = getattr(server, "_forkserver_alive_fd", None)
        if getattr(server, "_forkserver_pid", None) is not None:
            if alive is not None:
                try:
                    os.close(alive)  # the parent's fork server must still stop when the parent exits
                except OSError:
                    pass
            server.__init__()
    except Exception:  # pragma: no cover - a Python without a fork server: spawn needs no reset
        pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

__all__ = ["add_kill_listener", "get_pool", "is_inprocess", "notify_kill", "probe_echo", "run", "set_inprocess", "shutdown"]
