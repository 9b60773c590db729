"""CSRF protection for the author's browser session: a random token kept in the (signed) Flask session,
sent back in a hidden form field ``csrf_token`` or the ``X-CSRF-Token`` header, compared in constant time."""

from __future__ import annotations

import hmac
import secrets

from flask import request, session

SESSION_KEY = "csrf"
FIELD = "csrf_token"
HEADER = "X-CSRF-Token"


def csrf_token() -> str:
    token = session.get(SESSION_KEY)
    if not isinstance(token, str) or len(token) < 32:
        token = secrets.token_urlsafe(32)
        session[SESSION_KEY] = token
    return token


def check_csrf() -> bool:
    """True when the request carries the session's CSRF token (form field or header)."""
    expected = session.get(SESSION_KEY)
    sent = request.headers.get(HEADER) or request.form.get(FIELD)
    if not isinstance(expected, str) or not isinstance(sent, str) or not expected:
        return False
    return hmac.compare_digest(expected.encode(), sent.encode())
