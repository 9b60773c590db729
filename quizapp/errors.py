"""Errors the service raises on purpose; the API turns each into the one error envelope

    {"error": {"code": ..., "message": ..., "field": ...}}

Services raise these (never Flask exceptions), so the web blueprint can catch them too. A message may be
a :class:`quizapp.i18n.Message`: the envelope then carries it in the request's language, while
``err.message`` stays the English text (logs, the CLI).
"""

from __future__ import annotations

from typing import Any

from .i18n import Message, text


class ServiceError(Exception):
    """Base class: an HTTP status, a stable machine-readable code, a message and the offending field.

    A subclass names its status and code in its header: ``class NotFound(ServiceError, status=404,
    code="not_found")``.
    """

    status = 400
    code = "bad_request"

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code

    def __init__(self, message: str | Message, field: str | None = None, *, code: str | None = None,
                 extra: dict[str, Any] | None = None):
        super().__init__(str(message))
        self.message = str(message)
        self.text = message
        self.field = field
        if code:
            self.code = code
        self.extra = dict(extra or {})

    def localized(self) -> str:
        """The message in the current locale (English when it was not written as a Message)."""
        return text(self.text)

    def envelope(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.localized(), "field": self.field}
        body.update(self.extra)
        return {"error": body}


class BadRequest(ServiceError, status=400, code="bad_request"):
    """A malformed request (400)."""


class Unauthorized(ServiceError, status=401, code="unauthorized"):
    """No, invalid or revoked credentials (401)."""


class Forbidden(ServiceError, status=403, code="forbidden"):
    """Known credentials without the right to do this, or a browser session without its CSRF token (403)."""


class NotFound(ServiceError, status=404, code="not_found"):
    """No such question, version, attempt or function (404)."""


class Conflict(ServiceError, status=409, code="conflict"):
    """The request clashes with what is stored (409)."""


class PayloadTooLarge(ServiceError, status=413, code="payload_too_large"):
    """The request body is over the limit (413)."""


class UnsupportedMediaType(ServiceError, status=415, code="unsupported_media_type"):
    """The request body is not JSON (415)."""


class ValidationError(ServiceError, status=422, code="invalid_field"):
    """A well-formed request whose field has the wrong type or an unacceptable value (422)."""


class ServiceUnavailable(ServiceError, status=503, code="unavailable"):
    """The database stayed busy past its timeout; the client may retry."""
