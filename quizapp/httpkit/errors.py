"""App-wide error handling: every error under ``/api/`` is the JSON envelope
``{"error": {"code", "message", "field"}}``; nothing ever shows a stack trace.

Unexpected exceptions are logged with their traceback and answered with a bare 500 envelope (API) or a
plain page (elsewhere). A database that stays locked past the busy timeout is a 503.
"""

from __future__ import annotations

import logging

from flask import Flask, jsonify, request
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, InternalServerError

from ..errors import ServiceError, ServiceUnavailable
from ..i18n import N_, Message, api_lang, force_locale, gettext

log = logging.getLogger("quizapp.errors")

HTTP_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    406: "not_acceptable", 409: "conflict", 413: "payload_too_large", 415: "unsupported_media_type",
    422: "invalid_field", 429: "too_many_requests", 500: "internal_error", 503: "unavailable",
}

# What the API says for each HTTP error it did not raise itself (werkzeug's descriptions are English
# paragraphs written for HTML pages).
HTTP_MESSAGES = {
    400: N_("bad request"), 401: N_("authentication required"), 403: N_("forbidden"),
    404: N_("no such resource"), 405: N_("method not allowed for this resource"),
    406: N_("cannot answer in an acceptable format"), 409: N_("conflict with the stored state"),
    413: N_("request body too large"), 415: N_("unsupported media type"), 422: N_("invalid field"),
    429: N_("too many requests; retry later"), 500: N_("internal error"), 503: N_("service unavailable"),
}


def is_api_request() -> bool:
    return request.path.startswith("/api/")


def envelope(status: int, code: str, message: str, field: str | None = None, **extra):
    """The error envelope; ``message`` is already in the request's language."""
    body = {"code": code, "message": message, "field": field}
    body.update(extra)
    resp = jsonify({"error": body})
    resp.status_code = status
    return resp


def handle_service_error(err: ServiceError):
    if is_api_request():
        with force_locale(api_lang()):
            resp = jsonify(err.envelope())
        resp.status_code = err.status
        if err.status == 503:
            resp.headers["Retry-After"] = "1"
        return resp
    return err.localized(), err.status, {"Content-Type": "text/plain; charset=utf-8"}


def handle_http_exception(err: HTTPException):
    if not is_api_request():
        return err
    status = err.code or 500
    custom = err.description and err.description != type(err).description  # abort(status, "why")
    with force_locale(api_lang()):
        if status in HTTP_MESSAGES and (status in (413, 500) or not custom):
            message = gettext(HTTP_MESSAGES[status])
        else:
            message = err.description or err.name
    resp = envelope(status, HTTP_CODES.get(status, "error"), message)
    if status == 405 and getattr(err, "valid_methods", None):
        resp.headers["Allow"] = ", ".join(err.valid_methods)
    return resp


def handle_operational_error(err: OperationalError):
    if "locked" in str(err).lower() or "busy" in str(err).lower():
        log.warning("database busy: %s", err)
        return handle_service_error(ServiceUnavailable(Message(N_("the database is busy; retry shortly"))))
    return handle_unexpected(err)


def handle_unexpected(err: Exception):
    if isinstance(err, HTTPException):
        return handle_http_exception(err)
    log.exception("unhandled error on %s %s", request.method, request.path)
    if is_api_request():
        with force_locale(api_lang()):
            return envelope(500, "internal_error", gettext(HTTP_MESSAGES[500]))
    return InternalServerError()


def init_app(app: Flask) -> None:
    app.register_error_handler(ServiceError, handle_service_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(OperationalError, handle_operational_error)
    app.register_error_handler(Exception, handle_unexpected)
