"""Probes for a load balancer or an orchestrator.

``GET /healthz``  200 ``{"status": "ok"}`` while the process answers at all (liveness: restart it if not).
``GET /readyz``   200 when this worker can serve: the database answers ``SELECT 1``, its schema is at the
                  newest migration (a worker started before ``db-upgrade`` finished must not take traffic)
                  and the grader pool answers a probe task — with ``GRADING_BACKEND=rq`` also Redis answers
                  and a grading host listens on the queue; otherwise 503 with each failed check named.
                  ``assets`` lists built files that are missing (catalogs, the code editor): the service
                  answers without them, so they never make it 503.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import Blueprint, current_app, jsonify
from sqlalchemy import text
from checkers import sandbox
from . import grading_backends
from .storage.db import get_db
from .storage.migrate import current_revision, head_revision
from .ops import assets

log = logging.getLogger(__name__)
bp = Blueprint("ops_health", __name__)

_head_lock = threading.Lock()
_head: dict[str, str | None] = {}


def _head_revision(app) -> str | None:
    """The newest migration of the checkout (read once per process: the files do not change under it)."""
    key = app.config["MIGRATIONS_PATH"]
    with _head_lock:
        if key not in _head:
            _head[key] = head_revision(app)
        return _head[key]


def _check_database(app) -> dict[str, Any]:
    try:
        with get_db(app).engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        current = current_revision(app)
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready", with its reason
        return {"database": {"ok": False, "error": type(exc).__name__}}
    head = _head_revision(app)
    return {"database": {"ok": True},
            "migrations": {"ok": current == head, "current": current, "head": head}}


def _check_grader() -> dict[str, Any]:
    if sandbox.is_inprocess():
        return {"grader": {"ok": True, "mode": "inprocess"}}
    try:
        ok = sandbox.run(sandbox.probe_echo, 1, timeout=5.0) == 1
    except Exception as exc:  # noqa: BLE001
        return {"grader": {"ok": False, "error": type(exc).__name__}}
    return {"grader": {"ok": ok, "mode": "pool"}}


@bp.get("/healthz")
def healthz():
    return jsonify({"status": "ok"})


@bp.get("/readyz")
def readyz():
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    checks = {**_check_database(app), **_check_grader(), **grading_backends.readiness(app),
              "assets": assets.check()}
    ready = all(c.get("ok") for c in checks.values())
    if not ready:
        log.warning("not ready: %s", {k: v for k, v in checks.items() if not v.get("ok")})
    return jsonify({"status": "ready" if ready else "not_ready", "checks": checks}), (200 if ready else 503)
