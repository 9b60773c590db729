"""The clock that soft grading budgets are measured on.

Soft budgets (the equivalence layers, derivation steps) count this thread's CPU time, not wall time: the
same answer then gets the same verdict on a quiet machine and on a loaded one, instead of flipping to
``undecided`` when other processes share the cores. Wall time is still bounded, by the sandbox pool's
hard limit, which kills a worker whatever it is doing.
"""

from __future__ import annotations

import signal
import sys
import time

#: Seconds of this thread's CPU time (user + system).
clock = time.thread_time

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
