"""Signed-in sessions kept on the server (one ``signed_in_sessions`` row each): signing in opens one, whose
id goes into the signed cookie; signing out deletes it, so a copy of that cookie is refused from then on."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from sqlalchemy import delete
from sqlalchemy.orm import Session

from ..models import SignedInSession


def open_session(session: Session, learner_id: str) -> str:
    """A new signed-in session of ``learner_id`` (committed); its id goes into the signed cookie."""
    sid = secrets.token_urlsafe(32)
    session.add(SignedInSession(id=sid, learner_id=learner_id))
    session.commit()
    return sid


def session_is_open(session: Session, sid: str, learner_id: str, max_age_s: float | None = None) -> bool:
    """Whether ``sid`` is a signed-in session of ``learner_id`` that was not closed and, given ``max_age_s``,
    began at most that many seconds ago (a remembered sign-in's cookie has no expiry the server can read)."""
    row = session.get(SignedInSession, sid)
    if row is None or row.learner_id != learner_id:
        return False
    if max_age_s is None or row.created_at is None:
        return True
    began = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=timezone.utc)
    return (datetime.now(timezone.utc) - began).total_seconds() <= max_age_s


def close_session(session: Session, sid: str | None) -> None:
    """Sign-out: the session's row is deleted (committed), so a copy of its cookie is refused from now on."""
    if sid:
        session.execute(delete(SignedInSession).where(SignedInSession.id == sid))
        session.commit()
