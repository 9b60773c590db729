"""Signed-in sessions kept on the server (one ``signed_in_sessions`` row each): signing in opens one, whose
id goes into the signed cookie; signing out deletes it, so a copy of that cookie is refused from then on."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..storage.models import LearnerAccount, SignedInSession


def open_session(session: Session, learner_id: str) -> str:
    """A new signed-in session of ``learner_id`` (committed); its id goes into the signed cookie."""
    sid = secrets.token_urlsafe(32)
    session.add(SignedInSession(id=sid, learner_id=learner_id))
    session.commit()
    return sid


def account_of_open_session(session: Session, sid: str, learner_id: str,
                            max_age_s: float | None = None) -> LearnerAccount | None:
    """The account of ``learner_id`` if ``sid`` is one of its signed-in sessions that was not closed and, given
    ``max_age_s``, began at most that many seconds ago (a remembered sign-in's cookie has no expiry the server
    can read); None otherwise. One statement, the session's row joined to its account: it runs at every
    request of a signed-in learner."""
    row = session.execute(select(LearnerAccount, SignedInSession.created_at)
                          .join(SignedInSession, SignedInSession.learner_id == LearnerAccount.learner_id)
                          .where(SignedInSession.id == sid, SignedInSession.learner_id == learner_id)).first()
    if row is None:
        return None
    account, created_at = row
    if max_age_s is None or created_at is None:
        return account
    began = created_at if created_at.tzinfo else created_at.replace(tzinfo=timezone.utc)
    return account if (datetime.now(timezone.utc) - began).total_seconds() <= max_age_s else None


def close_session(session: Session, sid: str | None) -> None:
    """Sign-out: the session's row is deleted (committed), so a copy of its cookie is refused from now on."""
    if sid:
        session.execute(delete(SignedInSession).where(SignedInSession.id == sid))
        session.commit()
