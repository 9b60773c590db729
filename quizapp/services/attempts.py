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

The flow runs one way: the API and the pages call this module, which calls the study rules below it
(:mod:`quizapp.study`: policy, credit, the stored summary, the review card, the clock) and takes no
callback from its callers. A submit is :func:`prepare_attempt` (grading, reads, the response) then
:func:`store_attempt` (the writer's turn); the API gives its grading slot back between the two.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Mapping

from sqlalchemy import insert, select
from sqlalchemy.orm import Session
from checkers.bank import VARIANT_MAX, params_for, solution_view
from checkers.kinds import Kind, find_kind, get_kind
from flask import current_app, has_app_context

from ..storage.group_commit import write_together
from ..errors import NotFound, ValidationError
from .. import grading_backends
from ..learners import ensure_learner, learner_row
from ..storage.models import Attempt, QuestionVersion, new_id
from ..httpkit.jsonio import json_safe
from .answers import check_answer, localize, norm_lang
from ..i18n import LANGS, N_, in_language
from .questions import get_question
from ..timeutil import iso_utc
from ..ops.metrics import observe_grading
from ..study import clock, credit, policy, review, summary

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


def part_kinds(data: Mapping[str, Any]) -> dict[str, Kind]:
    """Each part's answer kind, by part id: looked up once per part, then passed along."""
    return {part["id"]: get_kind(part.get("kind")) for part in data["parts"]}


def _weight(part: Mapping[str, Any], kind: Kind) -> float:
    return float(part.get("weight", kind.default_weight))


def _grade_timeout() -> float | None:
    try:
        if has_app_context():
            value = current_app.config.get("GRADE_TIMEOUT")
            return float(value) if value else None
    except Exception:  # noqa: BLE001
        pass
    return None


def _grade_part(raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], kind: Kind) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        verdict = grading_backends.grade(raw, part, params, timeout=_grade_timeout(), kind=kind)
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


def grade_answers(data: Mapping[str, Any], variant: int, answers: Mapping[str, Any],
                  kinds: Mapping[str, Kind] | None = None) -> dict[str, dict]:
    """Check shapes, then grade every part of ``data`` (a question dict) for ``variant``; ``kinds``:
    :func:`part_kinds` of ``data`` when the caller has them."""
    if not isinstance(answers, Mapping):
        raise ValidationError("answers must be an object {part_id: answer}", "answers")
    parts = {p["id"]: p for p in data["parts"]}
    for pid in answers:
        if pid not in parts:
            raise ValidationError(f"no part {pid!r} in this question (parts: {', '.join(parts)})",
                                  f"answers.{pid}", code="unknown_part")
    kinds = kinds if kinds is not None else part_kinds(data)
    checked = {pid: check_answer(kinds[pid], raw, f"answers.{pid}")
               for pid, raw in answers.items() if raw is not None}
    params = params_for(data, variant)
    verdicts: dict[str, dict] = {}
    for pid, part in parts.items():
        if pid in checked:
            record = _grade_part(checked[pid], part, params, kinds[pid])
        else:
            record = {"status": "invalid", "score": 0.0, "feedback": _in_every_language(UNANSWERED), "note": "unanswered",
                      "interpreted_as": None, "details": {}, "counted": False}
        record["weight"] = _weight(part, kinds[pid])
        verdicts[pid] = record
    return verdicts


def _render_parts(verdicts: Mapping[str, Mapping[str, Any]], lang: str,
                  kinds: Mapping[str, Kind | None]) -> dict[str, dict]:
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
        kind = kinds.get(pid)
        if kind is not None:  # what the kind lifts out of its details (derivation: the steps)
            part.update(localize(kind.read_back(v.get("details") or {}), lang))
        out[pid] = part
    return out


def shown_solution(data: Mapping[str, Any], variant: int, lang: str) -> dict[str, Any] | None:
    """The solution of ``variant`` in ``lang`` as responses show it (None, logged, when it cannot be built)."""
    try:
        return json_safe(solution_view(data, variant, lang))
    except Exception:  # noqa: BLE001 - the attempt is stored; a missing solution must not fail it
        log.exception("solution_view failed for %s variant %s", data.get("id"), variant)
        return None


def render_attempt(attempt: Attempt, data: Mapping[str, Any], lang: str, *, solution: bool = True,
                   kinds: Mapping[str, Kind | None] | None = None) -> dict:
    """The stored attempt as the API returns it; ``kinds``: each part's kind when the caller has them (an
    unknown kind, e.g. of an old version, adds nothing of its own)."""
    if kinds is None:
        kinds = {p["id"]: find_kind(p.get("kind")) for p in data.get("parts") or []}
    body = {
        "attempt_id": attempt.id,
        "question_id": attempt.question_id,
        "version_id": attempt.question_version_id,
        "variant": attempt.variant,
        "score": attempt.score,
        "max_score": attempt.max_score,
        "counted": attempt.counted,
        "created_at": iso_utc(attempt.created_at),
        "parts": _render_parts(attempt.verdicts, lang, kinds),
    }
    if solution:
        body["solution"] = shown_solution(data, attempt.variant, lang)
    return body


