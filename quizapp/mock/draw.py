"""Drawing a mock interview and summarising it: pure functions over question rows and results."""

from __future__ import annotations

import secrets
from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from checkers.kinds import find_kind

LENGTHS = (3, 5, 8)
MAX_LENGTH = max(LENGTHS)


def form_answers(part: Mapping[str, Any]) -> bool:
    """Whether a plain form answers ``part`` (its kind's ``plain_form``); the others need the question
    page's editors."""
    kind = find_kind(part.get("kind"))
    return kind is not None and kind.plain_form is not None


def eligible(rows: Iterable[Mapping[str, Any]], levels: Sequence[str], tags: Sequence[str]) -> list[Mapping[str, Any]]:
    """Questions of one of ``levels`` (all when empty) sharing a tag with ``tags`` (all when empty) whose
    parts a form can answer."""
    out = []
    for row in rows:
        if levels and row["level"] not in levels:
            continue
        if tags and not set(tags) & set(row.get("tags") or []):
            continue
        if all(form_answers(p) for p in row["data"].get("parts") or []):
            out.append(row)
    return out


def draw(rows: Sequence[Mapping[str, Any]], length: int, variant_max: int) -> list[dict[str, Any]]:
    """``length`` distinct questions (fewer when fewer match) in random order, each with a random variant."""
    pool = list(rows)
    picked = []
    while pool and len(picked) < length:
        row = pool.pop(secrets.randbelow(len(pool)))
        picked.append({"qid": row["id"], "variant": secrets.randbelow(variant_max), "tags": list(row.get("tags") or []),
                       "started": None, "seconds": None, "limit": None, "over_time": False, "attempt": None,
                       "score": None, "max": None})
    return picked


def report(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Totals and one row per topic (a question counts under each of its tags): questions, score, most
    score, seconds used, and how many answers came after their question's time (``over_time``)."""
    def empty() -> dict[str, float]:
        return {"questions": 0, "score": 0.0, "max": 0.0, "seconds": 0, "over_time": 0}

    topics: dict[str, dict[str, float]] = defaultdict(empty)
    total = empty()
    for item in items:
        rows = [total] + [topics[t] for t in item.get("tags") or []]
        for row in rows:
            row["questions"] += 1
            row["score"] += float(item.get("score") or 0.0)
            row["max"] += float(item.get("max") or 0.0)
            row["seconds"] += int(item.get("seconds") or 0)
            row["over_time"] += 1 if item.get("over_time") else 0
    return {"total": total, "topics": dict(sorted(topics.items()))}
