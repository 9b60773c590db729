"""The account API under ``/api/v1/account`` (JSON; every error is the usual envelope naming the field).

    POST   /api/v1/account/signup          {email, password} -> 201, signed in (session cookie)
    POST   /api/v1/account/login           {email, password, remember?} -> 200 | 401 | 429 (throttled);
                                           remember: true keeps the sign-in across browser restarts
    POST   /api/v1/account/logout          -> 200
    GET    /api/v1/account                 the signed-in account (session or personal token)
    DELETE /api/v1/account                 {password} -> 200: the account and its attempts are removed
    GET    /api/v1/account/tokens          personal tokens (never the token itself)
    POST   /api/v1/account/tokens          {name?} -> 201 {token: shown once}
    DELETE /api/v1/account/tokens/<id>     revoke
    GET    /api/v1/account/export          ?format=json|csv: everything stored about the learner

Token management and deletion need the signed-in session (a token cannot mint tokens or delete the
account). JSON bodies (``Content-Type: application/json``) cannot be sent by a cross-site form, which is
what keeps these session requests safe from CSRF.
"""

from __future__ import annotations

from flask import Blueprint, Response, request

from ..httpkit.jsonapi import check_unknown, field, json_body, limit_small_bodies, ok
from ..auth import accounts as author_accounts
from ..storage.db import get_session
from ..errors import Forbidden, Unauthorized, ValidationError
from ..httpkit.errors import envelope
from ..httpkit.openapi import contribute
from ..learners import current_learner_id
from ..auth import identity
from . import flows, openapi, service

bp = Blueprint("accounts_api", __name__, url_prefix="/api/v1/account")
identity.accept_tokens(bp)
contribute(bp, openapi.fragment)
bp.record_once(lambda state: identity.setup(state.app))


@bp.before_request
def _limit_body() -> None:
    limit_small_bodies(frozenset())


def _account_id(*, session_only: bool = False) -> str:
    how = identity.via()
    if how == "cookie":
        raise Unauthorized("sign in first (your session may have expired), or send 'Authorization: Bearer <token>'",
                           "Authorization", code="not_signed_in")
    if session_only and how != "session":
        raise Forbidden("this needs the signed-in session, not a personal token", "Authorization",
                        code="session_required")
    learner_id = current_learner_id()
    if how == "token" and service.account_of(get_session(), learner_id) is None:
        # An author's personal token identifies an author, who has no learner account (no email, no
        # password of this API): the account endpoints have nothing to show it.
        raise Forbidden("this token belongs to an author, not to a learner account", "Authorization",
                        code="not_a_learner_account")
    return learner_id


def _credentials(*, remember: bool = False) -> tuple[object, object, bool]:
    """``email``, ``password`` and, at sign-in, the optional ``remember`` (a boolean, default false)."""
    body = json_body()
    check_unknown(body, {"email", "password", "remember"} if remember else {"email", "password"})
    keep = field(body, "remember", bool, required=False) if remember else None
    return field(body, "email", str), field(body, "password", str), bool(keep)


@bp.post("/signup")
def signup():
    email, password, _ = _credentials()
    learner_id = flows.sign_up(email, password)
    return ok(service.account_view(service.account_of(get_session(), learner_id)), 201)


@bp.post("/login")
def login():
    email, password, remember = _credentials(remember=True)
    result = flows.sign_in(email, password, remember)
    if result.retry_after:
        resp = envelope(429, "too_many_requests",
                        f"too many failed sign-ins: try again in {result.retry_after} s", "password",
                        retry_after=result.retry_after)
        resp.headers["Retry-After"] = str(result.retry_after)
        return resp
    if result.learner_id is None:
        raise Unauthorized("wrong email or password", "password", code="wrong_credentials")
    return ok(service.account_view(service.account_of(get_session(), result.learner_id)))


@bp.post("/logout")
def logout():
    flows.sign_out()
    return ok({"signed_out": True})


@bp.get("")
def get_account():
    account = service.account_of(get_session(), _account_id())
    return ok(service.account_view(account) | {"via": identity.via()})


@bp.delete("")
def delete_account():
    learner_id = _account_id(session_only=True)
    body = json_body()
    check_unknown(body, {"password"})
    password = field(body, "password", str)
    db = get_session()
    account = service.account_of(db, learner_id)
    if service.authenticate(db, account.email, password) != learner_id:
        raise Unauthorized("the password is wrong: the account was not deleted", "password",
                           code="wrong_credentials")
    removed = service.delete_account(db, learner_id)
    flows.sign_out()
    return ok({"deleted": True, "attempts_removed": removed})


@bp.get("/tokens")
def list_tokens():
    learner_id = _account_id()
    return ok({"tokens": [service.token_view(t) for t in author_accounts.list_tokens(get_session(), learner_id)]})


@bp.post("/tokens")
def create_token():
    learner_id = _account_id(session_only=True)
    body = json_body() if request.get_data(cache=True) else {}
    check_unknown(body, {"name"})
    name = field(body, "name", str, required=False)
    try:
        row, token = author_accounts.create_token(get_session(), learner_id, name)
    except author_accounts.AccountError as exc:
        raise ValidationError(exc.message, exc.field) from None
    return ok(service.token_view(row) | {"token": token}, 201)


@bp.delete("/tokens/<int:token_id>")
def revoke_token(token_id: int):
    learner_id = _account_id(session_only=True)
    try:
        row = author_accounts.revoke_token(get_session(), token_id, learner_id=learner_id)
    except author_accounts.AccountError:
        raise ValidationError(f"no token {token_id} of yours", "token_id", code="unknown_token") from None
    return ok(service.token_view(row))


@bp.get("/export")
def export():
    learner_id = _account_id()
    fmt = request.args.get("format") or "json"  # an empty value is no value (the document's allowEmptyValue)
    if fmt not in ("json", "csv"):
        raise ValidationError("format must be json or csv", "format")
    data = service.export(get_session(), learner_id)
    if fmt == "csv":
        return Response(service.export_csv(data), mimetype="text/csv",
                        headers={"Content-Disposition": "attachment; filename=rlhf-quiz-attempts.csv"})
    resp = ok(data)
    resp.headers["Content-Disposition"] = "attachment; filename=rlhf-quiz-export.json"
    return resp
