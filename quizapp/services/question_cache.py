"""The published questions, read from the database once per change instead of once per request.

``GET /api/v1/questions`` and the home page list every published question; building that list means
loading and JSON-decoding every published version's document. The rows are kept per process and per
database URL, keyed by a fingerprint of the set of published version ids (count, sum, sum of squares,
max: one aggregate over the ``status`` index). Publishing, retiring or adding a version in any process
(another server worker, ``quizapp load-bank``, the authoring API on another host) changes the set, so the
next request sees a new fingerprint and reloads: there is no invalidation message to lose.

The rows (and their ``data``) are shared between requests: callers read them and never mutate them.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..models import QuestionVersion

_lock = threading.Lock()
_cache: dict[str, tuple[tuple, list[dict[str, Any]]]] = {}


def _renew_lock() -> None:
    global _lock
    _lock = threading.Lock()  # a worker forked while another thread held it must not wait forever


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock)


def fingerprint(session: Session) -> tuple:
    vid = QuestionVersion.id
    row = session.execute(
        select(func.count(vid), func.coalesce(func.sum(vid), 0), func.coalesce(func.sum(vid * vid), 0),
               func.coalesce(func.max(vid), 0)).where(QuestionVersion.status == "published")).one()
    return tuple(int(x) for x in row)


def published_rows(session: Session) -> list[dict[str, Any]]:
    """Every published question as :func:`quizapp.services.questions._row` builds it, in list order."""
    from .questions import _level_key, _ref_key, _row

    key = str(session.get_bind().url)
    current = fingerprint(session)
    with _lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] == current:
        return hit[1]
    rows = [_row(v) for v in session.scalars(select(QuestionVersion).where(QuestionVersion.status == "published"))]
    rows.sort(key=lambda r: (_level_key(r["level"]), _ref_key(r["ref"]), r["id"]))
    # Stored under the fingerprint read before loading: a publish in between only causes one more reload.
    with _lock:
        _cache[key] = (current, rows)
    return rows


def clear() -> None:
    with _lock:
        _cache.clear()
