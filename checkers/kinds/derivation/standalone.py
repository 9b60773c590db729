"""The stand-alone derivation check (``POST /api/v1/check/derivation``): a learner's lines from a start to a
goal, graded as a ``derivation`` part built from the call's arguments (no question needed)."""

from __future__ import annotations

from typing import Any, Mapping

from ...verdict import Verdict, msg
from ..base import get_kind
from . import keysteps
from .checker import DerivationChecker


def accept_steps(value: Any, field: str) -> list[str]:
    """The lines in the form the check takes (a list, or one text split into its lines), or raise
    :class:`~checkers.verdict.AnswerShapeError` naming ``field``."""
    return get_kind(DerivationChecker.name).accept(value, field)


def check_derivation(steps: list[str], start: str, goal: str, variables: Mapping[str, Any] | None = None,
                     functions: Mapping[str, Any] | None = None, *, timeout: float | None = None,
                     milestones: list[str] | None = None) -> Verdict:
    """A stand-alone derivation: the last line must be the goal in form and a submission of only the
    start/goal scores 0; ``milestones`` (expressions) are key steps that must appear in order (partial
    credit, the missing ones named). A malformed milestone raises SpecError ``key_steps[i].expr: ...``."""
    spec: dict[str, Any] = {"kind": DerivationChecker.name, "start": start, "goal": goal,
                            "variables": dict(variables or {}), "functions": dict(functions or {})}
    if milestones:
        spec["key_steps"] = [{"expr": m, "feedback": msg("the step %(step)s", step=m)} for m in milestones]
        keysteps.validate(spec)  # parser only (no sympy): bounded, in the calling process
    return get_kind(spec["kind"]).grade_answer(steps, spec, {}, timeout=timeout)


__all__ = ["accept_steps", "check_derivation"]
