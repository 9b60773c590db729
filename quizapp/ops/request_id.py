"""A request id per request: taken from the ``X-Request-ID`` header when a proxy set a sane one, else made
here; echoed in the response's ``X-Request-ID`` and written in every log line of the request.

With ``QUIZ_LOG_JSON=1`` (what ``quizapp serve`` sets unless told otherwise) log records are one JSON
object a line, and each request ends with an ``access`` record: method, path, endpoint, status,
milliseconds and the request id. A log collector joins a learner's report ("my attempt failed at 12:03",
the id shown in the browser's network tab) to the server's lines by that id.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import time

from flask import Flask, g, has_request_context, request

HEADER = "X-Request-ID"
_SANE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")  # no spaces or control characters reach a log line

access_log = logging.getLogger("quizapp.access")


class _Ids:
    """Request ids of this process: a random prefix made once per process (again in a forked worker, whose
    copy would otherwise repeat its siblings' ids) and a counter. A request id names a request in the logs;
    it guards nothing, and a random id per request cost a ``getrandom`` call on every request, which under
    load gives up the interpreter and waits behind the worker's other threads to take it back."""

    def __init__(self) -> None:
        self._pid: int | None = None
        self._prefix = ""
        self._count = itertools.count()

    def next(self) -> str:
        if self._pid != os.getpid():
            self._pid, self._prefix, self._count = os.getpid(), os.urandom(10).hex(), itertools.count()
        return f"{self._prefix}{next(self._count):012x}"  # 32 hex digits, as a uuid4's were


_ids = _Ids()


def current() -> str | None:
    return g.get("request_id") if has_request_context() else None


def _begin() -> None:
    incoming = request.headers.get(HEADER, "")
    g.request_id = incoming if _SANE.match(incoming) else _ids.next()
    g.request_started = time.perf_counter()


def _end(response):
    rid = g.get("request_id")
    if rid:
        response.headers[HEADER] = rid
        started = g.get("request_started")
        if access_log.isEnabledFor(logging.INFO) and started is not None:
            access_log.info("access", extra={"request_id": rid, "fields": {
                "method": request.method, "path": request.path, "endpoint": request.endpoint,
                "status": response.status_code,
                "ms": round((time.perf_counter() - started) * 1000, 2)}})
    return response


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` (``-`` outside a request) so that any format may name it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = current() or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id and the record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        body = {"ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"), "level": record.levelname,
                "logger": record.name, "msg": record.getMessage(),
                "request_id": getattr(record, "request_id", None) or current()}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            body.update(fields)
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False, default=str)


def configure_logging(level: int = logging.INFO) -> None:
    """Structured logs on stderr for a served process (tests keep pytest's own capture)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def init_app(app: Flask) -> None:
    app.before_request(_begin)
    app.after_request(_end)
