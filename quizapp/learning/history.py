"""A learner's own attempts: newest first with cursor pagination and filters, and one question's summary
(previous attempts, best and last score) for its page.

Cursor: the (created_at, id) of the last attempt of a page, URL-safe base64 of a JSON pair; the next page
holds attempts strictly older in that order, so new attempts never shift a page being read.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import and_, bindparam, or_, select
from sqlalchemy.orm import Session

from ..errors import ValidationError
from ..storage.models import Attempt, QuestionVersion
from ..timeutil import iso_utc
from ..i18n import localized
from ..study.clock import aware
from ..study.grades import EPS, STATUSES, grade_status
from ..levels import LEVELS

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
SUMMARY_ATTEMPTS = 10


def encode_cursor(created_at: datetime, attempt_id: str) -> str:
    raw = json.dumps([iso_utc(created_at), attempt_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        if len(cursor) > 200:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, attempt_id = json.loads(raw)
        when = parse_since(stamp, "cursor")
        if not isinstance(attempt_id, str) or len(attempt_id) > 64:
            raise ValueError("bad id")
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError, ValidationError):
        raise ValidationError("cursor is not one this API returned (use next_cursor as it is)", "cursor",
                              code="invalid_cursor") from None
    return when, attempt_id


def parse_since(value: Any, field: str = "since") -> datetime:
    """An ISO 8601 date (``2026-11-01``) or date-time; naive times are UTC."""
    if not isinstance(value, str) or not 8 <= len(value) <= 40:
        raise ValidationError(f"{field} must be an ISO 8601 date or date-time such as 2026-11-01", field)
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(f"{field} must be an ISO 8601 date or date-time such as 2026-11-01, got {value!r}",
                              field) from None
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def _status_clause(status: str):
    full = Attempt.score >= Attempt.max_score - EPS
    if status == "correct":
        return and_(Attempt.counted.is_(True), Attempt.max_score > 0, full)
    if status == "partial":
        return and_(Attempt.counted.is_(True), Attempt.score > EPS, ~full)
    if status == "incorrect":
        return and_(Attempt.counted.is_(True), Attempt.score <= EPS)
    return Attempt.counted.is_(False)


def _versions(session: Session, ids) -> dict[int, QuestionVersion]:
    ids = set(ids)
    if not ids:
        return {}
    return {v.id: v for v in session.scalars(select(QuestionVersion).where(QuestionVersion.id.in_(ids)))}


def item(attempt: Attempt, version: QuestionVersion | None, lang: str) -> dict[str, Any]:
    data = version.data if version is not None else {}
    return {
        "attempt_id": attempt.id,
        "question_id": attempt.question_id,
        "title": localized(data.get("title"), lang) or attempt.question_id,
        "level": version.level if version is not None else None,
        "tags": list(data.get("tags") or []),
        "version_id": attempt.question_version_id,
        "variant": attempt.variant,
        "score": attempt.score,
        "max_score": attempt.max_score,
        "counted": attempt.counted,
        "status": grade_status(attempt.score, attempt.max_score, attempt.counted),
        "created_at": iso_utc(attempt.created_at),
    }


def list_attempts(session: Session, learner_id: str, *, lang: str = "en", question: str | None = None,
                  level: str | None = None, tag: str | None = None, status: str | None = None,
                  since: str | None = None, cursor: str | None = None, limit: int | None = None) -> dict:
    """``{"attempts": [...], "next_cursor": str | None}``: the learner's attempts, newest first."""
    if limit is None:
        limit = DEFAULT_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit must be an integer from 1 to {MAX_LIMIT}", "limit")
    stmt = select(Attempt).where(Attempt.learner_id == learner_id)
    if question is not None:
        if not isinstance(question, str) or not question or len(question) > 80:
            raise ValidationError("question must be a question id", "question")
        stmt = stmt.where(Attempt.question_id == question)
    if level is not None:
        if level not in LEVELS:
            raise ValidationError(f"level must be one of {', '.join(LEVELS)}", "level")
        stmt = stmt.join(QuestionVersion, QuestionVersion.id == Attempt.question_version_id).where(
            QuestionVersion.level == level)
    if tag is not None:
        if not isinstance(tag, str) or not tag or len(tag) > 80:
            raise ValidationError("tag must be a tag name", "tag")
        seen = session.scalars(select(Attempt.question_version_id).where(Attempt.learner_id == learner_id)
                               .distinct())
        ids = [vid for vid, v in _versions(session, seen).items() if tag in (v.data.get("tags") or [])]
        stmt = stmt.where(Attempt.question_version_id.in_(ids))
    if status is not None:
        if status not in STATUSES:
            raise ValidationError(f"status must be one of {', '.join(STATUSES)}", "status")
        stmt = stmt.where(_status_clause(status))
    if since is not None:
        stmt = stmt.where(Attempt.created_at >= parse_since(since))
    if cursor:
        when, last_id = decode_cursor(cursor)
        stmt = stmt.where(or_(Attempt.created_at < when, and_(Attempt.created_at == when, Attempt.id < last_id)))
    rows = list(session.scalars(stmt.order_by(Attempt.created_at.desc(), Attempt.id.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    versions = _versions(session, (a.question_version_id for a in rows))
    return {"attempts": [item(a, versions.get(a.question_version_id), lang) for a in rows],
            "next_cursor": encode_cursor(aware(rows[-1].created_at), rows[-1].id) if more and rows else None}


def question_summary(session: Session, learner_id: str | None, question_id: str) -> dict[str, Any]:
    """The learner's attempts on one question: ``count``, ``best`` and ``last`` counted attempt, and the
    latest :data:`SUMMARY_ATTEMPTS` attempts (newest first). Every question page shows it: only the
    columns it needs are read (no answers or verdicts)."""
    if not learner_id:
        return {"count": 0, "best": None, "last": None, "attempts": []}
    rows = session.connection().execute(_SUMMARY, {"learner": learner_id, "question": question_id}).all()
    counted = [a for a in rows if a.counted]
    best = max(counted, key=lambda a: (a.score / a.max_score if a.max_score else 0.0, a.created_at),
               default=None)

    def brief(a: Any):
        if a is None:
            return None
        return {"attempt_id": a.id, "score": a.score, "max_score": a.max_score, "variant": a.variant,
                "status": grade_status(a.score, a.max_score, a.counted), "created_at": iso_utc(a.created_at)}

    return {"count": len(rows), "best": brief(best), "last": brief(counted[0] if counted else None),
            "attempts": [brief(a) for a in rows[:SUMMARY_ATTEMPTS]]}


_T = Attempt.__table__.c
_SUMMARY = (select(_T.id, _T.score, _T.max_score, _T.variant, _T.counted, _T.created_at)
            .where(_T.learner_id == bindparam("learner"), _T.question_id == bindparam("question"))
            .order_by(_T.created_at.desc(), _T.id.desc()))
