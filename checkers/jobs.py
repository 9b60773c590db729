"""Grading jobs as a queue worker on a grading host runs them: plain JSON in, plain JSON out.

A web host configured with ``GRADING_BACKEND=rq`` (``quizapp.grading_backends``) enqueues
``checkers.jobs.grade`` or ``checkers.jobs.check`` by name on a Redis queue; ``rq worker`` on a grading
host imports this module and runs the job. It imports only ``checkers`` (no Flask, no ``quizapp``), so a
grading host needs the grading engine and the code sandbox but no web app and no database.

Both jobs take and return JSON values only (the queue uses RQ's JSON serializer, never pickle, so nothing
read from Redis is executed). The reply is ``{"verdict": {...}}`` — :class:`~checkers.verdict.Verdict` as a
dict, ``None`` where the kind has no practice check — or ``{"raised": {"type", "base", "message"}}`` when grading
raised one of :data:`REPORTED` (``base`` names which; e.g. an exercise the engine cannot build cases for), so
the web host answers as it would in-process.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import Any, Mapping

from . import grading
from .kinds.base import get_kind
from .verdict import Interpretation, Verdict

#: Exceptions a job reports back by name instead of failing: what grading raises for an exercise it cannot
#: run (the web host maps them to the same 4xx as in-process grading); anything else fails the job.
REPORTED = (RuntimeError, ValueError, TypeError, IndexError)


def plain(obj: Any) -> Any:
    """``obj`` as JSON values: dataclasses -> dicts, tuples -> lists, number types -> int/float, rest -> str."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = dataclasses.asdict(obj)
    if isinstance(obj, Mapping):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [plain(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        return float(obj)
    if hasattr(obj, "tolist"):
        return plain(obj.tolist())
    return str(obj)


def verdict_from(data: Mapping[str, Any]) -> Verdict:
    """The :class:`Verdict` a job's ``verdict`` dict describes (the inverse of :func:`plain` on a verdict)."""
    interp = data.get("interpreted_as")
    return Verdict(status=data["status"], score=float(data.get("score") or 0.0), feedback=data.get("feedback") or {},
                   note=data.get("note"), interpreted_as=Interpretation(**interp) if interp else None,
                   details=dict(data.get("details") or {}))


def _reply(run) -> dict[str, Any]:
    try:
        verdict = run()
    except REPORTED as exc:
        base = next(b for b in REPORTED if isinstance(exc, b))
        return {"raised": {"type": type(exc).__name__, "base": base.__name__, "message": str(exc)[:500]}}
    return {"verdict": None if verdict is None else plain(verdict)}


def grade(raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], timeout: float | None = None) -> dict:
    """:func:`checkers.grading.grade` of one answer to one part (the hidden cases of a code part)."""
    return _reply(lambda: grading.grade(raw, part, params, timeout=timeout))


def check(raw: Any, part: Mapping[str, Any], params: Mapping[str, Any]) -> dict:
    """The part's kind's practice check (a code part: its visible cases); ``None`` where it has none."""
    return _reply(lambda: get_kind(part["kind"]).check(raw, part, params))
