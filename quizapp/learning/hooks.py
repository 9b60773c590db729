"""What the learner memory does after an attempt is stored: rate the learner's review card.

Called by the attempt endpoint before the attempt is written, the card then being stored in the attempt's
own transaction (:func:`plan_review`: one commit, so one durable write, per attempt); a failure here is
logged and answered as ``None`` so that it can never lose or fail the attempt itself.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from ..models import Attempt
from ..study import review

log = logging.getLogger(__name__)


def plan_review(session: Session, attempt: Attempt, data: Any,
                history: list[tuple] | None = None, *, new_learner: bool = False) -> review.CardChange | None:
    """Read and rate the card of ``attempt`` (built, not yet stored) before the attempt's write turn; the
    attempt's transaction stores it (:meth:`quizapp.study.review.CardChange.write`). ``history``: the
    learner's timeline of the question read before the attempt (no second read); ``new_learner``: the
    learner was made up for this request, so it has no card to read. A failure is logged and answered as
    None: the attempt is then stored without touching the card."""
    try:
        return review.plan_attempt(session, attempt, data, history=history, new_learner=new_learner)
    except Exception:  # noqa: BLE001 - the attempt is kept; its review card can be rated next time
        log.exception("review card update failed for attempt %s", attempt.id)
        return None
