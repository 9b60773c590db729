"""The published questions, read from the database once per change instead of once per request.

``GET /api/v1/questions`` and the home page list every published question; building that list means
loading and JSON-decoding every published version's document. The rows are kept per process and per
database URL, keyed by a fingerprint of the set of published version ids (count, sum, sum of squares,
max: one aggregate over the ``status`` index). Publishing, retiring or adding a version in any process
(another server worker, ``quizapp load-bank``, the authoring API on another host) changes the set, and the
next fingerprint read sees it and reloads: there is no invalidation message to lose.

How often the fingerprint is read: a change committed by this process (any flush of a ``QuestionVersion``
followed by its commit) is seen by this process's next request. A change committed elsewhere is seen within
``PUBLISHED_SET_RECHECK`` seconds (:data:`quizapp.config.DEFAULT_PUBLISHED_SET_RECHECK`; ``0`` reads the
fingerprint on every request), and at once by a request for a question id the kept rows do not know (a
question just published on another worker is never answered 404). Reading the fingerprint on every request
cost a server worker about a fifth of its throughput of submits: the query hands the interpreter to the
other threads and waits to take it back, behind every request of the worker.

The rows (and their ``data``) are shared between requests: callers read them and never mutate them.
Views built from them (the API list's encoded JSON per language and filter, :func:`derived`) are kept under
the same fingerprint, at most ``MAX_DERIVED`` per fingerprint, so a listing costs no query and no encoding
between two checks. The cache is a module dict filled on use: a worker forked from a preloading master
starts with the master's copy, trusted for what is left of its interval.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, Hashable, NamedTuple, TypeVar

from flask import current_app, has_app_context
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session, object_session

from ..config import DEFAULT_PUBLISHED_SET_RECHECK
from ..storage.models import QuestionVersion
from .questions import _level_key, _ref_key, _row


class _Kept(NamedTuple):
    fingerprint: tuple
    rows: list[dict[str, Any]]
    generation: int  # this process's count of its own commits that changed a version, when checked
    checked: float  # clock() when the fingerprint was read


_lock = threading.Lock()
_cache: dict[str, _Kept] = {}
_generation = 0
clock = time.monotonic  # when the fingerprint was last read (a module attribute: tests move it)
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
    """The published row of question ``qid`` (shared: read, never mutated), or None: the kept rows instead of
    loading and decoding the version's document on every request that shows or grades it."""
    row = derived(session, _BY_ID, _index).get(qid)
    if row is None:  # published on another worker since the last check? (else a 404, which costs a check)
        _current(session, str(session.get_bind().url), recheck=True)
        row = derived(session, _BY_ID, _index).get(qid)
    return row


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


def _current(session: Session, key: str, *, recheck: bool = False) -> tuple[tuple, list[dict[str, Any]]]:
    """(fingerprint, rows) of the database at URL ``key``: the kept ones while they are fresh (module
    docstring), else after reading the fingerprint, reloading the rows when it moved (``recheck``: read it
    whatever the age of the kept ones)."""
    interval = _recheck_interval()
    with _lock:
        hit, generation = _cache.get(key), _generation
    if (hit is not None and not recheck and hit.generation == generation
            and 0 <= clock() - hit.checked < interval):
        return hit.fingerprint, hit.rows
    checked = clock()
    current = fingerprint(session)
    if hit is not None and hit.fingerprint == current:
        rows = hit.rows
    else:
        rows = [_row(v) for v in session.scalars(select(QuestionVersion).where(QuestionVersion.status == "published"))]
        rows.sort(key=lambda r: (_level_key(r["level"]), _ref_key(r["ref"]), r["id"]))
    # Kept under the fingerprint and the generation read before loading: a change committed meanwhile (here
    # or elsewhere) makes the next request check again.
    with _lock:
        _cache[key] = _Kept(current, rows, generation, checked)
    return current, rows


def _recheck_interval() -> float:
    """Seconds the kept fingerprint is trusted for changes made by other processes (0 outside an app: a
    command reads it every time)."""
    if not has_app_context():
        return 0.0
    return float(current_app.config.get("PUBLISHED_SET_RECHECK", DEFAULT_PUBLISHED_SET_RECHECK))


def changed_here() -> None:
    """This process committed a change to the published set: every request after it reads the fingerprint."""
    global _generation
    with _lock:
        _generation += 1


_CHANGED = "quizapp.question_versions_changed"


def _mark(_mapper: Any, _connection: Any, version: QuestionVersion) -> None:
    session = object_session(version)
    if session is not None:
        session.info[_CHANGED] = True


def _after_commit(session: Session) -> None:
    if session.info.pop(_CHANGED, False):
        changed_here()  # after the commit: a fingerprint read from now on sees the change


for _event in ("after_insert", "after_update", "after_delete"):
    event.listen(QuestionVersion, _event, _mark)
event.listen(Session, "after_commit", _after_commit)  # a mark left by a rollback costs one more check, no more


def clear() -> None:
    with _lock:
        _cache.clear()
        _derived.clear()
