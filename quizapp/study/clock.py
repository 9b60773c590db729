"""The study clock: the one "now" of attempts, history, review and progress, and UTC datetimes.

Every module that stamps or compares study times reads :func:`now` through this module (``clock.now()``),
so that tests can replace it to move through days.
"""

from __future__ import annotations

from datetime import datetime, timezone


def aware(dt: datetime | None) -> datetime | None:
    """SQLite hands back naive UTC datetimes, PostgreSQL aware ones: always aware UTC here."""
    if dt is None:
        return None
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def now() -> datetime:
    """The clock of history, review and progress (UTC); tests replace it to move through days."""
    return datetime.now(timezone.utc)
