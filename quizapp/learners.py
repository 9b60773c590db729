"""Anonymous learners: a signed cookie carries a random learner id.

``current_learner_id()`` returns the id of the learner making the request: the one in a valid signed
cookie, else a fresh one, which is sent back as a cookie on the response. No database row is written
here; ``ensure_learner(session, learner_id)`` creates the ``Learner`` row on the learner's first write
(idempotent and safe under concurrency).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g, request
from itsdangerous import BadSignature
from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .storage.group_commit import insert_unless_present
from .learner_cookie import is_learner_id, learner_serializer
from .storage.ids import random_hex_id
from .storage.models import Learner

def current_learner_id() -> str:
    """The learner of this request (from the signed cookie, or a new id set as a cookie on the response)."""
    cached = g.get("_learner_id")
    if cached:
        return cached
    learner_id = None
    raw = request.cookies.get(current_app.config["LEARNER_COOKIE"])
    if raw:
        try:
            value = learner_serializer().loads(raw)
        except BadSignature:
            value = None
        if is_learner_id(value):
            learner_id = value
    if learner_id is None:
        learner_id = random_hex_id()
        g._learner_new = True
    g._learner_id = learner_id
    return learner_id


def learner_is_new() -> bool:
    """Whether this request's learner id was made up for it (no cookie yet): nothing of such a learner is
    stored, so a page can show an empty history without reading it."""
    current_learner_id()
    return bool(g.get("_learner_new"))


_UPSERT = {name: stmt.values(id=bindparam("id"), role="learner")
           for name, stmt in insert_unless_present(Learner.__table__, ["id"]).items()}


def learner_row(session: Session, learner_id: str) -> tuple[Any, dict[str, str]] | None:
    """The statement and parameters that create the learner row unless it exists (``INSERT ... ON CONFLICT
    DO NOTHING``, SQLite and PostgreSQL), for a write that runs it with others
    (:func:`quizapp.storage.group_commit.write_together`); None on other databases (use :func:`ensure_learner`)."""
    stmt = _UPSERT.get(session.get_bind().dialect.name)
    return (stmt, {"id": learner_id}) if stmt is not None else None


def ensure_learner(session: Session, learner_id: str) -> None:
    """Create the learner row if it does not exist yet (inside the caller's transaction). On SQLite and
    PostgreSQL one ``INSERT ... ON CONFLICT DO NOTHING`` with no read before it: it runs in the writer's
    turn of every attempt, where each statement holds up the writers queued behind it."""
    row = learner_row(session, learner_id)
    if row is not None:
        session.connection().execute(*row)  # Core: no ORM entity is wanted here
        return
    if session.get(Learner, learner_id) is not None:
        return
    try:  # other databases: a savepoint absorbs a concurrent insert of the same id
        with session.begin_nested():
            session.add(Learner(id=learner_id, role="learner"))
    except IntegrityError:
        if session.execute(select(Learner.id).where(Learner.id == learner_id)).first() is None:
            raise


def _set_cookie(response):
    if g.get("_learner_new") and g.get("_learner_id"):
        cfg = current_app.config
        response.set_cookie(cfg["LEARNER_COOKIE"], learner_serializer().dumps(g._learner_id),
                            max_age=cfg["LEARNER_COOKIE_MAX_AGE"], httponly=True,
                            samesite=cfg.get("SESSION_COOKIE_SAMESITE") or "Lax",
                            secure=bool(cfg.get("SESSION_COOKIE_SECURE")) or request.is_secure)
    return response


def init_app(app: Flask) -> None:
    app.after_request(_set_cookie)
