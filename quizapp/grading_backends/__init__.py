"""Where a heavy answer is graded: in this process (``local``) or on grading hosts behind a Redis queue (``rq``).

The grading service and the check endpoints call :func:`grade` and :func:`check` here instead of the kind;
this module picks the backend from the app's configuration (``GRADING_BACKEND``, ``REDIS_URL``,
``GRADING_QUEUE``, ``GRADING_QUEUE_WAIT``; defaults in :mod:`quizapp.config`):

* ``local`` (the default, and every kind that is not ``queued``, ``checkers.kinds.base.Kind``, whatever the setting):
  :func:`checkers.grading.grade` in the calling worker, in this host's sandbox pool and code-run children;
* ``rq``: the answer goes to ``checkers.jobs`` on a Redis queue as JSON; an ``rq worker`` on a grading host
  (which imports ``checkers`` only) grades it and the request waits for the verdict, at most
  ``GRADING_QUEUE_WAIT`` seconds.

Both return the same :class:`~checkers.verdict.Verdict` for the same answer. When the queue cannot answer
(Redis down, no worker in time, a worker that died on the job) they raise :class:`GradingUnavailable`, a
503 with ``Retry-After`` in the API's error envelope; the grading service stores such a part as
``undecided`` (the attempt is kept and costs nothing). A verdict that arrives after the wait is never read.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Mapping, Protocol

from checkers.kinds import Kind, find_kind
from checkers.verdict import Verdict
from flask import Flask, current_app, has_app_context

from .. import config as _config
from ..errors import ServiceUnavailable
from ..i18n import Message
from .local import LocalBackend

log = logging.getLogger(__name__)

EXTENSION = "quiz_grading_backend"
_LOCAL = LocalBackend()
_build_lock = threading.Lock()


class GradingUnavailable(ServiceUnavailable):
    """The grading queue gave no verdict: ``grading_unavailable`` (Redis unreachable or misconfigured),
    ``grading_timeout`` (no grading host answered in time) or ``grading_failed`` (the job died there)."""

    def __init__(self, message: str | Message, *, code: str):
        super().__init__(message, None, code=code)


class Backend(Protocol):
    name: str

    def grade(self, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None, kind: Kind | None = None) -> Verdict:
        """``kind``: the part's kind, already looked up (a backend grading here uses it)."""
        ...

    def check(self, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *,
              kind: Kind | None = None) -> Verdict | None: ...

    def readiness(self) -> dict[str, Any] | None:
        """What ``/readyz`` reports of this backend (``{"ok": ..., ...}``), or ``None`` when it adds nothing."""
        ...


def _build(app: Flask) -> Backend:
    name = app.config.get("GRADING_BACKEND") or _config.DEFAULT_GRADING_BACKEND
    if name == "local":
        return _LOCAL
    if name == "rq":
        from .rq_queue import RQBackend  # local: redis and rq are imported only where the queue is used
        return RQBackend(url=app.config.get("REDIS_URL") or _config.DEFAULT_REDIS_URL,
                         queue=app.config.get("GRADING_QUEUE") or _config.DEFAULT_GRADING_QUEUE,
                         wait=float(app.config.get("GRADING_QUEUE_WAIT") or _config.DEFAULT_GRADING_QUEUE_WAIT))
    raise GradingUnavailable(f"GRADING_BACKEND must be one of {', '.join(_config.GRADING_BACKENDS)}, "
                             f"not {name!r}", code="grading_unavailable")


def backend_for(part: Mapping[str, Any], kind: Kind | None = None) -> Backend:
    """The backend that grades ``part`` (of ``kind`` when the caller has looked it up): the configured one
    for queued kinds, else (and outside an app) local."""
    kind = kind or find_kind(part.get("kind"))
    if kind is None or not kind.queued or not has_app_context():
        return _LOCAL
    return _configured()


def _configured() -> Backend:
    """The app's configured backend, built once per app and process."""
    app = current_app._get_current_object()
    backend = app.extensions.get(EXTENSION)
    if backend is None:
        with _build_lock:  # one Redis connection pool per app and process, however many threads ask at once
            backend = app.extensions.get(EXTENSION)
            if backend is None:
                backend = app.extensions[EXTENSION] = _build(app)
    return backend


def readiness(app: Flask) -> dict[str, Any]:
    """``/readyz``'s view of the configured backend: empty for ``local`` (the grader pool check covers it)."""
    with app.app_context():
        try:
            backend = _configured()
        except GradingUnavailable as exc:
            return {"grading_queue": {"ok": False, "error": exc.code}}
    report = backend.readiness()
    return {} if report is None else {"grading_queue": report}


def grade(raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *, timeout: float | None = None,
          kind: Kind | None = None) -> Verdict:
    """Grade one answer to one part (what :func:`checkers.grading.grade` answers), where the config says;
    ``kind``: the part's kind when the caller has looked it up (then nothing looks it up again here)."""
    return backend_for(part, kind).grade(raw, part, params, timeout=timeout, kind=kind)


def check(raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *, kind: Kind | None = None) -> Verdict | None:
    """The part's practice check (``None`` where its kind has none), where the config says."""
    return backend_for(part, kind).check(raw, part, params, kind=kind)
