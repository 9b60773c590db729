"""The security headers every HTML page sends (the practice pages and the author's pages): a strict
Content-Security-Policy (no inline script, nothing from other sites) and its companions."""

from __future__ import annotations

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def set_security_headers(response):
    """CSP, nosniff, same-origin referrer and no framing on ``response``; returns it."""
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    return response
