"""What every learner page shares (the account, learning, discover, figure and mock blueprints install it):
the strict CSP headers, the language cookie, CSRF on every POST (the session token of
:mod:`quizapp.httpkit.csrf`, a hidden ``csrf_token`` field), and the template helpers ``web/base.html``
expects."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, request, url_for

from .jsonapi import limit_small_bodies
from .csrf import check_csrf, csrf_token
from .headers import set_security_headers
from ..auth.identity import via
from ..i18n import current_lang, remember_lang


def install(bp: Blueprint) -> None:
    bp.before_request(_before)
    bp.after_request(page_headers)
    bp.context_processor(_helpers)


def _before():
    limit_small_bodies(frozenset())
    current_lang()
    csrf_token()
    if request.method not in ("GET", "HEAD", "OPTIONS") and not check_csrf():
        abort(400, "missing or wrong CSRF token: reload the page and try again")
    return None


def page_headers(response):
    """After a page: the security headers, the language cookie when the language was chosen, no caching."""
    set_security_headers(response)
    remember_lang(response)
    response.headers["Cache-Control"] = "no-store"
    return response


def _lang_switch_url(code: str) -> str:
    endpoint = request.endpoint or "web.home"
    if request.method != "GET":
        return url_for("web.home", lang=code)
    args = request.args.to_dict()
    args["lang"] = code
    return url_for(endpoint, **(request.view_args or {}), **args)


def _helpers() -> dict[str, Any]:
    return {"csrf_token": csrf_token, "lang_switch_url": _lang_switch_url, "signed_in": via() == "session",
            "account_email": g.get("_account_email")}
