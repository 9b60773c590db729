"""The OpenAPI 3.1 document of API v1: the fragments of the app's registered blueprints
(:mod:`quizapp.httpkit.openapi`), merged in registration order, with what holds for every operation added
from the app itself (the cross-site write guard's 415, the rate limits' 429).

The fragments are copied before anything is added, so building the document never changes their data.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from flask import current_app

from .httpkit.openapi import fragments, json_response, ref

INFO = {"title": "RLHF quiz service API", "version": "1.0.0",
        "description": "Questions, attempts, answer checks and the torch reference engine. Every error "
                       "is {\"error\": {\"code\", \"message\", \"field\"}}. A signed cookie "
                       "(quiz_learner) identifies the anonymous learner; keep it between requests."}

#: A budget spent: 429 with the envelope (code too_many_requests) and the seconds to wait.
RATE_LIMITED_429 = {
    "description": "Too many requests for this learner or address (quizapp.ops.limits): retry after Retry-After "
                   "seconds",
    "headers": {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 0}}},
    "content": {"application/json": {"schema": ref("Error")}},
}

#: ``<name>`` or ``<converter:name>`` in a werkzeug rule: ``{name}`` in an OpenAPI path.
_RULE_ARG = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


def document() -> dict[str, Any]:
    """The whole document for the current app."""
    paths: dict[str, dict[str, Any]] = {}
    schemas: dict[str, Any] = {}
    security: dict[str, Any] = {}
    for fragment in fragments(current_app.blueprints.values()):
        for path, operations in fragment.paths.items():
            paths.setdefault(path, {}).update(copy.deepcopy(operations))
        schemas.update(fragment.schemas)
        security.update(fragment.security_schemes)
    _document_cookie_writes(paths)
    _document_rate_limits(paths)
    return {
        "openapi": "3.1.0",
        "info": INFO,
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": security},
    }


def _document_cookie_writes(paths: dict[str, Any]) -> None:
    """Every POST may answer 415 when it carries cookies and is not JSON (quizapp.httpkit.json_writes, the
    cross-site request guard)."""
    for operations in paths.values():
        for method, op in operations.items():
            if method == "post":
                op["responses"].setdefault("415", json_response(ref("Error"), "Sent with cookies and not as "
                                                                              "application/json (cross-site "
                                                                              "request guard)"))


def _document_rate_limits(paths: dict[str, Any]) -> None:
    """429 with Retry-After on every operation a rate limit applies to (read from the app's routes)."""
    from .ops.limits import CHECK_ENDPOINTS, SUBMIT_ENDPOINTS  # local: the limiter's own list is the truth

    limited = set(SUBMIT_ENDPOINTS) | set(CHECK_ENDPOINTS)
    for rule in current_app.url_map.iter_rules():
        if rule.endpoint not in limited:
            continue
        path = _RULE_ARG.sub(r"{\1}", rule.rule)
        for method in rule.methods or ():
            op = paths.get(path, {}).get(method.lower())
            if op is not None:
                op["responses"].setdefault("429", RATE_LIMITED_429)
