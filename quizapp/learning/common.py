"""Small helpers shared by the learner-memory services: UTC datetimes and an attempt's grade."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Mapping

EPS = 1e-9
STATUSES = ("correct", "partial", "incorrect", "uncounted")


def aware(dt: datetime | None) -> datetime | None:
    """SQLite hands back naive UTC datetimes, PostgreSQL aware ones: always aware UTC here."""
    if dt is None:
        return None
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def now() -> datetime:
    """The clock of history, review and progress (UTC); tests replace it to move through days."""
    return datetime.now(timezone.utc)


def grade_status(score: float, max_score: float, counted: bool) -> str:
    """correct (full marks), partial, incorrect (no points) or uncounted (nothing could be graded)."""
    if not counted:
        return "uncounted"
    if max_score > 0 and score >= max_score - EPS:
        return "correct"
    return "partial" if score > EPS else "incorrect"


def localized(value: Any, lang: str) -> str:
    if isinstance(value, Mapping):
        return str(value.get(lang) or value.get("en") or next(iter(value.values()), ""))
    return "" if value is None else str(value)
