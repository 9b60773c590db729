"""A filter over the published questions and the walk through it: the ordered list, a learner's status
per question, next / previous / random, and where to continue.

A filter is ``{"q", "level", "tag", "status"}`` (all optional). Status, from the learner's latest counted
attempt per question (:func:`quizapp.services.attempts.last_results`): ``new`` (never answered),
``wrong`` (latest attempt below full marks), ``mastered`` (latest attempt at full marks).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import ValidationError
from ..storage.models import Attempt
from ..services import attempts, questions
from . import index
from .text import QUERY_MAX_CHARS
from ..levels import LEVELS

STATUSES = ("new", "wrong", "mastered")
FILTER_KEYS = ("q", "level", "tag", "status")


def parse_filter(args: Mapping[str, Any], tags: Mapping[str, Any]) -> dict[str, str]:
    """The filter in ``args`` (a query string), checked; raises ValidationError naming the field."""
    out: dict[str, str] = {}
    for key in FILTER_KEYS:
        value = args.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise ValidationError(f"{key} must be a string", key)
        out[key] = value.strip() if key == "q" else value
    if len(out.get("q", "")) > QUERY_MAX_CHARS:
        raise ValidationError(f"q must be at most {QUERY_MAX_CHARS} characters", "q")
    if "level" in out and out["level"] not in LEVELS:
        raise ValidationError(f"level must be one of {', '.join(LEVELS)}", "level")
    if "status" in out and out["status"] not in STATUSES:
        raise ValidationError(f"status must be one of {', '.join(STATUSES)}", "status")
    if "tag" in out and tags and out["tag"] not in tags:
        raise ValidationError("tag must be one of the curated tags", "tag")
    if not out.get("q"):
        out.pop("q", None)
    return out


def status_of(result: Mapping[str, Any] | None) -> str:
    if not result:
        return "new"
    try:
        full = float(result["max_score"]) > 0 and float(result["score"]) >= float(result["max_score"]) - 1e-9
    except (KeyError, TypeError, ValueError):
        return "new"
    return "mastered" if full else "wrong"


def statuses(session: Session, learner_id: str | None) -> tuple[dict[str, str], list[str]]:
    """(question id -> status, question ids by latest attempt, most recent first)."""
    results = attempts.last_results(session, learner_id)
    return {qid: status_of(r) for qid, r in results.items()}, list(results)


def matching(session: Session, flt: Mapping[str, str], learner_id: str | None,
             tags: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The published questions the filter admits, in walk order (search rank when there is a query,
    else level, tutorial ref and id), each with its ``status``."""
    rows = questions.list_questions(session, level=flt.get("level"), tag=flt.get("tag"))
    status, _ = statuses(session, learner_id)
    for row in rows:
        row["status"] = status.get(row["id"], "new")
    if flt.get("status"):
        rows = [r for r in rows if r["status"] == flt["status"]]
    if flt.get("q"):
        ranked = index.search(session, flt["q"], tags) or []
        by_id = {r["id"]: r for r in rows}
        rows = [by_id[qid] for qid in ranked if qid in by_id]
    return rows


def neighbour(rows: list[dict[str, Any]], current: str | None, step: int) -> dict[str, Any] | None:
    """The question ``step`` places after ``current`` in ``rows`` (wrapping round); the first (or last)
    when ``current`` is not in the list; ``None`` when the list is empty."""
    if not rows:
        return None
    ids = [r["id"] for r in rows]
    if current not in ids:
        return rows[0] if step > 0 else rows[-1]
    return rows[(ids.index(current) + step) % len(rows)]


def pick_random(rows: list[dict[str, Any]], current: str | None) -> dict[str, Any] | None:
    """A random question of ``rows``, another than ``current`` when there is another."""
    pool = [r for r in rows if r["id"] != current] or rows
    return pool[secrets.randbelow(len(pool))] if pool else None


@dataclass(frozen=True)
class Place:
    """Where "Continue" leads: a question, the variant to reopen (``None``: a question not tried yet, at a
    fresh variant), and why (``latest``: the latest attempt's question, not yet right; ``next``: the first
    question after it that is not mastered; ``first``: no attempts yet, the bank's first question;
    ``done``: every question is mastered, ``qid`` is ``None``)."""

    qid: str | None
    variant: int | None
    reason: str


def continue_place(session: Session, learner_id: str | None) -> Place:
    """Where the learner left off: the question of their latest attempt, **at that attempt's variant**, while it
    is not mastered; else the first question after it (in the whole bank's order) that is not mastered; the
    first question for a learner without attempts; ``done`` when everything is mastered."""
    rows = questions.list_questions(session)
    status, recent = statuses(session, learner_id)
    ids = [r["id"] for r in rows]
    last = next((qid for qid in recent if qid in ids), None)
    if last is not None and status.get(last) != "mastered":
        return Place(last, _latest_variant(session, learner_id, last), "latest")
    start = ids.index(last) + 1 if last is not None else 0
    for qid in ids[start:] + ids[:start]:
        if status.get(qid) != "mastered":
            return Place(qid, None, "next" if last is not None else "first")
    return Place(None, None, "done")


def _latest_variant(session: Session, learner_id: str | None, qid: str) -> int | None:
    """The variant of the learner's latest counted attempt at ``qid`` (the one its status comes from)."""
    stmt = (select(Attempt.variant)
            .where(Attempt.learner_id == learner_id, Attempt.question_id == qid, Attempt.counted.is_(True))
            .order_by(Attempt.created_at.desc()).limit(1))
    return session.scalar(stmt)
