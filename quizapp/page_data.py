"""The few service calls the learner pages make (practice, figures, history, mock), in one place (the API
blueprint owns the same services).

Each function is cheap: a list query, one question, the learner's last results; grading and rendering of
answers happen through the JSON API from the browser.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from quizapp.storage.db import get_session
from quizapp.errors import NotFound
from quizapp.learners import current_learner_id
from quizapp.services import attempts, questions


def _session():
    return get_session()


def list_questions(level: str | None = None, tag: str | None = None) -> list[dict[str, Any]]:
    return list(questions.list_questions(_session(), level=level, tag=tag))


def get_question(qid: str) -> dict[str, Any] | None:
    """The question's row dict (``data`` = the question) or ``None`` when there is no such question."""
    try:
        return questions.get_question(_session(), qid)
    except (NotFound, LookupError):
        return None


def learner_id() -> str | None:
    return current_learner_id()


def last_results() -> dict[str, dict[str, Any]]:
    """question id -> {"score", "max_score", ...} for the current learner; empty if none or on error."""
    try:
        lid = learner_id()
        if not lid:
            return {}
        raw = attempts.last_results(_session(), lid)
    except Exception:  # noqa: BLE001 - the home page still lists questions without last results
        current_app.logger.exception("last_results failed")
        return {}
    if isinstance(raw, dict):
        return {str(k): v for k, v in raw.items() if isinstance(v, dict)}
    out: dict[str, dict[str, Any]] = {}
    for row in raw or []:
        if isinstance(row, dict):
            qid = row.get("question_id") or row.get("id")
            if qid is not None:
                out.setdefault(str(qid), row)
    return out
