"""Body sizes are refused before anything reads or parses the body.

* ``Content-Length`` above the endpoint's limit (``MAX_CONTENT_LENGTH`` for the reference engine's
  endpoints, ``SMALL_BODY_LIMIT`` for every other one) is 413 at once: the body is never read, whatever
  before-request function (CSRF, accounts) would have read a form first.
* An engine request within the byte limit is scanned before JSON parsing: more than
  ``REFERENCE_MAX_ELEMENTS`` commas cannot be a body of at most that many elements (n scalars in arrays and
  objects need n - 1 separators; the engine takes no text argument anywhere near that long), so it is 413
  ``too_many_elements`` after a ``bytes.count`` instead of a JSON parse of tens of megabytes.
"""

from __future__ import annotations

from flask import Flask, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from ..errors import PayloadTooLarge
from .. import config

#: The reference engine's endpoints (``quizapp.api.LARGE_BODY_ENDPOINTS``): the app's MAX_CONTENT_LENGTH.
LARGE_BODY_ENDPOINTS = frozenset({"api.reference_call", "api.verify"})
DEFAULT_MAX_ELEMENTS = 1_000_000


def endpoint_limit() -> int | None:
    app_limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if request.endpoint in LARGE_BODY_ENDPOINTS:
        return app_limit
    small = current_app.config.get("SMALL_BODY_LIMIT")
    if small and (app_limit is None or small < app_limit):
        return small
    return app_limit


def _check_body() -> None:
    length = request.content_length
    if not length:
        return
    limit = endpoint_limit()
    if limit is not None and length > limit:
        raise RequestEntityTooLarge()
    if request.endpoint in LARGE_BODY_ENDPOINTS and request.mimetype == "application/json":
        most = int(getattr(config, "REFERENCE_MAX_ELEMENTS", DEFAULT_MAX_ELEMENTS))
        separators = request.get_data(cache=True).count(b",")  # cached: get_json reads the same bytes
        if separators > most:
            raise PayloadTooLarge(f"more than {most:,} elements in one request (the limit)", None,
                                  code="too_many_elements")


def init_app(app: Flask) -> None:
    app.before_request(_check_body)
