"""What the learner memory does after an attempt is stored: rate the learner's review card.

Called by the attempt endpoint once the attempt is committed; a failure here is logged and answered as
``None`` so that it can never lose or fail the attempt itself.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from ..models import Attempt, QuestionVersion
from . import review

log = logging.getLogger(__name__)


def after_attempt(session: Session, attempt_id: str) -> dict[str, Any] | None:
    try:
        attempt = session.get(Attempt, attempt_id)
        version = session.get(QuestionVersion, attempt.question_version_id)
        return review.record_attempt(session, attempt, version.data)
    except Exception:  # noqa: BLE001 - the attempt is stored; its review card can be rated next time
        session.rollback()
        log.exception("review card update failed for attempt %s", attempt_id)
        return None
