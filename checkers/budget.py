"""The clock that soft grading budgets are measured on.

Soft budgets (the equivalence layers, derivation steps) count this thread's CPU time, not wall time: the
same answer then gets the same verdict on a quiet machine and on a loaded one, instead of flipping to
``undecided`` when other processes share the cores. Wall time is still bounded, by the sandbox pool's
hard limit, which kills a worker whatever it is doing.
"""

from __future__ import annotations

import signal
import time

#: Seconds of this thread's CPU time (user + system).
clock = time.thread_time

#: The interval timer (and its signal) that counts the same kind of time for a single-threaded worker.
TIMER = signal.ITIMER_PROF if hasattr(signal, "ITIMER_PROF") else None
TIMER_SIGNAL = signal.SIGPROF if hasattr(signal, "SIGPROF") else None