# Built once: the attempt's INSERT runs in the writer's turn, where building it per request held up the queue.
_INSERT_ATTEMPT = insert(Attempt.__table__)
_ATTEMPT_KEYS = [c.key for c in Attempt.__table__.c]


def _plan_review(session: Session, attempt: Attempt, data: Mapping[str, Any], history: list[tuple],
                 new_learner: bool, kinds: Mapping[str, Kind]) -> review.CardChange | None:
    """The review card of ``attempt`` (built, not yet stored) read and rated before the attempt's write
    turn (:func:`quizapp.study.review.plan_attempt`); the attempt's transaction stores it. A failure is
    logged and answered as None: the attempt is then stored without touching the card."""
    try:
        return review.plan_attempt(session, attempt, data, history=history, new_learner=new_learner, kinds=kinds)
    except Exception:  # noqa: BLE001 - the attempt is kept; its review card can be rated next time
        log.exception("review card update failed for attempt %s", attempt.id)
        return None


def _store(session: Session, attempt: Attempt, learner_known: bool, card: review.CardChange | None,
           keep_summary: summary.SummaryChange | None = None) -> Any:
    """Write the learner (unless known to exist), the attempt, then ``card.write`` (its result returned),
    committed: in one group commit with the attempts other threads are storing meanwhile
    (:func:`quizapp.storage.group_commit.write_together`), where the learners, the attempts and the review cards of
    the group are each one statement (:meth:`quizapp.study.review.CardChange.rows`); ``keep_summary``
    (:func:`quizapp.study.summary.writer`) updates the learner's summary of the question, as a row of the
    group too (:meth:`quizapp.study.summary.SummaryChange.rows`). Prepared
    statements only: on SQLite they run in the writer's turn, where each one holds up the writers queued
    behind it."""
    attempt_row = (_INSERT_ATTEMPT, {k: getattr(attempt, k) for k in _ATTEMPT_KEYS})
    learner = None if learner_known else learner_row(session, attempt.learner_id)
    rows = [attempt_row] if learner_known else [learner, attempt_row] if learner is not None else []
    dialect = session.get_bind().dialect.name
    if rows and card is not None:  # the card's write, as a row too
        rows += card.rows(dialect)
    if rows and keep_summary is not None:  # and the summary's
        rows += keep_summary.rows(dialect)

    def work(writer: Session) -> Any:
        if not rows:  # a database without ON CONFLICT: the learner's row as ensure_learner makes it, first
            ensure_learner(writer, attempt.learner_id)
            writer.connection().execute(*attempt_row)
        if keep_summary is not None:
            keep_summary.write(writer)
        return card.write(writer) if card is not None else None

    return write_together(session, work, rows)


@dataclass
class PreparedAttempt:
    """An attempt graded, its review card rated and its response built, not stored yet
    (:func:`prepare_attempt`; :func:`store_attempt` stores it)."""

    attempt: Attempt
    body: dict[str, Any]
    learner_known: bool  # something of the learner is stored, so is the learner's row
    card: review.CardChange | None  # the review card's write, when the attempt rates one
    keep_summary: summary.SummaryChange | None  # the learner's summary of the question, rewritten
    rate_review: bool


