"""Time budget of each mock-interview question, judged on the server's clock.

A question's budget is read from the settings by its level (``MOCK_SECONDS_BY_LEVEL`` in
:mod:`quizapp.config`, overridable in the app config): the level says how long a derivation or a
calculation an interviewer expects. The clock starts when the server first shows the question and stops
when the server receives the answer, so a learner's own clock (or a paused tab) changes nothing; the
countdown on the page is only a display of the remaining seconds the server sent. An answer received
more than ``MOCK_GRACE_SECONDS`` after the budget ran out is still stored as an ordinary attempt, and
the report marks it over time.

Every function takes ``now`` (seconds, from the clock the app config names) instead of reading a clock,
so tests advance time by hand.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, MutableMapping


def budget_seconds(level: str | None, by_level: Mapping[str, int]) -> int:
    """Seconds a question of ``level`` gets; an unknown level gets the most generous budget."""
    if level in by_level:
        return int(by_level[level])
    return int(max(by_level.values()))


def remaining_seconds(item: Mapping[str, Any], now: float) -> int:
    """Whole seconds left on ``item``'s budget at ``now`` (the full budget before it is shown; never below 0)."""
    limit = int(item.get("limit") or 0)
    started = item.get("started")
    if started is None:
        return limit
    return max(0, int(math.ceil(limit - (now - float(started)))))


def close(item: MutableMapping[str, Any], now: float, grace: float) -> None:
    """Record on ``item`` the seconds used (whole, rounded) and whether its answer came over time (a skipped
    question has no answer, so it is never over time)."""
    started = item.get("started")
    used = max(0.0, now - float(started)) if started is not None else 0.0
    item["seconds"] = int(round(used))
    item["over_time"] = (not item.get("skipped") and bool(item.get("limit"))
                         and used > float(item["limit"]) + float(grace))
