"""JSON API v1 (``/api/v1``). Every error is ``{"error": {"code", "message", "field"}}``."""

from __future__ import annotations

from flask import Blueprint

from ..auth.identity import accept_tokens
from ..httpkit.jsonapi import limit_small_bodies

bp = Blueprint("api", __name__, url_prefix="/api/v1")
accept_tokens(bp)

#: Endpoints that take large numeric bodies (the reference engine): the app's MAX_CONTENT_LENGTH.
LARGE_BODY_ENDPOINTS = {"api.reference_call", "api.verify"}


@bp.before_request
def _limit_body() -> None:
    limit_small_bodies(LARGE_BODY_ENDPOINTS)


from . import questions, reference, openapi  # noqa: E402,F401  (routes register on bp)
from . import code  # noqa: E402,F401  (code answers: stand-alone and practice checks)