def prepare_attempt(session: Session, question_id: str, variant: Any, answers: Any, learner_id: str,
                    lang: str = "en", *, question: Mapping[str, Any] | None = None, rate_review: bool = False,
                    new_learner: bool = False) -> PreparedAttempt:
    """Grade ``answers`` for ``variant`` of the published version of ``question_id`` and build the attempt
    and its response, writing nothing: the work of a submit that needs the interpreter, so that the caller
    can give its grading slot back before :func:`store_attempt` waits for the writer's turn
    (:func:`quizapp.ops.admission.let_go`). ``question``: the published question
    (:func:`quizapp.services.questions.get_question`) when the caller has already looked it up (its
    ``data`` is shared and only read). ``rate_review``: the attempt also rates the learner's review card
    (:mod:`quizapp.study.review`), read and rated here and written in the attempt's transaction; the body
    then has ``review``. ``new_learner``: the learner id was made up for this request (no cookie yet), so
    nothing of the learner is stored and its history is empty without being read. Raises NotFound /
    ValidationError."""
    lang = norm_lang(lang)
    if question is None or question["id"] != question_id:
        question = get_question(session, question_id)  # raises NotFound
    question_id, data = question["id"], question["data"]
    variant = check_variant(variant)
    kinds = part_kinds(data)  # each part's kind, looked up once for the whole submit
    verdicts = grade_answers(data, variant, answers, kinds)  # before any write: the transaction stays short
    graded = policy.graded_ids(data, kinds)
    # The learner's history of the question as one stored row (plus events since): a submit's reads do
    # not grow with the attempts before it (quizapp.study.summary).
    known = summary.read(session, learner_id, question_id, question["version_id"], data, graded=graded) \
        if learner_id and not new_learner else summary.empty(question["version_id"])
    before = policy.state(session, learner_id, question_id, variant, data, walked=known.walked)
    credit.apply_hint_credit(verdicts, before.hints)  # each hint shown on a part lowers its credit
    score = sum(v["score"] * v["weight"] for v in verdicts.values() if v["counted"])
    max_score = sum(v["weight"] for v in verdicts.values())
    attempt = Attempt(id=new_id(), learner_id=learner_id, question_id=question_id,
                      question_version_id=question["version_id"], variant=variant,
                      answers=json_safe(dict(answers)), verdicts=verdicts, score=round(score, 10),
                      max_score=max_score, counted=any(v["counted"] for v in verdicts.values()), lang=lang,
                      created_at=clock.now())  # the clock of history and review
    card = _plan_review(session, attempt, data, known.history, new_learner, kinds) if rate_review else None
    # The response is the attempt as built plus the state after it, which is the walk read above plus
    # the attempt (hints do not change): no second read of the summary, and no interpreter work
    # left for after the store, when the attempts committed together would all want it at once.
    walked = summary.after(known, attempt, data, graded=graded)
    after = policy.state(session, learner_id, attempt.question_id, variant, data, walked=walked,
                         hints=before.hints)
    keep_summary = summary.writer(known, attempt, walked) if learner_id else None
    body = _with_policy(session, attempt, data, lang,
                        render_attempt(attempt, data, lang, solution=False, kinds=kinds), current=after)
    return PreparedAttempt(attempt, body, known.known, card, keep_summary, rate_review)


def store_attempt(session: Session, prepared: PreparedAttempt) -> dict:
    """Store a prepared attempt (one transaction, committed before this returns) with its review card and
    the learner's summary of the question, and answer its response. If the card's write fails, the attempt
    is stored without it (the body's ``review`` is then None)."""
    attempt, card = prepared.attempt, prepared.card
    try:
        extra = _store(session, attempt, prepared.learner_known, card, prepared.keep_summary)
    except Exception:
        if card is None:
            raise
        # A failing card write must not lose the attempt: store it alone.
        log.exception("the review card written with attempt %s failed; the attempt is stored without it",
                      attempt.id)
        extra = _store(session, attempt, prepared.learner_known, None, prepared.keep_summary)
    body = prepared.body
    if prepared.rate_review:
        body["review"] = extra
    return body


def submit_attempt(session: Session, question_id: str, variant: Any, answers: Any, learner_id: str,
                   lang: str = "en", *, question: Mapping[str, Any] | None = None, rate_review: bool = False,
                   new_learner: bool = False) -> dict:
    """:func:`prepare_attempt` then :func:`store_attempt`: grade and store the attempt in one call (the
    mock interview, the command line, tests). Raises NotFound / ValidationError."""
    return store_attempt(session, prepare_attempt(session, question_id, variant, answers, learner_id, lang,
                                                  question=question, rate_review=rate_review,
                                                  new_learner=new_learner))


def _with_policy(session: Session, attempt: Attempt, data: Mapping[str, Any], lang: str, body: dict,
                 *, solution: bool = True, current: policy.PracticeState | None = None) -> dict:
    """Add the learner's ``practice`` state on the attempt's variant, and the ``solution`` only when the
    attempt policy lets it be shown (:mod:`quizapp.study.policy`)."""
    if current is None:  # the learner's stored summary of the question, not every attempt on it
        known = summary.read(session, attempt.learner_id, attempt.question_id, attempt.question_version_id, data)
        current = policy.state(session, attempt.learner_id, attempt.question_id, attempt.variant, data,
                               walked=known.walked)
    body["practice"] = current.view()
    for pid, part in body.get("parts", {}).items():
        record = (attempt.verdicts or {}).get(pid) or {}
        part["hints_used"] = int(record.get("hints_used") or 0)
        part["credit"] = float(record.get("credit", 1.0))
    if solution and current.revealed:
        body["solution"] = shown_solution(data, attempt.variant, lang)
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
