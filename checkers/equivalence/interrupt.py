"""Interrupting sympy at the soft deadline of a comparison.

A single sympy call (``cancel`` of a degree-400 polynomial, ``simplify``) cannot be stopped by checking
the clock between calls. Inside a sandbox worker the grading runs in the worker's main thread, so an
interval timer can interrupt it at the deadline; the worker survives and answers ``undecided`` instead
of being killed at the hard limit. Elsewhere (in-process tests, threads) this is a no-op and the hard
limit of the pool, or the clock checks between steps, bound the work.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

from .. import budget
from ..worker_pool import in_worker

class BudgetExceeded(BaseException):
    """Raised inside sympy by the worker's timer (a BaseException, so sympy's ``except Exception`` can't eat it)."""


_alarm_deadline: float | None = None   # budget.clock() deadline of the armed timer; None when disarmed


def _on_alarm(signum, frame) -> None:  # pragma: no cover - runs in sandbox workers
    global _alarm_deadline
    dl = _alarm_deadline
    if dl is None:
        return
    left = dl - budget.clock()
    if left > 1e-3:  # woke early: sleep on
        signal.setitimer(budget.TIMER, left)
        return
    _alarm_deadline = None
    raise BudgetExceeded()


def _can_interrupt() -> bool:
    return (in_worker() and hasattr(signal, "setitimer") and budget.TIMER is not None
            and threading.current_thread() is threading.main_thread())


@contextmanager
def interrupt_at(deadline: float) -> Iterator[None]:
    """Raise :class:`BudgetExceeded` in the body once ``budget.clock()`` (CPU time) passes ``deadline``.

    Only in a sandbox worker's main thread; nests (the earlier deadline wins). The caller catches
    :class:`BudgetExceeded` *outside* the ``with`` block.
    """
    global _alarm_deadline
    if not _can_interrupt():
        yield
        return
    outer = _alarm_deadline
    mine = deadline if outer is None else min(outer, deadline)
    if signal.getsignal(budget.TIMER_SIGNAL) is not _on_alarm:
        signal.signal(budget.TIMER_SIGNAL, _on_alarm)
    _alarm_deadline = mine
    signal.setitimer(budget.TIMER, max(mine - budget.clock(), 1e-4))
    try:
        yield
    finally:
        _alarm_deadline = None
        signal.setitimer(budget.TIMER, 0)
        if outer is not None:
            _alarm_deadline = outer
            signal.setitimer(budget.TIMER, max(outer - budget.clock(), 1e-4))

