"""Known mistakes: the author's feedback for a known wrong step or a known wrong answer.

A ``line`` mistake gives its feedback when the learner's first failing line states it (equations: the
same solutions or the same sides; expressions: equivalent, or either side of an equation line); an
``answer`` mistake when the whole answer is incorrect and equals it line by line.
"""

from __future__ import annotations

from ...budget import clock as work_clock
from ...equivalence import check_equivalence
from ...params import substitute
from ...verdict import AnswerParseError, SpecError, Verdict
from .. import _common as c
from .equations import equations_equivalent
from .lines import Line, parse_line, parse_lines
from .steps import same_sides, time_left


def _failing_line(verdict: Verdict, lines: list[Line]) -> int | None:
    """The first line that failed (an error, or a step that could not be decided), or the last line when
    every step followed but the goal was not reached."""
    d = verdict.details or {}
    if d.get("first_error") is not None:
        return d["first_error"]
    if d.get("first_undecided") is not None:
        return d["first_undecided"]
    if verdict.note == "goal_not_reached":
        return lines[-1].index
    return None


def apply_mistakes(verdict: Verdict, lines: list[Line], spec, params, variables, deadline: float) -> Verdict:
    """A known wrong step (``line`` mistakes) gives its feedback when it is the first failing line -- also
    when that step could not be decided (a known wrong step is wrong); a known wrong answer (``answer``)
    when the whole answer is incorrect and equals it line by line."""
    at = _failing_line(verdict, lines)
    by_index = {ln.index: ln for ln in lines}  # Line.index counts blank lines too; positions do not
    for m in spec.get("mistakes") or []:
        try:
            if "line" in m and at is not None and at in by_index:
                target = parse_line(substitute(str(m["line"]), params), 0, spec)
                if _same_statement(target, by_index[at], variables, deadline):
                    # a partial score for the key steps shown before the known wrong step stays
                    verdict.score = verdict.score if verdict.status == "incorrect" else 0.0
                    verdict.status = "incorrect"
                    verdict.feedback, verdict.note = c.mistake_feedback(m, params), m["note"]
                    verdict.details["mistake_line"] = at
                    return verdict
            elif "answer" in m and verdict.status == "incorrect":
                mlines = parse_lines(substitute(list(m["answer"]), params), spec)
                if len(mlines) == len(lines) and all(_same_statement(a, b, variables, deadline)
                                                     for a, b in zip(mlines, lines)):
                    verdict.feedback, verdict.note = c.mistake_feedback(m, params), m["note"]
                    return verdict
        except (AnswerParseError, SpecError):
            continue
    return verdict


def _same_statement(mistake: Line, line: Line, variables, deadline: float) -> bool:
    """Does a learner's line state the known wrong step? Equations: the same solutions; expressions
    (or continuations): equivalent; an expression mistake also matches either side of an equation line."""
    left = lambda: time_left(deadline, 0.01)  # noqa: E731
    if mistake.kind == "eq" and line.kind == "eq":
        v, _ = equations_equivalent(mistake.lhs, mistake.rhs, line.lhs, line.rhs, variables,
                                    work_clock() + left())
        return v == "equivalent" or same_sides(mistake.lhs, mistake.rhs, line.lhs, line.rhs, variables,
                                                deadline) == "yes"
    if mistake.kind != "eq" and line.kind != "eq":
        return check_equivalence(mistake.expr, line.expr, variables, time_budget=left()).equal
    if mistake.kind != "eq":
        return any(check_equivalence(mistake.expr, side, variables, time_budget=left()).equal
                   for side in (line.rhs, line.lhs))
    return False
