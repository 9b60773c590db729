"""401 / 403 / 409 as service errors (the API answers them with the usual error envelope)."""

from __future__ import annotations

from ..errors import ServiceError


class Unauthorized(ServiceError):
    status = 401
    code = "unauthorized"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class Conflict(ServiceError):
    status = 409
    code = "conflict"
