"""Re-grading a stored attempt against the version it answered, to see whether its verdicts still hold."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from ..errors import NotFound
from ..storage.models import Attempt, QuestionVersion
from ..httpkit.jsonio import json_safe
from ..services.attempts import grade_answers

VERDICT_KEYS = ("status", "score", "note", "counted")


def regrade(session: Session, attempt_id: str) -> dict[str, Any]:
    """Grade the attempt's stored answers again against the version it answered (never the latest one);
    nothing is written. ``matches`` says whether every part's status, score, note and counted agree."""
    attempt = session.get(Attempt, attempt_id) if isinstance(attempt_id, str) and len(attempt_id) <= 64 else None
    if attempt is None:
        raise NotFound(f"no attempt {attempt_id!r}", "attempt_id", code="unknown_attempt")
    version = session.get(QuestionVersion, attempt.question_version_id)
    fresh = json_safe(grade_answers(version.data, attempt.variant, attempt.answers))
    stored = attempt.verdicts or {}
    differences = []
    parts: dict[str, dict] = {}
    for pid in sorted(set(fresh) | set(stored)):
        new = {k: (fresh.get(pid) or {}).get(k) for k in VERDICT_KEYS}
        old = {k: (stored.get(pid) or {}).get(k) for k in VERDICT_KEYS}
        parts[pid] = {"regraded": new, "stored": old}
        for k in VERDICT_KEYS:
            a, b = new[k], old[k]
            same = (abs(float(a) - float(b)) <= 1e-9) if k == "score" and a is not None and b is not None else a == b
            if not same:
                differences.append({"part": pid, "key": k, "stored": b, "regraded": a})
    return {"attempt_id": attempt.id, "question_id": attempt.question_id, "version_id": version.id,
            "version": version.number, "variant": attempt.variant, "parts": parts,
            "matches": not differences, "differences": differences}

