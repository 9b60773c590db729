"""Progress of one learner, per level and per tag: questions seen and mastered, accuracy, attempts, time
spent; practice days and streaks.

Definitions (also in docs/learners.md):

* **seen** — questions with at least one attempt; **attempts** counts every attempt stored.
* **accuracy** — points scored / points possible over counted attempts.
* **mastered** — the latest counted attempt on the question scored full marks *and* its review card has
  graduated to FSRS's Review state (answered right again after the learning steps, or rated so).
* **time spent** — an estimate (answers are not timed): the gap from the learner's previous attempt,
  at most :data:`GAP_CAP`, or :data:`FIRST_ATTEMPT` for the first attempt of a sitting.
* **practice day** — a UTC date with at least one attempt; **streak** — consecutive practice days ending
  today or yesterday (``current``) and the longest run (``longest``).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta
from typing import Any

from fsrs import State
from sqlalchemy import select
from sqlalchemy.orm import Session

from ..storage.models import Attempt, QuestionVersion
from ..study import clock
from ..study.clock import aware
from ..study.grades import grade_status
from ..study.review import cards_by_question

GAP_CAP = timedelta(minutes=10)
FIRST_ATTEMPT = timedelta(minutes=2)
CALENDAR_DAYS = 84  # twelve weeks


def _bucket() -> dict[str, Any]:
    return {"seen": set(), "mastered": set(), "attempts": 0, "points": 0.0, "possible": 0.0, "seconds": 0.0}


def _finish(b: dict[str, Any]) -> dict[str, Any]:
    return {"seen": len(b["seen"]), "mastered": len(b["mastered"]), "attempts": b["attempts"],
            "accuracy": round(b["points"] / b["possible"], 4) if b["possible"] else None,
            "time_spent_s": int(round(b["seconds"]))}


def streaks(days: set[date], today: date) -> dict[str, int]:
    longest = run = 0
    prev = None
    for d in sorted(days):
        run = run + 1 if prev is not None and d - prev == timedelta(days=1) else 1
        longest = max(longest, run)
        prev = d
    current = 0
    d = today if today in days else today - timedelta(days=1)
    while d in days:
        current += 1
        d -= timedelta(days=1)
    return {"current": current, "longest": longest}


def progress(session: Session, learner_id: str | None, *, at: datetime | None = None) -> dict[str, Any]:
    at = at or clock.now()
    today = at.date()
    rows = []
    if learner_id:
        rows = session.execute(select(Attempt.question_id, Attempt.question_version_id, Attempt.score,
                                      Attempt.max_score, Attempt.counted, Attempt.created_at)
                               .where(Attempt.learner_id == learner_id).order_by(Attempt.created_at)).all()
    version_ids = {r.question_version_id for r in rows}
    versions = {v.id: (v.level, list(v.data.get("tags") or [])) for v in session.scalars(
        select(QuestionVersion).where(QuestionVersion.id.in_(version_ids)))} if version_ids else {}
    cards = cards_by_question(session, learner_id) if learner_id else {}

    latest: dict[str, tuple] = {}
    for r in rows:
        if r.counted:
            latest[r.question_id] = r
    mastered = {qid for qid, r in latest.items()
                if grade_status(r.score, r.max_score, True) == "correct"
                and qid in cards and cards[qid].state == int(State.Review)}

    total, levels, tags = _bucket(), defaultdict(_bucket), defaultdict(_bucket)
    per_day: dict[date, dict[str, float]] = defaultdict(lambda: {"attempts": 0, "points": 0.0, "possible": 0.0})
    prev_at = None
    for r in rows:
        when = aware(r.created_at)
        gap = when - prev_at if prev_at is not None else None
        spent = (gap if gap is not None and gap <= GAP_CAP else FIRST_ATTEMPT).total_seconds()
        prev_at = when
        level, qtags = versions.get(r.question_version_id, (None, []))
        buckets = [total] + ([levels[level]] if level else []) + [tags[tg] for tg in qtags]
        for b in buckets:
            b["seen"].add(r.question_id)
            if r.question_id in mastered:
                b["mastered"].add(r.question_id)
            b["attempts"] += 1
            b["seconds"] += spent
            if r.counted:
                b["points"] += r.score
                b["possible"] += r.max_score
        day = per_day[when.date()]
        day["attempts"] += 1
        if r.counted:
            day["points"] += r.score
            day["possible"] += r.max_score

    return {
        "totals": _finish(total),
        "levels": {lvl: _finish(levels[lvl]) for lvl in sorted(levels)},
        "tags": {tg: _finish(tags[tg]) for tg in sorted(tags)},
        "streak": streaks(set(per_day), today),
        "days": [{"date": d.isoformat(), "attempts": int(v["attempts"]),
                  "accuracy": round(v["points"] / v["possible"], 4) if v["possible"] else None}
                 for d, v in sorted(per_day.items())],
        "today": today.isoformat(),
    }
