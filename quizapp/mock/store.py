"""Where a mock interview's state lives: a ``mock_interviews`` row, named by an id in the learner's Flask
session. The state (drawn questions, when each was first shown, attempts, skips) changes only through this
module, and each change is committed at once, so the server's copy is the only one: restoring an older
cookie brings back the id, not the state, and a question answered or a report read stays so.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import session
from sqlalchemy.orm.attributes import flag_modified

from ..storage.db import get_session
from ..learners import current_learner_id, ensure_learner
from ..storage.models import MockInterview

SESSION_KEY = "mock_interview_id"


def load() -> dict[str, Any] | None:
    """The current learner's mock interview named by the session, or None."""
    mid = session.get(SESSION_KEY)
    if not isinstance(mid, str) or len(mid) > 64:
        return None
    row = get_session().get(MockInterview, mid)
    if row is None or row.learner_id != current_learner_id():
        return None
    state = row.state
    return state if isinstance(state, dict) and isinstance(state.get("items"), list) and state["items"] else None


def start(state: dict[str, Any]) -> None:
    """A new interview for the current learner (committed); the session names it from now on."""
    db = get_session()
    learner_id = current_learner_id()
    ensure_learner(db, learner_id)
    mid = secrets.token_urlsafe(24)
    db.add(MockInterview(id=mid, learner_id=learner_id, state=state))
    db.commit()
    session[SESSION_KEY] = mid


def save(state: dict[str, Any]) -> None:
    """Store the changed state of the session's interview (committed)."""
    mid = session.get(SESSION_KEY)
    db = get_session()
    row = db.get(MockInterview, mid) if isinstance(mid, str) else None
    if row is None or row.learner_id != current_learner_id():
        return
    row.state = dict(state)
    flag_modified(row, "state")
    db.commit()
