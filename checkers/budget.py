"""The clock that soft grading budgets are measured on.

Soft budgets (the equivalence layers, derivation steps) count this thread's CPU time, not wall time: the
same answer then gets the same verdict on a quiet machine and on a loaded one, instead of flipping to
``undecided`` when other processes share the cores. Wall time is still bounded, by the sandbox pool's
hard limit, which kills a worker whatever it is doing.
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
import time

_gc_state = threading.local()


def _gc_timer(phase: str, info: dict) -> None:
    # A collection runs in whichever thread allocated last and scans every object of the process: in a
    # large process (torch, sympy's caches) one full collection costs tens to hundreds of milliseconds
    # that have nothing to do with the answer being checked, so it is kept off the budget clock.
    if phase == "start":
        _gc_state.start = time.thread_time()
    elif getattr(_gc_state, "start", None) is not None:
        _gc_state.total = getattr(_gc_state, "total", 0.0) + time.thread_time() - _gc_state.start
        _gc_state.start = None


gc.callbacks.append(_gc_timer)


def clock() -> float:
    """Seconds of this thread's CPU time (user + system), garbage-collection pauses excluded."""
    return time.thread_time() - getattr(_gc_state, "total", 0.0)

#: The interval timer (and its signal) that counts the same kind of time for a single-threaded worker.
TIMER = signal.ITIMER_PROF if hasattr(signal, "ITIMER_PROF") else None
TIMER_SIGNAL = signal.SIGPROF if hasattr(signal, "SIGPROF") else None


def count_calls(fn, *args, **kwargs):
    """Run ``fn(*args, **kwargs)`` in this thread and return ``(result, calls)``.

    ``calls`` is the number of Python and C function calls made meanwhile (``sys.setprofile`` events
    ``call`` and ``c_call``): a measure of work that, unlike any clock, does not change when other
    processes share the cores. Tests bound it to prove that hostile input is refused before the work
    it would cause; ``benchmarks/`` report the time. An exception from ``fn`` propagates (the count
    is then lost).
    """
    n = 0

    def prof(frame, event, arg):
        nonlocal n
        if event == "call" or event == "c_call":
            n += 1

    outer = sys.getprofile()
    sys.setprofile(prof)  # this thread only: other threads' work is not counted
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.setprofile(outer)
    return result, n
