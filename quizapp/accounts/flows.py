"""The request-level steps shared by the account pages and the account API: sign up, sign in (throttled
like author logins, through :mod:`quizapp.auth.throttle`), sign out. Each moves the cookie learner's
attempts to the account, so nothing practised before signing in is lost."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, request, session
from flask_login import login_user, logout_user

from ..auth import sessions, throttle
from ..httpkit.csrf import csrf_token
from ..storage.db import get_session
from ..storage.models import LearnerAccount
from . import service
from ..auth.identity import AccountUser, cookie_learner_id, current_sid


@dataclass(frozen=True)
class SignIn:
    learner_id: str | None = None
    retry_after: int = 0  # > 0: throttled, no password was checked


def _start_session(learner_id: str, remember: bool = False) -> None:
    """Sign ``learner_id`` in on a new server-side session; ``remember``: also Flask-Login's remember cookie
    (the same ``<learner id>:<session id>``), so the sign-in outlives a browser restart (opt-in)."""
    db = get_session()
    account = db.get(LearnerAccount, learner_id)
    session.pop("csrf", None)  # a fresh CSRF token for the signed-in session
    login_user(AccountUser(account, sessions.open_session(db, learner_id)), remember=bool(remember))
    csrf_token()
    g._learner_id = learner_id
    g._learner_via = "session"


def sign_up(email, password) -> str:
    learner_id = service.signup(get_session(), email, password, cookie_learner_id())
    _start_session(learner_id)
    return learner_id


def sign_in(email, password, remember: bool = False) -> SignIn:
    db = get_session()
    key = email if isinstance(email, str) else ""
    attempt = throttle.begin(db, "learner:" + key.strip().lower(), request.remote_addr,
                             throttle.Policy.from_config(current_app.config))
    if attempt.refused:
        return SignIn(retry_after=attempt.retry_after)
    learner_id = service.authenticate(db, email, password)
    if learner_id is None:
        throttle.failed(db, attempt)
        return SignIn()
    throttle.succeeded(db, attempt)
    cookie = cookie_learner_id()
    if cookie:
        service.merge_learner(db, cookie, learner_id)
    _start_session(learner_id, remember)
    return SignIn(learner_id=learner_id)


def sign_out() -> None:
    sessions.close_session(get_session(), current_sid())
    logout_user()
    session.pop("csrf", None)
    g.pop("_learner_id", None)
    g.pop("_learner_via", None)
