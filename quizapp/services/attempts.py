"""Attempts: grade every part, store the attempt in one transaction, and read attempts back.

The 201 body of ``POST /api/v1/questions/<id>/attempts`` (what :func:`submit_attempt` returns)::

    {"attempt_id", "question_id", "version_id", "variant", "score", "max_score", "counted", "created_at",
     "parts": {part_id: {"status", "score", "max_score", "counted", "feedback", "note",
                         "interpreted_as", "details"}},
     "practice": {"tries_allowed", "tries_used", "tries_left", "solution_available", "solution_reason",
                  "solution_requested", "hints_shown": {part_id: n}},
     "solution": {"key_points", "pitfalls", "worked", "expected": {part_id: ...}}}   # only when allowed

``solution`` is present only when the attempt policy allows it (:mod:`quizapp.study.policy`); every
part also carries ``hints_used`` and ``credit`` (:mod:`quizapp.study.credit`).

A part's ``score`` is in points (verdict score x the part's weight). ``invalid``/``undecided`` parts
(and parts left unanswered) have ``counted: false``: they consume no attempt and add nothing; an
attempt with no counted part at all is stored with ``counted: false`` and is ignored by
:func:`last_results`.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Mapping

from sqlalchemy import insert, select
from sqlalchemy.orm import Session
from checkers.bank import VARIANT_MAX, params_for, solution_view
from checkers.kinds import get_kind
from flask import current_app, has_app_context

from ..group_commit import write_together
from ..errors import NotFound, ValidationError
from .. import grading_backends
from ..learners import ensure_learner, learner_row
from ..models import Attempt, QuestionVersion, new_id
from .answers import check_answer, json_safe, localize, norm_lang
from ..i18n import LANGS, N_, in_language
from .questions import get_question
from ..timeutil import iso_utc
from ..ops.metrics import observe_grading
from ..study import clock, credit, policy, summary

log = logging.getLogger(__name__)

UNANSWERED = N_("No answer was given for this part.")
CHECKER_FAILED = N_("This answer could not be checked right now; it does not count. Please try again.")


def _in_every_language(msgid: str) -> dict[str, str]:
    """``{"en": ..., "zh": ...}`` from the catalogs: the shape checker feedback has (localised later)."""
    return {code: in_language(code, msgid) for code in LANGS}


def check_variant(variant: Any, field: str = "variant") -> int:
    """The variant as an int: an integer in [0, VARIANT_MAX), or an integral float such as ``15970.0`` (JSON
    Schema's ``integer`` admits it, and a client that serialises numbers as floats sends it so: the same
    variant); a non-integral number (``15970.5``), a boolean or anything else is a 422 naming ``field``."""
    if isinstance(variant, float) and variant.is_integer():
        variant = int(variant)
    if isinstance(variant, bool) or not isinstance(variant, int):
        raise ValidationError(f"variant must be an integer in [0, {VARIANT_MAX})", field)
    if not 0 <= variant < VARIANT_MAX:
        raise ValidationError(f"variant must be in [0, {VARIANT_MAX}), got {variant}", field,
                              code="variant_out_of_range")
    return variant


def _weight(part: Mapping[str, Any]) -> float:
    return float(part.get("weight", get_kind(part.get("kind")).default_weight))


def _grade_timeout() -> float | None:
    try:
        if has_app_context():
            value = current_app.config.get("GRADE_TIMEOUT")
            return float(value) if value else None
    except Exception:  # noqa: BLE001
        pass
    return None


def _grade_part(raw: Any, part: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        verdict = grading_backends.grade(raw, part, params, timeout=_grade_timeout())
        record = json_safe(verdict)
    except grading_backends.GradingUnavailable as exc:  # the queue gave no verdict: kept, not counted
        log.warning("grading part %r: %s", part.get("id"), exc.message)
        record = {"status": "undecided", "score": 0.0, "feedback": _in_every_language(CHECKER_FAILED),
                  "note": exc.code, "interpreted_as": None, "details": {}}
    except Exception:  # noqa: BLE001 - grade() never raises for learner input; a bug must not lose the attempt
        log.exception("grading part %r failed", part.get("id"))
        record = {"status": "undecided", "score": 0.0, "feedback": _in_every_language(CHECKER_FAILED),
                  "note": "checker_error", "interpreted_as": None, "details": {}}
    observe_grading(part.get("kind", "unknown"), time.perf_counter() - started)
    status = record.get("status")
    counted = status in ("correct", "incorrect")
    try:
        score = float(record.get("score") or 0.0)
    except (TypeError, ValueError):
        score = 0.0
    record["score"] = min(max(score, 0.0), 1.0) if counted else 0.0
    record["counted"] = counted
    return record


def grade_answers(data: Mapping[str, Any], variant: int, answers: Mapping[str, Any]) -> dict[str, dict]:
    """Check shapes, then grade every part of ``data`` (a question dict) for ``variant``."""
    if not isinstance(answers, Mapping):
        raise ValidationError("answers must be an object {part_id: answer}", "answers")
    parts = {p["id"]: p for p in data["parts"]}
    for pid in answers:
        if pid not in parts:
            raise ValidationError(f"no part {pid!r} in this question (parts: {', '.join(parts)})",
                                  f"answers.{pid}", code="unknown_part")
    checked = {pid: check_answer(parts[pid]["kind"], raw, f"answers.{pid}")
               for pid, raw in answers.items() if raw is not None}
    params = params_for(data, variant)
    verdicts: dict[str, dict] = {}
    for pid, part in parts.items():
        if pid in checked:
            record = _grade_part(checked[pid], part, params)
        else:
            record = {"status": "invalid", "score": 0.0, "feedback": _in_every_language(UNANSWERED), "note": "unanswered",
                      "interpreted_as": None, "details": {}, "counted": False}
        record["weight"] = _weight(part)
        verdicts[pid] = record
    return verdicts


def _render_parts(verdicts: Mapping[str, Mapping[str, Any]], lang: str) -> dict[str, dict]:
    out = {}
    for pid, v in verdicts.items():
        weight = float(v.get("weight", 1))
        part = {
            "status": v.get("status"),
            "score": round(float(v.get("score") or 0.0) * weight, 10),
            "max_score": weight,
            "counted": bool(v.get("counted")),
            "feedback": localize(v.get("feedback"), lang),
            "note": v.get("note"),
            "interpreted_as": v.get("interpreted_as"),
            "details": localize(v.get("details") or {}, lang),
        }
        details = v.get("details") or {}
        if "steps" in details:
            part["steps"] = localize(details["steps"], lang)
            part["first_error"] = details.get("first_error")
        out[pid] = part
    return out


def _solution(data: Mapping[str, Any], variant: int, lang: str) -> dict[str, Any] | None:
    try:
        return json_safe(solution_view(data, variant, lang))
    except Exception:  # noqa: BLE001 - the attempt is stored; a missing solution must not fail it
        log.exception("solution_view failed for %s variant %s", data.get("id"), variant)
        return None


def render_attempt(attempt: Attempt, data: Mapping[str, Any], lang: str, *, solution: bool = True) -> dict:
    body = {
        "attempt_id": attempt.id,
        "question_id": attempt.question_id,
        "version_id": attempt.question_version_id,
        "variant": attempt.variant,
        "score": attempt.score,
        "max_score": attempt.max_score,
        "counted": attempt.counted,
        "created_at": iso_utc(attempt.created_at),
        "parts": _render_parts(attempt.verdicts, lang),
    }
    if solution:
        body["solution"] = _solution(data, attempt.variant, lang)
    return body


# Built once: the attempt's INSERT runs in the writer's turn, where building it per request held up the queue.
_INSERT_ATTEMPT = insert(Attempt.__table__)
_ATTEMPT_KEYS = [c.key for c in Attempt.__table__.c]


def _store(session: Session, attempt: Attempt, learner_known: bool, planned: Any,
           keep_summary: Callable[[Session], None] | None = None) -> Any:
    """Write the learner (unless known to exist), the attempt, then ``planned.write`` (its result returned),
    committed: in one group commit with the attempts other threads are storing meanwhile
    (:func:`quizapp.group_commit.write_together`), where the learners, the attempts and the rows ``planned.rows``
    gives (if it has that method; the review cards) of the group are each one statement; ``keep_summary``
    (:func:`quizapp.study.summary.writer`) updates the learner's summary of the question. Prepared
    statements only: on SQLite they run in the writer's turn, where each one holds up the writers queued
    behind it."""
    attempt_row = (_INSERT_ATTEMPT, {k: getattr(attempt, k) for k in _ATTEMPT_KEYS})
    learner = None if learner_known else learner_row(session, attempt.learner_id)
    rows = [attempt_row] if learner_known else [learner, attempt_row] if learner is not None else []
    if rows and planned is not None and hasattr(planned, "rows"):  # what else is written, as rows too
        rows += planned.rows(session.get_bind().dialect.name)

    def work(writer: Session) -> Any:
        if not rows:  # a database without ON CONFLICT: the learner's row as ensure_learner makes it, first
            ensure_learner(writer, attempt.learner_id)
            writer.connection().execute(*attempt_row)
        if keep_summary is not None:
            keep_summary(writer)
        return planned.write(writer) if planned is not None else None

    return write_together(session, work, rows)


def submit_attempt(session: Session, question_id: str, variant: Any, answers: Any, learner_id: str,
                   lang: str = "en", *,
                   plan_write: Callable[[Session, Attempt, Any, list[tuple]], Any] | None = None,
                   question: Mapping[str, Any] | None = None,
                   before_store: Callable[[], Any] | None = None,
                   new_learner: bool = False) -> dict:
    """Grade ``answers`` for ``variant`` of the published version of ``question_id`` and store the
    attempt (one transaction, committed before this returns). ``plan_write(session, attempt, data,
    history)`` runs before the transaction, on the attempt built but not stored (``history``: what the review
    rating reads of the learner's earlier timeline of the question, ``Snapshot.history`` of
    :mod:`quizapp.study.summary`): it returns None or an object whose ``write(session)`` runs
    inside the transaction after the attempt's INSERT (what else an attempt writes, committed with it: with
    ``synchronous=FULL`` each commit is a sync to disk), and whose result is the body's ``review``. If that
    write fails, the attempt is stored without it. ``question``: the published question
    (:func:`quizapp.services.questions.get_question`) when the caller has already looked it up (its
    ``data`` is shared and only read). ``before_store()`` is called once the answers are graded, the
    history read, the planned write worked out and the response built, before the attempt waits to be
    stored (the server gives its grading slot back there, :func:`quizapp.ops.admission.let_go`).
    ``new_learner``: the learner id was made up for this request (no cookie yet), so nothing of the learner
    is stored and its history is empty without being read. Raises NotFound / ValidationError."""
    lang = norm_lang(lang)
    if question is None or question["id"] != question_id:
        question = get_question(session, question_id)  # raises NotFound
    question_id, data = question["id"], question["data"]
    variant = check_variant(variant)
    verdicts = grade_answers(data, variant, answers)  # before any write: the transaction stays short
    # The learner's history of the question as one stored row (plus events since): a submit's reads do
    # not grow with the attempts before it (quizapp.study.summary).
    known = summary.read(session, learner_id, question_id, question["version_id"], data) \
        if learner_id and not new_learner else summary.empty(question["version_id"])
    items = known.history
    before = policy.state(session, learner_id, question_id, variant, data, walked=known.walked)
    credit.apply_hint_credit(verdicts, before.hints)  # each hint shown on a part lowers its credit
    score = sum(v["score"] * v["weight"] for v in verdicts.values() if v["counted"])
    max_score = sum(v["weight"] for v in verdicts.values())
    attempt = Attempt(id=new_id(), learner_id=learner_id, question_id=question_id,
                      question_version_id=question["version_id"], variant=variant,
                      answers=json_safe(dict(answers)), verdicts=verdicts, score=round(score, 10),
                      max_score=max_score, counted=any(v["counted"] for v in verdicts.values()), lang=lang,
                      created_at=clock.now())  # the clock of history and review
    planned = plan_write(session, attempt, data, items) if plan_write is not None else None
    # The response is the attempt as built plus the state after it, which is the walk read above plus
    # the attempt (hints do not change): no second read of the summary, and no interpreter work
    # left for after the store, when the attempts committed together would all want it at once.
    walked = summary.after(known, attempt, data)
    after = policy.state(session, learner_id, attempt.question_id, variant, data, walked=walked,
                         hints=before.hints)
    keep_summary = summary.writer(known, attempt, walked) if learner_id else None
    body = _with_policy(session, attempt, data, lang, render_attempt(attempt, data, lang, solution=False),
                        current=after)
    if before_store is not None:
        before_store()  # what is left waits for the writer's turn, not for the interpreter
    learner_known = known.known  # something of the learner is stored, so is the learner's row
    try:
        extra = _store(session, attempt, learner_known, planned, keep_summary)
    except Exception:
        if planned is None:
            raise
        # A failing extra write must not lose the attempt: store it alone.
        log.exception("the write planned with attempt %s failed; the attempt is stored without it", attempt.id)
        extra = _store(session, attempt, learner_known, None, keep_summary)
    if plan_write is not None:
        body["review"] = extra
    return body


def _with_policy(session: Session, attempt: Attempt, data: Mapping[str, Any], lang: str, body: dict,
                 *, solution: bool = True, current: policy.PracticeState | None = None) -> dict:
    """Add the learner's ``practice`` state on the attempt's variant, and the ``solution`` only when the
    attempt policy lets it be shown (:mod:`quizapp.study.policy`)."""
    if current is None:
        current = policy.state(session, attempt.learner_id, attempt.question_id, attempt.variant, data)
    body["practice"] = current.view()
    for pid, part in body.get("parts", {}).items():
        record = (attempt.verdicts or {}).get(pid) or {}
        part["hints_used"] = int(record.get("hints_used") or 0)
        part["credit"] = float(record.get("credit", 1.0))
    if solution and current.revealed:
        body["solution"] = _solution(data, attempt.variant, lang)
    return body


def get_attempt(session: Session, attempt_id: str, lang: str = "en", *, solution: bool = True) -> dict:
    """The stored attempt (with the answers as submitted), rendered in ``lang``; raises NotFound."""
    lang = norm_lang(lang)
    attempt = session.get(Attempt, attempt_id) if isinstance(attempt_id, str) and len(attempt_id) <= 64 else None
    if attempt is None:
        raise NotFound(f"no attempt {attempt_id!r}", "attempt_id", code="unknown_attempt")
    version = session.get(QuestionVersion, attempt.question_version_id)
    body = _with_policy(session, attempt, version.data, lang,
                        render_attempt(attempt, version.data, lang, solution=False), solution=solution)
    body["answers"] = attempt.answers
    body["learner_id"] = attempt.learner_id
    body["lang"] = attempt.lang
    return body


def last_results(session: Session, learner_id: str | None) -> dict[str, dict]:
    """{question_id: {"score", "max_score", "created_at", "attempt_id"}} of the learner's latest counted
    attempt per question."""
    if not learner_id:
        return {}
    stmt = (select(Attempt.question_id, Attempt.id, Attempt.score, Attempt.max_score, Attempt.created_at)
            .where(Attempt.learner_id == learner_id, Attempt.counted.is_(True))
            .order_by(Attempt.created_at.desc()))
    out: dict[str, dict] = {}
    for qid, aid, score, max_score, created in session.execute(stmt):
        if qid not in out:
            out[qid] = {"score": score, "max_score": max_score, "created_at": iso_utc(created), "attempt_id": aid}
    return out
