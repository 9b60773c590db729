"""A pool of warm worker processes that can be killed: the machinery behind :mod:`checkers.sandbox`.

Why not SIGALRM: signals only reach the main thread, and the web service grades from worker threads.
Why processes: a sympy call deep inside ``simplify`` cannot be interrupted from Python, only killed.

A :class:`WorkerPool` keeps ``size`` persistent workers with the ``preload`` modules (sympy, the
checkers) already imported, hands each task to an idle worker, kills and replaces a worker whose task
overruns its limit or that dies, and reports each kill to its ``on_kill`` callback. Functions and
arguments travel by pickle, so a task's function must be importable by name (module level).
"""

from __future__ import annotations

import gc
import importlib
import multiprocessing as mp
import os
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from . import child_cpus

#: checkers.mathparse for its ``warm_up`` (sympy's first-use costs): without it a worker's first check paid
#: them, about 100 ms.
DEFAULT_PRELOAD = ("sympy", "checkers.equivalence", "checkers.kinds", "checkers.mathparse")
_START_TIMEOUT = 60.0  # a cold worker imports sympy; generous because CI machines are slow


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
    # What the preloads made lives as long as the worker: out of the collector's full passes (gc.freeze),
    # which otherwise walked all of sympy (tens of ms) inside some learner's check.
    gc.collect()
    gc.freeze()
    _limit_memory(memory_mb)
    try:
        conn.send(("ready", os.getpid()))
    except OSError:  # the process that asked for this worker left while it started (a retired server worker)
        return
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
                 queue_timeout: float = 30.0, on_kill: Callable[[str], None] | None = None):
        self.size = size or max(1, min(4, os.cpu_count() or 1))
        self.method = method or ("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        self.preload = tuple(preload)
        self.memory_mb = memory_mb
        self.queue_timeout = queue_timeout
        self.stats = PoolStats()
        # told ``timeout`` or ``crash`` for every worker killed or found dead (the service's metric)
        self._on_kill = on_kill or (lambda reason: None)
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
            self._on_kill("crash")
            raise WorkerCrashed("sandbox worker was gone") from exc
        except Exception as exc:  # the task did not pickle: nothing was written, the worker is still good
            self._release(w)
            raise SandboxError(f"task could not be sent to a worker ({type(exc).__name__}: {exc})") from exc
        if not w.conn.poll(timeout):
            self.stats.timeouts += 1
            self._discard(w)
            self._on_kill("timeout")
            raise TaskTimeout(timeout)
        try:
            reply = w.conn.recv()
        except (EOFError, OSError) as exc:
            self.stats.crashes += 1
            self._discard(w)
            self._on_kill("crash")
            raise WorkerCrashed("sandbox worker died during the task") from exc
        self._release(w)
        if reply[0] == "ok":
            return reply[1]
        raise reply[1]

__all__ = ["DEFAULT_PRELOAD", "PoolBusy", "PoolStats", "RemoteError", "SandboxError", "TaskTimeout", "WorkerCrashed",
           "WorkerPool", "in_worker"]
