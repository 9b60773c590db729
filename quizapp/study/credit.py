"""Hint credit: what a part still earns after the learner asked for hints on it.

Each hint shown on a part before the attempt takes :data:`HINT_COST` of that part's points off a
correct answer, never below :data:`CREDIT_FLOOR`::

    credit(n) = max(CREDIT_FLOOR, 1 - HINT_COST * n)      (n = hints shown on the part)
    part score = verdict score * credit(n) * weight

``n`` counts the hints shown on the part on every variant of the question since the learner's last reveal
(:mod:`.policy`), so reading hints on one variant and answering another does not escape the cost.

Only counted parts are affected (an invalid or unchecked part earns nothing anyway). The verdict keeps the
checker's own score as ``raw_score`` and records ``hints_used`` and ``credit``, so that the attempt can be
re-displayed and the review scheduler can tell a hint-assisted full answer (rated Hard) from an unaided one.
"""

from __future__ import annotations

from typing import Any, Mapping

HINT_COST = 0.2
CREDIT_FLOOR = 0.4


def credit(hints_used: int) -> float:
    return max(CREDIT_FLOOR, 1.0 - HINT_COST * max(0, int(hints_used)))


def apply_hint_credit(verdicts: dict[str, dict[str, Any]], hints: Mapping[str, int]) -> None:
    """Scale each counted part's score in place by :func:`credit` of the hints shown on it."""
    for pid, record in verdicts.items():
        used = int(hints.get(pid, 0))
        if not used:
            continue
        record["hints_used"] = used
        if record.get("counted"):
            factor = credit(used)
            record["raw_score"] = float(record.get("score") or 0.0)
            record["credit"] = factor
            record["score"] = round(record["raw_score"] * factor, 10)
