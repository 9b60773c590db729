"""Errors the service raises on purpose; the API turns each into the one error envelope

    {"error": {"code": ..., "message": ..., "field": ...}}

Services raise these (never Flask exceptions), so the web blueprint can catch them too.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class: an HTTP status, a stable machine-readable code, a message and the offending field."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, field: str | None = None, *, code: str | None = None,
                 extra: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        if code:
            self.code = code
        self.extra = dict(extra or {})

    def envelope(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, "field": self.field}
        body.update(self.extra)
        return {"error": body}


class BadRequest(ServiceError):
    status = 400
    code = "bad_request"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class PayloadTooLarge(ServiceError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(ServiceError):
    status = 415
    code = "unsupported_media_type"


class ValidationError(ServiceError):
    """A well-formed request whose field has the wrong type or an unacceptable value (422)."""

    status = 422
    code = "invalid_field"


class ServiceUnavailable(ServiceError):
    """The database stayed busy past its timeout; the client may retry."""

    status = 503
    code = "unavailable"
