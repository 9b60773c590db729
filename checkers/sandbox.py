"""A killable pool of warm worker processes for grading work that might not terminate in time.

Why not SIGALRM: signals only reach the main thread, and the web service grades from worker threads.
Why processes: a sympy call deep inside ``simplify`` cannot be interrupted from Python, only killed.

Usage::

    from checkers import sandbox
    value = sandbox.run(module_level_function, arg1, arg2, timeout=2.0)   # raises TaskTimeout

Functions and arguments travel by pickle, so ``fn`` must be importable by name (module level).
The pool starts lazily on first use, keeps ``size`` persistent workers with sympy (and the checkers)
already imported, kills and replaces a worker whose task overruns, and shuts down at interpreter exit.

``set_inprocess(True)`` (or ``CHECKERS_SANDBOX=inprocess``) runs tasks directly in the caller; no
time limit is enforced then, so it is only for tests of pure functions and for debugging.
"""

from __future__ import annotations

import atexit
import importlib
import multiprocessing as mp
import os
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from . import child_cpus

DEFAULT_PRELOAD = ("sympy", "checkers.equivalence", "checkers.kinds")
_START_TIMEOUT = 60.0  # a cold worker imports sympy; generous because CI machines are slow


_kill_listeners: list[Callable[[str], None]] = []


def add_kill_listener(fn: Callable[[str], None]) -> None:
    """Call ``fn(reason)`` whenever a child is killed for overrunning a limit or found dead (``timeout``,
    ``crash``; the code runner adds ``code_timeout``, ``code_output``): the service counts them as a metric."""
    if fn not in _kill_listeners:
        _kill_listeners.append(fn)


def notify_kill(reason: str) -> None:
    for fn in list(_kill_listeners):
        try:
            fn(reason)
        except Exception:  # noqa: BLE001 - a broken listener must not turn a verdict into a crash
            pass


class SandboxError(RuntimeError):
    """Base class of the pool's own failures (never a learner's fault)."""


class TaskTimeout(SandboxError):
    def __init__(self, timeout: float):
        super().__init__(f"task exceeded its {timeout:.3g} s limit")
        self.timeout = timeout


class WorkerCrashed(SandboxError):
    """The worker died without answering (killed for memory, segfault in a C extension...)."""


class PoolBusy(SandboxError):
    """No worker became free within the queue timeout."""


class RemoteError(SandboxError):
    """The task raised an exception that could not be sent back as itself."""


def _limit_memory(mb: int | None) -> None:
    if not mb:
        return
    try:
        import resource  # local: Unix only; elsewhere the limit is skipped
        soft = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (soft, soft))
    except (ImportError, ValueError, OSError):  # pragma: no cover - platform without RLIMIT_AS
        pass


_IN_WORKER = False


def in_worker() -> bool:
    """True inside a sandbox worker: code there must not submit to the pool again."""
    return _IN_WORKER


def _worker_main(conn, preload: tuple[str, ...], memory_mb: int | None) -> None:
    global _IN_WORKER
    _IN_WORKER = True
    for name in preload:
        try:
            module = importlib.import_module(name)
            # A preloaded module may pay its one-time costs here (e.g. the parser's sympy warm-up),
            # so that no task's time budget is charged for them.
            warm = getattr(module, "warm_up", None)
            if callable(warm):
                warm()
        except Exception:  # a missing optional module must not stop the worker from serving
            pass
    _limit_memory(memory_mb)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        fn, args, kwargs = msg
        try:
            reply = ("ok", fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the caller
            reply = ("err", exc, traceback.format_exc())
        try:
            conn.send(reply)
        except Exception as exc:  # unpicklable result or exception
            conn.send(("err", RemoteError(f"{type(exc).__name__}: {exc}"), ""))


class _Worker:
    __slots__ = ("process", "conn", "ready")

    def __init__(self, ctx, preload, memory_mb):
        parent, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(child, preload, memory_mb), daemon=True,
                                   name="checkers-sandbox")
        self.process.start()
        child.close()
        self.conn = parent
        self.ready = False

    def wait_ready(self, timeout: float) -> None:
        if self.ready:
            return
        if not self.conn.poll(timeout):
            raise WorkerCrashed("worker did not start in time")
        try:
            self.conn.recv()
        except (EOFError, OSError) as exc:
            raise WorkerCrashed("worker died while starting") from exc
        self.ready = True

    def kill(self) -> None:
        try:
            self.process.kill()
        except Exception:
            pass
        try:
            self.process.join(1.0)
        except Exception:
            pass
        try:
            self.conn.close()
        except Exception:
            pass

    def stop(self) -> None:
        try:
            self.conn.send(None)
            self.process.join(0.5)
        except Exception:
            pass
        if self.process.is_alive():
            self.kill()
        else:
            try:
                self.conn.close()
            except Exception:
                pass


@dataclass
class PoolStats:
    tasks: int = 0
    timeouts: int = 0
    crashes: int = 0
    replaced: int = 0


