"""Authoring endpoints of API v1 (every one needs an author: 401 without credentials, 403 otherwise).

    POST   /api/v1/questions                    create a question (version 1, a draft); JSON or YAML body
    PUT    /api/v1/questions/<qid>              a new draft version
    POST   /api/v1/questions/<qid>/publish      publish a draft ({"version": n}, default the newest)
    GET    /api/v1/questions/<qid>/versions     every version with its status and self-test report
    DELETE /api/v1/questions/<qid>              retire: hidden from learners, attempts kept
    GET    /api/v1/export[?id=<qid>&format=]    the bank (zip or json) or one question (YAML)
    POST   /api/v1/import[?publish=false]       question files back (YAML, zip, or json {"files": [...]})
    POST   /api/v1/attempts/<id>/regrade        re-grade an attempt against the version it answered
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, request
from checkers.bank import BankError

from ..httpkit.jsonapi import check_unknown, field, json_body, limit_small_bodies, ok
from ..auth import require_author
from ..storage.db import get_session
from ..errors import BadRequest, PayloadTooLarge, UnsupportedMediaType, ValidationError
from ..httpkit.openapi import contribute
from ..i18n import N_, Message
from . import import_export, regrade, validation, versions
from . import openapi
from .yamlsafe import parse_yaml

bp = Blueprint("authoring_api", __name__, url_prefix="/api/v1")
contribute(bp, openapi.fragment)
#: Every write here with the author session needs its CSRF token (quizapp.auth.guard): the API-wide rule that
#: cookie-carrying writes be JSON (quizapp.httpkit.json_writes) leaves these to that stricter check.
bp.checks_csrf = True  # type: ignore[attr-defined]

YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
ZIP_TYPES = ("application/zip", "application/x-zip-compressed")
LARGE = {"authoring_api.import_bank"}


@bp.before_request
def _guard() -> None:
    limit_small_bodies(LARGE)
    require_author()  # before the body is even read


def _seeds() -> int:
    return int(current_app.config.get("AUTHORING_SELFTEST_SEEDS") or validation.MIN_SEEDS)


def _raw() -> bytes:
    raw = request.get_data(cache=True)
    if request.max_content_length is not None and len(raw) > request.max_content_length:
        raise PayloadTooLarge(Message(N_("request body larger than %(n)s bytes"), n=request.max_content_length))
    return raw


def _yaml_text() -> str:
    try:
        return _raw().decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(Message(N_("the body is not UTF-8")), None, code="malformed_yaml") from None


def question_body() -> Any:
    """The question structure from a JSON or YAML body (by Content-Type)."""
    mimetype = request.mimetype or ""
    if mimetype in YAML_TYPES:
        try:
            return parse_yaml(_yaml_text(), "body")
        except BankError as exc:
            raise BadRequest(Message(N_("malformed YAML: %(field)s: %(problem)s"), field=exc.field,
                                     problem=exc.problem), None, code="malformed_yaml") from None
    if mimetype == "application/json" or mimetype.endswith("+json"):
        return json_body()
    raise UnsupportedMediaType(Message(N_("send the question as application/json or application/yaml")),
                               "Content-Type")


def _author_text() -> str | None:
    """The YAML text of a YAML body (stored as the author wrote it); None for JSON."""
    return _yaml_text() if (request.mimetype or "") in YAML_TYPES else None


@bp.post("/questions")
def create_question():
    principal = require_author()
    data = question_body()
    body = versions.create_question(get_session(), data, principal.learner_id, seeds=_seeds(),
                                   text=_author_text())
    resp = ok(body, 201)
    resp.headers["Location"] = f"/api/v1/questions/{body['question_id']}/versions"
    return resp


@bp.put("/questions/<qid>")
def update_question(qid: str):
    principal = require_author()
    data = question_body()
    body, created = versions.update_question(get_session(), qid, data, principal.learner_id,
                                            seeds=_seeds(), text=_author_text())
    return ok(body, 201 if created else 200)


@bp.post("/questions/<qid>/publish")
def publish_question(qid: str):
    principal = require_author()
    number = None
    if request.get_data(cache=True):
        body = json_body()
        check_unknown(body, {"version"})
        number = field(body, "version", int, required=False)
        if number is not None and number < 1:
            raise ValidationError(Message(N_("version must be >= 1")), "version")
    return ok(versions.publish(get_session(), qid, number, principal.learner_id, seeds=_seeds()))


@bp.get("/questions/<qid>/versions")
def list_versions(qid: str):
    return ok({"question_id": qid, "versions": versions.list_versions(get_session(), qid)})


@bp.delete("/questions/<qid>")
def retire_question(qid: str):
    return ok(versions.retire(get_session(), qid))


@bp.get("/export")
def export_bank():
    qid = request.args.get("id") or None
    fmt = request.args.get("format") or ("yaml" if qid else "zip")
    session = get_session()
    if qid:
        if fmt not in ("yaml", "json"):
            raise ValidationError(Message(N_("format must be yaml or json for one question")), "format")
        rel, text = import_export.export_question(session, qid)
        if fmt == "json":
            return ok({"files": [{"path": rel, "content": text}]})
        return Response(text, mimetype="application/yaml",
                        headers={"Content-Disposition": f'attachment; filename="{qid}.yaml"'})
    if fmt == "json":
        return ok({"files": import_export.export_files(session)})
    if fmt != "zip":
        raise ValidationError(Message(N_("format must be zip or json for the bank")), "format")
    return Response(import_export.export_zip(session), mimetype="application/zip",
                    headers={"Content-Disposition": 'attachment; filename="bank.zip"'})


@bp.post("/import")
def import_bank():
    principal = require_author()
    publish_raw = (request.args.get("publish") or "true").lower()
    if publish_raw not in ("true", "false", "1", "0"):
        raise ValidationError(Message(N_("publish must be true or false")), "publish")
    mimetype = request.mimetype or ""
    if mimetype in ZIP_TYPES:
        items = import_export.files_from_zip(_raw())
    elif mimetype in YAML_TYPES:
        name = request.args.get("path") or "imported.yaml"
        items = [(name, _yaml_text())]
    elif mimetype == "application/json" or mimetype.endswith("+json"):
        body = json_body()
        check_unknown(body, {"files"})
        files = field(body, "files", list)
        items = []
        for i, f in enumerate(files):
            if not isinstance(f, dict) or not isinstance(f.get("path"), str) or not isinstance(f.get("content"), str):
                raise ValidationError(Message(N_('each file is {"path": str, "content": str}')), f"files[{i}]")
            items.append((f["path"], f["content"]))
    else:
        raise UnsupportedMediaType(Message(N_("send application/zip, application/yaml or application/json")),
                                   "Content-Type")
    summary = import_export.import_files(get_session(), items, principal.learner_id,
                                   publish_now=publish_raw in ("true", "1"), seeds=_seeds())
    return ok(summary)


@bp.post("/attempts/<attempt_id>/regrade")
def regrade_attempt(attempt_id: str):
    return ok(regrade.regrade(get_session(), attempt_id))


__all__ = ["bp", "json"]
