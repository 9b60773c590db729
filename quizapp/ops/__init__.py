"""Operations: request ids and structured logs, Prometheus metrics, body sizes refused before parsing, rate
limits and grading slots (admission) on the grading endpoints (the health and readiness probes are the
blueprint of :mod:`quizapp.health`). ``init_app(app)`` installs them all; ``after_fork(app)`` runs in each
new server worker (:mod:`quizapp.serving`)."""

from __future__ import annotations

from flask import Flask

from . import admission, bodies, limits, metrics, request_id


def init_app(app: Flask) -> None:
    """Call once every blueprint is registered (the limits wrap the grading views by endpoint name)."""
    request_id.init_app(app)
    metrics.init_app(app)
    bodies.init_app(app)
    # First of all before-request functions: a request another one answers early still gets its id and
    # its latency measured, and an oversized body is refused before any other function reads it.
    funcs = app.before_request_funcs.setdefault(None, [])
    for fn in (bodies._check_body, metrics._begin, request_id._begin):
        funcs.remove(fn)
        funcs.insert(0, fn)
    limits.init_app(app)
    admission.init_app(app)  # first around the grading views, so the rate limits wrap the slot
    app.extensions["quizapp.limiter.wrap"]()


def after_fork(app: Flask) -> None:
    metrics.after_fork()
