"""Admission control: at most ``GRADING_SLOTS`` requests of one server process grade at a time.

Grading an answer holds the interpreter for milliseconds of work; a page or a question read takes far
less. With every thread of a worker free to start grading, a burst of submits fills the threads and the
reads queue behind them, so a learner opening a page waits as long as the slowest submit. The grading
endpoints (the rate-limited ones, :mod:`.limits`) therefore take one of a few slots per process; a request
waiting for a slot sleeps on a semaphore (it does not compete for the interpreter), and the other threads
keep serving reads. A request that waits longer than
``GRADING_SLOT_WAIT`` seconds is answered 503 with ``Retry-After`` (code ``busy``) without being graded:
nothing is stored, so retrying is safe.

==========================  ===============================================================================
``GRADING_SLOTS``           grading requests one process runs at once (default 2,
                            :data:`quizapp.config.DEFAULT_GRADING_SLOTS`); ``0`` turns admission control off
``GRADING_SLOT_WAIT``       seconds a request waits for a slot before the 503 (default 30,
                            :data:`quizapp.config.DEFAULT_GRADING_SLOT_WAIT`)
==========================  ===============================================================================

The threads of a worker (``quizapp serve --threads``) must outnumber the slots for reads to pass: the
default of ``serve`` leaves most threads to them. Each process has its own semaphore; a forked worker makes
a fresh one (a copy taken while another thread held a slot would never be released).
"""

from __future__ import annotations

import functools
import os
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from flask import Flask, current_app, g

from ..config import DEFAULT_GRADING_SLOT_WAIT, DEFAULT_GRADING_SLOTS
from ..errors import ServiceUnavailable
from ..i18n import Message, N_
from .limits import CHECK_ENDPOINTS, SUBMIT_ENDPOINTS

EXTENSION_KEY = "quizapp.admission"


class Busy(ServiceUnavailable, code="busy"):
    """Every grading slot of the process stayed taken for ``GRADING_SLOT_WAIT`` seconds."""


class _Slots:
    """A semaphore of ``size`` slots, made again in a forked child (see the module docstring)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._pid = os.getpid()
        self._sem = threading.BoundedSemaphore(size)

    def semaphore(self) -> threading.BoundedSemaphore:
        if self._pid != os.getpid():
            self._pid, self._sem = os.getpid(), threading.BoundedSemaphore(self.size)
        return self._sem


def config_from_env() -> dict[str, Any]:
    slots = os.environ.get("GRADING_SLOTS")
    wait = os.environ.get("GRADING_SLOT_WAIT")
    try:
        out = {"GRADING_SLOTS": int(slots) if slots else DEFAULT_GRADING_SLOTS,
               "GRADING_SLOT_WAIT": float(wait) if wait else DEFAULT_GRADING_SLOT_WAIT}
    except ValueError as exc:
        raise RuntimeError(f"GRADING_SLOTS must be an integer and GRADING_SLOT_WAIT a number: {exc}") from None
    if out["GRADING_SLOTS"] < 0 or out["GRADING_SLOT_WAIT"] <= 0:
        raise RuntimeError("GRADING_SLOTS must be >= 0 and GRADING_SLOT_WAIT > 0")
    return out


@contextmanager
def grading_slot() -> Iterator[None]:
    """Hold one of the process's grading slots for the block (nothing to hold when admission control is
    off), unless :func:`let_go` gives it back first; raises :class:`Busy` after ``GRADING_SLOT_WAIT``
    seconds without one."""
    slots = current_app.extensions.get(EXTENSION_KEY)
    if slots is None:
        yield
        return
    sem = slots.semaphore()
    if not sem.acquire(timeout=float(current_app.config["GRADING_SLOT_WAIT"])):
        raise Busy(Message(N_("The server is busy grading other answers; nothing was stored. Retry in a moment.")))
    outer, g._quiz_slot = g.get("_quiz_slot"), [sem]
    try:
        yield
    finally:
        held = g._quiz_slot
        g._quiz_slot = outer
        if held:
            sem.release()


def let_go() -> None:
    """Give the request's grading slot back now, for the rest of the request: what is left waits for
    something other than the interpreter (a submit, for its turn to be stored) and then only answers."""
    held = g.get("_quiz_slot")
    if held:
        held.pop().release()


def in_slot(view: Callable[..., Any]) -> Callable[..., Any]:
    """``view`` run while holding one of the process's grading slots (or until it calls :func:`let_go`)."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with grading_slot():
            return view(*args, **kwargs)

    return wrapped


def init_app(app: Flask) -> None:
    """Wrap the grading views (call once the blueprints are registered, before the rate limits wrap them:
    a request refused by its rate limit never takes a slot). A submit lets its slot go once its attempt is
    graded and its response built (:func:`let_go`, called between
    :func:`quizapp.services.attempts.prepare_attempt` and :func:`~quizapp.services.attempts.store_attempt`):
    storing the attempt waits for the database's writer turn, not for the interpreter, and the attempts that
    wait together are committed together (:func:`quizapp.storage.group_commit.write_together`)."""
    for key, value in config_from_env().items():
        app.config.setdefault(key, value)
    size = int(app.config["GRADING_SLOTS"])
    if size <= 0:
        return
    app.extensions[EXTENSION_KEY] = _Slots(size)
    for endpoint in (*SUBMIT_ENDPOINTS, *CHECK_ENDPOINTS):
        view = app.view_functions.get(endpoint)
        if view is not None:
            app.view_functions[endpoint] = in_slot(view)
