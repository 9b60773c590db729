"""Grading one derivation within one time budget: parsing, the chain, the key steps, the known mistakes.

This runs inside a sandbox worker (:meth:`DerivationChecker.grade_answer`); :func:`soft_budget` is the
share of the hard limit it gives itself, so running out is a reasoned ``undecided`` naming the step, not
a killed worker.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...budget import clock as work_clock
from ...equivalence import BudgetExceeded, interrupt_at
from ...limits import DERIVATION_BUDGET as TOTAL_BUDGET
from ...limits import MISTAKE_RESERVE
from ...verdict import AnswerParseError, Verdict
from . import keysteps as KS
from . import shown
from .chain import check_chain
from .lines import authored_form, parse_lines, parse_statement
from .mistakes import apply_mistakes


def soft_budget(limit: float) -> float:
    """The budget a derivation gives itself inside a hard limit of ``limit`` seconds: the rest is the
    margin for the sandbox round trip, so that running out is a reasoned ``undecided`` naming the step."""
    return max(0.05, limit - max(0.1, 0.2 * limit))


def grade_lines(raw_lines: Any, spec: Mapping[str, Any], params: Mapping[str, Any],
                budget: float = TOTAL_BUDGET) -> Verdict:
    """Parse and judge a derivation within ``budget`` seconds in all (parsing, steps, goal, mistakes)."""
    deadline = work_clock() + budget
    try:
        lines = parse_lines(raw_lines, spec)
    except AnswerParseError as err:
        return Verdict("invalid", 0.0, dict(err.texts), "parse_error",
                       details={"error": err.to_dict()})
    variables = spec.get("variables") or {}
    start = parse_statement(str(spec["start"]), spec, params)
    goal = parse_statement(str(spec["goal"]), spec, params)
    # forms (what each line says, not its value): the goal must be reached in form, a submission of
    # only the start/goal shows no step, and the key steps are found by form
    start_form, goal_form = (authored_form(str(spec[k]), spec, params) for k in ("start", "goal"))
    forms = KS.line_forms(lines, spec)
    for ln, f in zip(lines, forms):
        ln.form = f
    milestones = KS.key_steps(spec, params)
    # known mistakes are matched after the chain: keep a slice of the budget for them
    reserve = min(MISTAKE_RESERVE, 0.2 * budget) if spec.get("mistakes") else 0.0
    verdict = check_chain(lines, start, goal, variables, deadline=deadline - reserve, forms=(start_form, goal_form))
    verdict.interpreted_as = shown.interpretation(lines, spec)
    verdict = KS.judge(verdict, lines, forms, start_form, goal_form, milestones)
    if spec.get("mistakes") and verdict.status in ("incorrect", "undecided") and verdict.note != "no_steps":
        try:
            with interrupt_at(deadline):
                verdict = apply_mistakes(verdict, lines, spec, params, variables, deadline)
        except BudgetExceeded:
            pass
    return verdict
