"""Who is calling: a bearer token (``Authorization: Bearer qa_...``) or the author's browser session.

A bearer header, when present, is the only credential looked at (an invalid or revoked one is 401 even with
a session). A session works for the API only with its CSRF token in ``X-CSRF-Token`` on unsafe methods.
"""

from __future__ import annotations
from datetime import datetime, timezone

from flask import g, request, session

from ..storage.db import get_session
from .accounts import Principal, principal_for_session, resolve_token
from ..httpkit.csrf import check_csrf
from ..errors import Forbidden, Unauthorized
from ..storage.models import ApiToken

SESSION_USER = "author_id"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
_UNSET = object()


def _bearer() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise Unauthorized("the Authorization header must be 'Bearer <token>'", "Authorization",
                           code="invalid_token")
    return value.strip()


def current_principal(*, touch: bool = False) -> Principal | None:
    """The caller, or None when anonymous. Raises Unauthorized for a bad/revoked bearer token."""
    cached = g.get("_quiz_principal", _UNSET)
    if cached is not _UNSET and not touch:
        return cached
    token = _bearer()
    principal: Principal | None = None
    if token is not None:
        found = resolve_token(get_session(), token)
        if found is None:
            raise Unauthorized("the API token is invalid or revoked", "Authorization", code="invalid_token")
        row, learner = found
        principal = Principal(learner.id, learner.role, "token", token_id=row.id)
    else:
        learner_id = session.get(SESSION_USER)
        if learner_id:
            principal = principal_for_session(get_session(), learner_id)
    g._quiz_principal = principal
    return principal


def require_author() -> Principal:
    """The calling author; 401 without credentials, 403 for a non-author or a session without CSRF."""
    principal = current_principal()
    if principal is None:
        raise Unauthorized("authentication required: send 'Authorization: Bearer <token>' of an author",
                           "Authorization")
    if principal.via == "session" and request.method not in SAFE_METHODS and not check_csrf():
        raise Forbidden("missing or wrong CSRF token (X-CSRF-Token header)", "X-CSRF-Token", code="csrf_failed")
    if not principal.is_author:
        raise Forbidden("author rights required", None, code="not_an_author")
    if principal.via == "token" and principal.token_id is not None:
        db = get_session()
        row = db.get(ApiToken, principal.token_id)
        if row is not None:
            row.last_used_at = datetime.now(timezone.utc)
            db.commit()
    return principal