class WorkerPool:
    """``size`` persistent workers; ``run`` is thread-safe and blocks the calling thread only."""

    def __init__(self, size: int | None = None, *, method: str | None = None,
                 preload: tuple[str, ...] = DEFAULT_PRELOAD, memory_mb: int | None = None,
                 queue_timeout: float = 30.0):
        self.size = size or max(1, min(4, os.cpu_count() or 1))
        self.method = method or ("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        self.preload = tuple(preload)
        self.memory_mb = memory_mb
        self.queue_timeout = queue_timeout
        self.stats = PoolStats()
        self._ctx = None
        self._idle: list[_Worker] = []
        self._count = 0  # live + starting workers
        self._cond = threading.Condition()
        self._closed = False
        self._started = False

    # -- lifecycle ---------------------------------------------------------------------------------
    def _context(self):
        if self._ctx is None:
            ctx = mp.get_context(self.method)
            if self.method == "forkserver":
                # The fork server imports these once; every worker forked from it starts warm.
                ctx.set_forkserver_preload(list(self.preload))
            self._ctx = ctx
        return self._ctx

    def start(self) -> None:
        """Start the workers now (otherwise the first ``run`` does)."""
        with self._cond:
            if self._closed:
                raise SandboxError("pool is shut down")
            if self._started:
                return
            self._started = True
            missing = self.size - self._count
            self._count += missing
        workers = [self._spawn() for _ in range(missing)]
        for w in workers:
            try:
                w.wait_ready(_START_TIMEOUT)
            except WorkerCrashed:
                w.kill()
                with self._cond:
                    self._count -= 1
                    self._cond.notify_all()
                self._replace_async()
                continue
            self._release(w)

    def _spawn(self) -> _Worker:
        with child_cpus.for_children():  # the fork server, when this starts it, and so every worker
            return _Worker(self._context(), self.preload, self.memory_mb)

    def _replace_async(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._count += 1
            self.stats.replaced += 1

        def start_one():
            try:
                w = self._spawn()
                w.wait_ready(_START_TIMEOUT)
            except Exception:
                with self._cond:
                    self._count -= 1
                    self._cond.notify_all()
                return
            self._release(w)

        threading.Thread(target=start_one, name="checkers-sandbox-replace", daemon=True).start()

    def _release(self, w: _Worker) -> None:
        with self._cond:
            if self._closed:
                w.stop()
                return
            self._idle.append(w)
            self._cond.notify()

    def _acquire(self) -> _Worker:
        deadline = time.monotonic() + self.queue_timeout
        with self._cond:
            while True:
                if self._closed:
                    raise SandboxError("pool is shut down")
                if self._idle:
                    return self._idle.pop()
                if self._count < self.size:  # a worker was lost and its replacement failed
                    self._count += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise PoolBusy(f"no sandbox worker free within {self.queue_timeout:.3g} s")
                self._cond.wait(left)
        try:
            w = self._spawn()
            w.wait_ready(_START_TIMEOUT)
            return w
        except Exception:
            with self._cond:
                self._count -= 1
                self._cond.notify_all()
            raise

    def _discard(self, w: _Worker) -> None:
        w.kill()
        with self._cond:
            self._count -= 1
            self._cond.notify_all()
        self._replace_async()

    def shutdown(self) -> None:
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for w in idle:
            w.stop()

    # -- the one operation -------------------------------------------------------------------------
    def run(self, fn: Callable[..., Any], *args: Any, timeout: float = 2.0, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` in a worker; raise :class:`TaskTimeout` after ``timeout`` s.

        The limit counts from the moment the task is handed to a worker (queueing is bounded
        separately by ``queue_timeout``). An exception raised by ``fn`` is re-raised here.
        """
        if not self._started:
            self.start()
        w = self._acquire()
        self.stats.tasks += 1
        try:
            w.conn.send((fn, args, kwargs))
        except (OSError, EOFError, BrokenPipeError) as exc:
            self.stats.crashes += 1
            self._discard(w)
            notify_kill("crash")
            raise WorkerCrashed("sandbox worker was gone") from exc
        except Exception as exc:  # the task did not pickle: nothing was written, the worker is still good
            self._release(w)
            raise SandboxError(f"task could not be sent to a worker ({type(exc).__name__}: {exc})") from exc
        if not w.conn.poll(timeout):
            self.stats.timeouts += 1
            self._discard(w)
            notify_kill("timeout")
            raise TaskTimeout(timeout)
        try:
            reply = w.conn.recv()
        except (EOFError, OSError) as exc:
            self.stats.crashes += 1
            self._discard(w)
            notify_kill("crash")
            raise WorkerCrashed("sandbox worker died during the task") from exc
        self._release(w)
        if reply[0] == "ok":
            return reply[1]
        raise reply[1]


# -- probes: importable by name in every worker (used by tests and the benchmark) ------------------
def probe_echo(value: Any) -> Any:
    return value


def probe_sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def probe_pid() -> int:
    return os.getpid()


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
            _default = WorkerPool(size, memory_mb=mem)
        return _default


def run(fn: Callable[..., Any], *args: Any, timeout: float = 2.0, **kwargs: Any) -> Any:
    """Run ``fn`` in the default pool (or in-process when :func:`set_inprocess` is on)."""
    if _inprocess or _IN_WORKER:
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

__all__ = ["add_kill_listener", "notify_kill",
           "PoolBusy", "RemoteError", "SandboxError", "TaskTimeout", "WorkerCrashed", "WorkerPool",
           "get_pool", "in_worker", "is_inprocess", "run", "set_inprocess", "shutdown"]
