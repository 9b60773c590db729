"""Who the learner of a request is: a personal API token (``Authorization: Bearer``) on the learner API,
else the signed-in account (Flask-Login), else the anonymous cookie learner of :mod:`quizapp.learners`.

A hook before each request presets the id that :func:`quizapp.learners.current_learner_id` hands out, so
every existing caller (attempts, the home page's last results) follows the account without change. A
bearer header that is malformed, unknown or revoked is a 401 on the endpoints that accept tokens.
"""

from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, Flask, current_app, g, request
from flask_login import LoginManager, UserMixin, current_user
from itsdangerous import BadSignature

from ..config import SIGN_IN_MAX_DAYS
from ..storage.db import get_session
from ..storage.models import LearnerAccount
from .guard import current_principal
from .sessions import account_of_open_session
from ..learner_cookie import is_learner_id, learner_serializer

#: The attribute of a blueprint whose endpoints accept a learner's personal token (see :func:`accept_tokens`).
_ACCEPTS_TOKENS = "accepts_learner_tokens"

login_manager = LoginManager()


class AccountUser(UserMixin):
    """The signed-in account of one server-side session: Flask-Login keeps ``<learner id>:<session id>`` in
    the signed cookie, and the session must still exist (signing out deletes it).

    "Remember me" (opt-in at sign-in) makes Flask-Login also set its remember cookie, which carries the same
    ``get_id()`` (HMAC-signed, with no expiry of its own): when the browser comes back without its session
    cookie, the loader below gets that id and the same checks apply, so a remembered cookie stops working
    at sign-out, at account deletion, and once the session is older than ``REMEMBER_COOKIE_DURATION``."""

    def __init__(self, account: LearnerAccount, sid: str):
        self.id = account.learner_id
        self.sid = sid
        self.email = account.email

    def get_id(self) -> str:
        return f"{self.id}:{self.sid}"


@login_manager.user_loader
def _load_user(user_id: str):
    if not isinstance(user_id, str) or len(user_id) > 128:
        return None
    learner_id, _, sid = user_id.partition(":")
    if not sid:
        return None  # a cookie from before sessions were kept: anonymous again
    account = account_of_open_session(get_session(), sid, learner_id, max_age_s=max_age_s())
    return AccountUser(account, sid) if account is not None else None  # None: signed out or too old


def max_age_s() -> float:
    """Seconds a sign-in lasts at most: the remember cookie's lifetime (``quizapp.config.SIGN_IN_MAX_DAYS``)."""
    duration = current_app.config.get("REMEMBER_COOKIE_DURATION", SIGN_IN_MAX_DAYS * 24 * 3600)
    return duration.total_seconds() if isinstance(duration, timedelta) else float(duration)


def current_sid() -> str | None:
    """The server-side session id of the signed-in request, if any."""
    return getattr(current_user, "sid", None) if current_user and current_user.is_authenticated else None


def accept_tokens(bp: Blueprint) -> None:
    """Let ``bp``'s endpoints identify the learner by a personal token (``Authorization: Bearer``): the
    blueprints say so themselves (the learner API, questions and checks, practice, the account API)."""
    setattr(bp, _ACCEPTS_TOKENS, True)


def _identify() -> None:
    endpoint = request.endpoint or ""
    if not endpoint or endpoint.endswith(".static"):
        return
    blueprint = current_app.blueprints.get(endpoint.rpartition(".")[0])
    if getattr(blueprint, _ACCEPTS_TOKENS, False) and request.headers.get("Authorization") is not None:
        principal = current_principal()  # raises Unauthorized (401) for a malformed/unknown/revoked token
        if principal is not None:
            g._learner_id = principal.learner_id
            g._learner_via = "token"
            g._learner_token_id = principal.token_id
            return
    if _may_be_signed_in():
        if current_user.is_authenticated:
            g._learner_id = current_user.id
            g._learner_via = "session"
        elif current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token") in request.cookies:
            g._remember_refused = True


def _may_be_signed_in() -> bool:
    """Whether the request carries the session or the remember-me cookie: without either, Flask-Login
    (no request loader here) finds nobody, and looking costs a notable part of an anonymous submit."""
    cookies, config = request.cookies, current_app.config
    return (config.get("SESSION_COOKIE_NAME", "session") in cookies
            or config.get("REMEMBER_COOKIE_NAME", "remember_token") in cookies)


def via() -> str:
    """``token``, ``session`` (signed in) or ``cookie`` (anonymous) for the current request."""
    return g.get("_learner_via") or "cookie"


def setup(app: Flask) -> None:
    """Flask-Login and the identity hook (once per app, when the accounts blueprints are registered)."""
    if "login_manager" in app.extensions or getattr(app, "login_manager", None) is not None:
        return
    login_manager.init_app(app)
    login_manager.session_protection = "basic"
    # the remember cookie is never less guarded than the session cookie (a test or deployment may set only
    # SESSION_COOKIE_SECURE when it creates the app)
    app.config["REMEMBER_COOKIE_SECURE"] = bool(app.config.get("REMEMBER_COOKIE_SECURE")
                                                or app.config.get("SESSION_COOKIE_SECURE"))
    app.before_request(_identify)
    app.after_request(_forget_refused_remember)


def _forget_refused_remember(response):
    """A remember cookie whose session was closed (or is too old) is deleted: it would be looked up again on
    every request, and it signs nobody in."""
    name = current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token")
    if g.get("_remember_refused") and not g.get("_learner_via"):
        response.delete_cookie(name, path=current_app.config.get("REMEMBER_COOKIE_PATH", "/"),
                               domain=current_app.config.get("REMEMBER_COOKIE_DOMAIN"))
    return response


def cookie_learner_id() -> str | None:
    """The anonymous learner of the signed cookie, if any (its data moves to the account at sign-in)."""
    raw = request.cookies.get(current_app.config["LEARNER_COOKIE"])
    if not raw:
        return None
    try:
        value = learner_serializer().loads(raw)
    except BadSignature:
        return None
    return value if is_learner_id(value) else None
