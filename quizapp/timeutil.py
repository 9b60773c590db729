"""Timestamps as the API shows them."""

from __future__ import annotations

from datetime import datetime, timezone


def iso_utc(dt: datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``: SQLite hands back naive datetimes, PostgreSQL aware ones, and the API
    must read the same on both."""
    if dt is None:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
