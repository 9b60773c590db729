"""Checking one step of a derivation against the running statement of the chain.

:class:`State` is the running statement (expression mode: a run of equivalent expressions; equation mode:
a running equation). :func:`first_step` checks the first line against the start, :func:`next_step` every
later line, :func:`advance` moves the state on after a line that follows, and :func:`guarded_step` runs
a check under the deadline so running out is an ``undecided`` naming the line. The rules each step
follows are those of :mod:`checkers.kinds.derivation.checker`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ...budget import clock as work_clock
from ...equivalence import BudgetExceeded, check_equivalence, interrupt_at
from ...i18n import empty
from ...verdict import msg
from .equations import equations_equivalent
from .lines import Line


@dataclass
class StepResult:
    status: str               # ok | error | undecided
    feedback: dict[str, str]  # the step's message in every language (checkers.i18n.msg)
    note: str | None = None
    extra: dict = field(default_factory=dict)


def time_left(deadline: float, floor: float = 0.02) -> float:
    return max(floor, deadline - work_clock())


def _expr_step(prev, cur, variables, deadline) -> StepResult:
    res = check_equivalence(prev, cur, variables, time_budget=time_left(deadline))
    if res.outcome == "equal":
        return StepResult("ok", msg("Follows (equivalent expressions)."))
    if res.outcome == "undecided":
        return StepResult("undecided", msg("Could not decide whether this line equals the previous one (%(detail)s).",
                                           detail=res.reason), extra={"reason": res.reason})
    return StepResult("error", msg("This expression is not equal to the previous one."),
                      extra={k: v for k, v in res.details.items() if k in ("point",)})


def tri(res) -> str:
    return {"equal": "yes", "not_equal": "no"}.get(res.outcome, "unknown")


def same_sides(l1, r1, l2, r2, variables, deadline) -> str:
    """Is ``l2 = r2`` the equation ``l1 = r1`` written in the same form (each side equivalent to the
    corresponding side, either way round)? 'yes' | 'no' | 'unknown'."""
    unknown = False
    for a, b in ((l2, r2), (r2, l2)):
        x = tri(check_equivalence(l1, a, variables, time_budget=time_left(deadline)))
        if x == "no":
            continue
        y = tri(check_equivalence(r1, b, variables, time_budget=time_left(deadline)))
        if x == "yes" and y == "yes":
            return "yes"
        if y != "no":
            unknown = True
    return "unknown" if unknown else "no"


class State:
    """The running statement of the chain.

    ``mode == "expr"``: the chain is a run of equivalent expressions; ``expr`` is the newest one and
    ``origin`` the first one of the run (so the chain has shown the identity ``origin = expr``).
    ``mode == "eq"``: ``eq`` is the running (non-identity) equation; a continuation ``= X`` replaces its
    right-hand side. ``eq`` is remembered through a side calculation in expression mode.
    """

    def __init__(self):
        self.mode = "expr"
        self.expr = None
        self.origin = None
        self.eq = None
        self.exprs: list = []   # expressions seen, newest last (stationarity targets)
        # the forms of expr / origin / eq, for "the last line is the goal in form" (None: not known)
        self.fexpr = self.forigin = None
        self.feq: tuple = (None, None)

    def set_expr(self, e, origin=None, form=None):
        if self.mode != "expr" or self.origin is None:
            self.origin = e if origin is None else origin
            self.forigin = form
        self.mode, self.expr, self.fexpr = "expr", e, form
        self.exprs.append(e)

    def set_eq(self, lhs, rhs, forms=(None, None)):
        self.mode, self.eq, self.expr, self.origin = "eq", (lhs, rhs), None, None
        self.feq, self.fexpr, self.forigin = tuple(forms), None, None


def _identity_in_eq_mode() -> StepResult:
    return StepResult(
        "error", msg("This equation holds for every value of the variables, so it does not follow from (and says "
                     "nothing about) the previous equation; write an equivalent form of that equation instead."),
        extra={"identity": True})


def _stationary(line: Line, st: State, variables, deadline) -> StepResult | None:
    """Is the equation ``∂E/∂v = 0`` for an earlier expression ``E`` and a variable ``v``?"""
    for e in reversed(st.exprs[-4:]):
        for v in sorted(e.free_symbols, key=lambda s: s.name):
            if work_clock() > deadline:
                return None
            de = sp.diff(e, v)
            if de == 0:
                continue
            verdict, _ = equations_equivalent(de, sp.Integer(0), line.lhs, line.rhs, variables, deadline)
            if verdict in ("equivalent", "implies"):
                return StepResult("ok", msg("Follows (setting the derivative with respect to %(variable)s to zero).",
                                            variable=str(v)), extra={"stationary_in": v.name})
    return None


def _eq_step(line: Line, st: State, variables, deadline) -> StepResult:
    """An equation line ``A = B``; on success ``extra['expr']`` is set when the chain stays in expression mode."""
    a, b = line.lhs, line.rhs
    now = work_clock()
    ident = tri(check_equivalence(a, b, variables, time_budget=time_left(now + (deadline - now) / 2)))
    if st.mode == "expr" and st.expr is not None:
        if ident == "yes":
            # an identity continues the running expression when one side is that expression
            for side, other in ((a, b), (b, a)):
                if tri(check_equivalence(st.expr, side, variables, time_budget=time_left(deadline))) == "yes":
                    return StepResult("ok", msg("Follows (both sides are equal, continuing the previous expression)."),
                                      extra={"identity": True, "expr": other})
            if work_clock() > deadline:
                return StepResult("undecided", msg("Ran out of time while checking this line."))
            return StepResult("error", msg("Both sides are equal, but neither side is the previous expression: the "
                                           "line does not continue the derivation."), extra={"identity": True})
    elif ident == "yes":
        return _identity_in_eq_mode()
    undecided = ident == "unknown"
    if st.eq is not None:
        verdict, _ = equations_equivalent(st.eq[0], st.eq[1], a, b, variables, deadline)
        if verdict == "equivalent":
            return StepResult("ok", msg("Follows (an equivalent equation)."))
        if verdict == "implies" and ident == "no":  # an implication, never a vacuous identity
            return StepResult("ok", msg("Follows from the previous equation (an implication, not an equivalence)."))
        if verdict in ("unknown", "implies"):
            undecided = True
    res = _stationary(line, st, variables, deadline)
    if res is not None:
        if ident == "no":
            return res
        undecided = True
    if undecided or work_clock() > deadline:
        return StepResult("undecided", msg("Could not decide whether this equation follows."))
    if st.mode == "expr" and st.eq is None:
        return StepResult("error", msg("This equation does not hold for all values, and it is neither an equivalent "
                                       "form of an earlier equation nor a derivative set to zero."))
    return StepResult("error", msg("This equation does not follow from the previous one: a solution of the previous "
                                   "equation does not satisfy it, or it has solutions the previous one does not."))


def sides_form(line: Line) -> tuple:
    """(form of the expression or left side, form of the right side); None where unknown."""
    f = line.form
    if f is None:
        return None, None
    return (f[1], None) if f[0] == "expr" else (f[1], f[2])


def advance(st: State, line: Line, result: StepResult) -> None:
    fl, fr = sides_form(line)
    if line.kind == "expr":
        st.set_expr(line.expr, form=fl)
    elif line.kind == "cont":
        if st.mode == "eq":
            st.eq = (st.eq[0], line.expr)   # a new right-hand side, not an objective to differentiate
            st.feq = (st.feq[0], fl)
        else:
            st.set_expr(line.expr, form=fl)
    elif "expr" in result.extra:          # an identity continuing the running expression
        other = result.extra["expr"]
        st.set_expr(other, form=fr if other is line.rhs else fl)
    else:
        st.set_eq(line.lhs, line.rhs, (fl, fr))


def _out_of_time(index: int) -> StepResult:
    return StepResult("undecided", msg("Ran out of time while checking line %(line)s.", line=index + 1),
                      extra={"timeout": True})


def first_step(l0: Line, start, st: State, variables, deadline) -> StepResult:
    skind, s1, s2 = start
    if skind == "expr":
        st.set_expr(s1)
        if l0.kind == "expr":
            r0 = _expr_step(s1, l0.expr, variables, deadline)
        else:  # "start = something": one side is the start and both sides are equal
            r0 = _eq_step(l0, st, variables, deadline)
            if r0.status == "ok" and "expr" not in r0.extra:
                r0 = StepResult("error", empty())
        if r0.status == "error":
            return StepResult("error", msg("The first line does not match the given starting point."))
        if r0.status == "ok":
            return StepResult("ok", msg("Matches the start."), extra=r0.extra)
        return r0
    if l0.kind != "eq":
        return StepResult("error", msg("Start from the given equation."))
    same = same_sides(s1, s2, l0.lhs, l0.rhs, variables, deadline)
    if same == "yes":
        return StepResult("ok", msg("Matches the starting equation."))
    if same == "unknown":
        return StepResult("undecided", msg("Could not decide whether the first line matches the start."))
    return StepResult("error", msg("The first line is not the given starting equation (write it as given, then "
                                   "transform it on the next lines)."))


def next_step(line: Line, st: State, variables, deadline) -> StepResult:
    if line.kind == "cont":
        prev = st.expr if st.mode == "expr" else st.eq[1]
        return _expr_step(prev, line.expr, variables, deadline)
    if line.kind == "expr":
        if st.mode == "expr":
            return _expr_step(st.expr, line.expr, variables, deadline)
        res = _expr_step(st.eq[1], line.expr, variables, deadline)
        if res.status != "ok":
            alt = _expr_step(st.eq[0], line.expr, variables, deadline)
            res = alt if alt.status == "ok" else res
        return res
    return _eq_step(line, st, variables, deadline)


def guarded_step(fn, line_index: int, deadline: float, *args) -> StepResult:
    if work_clock() > deadline:
        return _out_of_time(line_index)
    try:
        with interrupt_at(deadline):
            res = fn(*args)
    except BudgetExceeded:
        return _out_of_time(line_index)
    if res.status == "undecided" and work_clock() > deadline:
        return _out_of_time(line_index)
    return res
