"""Writes to the JSON API that a browser's cookie authenticates must be JSON: the API's defence against
cross-site request forgery.

A page on another site can make the browser send this site's cookies with a form post, and a form can only
send ``application/x-www-form-urlencoded``, ``multipart/form-data`` or ``text/plain``; a cross-site script
that sets ``Content-Type: application/json`` needs a CORS preflight, which this server never grants. So a
state-changing request under ``/api/`` that carries cookies and no bearer token (it is authenticated by the
learner cookie or the signed-in session) is refused with a 415 naming ``Content-Type`` unless it declares a
JSON body, even an empty one, or carries the ``X-CSRF-Token`` header (which no form can send). Requests
without cookies, or with ``Authorization: Bearer``, carry no ambient credential and are exempt, and so is a
blueprint that checks the session's CSRF token on every write itself (``checks_csrf``, the authoring API).
Only POST is guarded: no form can send PUT, PATCH or DELETE. SameSite cookies are a second line, not the
only one: not every browser enforces them.
"""

from __future__ import annotations

from flask import Flask, current_app, request

from .csrf import HEADER as CSRF_HEADER
from ..errors import UnsupportedMediaType
from ..i18n import N_, Message

#: Only POST: a form cannot send PUT, PATCH or DELETE, and a cross-site script that does needs a preflight.
GUARDED_METHODS = frozenset({"POST"})
API_PREFIX = "/api/"


def is_json_request() -> bool:
    mimetype = request.mimetype or ""
    return mimetype == "application/json" or mimetype.endswith("+json")


def _guard() -> None:
    if request.method not in GUARDED_METHODS or not request.path.startswith(API_PREFIX):
        return
    if request.url_rule is None or request.routing_exception is not None:
        return  # no such operation: the 404 / 405 says so first
    if not request.cookies or request.headers.get("Authorization", "").lower().startswith("bearer "):
        return  # nothing ambient to abuse: no cookie, or a token the page had to add itself
    if request.headers.get(CSRF_HEADER) is not None:
        return  # a custom header: no form can send it (a cross-site script would need a preflight)
    if getattr(current_app.blueprints.get(request.blueprint or ""), "checks_csrf", False):
        return  # the blueprint checks the session's CSRF token on every write itself
    if not is_json_request():
        raise UnsupportedMediaType(Message(N_("a write authenticated by a cookie must be JSON: send "
                                              "Content-Type: application/json (an empty body is fine)")),
                                   "Content-Type")


def init_app(app: Flask) -> None:
    app.before_request(_guard)
