"""The account pages under ``/account``: sign up, sign in, sign out, and the account page (personal API
tokens, export, deletion). Every form carries the session's CSRF token; errors are shown on the page."""

from __future__ import annotations

from urllib.parse import quote

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from ..i18n import gettext as _, page_path

from ..auth import accounts as author_accounts
from ..storage.db import get_session
from ..errors import ServiceError
from ..learners import current_learner_id
from ..httpkit import pagekit
from ..auth import identity
from . import flows, return_to, service

bp = Blueprint("accounts", __name__, url_prefix="/account", template_folder="../templates")
pagekit.install(bp)
bp.app_context_processor(return_to.template_helpers)  # the header's links on every page
bp.record_once(lambda state: identity.setup(state.app))

FIELD_MESSAGES = {
    "invalid_email": lambda e: _("This is not an email address (name@example.org)."),
    "missing_field": lambda e: _("Please fill in this field."),
    "weak_password": lambda e: _("The password is too weak: use at least 10 characters, not your email."),
    "account_exists": lambda e: _("An account with this email exists: sign in instead."),
}


def _message(exc: ServiceError) -> str:
    make = FIELD_MESSAGES.get(exc.code)
    return make(exc) if make else exc.message


def _signed_in() -> bool:
    return identity.via() == "session"


@bp.route("/signup", methods=["GET", "POST"])
def signup():
    if request.method == "GET":
        return render_template("learner/signup.html", errors={}, email="")
    email = request.form.get("email", "")
    try:
        flows.sign_up(email, request.form.get("password", ""))
    except ServiceError as exc:
        return render_template("learner/signup.html", errors={exc.field or "email": _message(exc)},
                               email=email), exc.status
    return redirect(return_to.after(url_for("learning.history_page")))


def _login_page(**values) -> str:
    """The sign-in page; it names how long "Remember me" lasts (``REMEMBER_COOKIE_DURATION``, in days)."""
    return render_template("learner/login.html", remember_days=round(identity.max_age_s() / 86400), **values)


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "GET":
        return _login_page(error=None, email="")
    email = request.form.get("email", "")
    remember = request.form.get("remember") == "1"
    result = flows.sign_in(email, request.form.get("password", ""), remember)
    if result.retry_after:
        resp = current_app.make_response((_login_page(
            email=email, remember=remember,
            error=_("Too many failed sign-ins: try again in %(n)s seconds.", n=result.retry_after)), 429))
        resp.headers["Retry-After"] = str(result.retry_after)
        return resp
    if result.learner_id is None:
        return _login_page(email=email, remember=remember, error=_("Wrong email or password.")), 401
    return redirect(return_to.after(url_for("learning.history_page")))


@bp.post("/logout")
def logout():
    flows.sign_out()
    return redirect(return_to.after(url_for("web.home"), signed_out=True))


def _to_login():
    """To the sign-in page, which comes back here: to this page after a GET (the account page, an export), to
    the account page after a form (its path answers no GET)."""
    back = page_path() if request.method in ("GET", "HEAD") else url_for("accounts.index")
    return redirect(url_for("accounts.login") + "?next=" + quote(back, safe="/"))


def _account_page(new_token: str | None = None, error: str | None = None, status: int = 200):
    db = get_session()
    learner_id = current_learner_id()
    return render_template("learner/account.html", account=service.account_of(db, learner_id),
                           tokens=author_accounts.list_tokens(db, learner_id), new_token=new_token,
                           error=error), status


@bp.get("")
def index():
    if not _signed_in():
        return _to_login()
    return _account_page()


@bp.post("/tokens")
def create_token():
    if not _signed_in():
        return _to_login()
    name = request.form.get("name", "").strip() or None
    try:
        _row, token = author_accounts.create_token(get_session(), current_learner_id(), name)
    except author_accounts.AccountError:
        return _account_page(error=_("The token name must be at most 120 characters."), status=422)
    return _account_page(new_token=token, status=201)


@bp.post("/tokens/<int:token_id>/revoke")
def revoke_token(token_id: int):
    if not _signed_in():
        return _to_login()
    try:
        author_accounts.revoke_token(get_session(), token_id, learner_id=current_learner_id())
    except author_accounts.AccountError:
        return _account_page(error=_("No such token."), status=404)
    return redirect(url_for("accounts.index"))


@bp.get("/export.<fmt>")
def export(fmt: str):
    if not _signed_in():
        return _to_login()
    data = service.export(get_session(), current_learner_id())
    if fmt == "csv":
        return Response(service.export_csv(data), mimetype="text/csv",
                        headers={"Content-Disposition": "attachment; filename=rlhf-quiz-attempts.csv"})
    if fmt == "json":
        return current_app.response_class(current_app.json.dumps(data), mimetype="application/json",
                                          headers={"Content-Disposition": "attachment; filename=rlhf-quiz-export.json"})
    return redirect(url_for("accounts.index"))


@bp.post("/delete")
def delete():
    if not _signed_in():
        return _to_login()
    db = get_session()
    learner_id = current_learner_id()
    account = service.account_of(db, learner_id)
    if service.authenticate(db, account.email, request.form.get("password", "")) != learner_id:
        return _account_page(error=_("The password is wrong: the account was not deleted."), status=401)
    service.delete_account(db, learner_id)
    flows.sign_out()
    return redirect(url_for("web.home"))
