"""The verdict on a whole chain of lines: every step follows, and the final statement is the goal.

:func:`check_chain` runs the steps (:mod:`.steps`) in order, stops at the first that does not follow,
and assembles the verdict: ``step_error`` naming the line, ``undecided`` naming the line that could not
be checked, ``goal_form`` (the goal reached in value but not yet written in its form),
``goal_not_reached``, or correct. ``details = {"steps": [{"index", "status", "feedback"}],
"first_error": index | None}``.
"""

from __future__ import annotations

from typing import Any

from ...budget import clock as work_clock
from ...equivalence import BudgetExceeded, check_equivalence, interrupt_at
from ...limits import DERIVATION_BUDGET as TOTAL_BUDGET
from ...verdict import Verdict, msg
from .form import same_statement
from .lines import Line
from .steps import (State, StepResult, advance, first_step, guarded_step, next_step, same_sides, sides_form,
                    time_left, tri)


def _goal_reached(goal, st: State, last: Line, variables, deadline) -> str:
    gkind, g1, g2 = goal
    if gkind == "expr":
        final = st.expr if st.mode == "expr" else st.eq[1]
        return tri(check_equivalence(g1, final, variables, time_budget=time_left(deadline)))
    # an equation goal is reached when the final statement *is* the goal equation (each side equivalent
    # to the goal's side, either way round) -- not merely an equation with the same solutions, since the
    # start is usually one already.
    stmt = st.eq if st.mode == "eq" else (st.origin, st.expr)   # in expression mode: origin = expr
    if stmt is None or stmt[0] is None:
        return "no"
    reached = same_sides(g1, g2, stmt[0], stmt[1], variables, deadline)
    if reached == "no" and st.mode == "expr" and last.kind == "eq":
        reached = same_sides(g1, g2, last.lhs, last.rhs, variables, deadline)  # "Y = X" ending the run
    return reached


def _goal_in_form(goal_form: tuple, st: State, last: Line) -> bool:
    """Is the final statement the goal *in form* (not merely in value)? An expression goal: the final
    expression (or right-hand side); an equation goal: the running equation, or the last line, has the
    goal's sides in form, either way round."""
    if goal_form[0] == "expr":
        final = st.fexpr if st.mode == "expr" else st.feq[1]
        return final is not None and final == goal_form[1]
    stmt = st.feq if st.mode == "eq" else (st.forigin, st.fexpr)
    if None not in stmt and same_statement(("eq", *stmt), goal_form):
        return True
    return last.kind == "eq" and last.form is not None and same_statement(last.form, goal_form)


def check_chain(lines: list[Line], start, goal, variables, budget: float = TOTAL_BUDGET,
                deadline: float | None = None, forms: tuple | None = None) -> Verdict:
    """Judge the chain within ``budget`` seconds (or until ``deadline``); each step gets what is left.

    ``forms``: the (start, goal) statements' forms; with them (and ``Line.form`` set) a chain that
    reaches the goal in value must also end with the goal in form ("not yet in the goal's form")."""
    if deadline is None:
        deadline = work_clock() + budget
    steps: list[dict[str, Any]] = []
    first_error = None
    first_undecided = None
    st = State()

    def add(i, res: StepResult):
        nonlocal first_error, first_undecided
        steps.append({"index": i, "status": res.status, "feedback": dict(res.feedback)})
        if res.status == "error" and first_error is None:
            first_error = i
        if res.status == "undecided" and first_undecided is None:
            first_undecided = i

    r0 = guarded_step(first_step, lines[0].index, deadline, lines[0], start, st, variables, deadline)
    add(lines[0].index, r0)
    if r0.status == "ok":
        if start[0] == "eq":
            st.set_eq(lines[0].lhs, lines[0].rhs, sides_form(lines[0]))
        else:
            advance(st, lines[0], r0)
            # the chain proves "origin = newest": the origin's form is the learner's first line (or,
            # for "start = X", the given start)
            if lines[0].kind == "expr":
                st.forigin = sides_form(lines[0])[0]
            elif forms is not None and forms[0] is not None and forms[0][0] == "expr":
                st.forigin = forms[0][1]
        for line in lines[1:]:
            res = guarded_step(next_step, line.index, deadline, line, st, variables, deadline)
            add(line.index, res)
            if res.status != "ok":
                break  # later lines are not judged against a broken (or unchecked) chain
            advance(st, line, res)

    details: dict[str, Any] = {"steps": steps, "first_error": first_error}
    if first_error is not None:
        bad = steps[-1]
        return Verdict("incorrect", 0.0,
                       msg("Line %(line)s does not follow: %(reason)s", line=first_error + 1, reason=bad["feedback"]),
                       "step_error", None, details)
    if first_undecided is not None:
        return Verdict("undecided", 0.0,
                       msg("Could not check line %(line)s; no attempt was used. (%(reason)s)", line=first_undecided + 1,
                           reason=steps[-1]["feedback"]),
                       "undecided", None, {**details, "first_undecided": first_undecided})
    if work_clock() > deadline:
        reached = "unknown"
    else:
        try:
            with interrupt_at(deadline):
                reached = _goal_reached(goal, st, lines[-1], variables, deadline)
        except BudgetExceeded:
            reached = "unknown"
    if reached == "yes" and forms is not None and forms[1] is not None and not _goal_in_form(forms[1], st, lines[-1]):
        return Verdict("incorrect", 0.0, msg("Every step follows and the last line equals the goal, but it is not yet "
                                             "in the goal's form: finish by writing the goal as given."),
                       "goal_form", None, {**details, "goal_reached": False, "goal_form": False})
    if reached == "yes":
        return Verdict("correct", 1.0, msg("Correct: every step follows and the goal is reached."), None, None,
                       details)
    if reached == "unknown":
        return Verdict("undecided", 0.0, msg("Every step follows, but could not decide whether the last line is "
                                             "the goal; no attempt was used."),
                       "undecided", None, details)
    return Verdict("incorrect", 0.0, msg("Every step follows, but the derivation does not reach the goal."),
                   "goal_not_reached", None,
                   {**details, "goal_reached": False})
