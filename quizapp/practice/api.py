"""Practice endpoints under ``/api/v1`` (the attempt policy and hints on demand):

    GET  /api/v1/questions/<id>/practice?variant=N   the learner's state on that variant, the hints
                                                     already shown, and the solution when it may be shown
    POST /api/v1/questions/<id>/hints                {variant, part}: show the next hint of a part
                                                     (recorded; lowers the part's credit)
    POST /api/v1/questions/<id>/solution             {variant}: "show solution" (recorded; the review
                                                     scheduler rates the question Again)
"""

from __future__ import annotations

from typing import Any, Mapping

from checkers.bank import params_for
from checkers.bank.variants import part_hints

from flask import Blueprint

from ..httpkit.jsonapi import check_unknown, field, json_body, limit_small_bodies, ok, query_int, request_lang
from ..storage.db import get_session
from ..errors import Conflict, ValidationError
from ..learners import current_learner_id, ensure_learner
from ..storage.models import PracticeEvent
from ..services import attempts as attempt_service
from ..services import questions as question_service
from ..httpkit.jsonio import json_safe
from ..study import credit, policy, review, summary
from ..auth.identity import accept_tokens
from ..httpkit.openapi import contribute
from . import openapi

bp = Blueprint("practice", __name__, url_prefix="/api/v1")
accept_tokens(bp)
contribute(bp, openapi.fragment)


@bp.before_request
def _limit_body() -> None:
    limit_small_bodies(frozenset())


def _variant(value: Any) -> int:
    if value is None:
        raise ValidationError("variant is required (the variant you were shown)", "variant", code="missing_field")
    return attempt_service.check_variant(value)


def _shown_hints(data: Mapping[str, Any], variant: int, lang: str, shown: Mapping[str, int]) -> dict[str, list[str]]:
    params = params_for(data, variant)
    out = {}
    for part in data["parts"]:
        n = shown.get(part["id"], 0)
        if n:
            out[part["id"]] = part_hints(part, lang, params)[:n]
    return out


def _state(session, learner_id: str | None, row: dict, variant: int) -> policy.PracticeState:
    """The learner's state on ``variant`` of the question ``row``, from the stored summary of the learner's
    history of the question (:mod:`quizapp.study.summary`) plus the hints and requests since: a bounded
    read, not every earlier attempt."""
    data = row["data"]
    walked = summary.read(session, learner_id, row["id"], row["version_id"], data).walked if learner_id else None
    return policy.state(session, learner_id, row["id"], variant, data, walked=walked)


def _body(session, learner_id: str, row: dict, variant: int, lang: str) -> dict[str, Any]:
    data = row["data"]
    current = _state(session, learner_id, row, variant)
    body: dict[str, Any] = {"question_id": row["id"], "variant": variant, "practice": current.view(),
                            "hints": _shown_hints(data, variant, lang, current.hints)}
    if current.revealed:
        body["solution"] = attempt_service.shown_solution(data, variant, lang)
    return body


@bp.get("/questions/<qid>/practice")
def practice_state(qid: str):
    session = get_session()
    row = question_service.get_question(session, qid)
    variant = _variant(query_int("variant"))
    return ok(_body(session, current_learner_id(), row, variant, request_lang()))


@bp.post("/questions/<qid>/hints")
def show_hint(qid: str):
    session = get_session()
    row = question_service.get_question(session, qid)
    body = json_body()
    check_unknown(body, {"variant", "part", "lang"})
    lang = request_lang(body)
    variant = _variant(body.get("variant"))
    pid = field(body, "part", str)
    part = next((p for p in row["data"]["parts"] if p["id"] == pid), None)
    if part is None:
        raise ValidationError(f"no part {pid!r} in question {qid!r}", "part", code="unknown_part")
    learner_id = current_learner_id()
    hints = part_hints(part, lang, params_for(row["data"], variant))
    shown = _state(session, learner_id, row, variant).hints.get(pid, 0)
    if shown >= len(hints):
        raise Conflict(f"part {pid!r} has no further hint ({len(hints)} in all)", "part", code="no_more_hints")
    try:
        ensure_learner(session, learner_id)
        session.add(PracticeEvent(learner_id=learner_id, question_id=qid, variant=variant, kind="hint",
                                  part_id=pid, hint_index=shown))
        session.commit()
    except Exception:
        session.rollback()
        raise
    out = _body(session, learner_id, row, variant, lang)
    out.update({"part": pid, "index": shown, "hint": hints[shown], "hints_total": len(hints),
                "credit": credit.credit(shown + 1)})
    return ok(out, 201)


@bp.post("/questions/<qid>/solution")
def show_solution(qid: str):
    session = get_session()
    row = question_service.get_question(session, qid)
    body = json_body()
    check_unknown(body, {"variant", "lang"})
    lang = request_lang(body)
    variant = _variant(body.get("variant"))
    learner_id = current_learner_id()
    already = _state(session, learner_id, row, variant)
    rated = None
    try:
        ensure_learner(session, learner_id)
        if not already.revealed:  # only giving up is rated Again; re-reading a shown solution is not
            policy.record_solution_request(session, learner_id, qid, variant)
            session.commit()
            rated = review.record_reveal(session, learner_id, qid)
        else:
            session.commit()
    except Exception:
        session.rollback()
        raise
    out = _body(session, learner_id, row, variant, lang)
    out["review"] = json_safe(rated)
    return ok(out, 201)
