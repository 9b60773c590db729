"""JSON API v1 (``/api/v1``). Every error is ``{"error": {"code", "message", "field"}}``."""

from __future__ import annotations

from flask import Blueprint, current_app, request

bp = Blueprint("api", __name__, url_prefix="/api/v1")

#: Endpoints that take large numeric bodies (the reference engine): the app's MAX_CONTENT_LENGTH.
LARGE_BODY_ENDPOINTS = {"api.reference_call", "api.verify"}


@bp.before_request
def _limit_body() -> None:
    if request.endpoint not in LARGE_BODY_ENDPOINTS:
        limit = current_app.config.get("SMALL_BODY_LIMIT")
        app_limit = current_app.config.get("MAX_CONTENT_LENGTH")
        if limit and (app_limit is None or limit < app_limit):
            request.max_content_length = limit


from . import questions, reference, openapi  # noqa: E402,F401  (routes register on bp)
