"""Rate limits on the endpoints that grade (Flask-Limiter): each learner and each client address gets a
budget per minute on submitting attempts and on the check/validate/engine endpoints; past it the answer
is 429 with ``Retry-After`` (seconds) and the JSON error envelope (code ``too_many_requests``).

=================================  ==========================================================================
``RATELIMIT_ENABLED``              ``false`` turns every limit off (benchmarks, acceptance runs, tests)
``RATELIMIT_STORAGE_URI``          ``memory://`` (default: counters in each server process) or
                                   ``redis://host:6379/0`` (one store for every worker of every host)
``RATELIMIT_SUBMIT``               per learner, submitting attempts (default ``30/minute``)
``RATELIMIT_SUBMIT_PER_ADDRESS``   per client address (default ``300/minute``: a class behind one NAT)
``RATELIMIT_CHECK``                per learner, check/validate/verify/engine calls (default ``120/minute``)
``RATELIMIT_CHECK_PER_ADDRESS``    per client address (default ``1200/minute``)
=================================  ==========================================================================

With ``memory://`` and several gunicorn workers each worker counts on its own, so ``quizapp serve`` sets
``RATELIMIT_WORKERS`` and each worker keeps ``1/workers`` of every budget: the host as a whole allows about
the configured rate (exactly so with Redis, which several hosts must use). The learner is the signed
learner cookie or the bearer token (never a new id made up for the request, so limits set no cookie);
the address is ``request.remote_addr`` — behind a reverse proxy that needs ``ProxyFix`` (docs/deploy.md).
"""

from __future__ import annotations

import hashlib
import os

from flask import Flask, current_app, request
from flask_limiter import Limiter
from limits import parse_many

from ..learner_cookie import is_learner_id, learner_serializer

SUBMIT_ENDPOINTS = ("api.submit_attempt",)
CHECK_ENDPOINTS = ("api.check_symbolic", "api.check_derivation", "api.check_code", "api.check_part",
                   "api.validate_answer", "api.verify", "api.reference_call")

DEFAULTS = {
    "RATELIMIT_SUBMIT": "30/minute",
    "RATELIMIT_SUBMIT_PER_ADDRESS": "300/minute",
    "RATELIMIT_CHECK": "120/minute",
    "RATELIMIT_CHECK_PER_ADDRESS": "1200/minute",
}


def config_from_env() -> dict:
    raw = (os.environ.get("RATELIMIT_ENABLED") or "true").strip().lower()
    if raw not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        raise RuntimeError(f"environment variable RATELIMIT_ENABLED must be true or false, got {raw!r}")
    cfg = {"RATELIMIT_ENABLED": raw in ("1", "true", "yes", "on"),
           "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI") or "memory://",
           "RATELIMIT_WORKERS": int(os.environ.get("RATELIMIT_WORKERS") or 1)}
    for key, default in DEFAULTS.items():
        cfg[key] = os.environ.get(key) or default
    return cfg


def _share(limit: str, workers: int) -> str:
    """``limit`` (``"30/minute"``, ``"10 per 2 seconds"``; ``;``-separated) divided among ``workers``."""
    if workers <= 1:
        return limit
    parts = []
    for item in parse_many(limit):
        amount = max(1, item.amount // workers)
        parts.append(f"{amount}/{item.multiples} {item.GRANULARITY.name}")
    return ";".join(parts)


def learner_key() -> str:
    """The learner's signed cookie, else a digest of its bearer token, else its address."""
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer " and len(auth) < 512:
        return "token:" + hashlib.sha256(auth[7:].strip().encode()).hexdigest()[:32]
    cookie = request.cookies.get(current_app.config.get("LEARNER_COOKIE", "quiz_learner"))
    if cookie and len(cookie) < 512:
        try:
            value = learner_serializer().loads(cookie)
        except Exception:  # noqa: BLE001 - a bad signature is no learner
            value = None
        if is_learner_id(value):
            return "learner:" + value
    return "addr:" + (request.remote_addr or "-")


def address_key() -> str:
    return request.remote_addr or "-"


def init_app(app: Flask) -> None:
    for key, value in config_from_env().items():
        app.config.setdefault(key, value)
    limiter = Limiter(key_func=address_key, app=app, default_limits=[], headers_enabled=True,
                      storage_uri=app.config["RATELIMIT_STORAGE_URI"], strategy="moving-window")
    app.extensions["quizapp.limiter"] = limiter

    def wrap(endpoints, per_learner: str, per_address: str) -> None:
        if not limiter.enabled:
            # Turned off (RATELIMIT_ENABLED=false): the extension checks a wrapped view's limits even
            # then, at every request, to find that there is nothing to count.
            return
        # Read at request time: ``quizapp serve`` sets RATELIMIT_WORKERS after the app is built.
        def learner() -> str:
            return _share(current_app.config[per_learner], int(current_app.config.get("RATELIMIT_WORKERS") or 1))

        def address() -> str:
            return _share(current_app.config[per_address], int(current_app.config.get("RATELIMIT_WORKERS") or 1))

        for endpoint in endpoints:
            view = app.view_functions.get(endpoint)
            if view is None:
                continue
            view = limiter.limit(learner, key_func=learner_key, scope=f"{endpoint}:learner")(view)
            view = limiter.limit(address, key_func=address_key, scope=f"{endpoint}:address")(view)
            app.view_functions[endpoint] = view

    # Once the blueprints are registered: wrap the grading views without editing them.
    app.extensions["quizapp.limiter.wrap"] = lambda: (
        wrap(SUBMIT_ENDPOINTS, "RATELIMIT_SUBMIT", "RATELIMIT_SUBMIT_PER_ADDRESS"),
        wrap(CHECK_ENDPOINTS, "RATELIMIT_CHECK", "RATELIMIT_CHECK_PER_ADDRESS"))
