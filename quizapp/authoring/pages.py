"""The author's browser pages under ``/author`` (login, question list, editor with live preview, self-test
report, publish/retire, API tokens).

Every POST carries the session's CSRF token (hidden ``csrf_token`` field, or ``X-CSRF-Token`` for the
preview script); pages send the same strict CSP as the practice pages (no inline script: ``author.js``).
Authored Markdown is rendered only through :mod:`quizapp.rendering` (markdown-it + MathML + nh3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import (Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, session,
                   url_for)
from markupsafe import Markup
from checkers.bank import BankError
from checkers.kinds import all_kinds, find_kind

from ..auth import AccountError, authenticate_password, create_token, list_tokens, revoke_token
from ..httpkit.csrf import check_csrf, csrf_token
from ..httpkit.errors import envelope
from ..httpkit.jsonapi import limit_small_bodies
from ..auth import throttle
from ..auth.accounts import principal_for_session
from ..auth.guard import SESSION_USER
from ..config import PREVIEW_MAX_CHARS
from ..storage.db import get_session
from ..safe_redirect import safe_next
from ..errors import ServiceError
from ..httpkit.pagekit import page_headers
from ..rendering import render_inline
from ..i18n import N_, current_lang, gettext, norm_lang
from . import validation, version_history, versions
from .editor_view import placed_report, preview_or_error, seed_arg, yaml_error
from .yamlsafe import parse_yaml
from .yamltext import locate

bp = Blueprint("author", __name__, url_prefix="/author", template_folder="../templates",
               static_folder="../static", static_url_path="/static")

PUBLIC = {"author.login", "author.static"}

#: What the editor starts from for a new question (bilingual question content, in its own file).
NEW_TEMPLATE = Path(__file__).with_name("new_question.yaml").read_text(encoding="utf-8")


def starter_kinds() -> list[str]:
    """The kinds that offer a starter question (``Kind.starter_file``: ``starter.yaml`` in the kind's folder,
    valid and passing its self-test)."""
    return [k.name for k in all_kinds() if k.starter_file is not None]


def starter_text(kind: str | None) -> str:
    found = find_kind(kind)
    path = found.starter_file if found is not None else None
    return path.read_text(encoding="utf-8") if path is not None else NEW_TEMPLATE


# --------------------------------------------------------------------------- hooks

@bp.before_request
def _guard():
    limit_small_bodies(frozenset())  # forms and the preview: at most SMALL_BODY_LIMIT
    current_lang()  # ?lang= > cookie > Accept-Language, as on the learner pages
    csrf_token()  # every page (login included) gets a token in the session
    if request.method not in ("GET", "HEAD", "OPTIONS") and not check_csrf():
        if request.is_json:
            return envelope(403, "csrf_failed", gettext("missing or wrong CSRF token"), "csrf_token")
        abort(403, gettext("missing or wrong CSRF token"))
    if request.endpoint in PUBLIC:
        return None
    who = _principal()
    if who is None:
        if request.method == "GET":
            return redirect(url_for("author.login", next=request.full_path))
        abort(401)
    if not who.is_author:
        abort(403, gettext("author rights required"))
    return None


bp.after_request(page_headers)


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"csrf_token": csrf_token, "who": _principal(), "lang": current_lang(),
            "lang_switch_url": _lang_switch_url, "status_labels": STATUS_LABELS}


#: A version's status as the pages show it.
STATUS_LABELS = {"draft": N_("draft"), "published": N_("published"), "retired": N_("retired")}


def _lang_switch_url(code: str) -> str:
    """The same page in language ``code`` (a GET page; after a POST, the question list or the login)."""
    endpoint = request.endpoint or ""
    args = request.args.to_dict() if request.method == "GET" else {}
    args["lang"] = code
    if request.method != "GET" or not endpoint.startswith("author.") or endpoint == "author.static":
        endpoint = "author.login" if endpoint == "author.login" or _principal() is None else "author.index"
        return url_for(endpoint, lang=args["lang"])
    return url_for(endpoint, **(request.view_args or {}), **args)


def _principal():
    learner_id = session.get(SESSION_USER)
    return principal_for_session(get_session(), learner_id) if learner_id else None


# --------------------------------------------------------------------------- login

def _safe_next(target: str | None) -> str:
    return safe_next(target, url_for("author.index"), prefix="/author")


@bp.route("/login", methods=["GET", "POST"])
def login():
    error = None
    if request.method == "POST":
        username = request.form.get("username", "")
        db = get_session()
        attempt = throttle.begin(db, username, request.remote_addr, throttle.Policy.from_config(current_app.config))
        if attempt.refused:  # locked out: no password check at all
            error = gettext("Too many failed logins. Try again in %(n)s seconds.", n=attempt.retry_after)
            response = current_app.make_response((render_template(
                "author/login.html", error=error, retry_after=attempt.retry_after), 429))
            response.headers["Retry-After"] = str(attempt.retry_after)
            return response
        who = authenticate_password(db, username, request.form.get("password", ""))
        if who is not None:
            throttle.succeeded(db, attempt)
            session.clear()  # a fresh session (and CSRF token) after login
            session[SESSION_USER] = who.learner_id
            csrf_token()
            return redirect(_safe_next(request.args.get("next")))
        throttle.failed(db, attempt)
        error = gettext("Wrong username or password.")
    return render_template("author/login.html", error=error), (401 if error else 200)


@bp.post("/logout")
def logout():
    session.clear()
    return redirect(url_for("author.login"))


# --------------------------------------------------------------------------- list and editor

@bp.get("/")
def index():
    lang = current_lang()
    questions = versions.overview(get_session())
    for q in questions:  # the title in the page's language, its $maths$ drawn as on the question page
        titles = q.get("titles") or {}
        q["title_html"] = render_inline(titles.get(lang) or titles.get("en") or q["title"] or "", lang)
    return render_template("author/index.html", questions=questions)


def _editor(qid: str | None, text: str, *, version=None, report=None, errors=None, status: int = 200,
            starters=None, starter=None):
    seed = seed_arg(request.values.get("seed", 0))
    lang = norm_lang(request.values.get("lang")) or "en"  # the preview's language (its own select)
    preview, preview_error = None, None
    try:
        data = parse_yaml(text, "editor")
    except BankError as exc:
        data, preview_error = None, f"{exc.field}: {exc.problem}"
    if data is not None:
        preview, preview_error = preview_or_error(data, seed, lang)
        report = placed_report(report, data, text)
    rows = versions.list_versions(get_session(), qid) if qid and version is not None else []
    published = next((v for v in rows if v["status"] == "published"), None)
    return render_template("author/editor.html", qid=qid, text=text, version=version, versions=rows,
                           published=published, report=report, errors=errors or [], preview=preview,
                           preview_error=preview_error, seed=seed, preview_lang=lang, starters=starters or [],
                           starter=starter), status


@bp.get("/new")
def new():
    return _editor(None, starter_text(request.args.get("kind")), starters=starter_kinds(),
                   starter=request.args.get("kind"))


@bp.get("/q/<qid>")
def edit(qid: str):
    number = request.args.get("version", type=int)
    v = versions.get_version_row(get_session(), qid, number)
    if versions.stored_check(get_session(), v.id) is None:  # e.g. loaded from the bank's files: test it now
        versions.selftest_version(get_session(), v, seeds=_seeds())
    body = versions.version_body(get_session(), v)
    return _editor(qid, versions.version_text(v), version=body, report=body["selftest"])


def refusal_failures(exc: ServiceError, text: str) -> list[dict[str, Any]]:
    """What the editor lists for a refused save: the failures the error carries (schema, self-test), or else
    the error itself as one failure that keeps its ``field`` (``id`` for an id that exists), placed at that
    field's line and column in ``text`` when the field is written there (not a form field such as
    ``question_id``, which :func:`~quizapp.authoring.yamltext.locate` would place at its nearest parent)."""
    failures = exc.extra.get("failures")
    if failures:
        return failures
    failure: dict[str, Any] = {"part": None, "seed": None, "check": None, "field": exc.field,
                               "reason": exc.localized()}
    where = locate(text, exc.field) if exc.field else None
    if where is not None and where["path"] == exc.field:
        validation.locate_failures(text, [failure])
    return [failure]


def _seeds() -> int:
    return int(current_app.config.get("AUTHORING_SELFTEST_SEEDS") or validation.MIN_SEEDS)


@bp.post("/save")
def save():
    # browsers send a textarea's lines with CRLF; the author's file has the newlines the editor shows
    text = request.form.get("yaml", "").replace("\r\n", "\n")
    qid = request.form.get("qid") or None
    who = _principal()
    try:
        data = parse_yaml(text, "editor")
        if qid:
            body, _ = versions.update_question(get_session(), qid, data, who.learner_id, text=text)
        else:
            body = versions.create_question(get_session(), data, who.learner_id, text=text)
    except BankError as exc:
        return _editor(qid, text, errors=[yaml_error(exc)], status=422)
    except ServiceError as exc:
        return _editor(qid, text, errors=refusal_failures(exc, text), status=exc.status)
    if body["selftest"]["ok"]:
        flash(gettext("Saved version %(n)s (self-test passed).", n=body["version"]))
    else:
        flash(gettext("Saved version %(n)s (%(f)s self-test failure(s)).", n=body["version"],
                      f=len(body["selftest"]["failures"])))
    return redirect(url_for("author.edit", qid=body["question_id"], version=body["version"]))


@bp.post("/q/<qid>/publish")
def publish(qid: str):
    who = _principal()
    number = request.form.get("version", type=int)
    try:
        body = versions.publish(get_session(), qid, number, who.learner_id)
    except ServiceError as exc:
        flash(exc.localized())
        failures = exc.extra.get("failures") or []
        if failures:
            v = versions.get_version_row(get_session(), qid, number)
            vb = versions.version_body(get_session(), v)
            return _editor(qid, versions.version_text(v), version=vb, report=vb["selftest"], errors=failures,
                           status=exc.status)
        return redirect(url_for("author.edit", qid=qid, version=number))
    flash(gettext("Published version %(n)s.", n=body["version"]))
    return redirect(url_for("author.edit", qid=qid, version=body["version"]))


@bp.route("/q/<qid>/retire", methods=["GET", "POST"])
def retire(qid: str):
    """GET: the confirmation page; POST with ``confirm=yes``: retire (learners no longer see it)."""
    if request.method == "GET" or request.form.get("confirm") != "yes":
        versions.get_version_row(get_session(), qid)  # 404 for an unknown question
        return render_template("author/confirm.html", qid=qid, action="retire",
                               target=url_for("author.retire", qid=qid))
    try:
        versions.retire(get_session(), qid)
        flash(gettext("Retired %(qid)s: learners no longer see it.", qid=qid))
    except ServiceError as exc:
        flash(exc.localized())
    return redirect(url_for("author.edit", qid=qid))


@bp.post("/q/<qid>/unretire")
def unretire(qid: str):
    try:
        body = versions.unretire(get_session(), qid)
        flash(gettext("Version %(n)s of %(qid)s is published again.", n=body["version"], qid=qid))
    except ServiceError as exc:
        flash(exc.localized())
    return redirect(url_for("author.edit", qid=qid))


@bp.get("/q/<qid>/history")
def history(qid: str):
    rows = version_history.history(get_session(), qid)
    numbers = [r["version"] for r in rows]
    a = request.args.get("a", type=int)
    b = request.args.get("b", type=int)
    diff = None
    if a is not None and b is not None and a in numbers and b in numbers:
        diff = version_history.diff_versions(get_session(), qid, a, b, seed=seed_arg(request.args.get("seed", 0)),
                                             lang=norm_lang(request.args.get("plang")) or "en")
    return render_template("author/history.html", qid=qid, versions=rows, diff=diff,
                           a=a if a is not None else (numbers[1] if len(numbers) > 1 else None),
                           b=b if b is not None else (numbers[0] if numbers else None))


@bp.post("/q/<qid>/restore")
def restore(qid: str):
    who = _principal()
    number = request.form.get("version", type=int)
    if number is None:
        abort(400, gettext("version is required"))
    try:
        body = version_history.restore(get_session(), qid, number, who.learner_id, seeds=_seeds())
    except ServiceError as exc:
        flash(exc.localized())
        return redirect(url_for("author.history", qid=qid))
    flash(gettext("Version %(old)s restored as draft version %(n)s.", old=number, n=body["version"]))
    return redirect(url_for("author.edit", qid=qid, version=body["version"]))


@bp.post("/selftest-unchecked")
def selftest_unchecked():
    rows = versions.selftest_unchecked(get_session(), seeds=_seeds())
    flash(gettext("Self-tested %(n)s question(s).", n=len(rows)))
    return redirect(url_for("author.index"))


@bp.get("/help")
def help_page():
    return render_template("author/help.html")


@bp.post("/preview")
def preview():
    """``{"yaml", "seed", "lang"}`` -> ``{"ok", "html" | "error"}`` (the preview panel, sanitised)."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("yaml"), str) or len(body["yaml"]) > PREVIEW_MAX_CHARS:
        return envelope(422, "invalid_field", gettext("yaml must be a string"), "yaml")
    seed = seed_arg(body.get("seed", 0))
    lang = norm_lang(body.get("lang")) or "en"
    try:
        data = parse_yaml(body["yaml"], "editor")
    except BankError as exc:
        return jsonify({"ok": False, "error": f"{exc.field}: {exc.problem}"})
    view, error = preview_or_error(data, seed, lang)
    if view is None:
        return jsonify({"ok": False, "error": error})
    return jsonify({"ok": True, "html": render_template("author/_preview.html", preview=view)})


# --------------------------------------------------------------------------- tokens

def _token_refusal(exc: AccountError) -> str:
    """A refused token request in the author's language (the service's message names the field in English)."""
    if exc.field == "name":
        return gettext("The token name must be at most 120 characters.")
    if exc.field == "token_id":
        return gettext("There is no such token.")
    return exc.message


@bp.route("/tokens", methods=["GET", "POST"])
def tokens():
    who = _principal()
    new_token = None
    if request.method == "POST":
        try:
            _, new_token = create_token(get_session(), who.learner_id, request.form.get("name") or None)
        except AccountError as exc:
            flash(_token_refusal(exc))
    rows = list_tokens(get_session(), who.learner_id)
    return render_template("author/tokens.html", tokens=rows, new_token=new_token)


@bp.post("/tokens/<int:token_id>/revoke")
def revoke(token_id: int):
    who = _principal()
    try:
        revoke_token(get_session(), token_id, learner_id=who.learner_id)
        flash(gettext("Token %(id)s revoked.", id=token_id))
    except AccountError as exc:
        flash(_token_refusal(exc))
    return redirect(url_for("author.tokens"))


__all__ = ["bp", "Markup"]
