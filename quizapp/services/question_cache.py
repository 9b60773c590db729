"""The published questions, read from the database once per change instead of once per request.

``GET /api/v1/questions`` and the home page list every published question; building that list means
loading and JSON-decoding every published version's document. The rows are kept per process and per
database URL, keyed by a fingerprint of the set of published version ids (count, sum, sum of squares,
max: one aggregate over the ``status`` index). Publishing, retiring or adding a version in any process
(another server worker, ``quizapp load-bank``, the authoring API on another host) changes the set, so the
next request sees a new fingerprint and reloads: there is no invalidation message to lose.

The rows (and their ``data``) are shared between requests: callers read them and never mutate them.
Views built from them (the API list's encoded JSON per language and filter, :func:`derived`) are kept under
the same fingerprint, at most ``MAX_DERIVED`` per fingerprint, so a listing costs one aggregate query and
no encoding. The cache is a module dict filled on use: a worker forked from a preloading master starts with
the master's copy, which is still checked against the fingerprint on the first request.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Hashable, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..models import QuestionVersion
from .questions import _level_key, _ref_key, _row

_lock = threading.Lock()
_cache: dict[str, tuple[tuple, list[dict[str, Any]]]] = {}
_derived: dict[str, tuple[tuple, dict[Hashable, Any]]] = {}
MAX_DERIVED = 64  # views kept per fingerprint (languages x levels x tags asked for); others are built each time
T = TypeVar("T")


def _renew_lock() -> None:
    global _lock
    _lock = threading.Lock()  # a worker forked while another thread held it must not wait forever


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock)


_vid = QuestionVersion.id
_FINGERPRINT = select(func.count(_vid), func.coalesce(func.sum(_vid), 0), func.coalesce(func.sum(_vid * _vid), 0),
                      func.coalesce(func.max(_vid), 0)).where(QuestionVersion.status == "published")
_fingerprint_sql: dict[str, str] = {}


def fingerprint(session: Session) -> tuple:
    """The published set's fingerprint. Every request that shows or grades a question runs it, so it is sent
    as SQL text compiled once per dialect (no parameters): the statement cache's lookup and parameter
    handling cost more than the aggregate itself."""
    conn = session.connection()
    name = conn.dialect.name
    sql = _fingerprint_sql.get(name)
    if sql is None:
        sql = _fingerprint_sql[name] = str(_FINGERPRINT.compile(dialect=conn.dialect,
                                                                 compile_kwargs={"literal_binds": True}))
    return tuple(int(x) for x in conn.exec_driver_sql(sql).one())


def published_rows(session: Session) -> list[dict[str, Any]]:
    """Every published question as :func:`quizapp.services.questions._row` builds it, in list order."""
    return _current(session, str(session.get_bind().url))[1]


def published_row(session: Session, qid: str) -> dict[str, Any] | None:
    """The published row of question ``qid`` (shared: read, never mutated), or None: one aggregate query
    instead of loading and decoding the version's document on every request that shows or grades it."""
    return derived(session, _BY_ID, _index).get(qid)


_BY_ID = ("published rows by id",)


def _index(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in rows}


def derived(session: Session, key: Hashable, build: Callable[[list[dict[str, Any]]], T]) -> T:
    """``build(rows)`` for the published rows, computed once per fingerprint and ``key`` (the value is
    shared: callers never mutate it). Beyond ``MAX_DERIVED`` keys (a client inventing tags) it is built
    each time and not kept, so the memory stays bounded."""
    url = str(session.get_bind().url)
    current, rows = _current(session, url)
    with _lock:
        hit = _derived.get(url)
        views = hit[1] if hit is not None and hit[0] == current else None
        if views is not None and key in views:
            return views[key]
    value = build(rows)
    with _lock:
        hit = _derived.get(url)
        if hit is None or hit[0] != current:
            _derived[url] = (current, {key: value})
        elif len(hit[1]) < MAX_DERIVED:
            hit[1][key] = value
    return value


def _current(session: Session, key: str) -> tuple[tuple, list[dict[str, Any]]]:
    """(fingerprint, rows) of the database at URL ``key``, reloading the rows when the fingerprint moved."""
    current = fingerprint(session)
    with _lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] == current:
        return current, hit[1]
    rows = [_row(v) for v in session.scalars(select(QuestionVersion).where(QuestionVersion.status == "published"))]
    rows.sort(key=lambda r: (_level_key(r["level"]), _ref_key(r["ref"]), r["id"]))
    # Stored under the fingerprint read before loading: a publish in between only causes one more reload.
    with _lock:
        _cache[key] = (current, rows)
    return current, rows


def clear() -> None:
    with _lock:
        _cache.clear()
        _derived.clear()
