"""derivation: reasoning by equivalence over a list of lines (cf. STACK).

Each line is an expression, an equation ``lhs = rhs``, or a continuation ``= expr`` (a leading ``=``
continues the previous line: after an expression ``E`` it asserts ``E = expr``; after an equation
``L = R`` it asserts ``R = expr`` and the running equation becomes ``L = expr``).

The chain is in one of two modes. In **expression mode** it is a run of equivalent expressions (it
has shown ``first = newest``); in **equation mode** it carries a running equation (not an identity).
A line must follow from the running statement:

* **expression after expression / continuation**: the two expressions are equivalent under the
  declared assumptions (the layered checker of :mod:`checkers.equivalence`).
* **continuation in equation mode**: the new right-hand side is equivalent to the old one.
* **equation line** ``L = R`` is accepted when one of these holds:
  1. in expression mode, it is an *identity* under the assumptions (L ≡ R) *that continues the running
     expression* (one side is equivalent to it), e.g. ``f(log(q/p)) = q/p - log(q/p) - 1``; the chain
     stays in expression mode. An identity that does not continue the expression is an error, and in
     equation mode an identity (``0 = 0``, ``x = x``) never follows: it says nothing about the equation;
  2. it is *equivalent to the running equation*: solving that equation numerically for one variable
     at random values of the others (bracketing + bisection over the variable's domain, a bounded
     number of points), every root also satisfies the new equation, and vice versa — e.g. from
     ``pi_star = pi_ref exp(r/beta)/Z`` to ``r = beta log(pi_star/pi_ref) + beta log Z``. If only the
     forward direction holds the step is accepted as an implication (noted in the step's feedback);
  3. it *sets the derivative to zero*: it is equivalent, as an equation, to ``∂E/∂v = 0`` for an
     earlier expression ``E`` and a variable ``v`` (the Gao peak: from ``d(alpha - beta d)`` to
     ``alpha - 2 beta d = 0``).
  Cases 2 and 3 never accept an identity, and switch the chain to equation mode.
* **expression after an equation**: equivalent to its right-hand side (or its left-hand side); a side
  calculation in expression mode (the running equation is remembered).

The first line must match ``start``: an equivalent expression or an identity with the start as one
side; for an equation start, the start equation itself (each side equivalent, either way round).
The final statement must match ``goal``: an expression goal, the final expression (or right-hand
side); an equation goal, the final equation must *be* the goal — equivalent as an equation and each
side equivalent to the goal's side, either way round. Same solutions alone is not enough: the start
equation usually has the goal's solutions already (``alpha - 2 beta d = 0`` vs ``d = alpha/(2 beta)``).

Time: one budget for parsing, the steps, the goal and the known mistakes; each step gets what is left
and is interrupted at the deadline in sandbox workers, so running out is ``undecided`` naming the line.
A known wrong step (a ``line`` mistake) gives its feedback when it is the first failing line.
``details = {"steps": [{"index", "status", "feedback"}], "first_error": index | None}``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import sympy as sp

from ...budget import clock as work_clock
from ...limits import DERIVATION_BUDGET as TOTAL_BUDGET
from ...limits import GRADE_TIMEOUT as DEFAULT_TIMEOUT  # noqa: F401  (the kind's public name for its hard limit)
from ...limits import MAX_GRADED_LINES as MAX_LINES
from ...limits import MISTAKE_RESERVE
from ...equivalence import (BudgetExceeded, check_equivalence, evaluate, interrupt_at, sample_points,
                           symbol_domain)
from ...i18n import empty
from ...mathparse import parse_math
from ...params import substitute, substitute_text
from ...verdict import AnswerParseError, AnswerShapeError, Interpretation, SpecError, Verdict, msg
from .. import _common as c
from .. import shape
from ..base import GRADE_TIMEOUT, Examples, Kind, invalid_verdict, register_kind
from . import keysteps as KS
from . import shown
from .form import same_statement
from .form import statement as statement_form
from ..sandboxed import grade_sandboxed
from ..maths_spec import public_names, spec_parse_check, validate_common, warm_parser

GRID = 160
EQ_POINTS = 4


@dataclass
class Line:
    index: int
    text: str
    kind: str                 # "expr" | "eq" | "cont"
    expr: Any = None          # expr / cont
    lhs: Any = None           # eq
    rhs: Any = None
    parsed: Any = None
    form: Any = None          # its form (:func:`derivation_form.statement`), set by grade_lines


@dataclass
class StepResult:
    status: str               # ok | error | undecided
    feedback: dict[str, str]  # the step's message in every language (checkers.i18n.msg)
    note: str | None = None
    extra: dict = field(default_factory=dict)


# -------------------------------------------------------------------------------------------------
# parsing

def _parse_line(text: str, index: int, spec: Mapping[str, Any]) -> Line:
    variables, functions = spec.get("variables") or {}, spec.get("functions") or {}
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    try:
        if stripped.startswith("=") and not stripped.startswith("=="):
            p = parse_math(stripped[1:], variables, functions)
            return Line(index, text, "cont", expr=p.expr, parsed=p)
        p = parse_math(text, variables, functions, allow_relation=True)
    except AnswerParseError as err:
        col = None if err.column is None else err.column + (offset + 1 if stripped.startswith("=") else 0)
        raise AnswerParseError("Line %(line)s: %(message)s", col, field=f"answer[{index}]", line=index + 1,
                               message=err.texts) from None
    if p.relation:
        rel = p.expr
        if rel is not None and isinstance(rel, sp.core.relational.Relational) and not isinstance(rel, sp.Eq) \
                and rel.rel_op != "==":
            raise AnswerParseError("Line %(line)s: only equations with '=' are allowed in a derivation.",
                                   None, field=f"answer[{index}]", line=index + 1)
        return Line(index, text, "eq", lhs=p.lhs, rhs=p.rhs, parsed=p)
    return Line(index, text, "expr", expr=p.expr, parsed=p)


def parse_lines(raw: Any, spec: Mapping[str, Any]) -> list[Line]:
    if isinstance(raw, str):
        raw = [ln for ln in raw.splitlines() if ln.strip()]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise AnswerParseError("Enter the derivation as one or more lines.", None)
    if len(raw) > MAX_LINES:
        raise AnswerParseError("At most %(limit)s lines.", None, limit=MAX_LINES)
    lines = []
    for i, t in enumerate(raw):
        if not isinstance(t, str):
            raise AnswerParseError("Line %(line)s is not text.", None, field=f"answer[{i}]", line=i + 1)
        if not t.strip():
            continue  # blank lines (spacing between steps, a trailing newline) are not steps; as for text
        lines.append(_parse_line(t, i, spec))  # Line.index stays the learner's own line number
    if not lines:
        raise AnswerParseError("Enter the derivation as one or more lines.", None)
    if lines[0].kind == "cont":
        raise AnswerParseError("The first line cannot start with '='.", 0, field=f"answer[{lines[0].index}]")
    return lines


def _parse_statement(text: str, spec, params) -> tuple[str, Any, Any]:
    """Authored start/goal: ("expr", e, None) or ("eq", lhs, rhs)."""
    p = parse_math(substitute_text(text, params), spec.get("variables") or {}, spec.get("functions") or {},
                      allow_relation=True)
    if p.relation:
        return "eq", p.lhs, p.rhs
    return "expr", p.expr, None


# -------------------------------------------------------------------------------------------------
# equations

def _domain_grid(domain: str) -> list[float]:
    n = GRID
    if domain == "probability":
        return [1 / (1 + math.exp(-(-9 + 18 * i / (n - 1)))) for i in range(n)]
    if domain in ("positive", "nonnegative"):
        return [math.exp(-9 + 18 * i / (n - 1)) for i in range(n)]
    if domain == "negative":
        return [-math.exp(9 - 18 * i / (n - 1)) for i in range(n)]
    if domain in ("posint", "integer"):
        return []
    return [math.sinh(-9 + 18 * i / (n - 1)) for i in range(n)]


def _real(v):
    if v is None:
        return None
    if isinstance(v, complex):
        return v.real if abs(v.imag) <= 1e-12 * max(1.0, abs(v.real)) else None
    return v


def _roots(f, v: sp.Symbol, base: dict, grid: list[float], deadline: float) -> list[float]:
    """Real roots of f(v) on the grid's range: sign changes refined by bisection; poles rejected."""
    roots: list[float] = []
    prev_x = prev_y = None
    for x in grid:
        if work_clock() > deadline:
            break
        y = _real(evaluate(f, {**base, v: x}))
        if y is not None and y == 0:
            roots.append(x)
        elif y is not None and prev_y is not None and prev_y != 0 and (y > 0) != (prev_y > 0):
            lo, hi, ylo = prev_x, x, prev_y
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                ym = _real(evaluate(f, {**base, v: mid}))
                if ym is None:
                    break
                if ym == 0:
                    lo = hi = mid
                    break
                if (ym > 0) == (ylo > 0):
                    lo, ylo = mid, ym
                else:
                    hi = mid
            r = 0.5 * (lo + hi)
            yr = _real(evaluate(f, {**base, v: r}))
            scale = max(abs(prev_y), abs(y), 1.0)
            if yr is not None and abs(yr) <= 1e-6 * scale:  # a real root, not a pole
                roots.append(r)
        prev_x, prev_y = x, y
        if len(roots) > 8:
            break
    return roots


def _residual_small(lhs, rhs, point) -> bool | None:
    a, b = evaluate(lhs, point), evaluate(rhs, point)
    if a is None or b is None:
        return None
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


def implies(l1, r1, l2, r2, variables, deadline: float, seed: int = 0) -> tuple[str, int]:
    """Does equation 1 imply equation 2? ('yes' | 'no' | 'unknown', number of roots checked)."""
    f1 = l1 - r1
    syms = sorted((f1.free_symbols | l2.free_symbols | r2.free_symbols), key=lambda s: s.name)
    solve_for = [s for s in syms if s in f1.free_symbols and symbol_domain(s, variables) not in ("posint", "integer")]
    # prefer a variable that appears in both equations (it is the one being solved for)
    both = l2.free_symbols | r2.free_symbols
    solve_for.sort(key=lambda s: (s not in both, s.name))
    checked = 0
    for v in solve_for[:3]:
        grid = _domain_grid(symbol_domain(v, variables))
        others = [s for s in syms if s != v]
        pts = sample_points(others, variables, seed + 11, EQ_POINTS * 3)
        for base in pts:
            if checked >= EQ_POINTS * 2 or work_clock() > deadline:
                break
            for root in _roots(f1, v, base, grid, deadline):
                ok = _residual_small(l2, r2, {**base, v: root})
                if ok is None:
                    continue
                checked += 1
                if not ok:
                    return "no", checked
        if checked >= EQ_POINTS:
            return "yes", checked
    return ("yes" if checked >= 2 else "unknown"), checked


def _identity(l, r, variables, budget) -> str:
    res = check_equivalence(l, r, variables, time_budget=budget)
    return {"equal": "yes", "not_equal": "no"}.get(res.outcome, "unknown")


def equations_equivalent(l1, r1, l2, r2, variables, deadline) -> tuple[str, str]:
    """('equivalent' | 'implies' | 'no' | 'unknown', reason)."""
    fwd, n1 = implies(l1, r1, l2, r2, variables, deadline)
    if fwd == "no":
        return "no", "a solution of the previous equation does not satisfy this one"
    back, n2 = implies(l2, r2, l1, r1, variables, deadline)
    if fwd == "yes" and back == "yes":
        return "equivalent", "same solutions"
    if fwd == "yes":
        return "implies", "follows from the previous equation (not conversely)"
    if back == "yes":
        # no root found forward; the converse holds: accept only as unknown
        return "unknown", "could not solve the previous equation at enough points"
    if back == "no":
        return "no", "this equation has solutions the previous one does not"
    return "unknown", "could not solve either equation at enough points"


# -------------------------------------------------------------------------------------------------
# the chain

def _left(deadline: float, floor: float = 0.02) -> float:
    return max(floor, deadline - work_clock())


def _expr_step(prev, cur, variables, deadline) -> StepResult:
    res = check_equivalence(prev, cur, variables, time_budget=_left(deadline))
    if res.outcome == "equal":
        return StepResult("ok", msg("Follows (equivalent expressions)."))
    if res.outcome == "undecided":
        return StepResult("undecided", msg("Could not decide whether this line equals the previous one (%(detail)s).",
                                           detail=res.reason), extra={"reason": res.reason})
    return StepResult("error", msg("This expression is not equal to the previous one."),
                      extra={k: v for k, v in res.details.items() if k in ("point",)})


def _tri(res) -> str:
    return {"equal": "yes", "not_equal": "no"}.get(res.outcome, "unknown")


def _same_sides(l1, r1, l2, r2, variables, deadline) -> str:
    """Is ``l2 = r2`` the equation ``l1 = r1`` written in the same form (each side equivalent to the
    corresponding side, either way round)? 'yes' | 'no' | 'unknown'."""
    unknown = False
    for a, b in ((l2, r2), (r2, l2)):
        x = _tri(check_equivalence(l1, a, variables, time_budget=_left(deadline)))
        if x == "no":
            continue
        y = _tri(check_equivalence(r1, b, variables, time_budget=_left(deadline)))
        if x == "yes" and y == "yes":
            return "yes"
        if y != "no":
            unknown = True
    return "unknown" if unknown else "no"


class _State:
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


def _stationary(line: Line, st: _State, variables, deadline) -> StepResult | None:
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


def _eq_step(line: Line, st: _State, variables, deadline) -> StepResult:
    """An equation line ``A = B``; on success ``extra['expr']`` is set when the chain stays in expression mode."""
    a, b = line.lhs, line.rhs
    now = work_clock()
    ident = _tri(check_equivalence(a, b, variables, time_budget=_left(now + (deadline - now) / 2)))
    if st.mode == "expr" and st.expr is not None:
        if ident == "yes":
            # an identity continues the running expression when one side is that expression
            for side, other in ((a, b), (b, a)):
                if _tri(check_equivalence(st.expr, side, variables, time_budget=_left(deadline))) == "yes":
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


def _sides_form(line: Line) -> tuple:
    """(form of the expression or left side, form of the right side); None where unknown."""
    f = line.form
    if f is None:
        return None, None
    return (f[1], None) if f[0] == "expr" else (f[1], f[2])


def _advance(st: _State, line: Line, result: StepResult) -> None:
    fl, fr = _sides_form(line)
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


def _first_step(l0: Line, start, st: _State, variables, deadline) -> StepResult:
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
    same = _same_sides(s1, s2, l0.lhs, l0.rhs, variables, deadline)
    if same == "yes":
        return StepResult("ok", msg("Matches the starting equation."))
    if same == "unknown":
        return StepResult("undecided", msg("Could not decide whether the first line matches the start."))
    return StepResult("error", msg("The first line is not the given starting equation (write it as given, then "
                                   "transform it on the next lines)."))


def _step(line: Line, st: _State, variables, deadline) -> StepResult:
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


def _guarded_step(fn, line_index: int, deadline: float, *args) -> StepResult:
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


def _goal_reached(goal, st: _State, last: Line, variables, deadline) -> str:
    gkind, g1, g2 = goal
    if gkind == "expr":
        final = st.expr if st.mode == "expr" else st.eq[1]
        return _tri(check_equivalence(g1, final, variables, time_budget=_left(deadline)))
    # an equation goal is reached when the final statement *is* the goal equation (each side equivalent
    # to the goal's side, either way round) -- not merely an equation with the same solutions, since the
    # start is usually one already.
    stmt = st.eq if st.mode == "eq" else (st.origin, st.expr)   # in expression mode: origin = expr
    if stmt is None or stmt[0] is None:
        return "no"
    reached = _same_sides(g1, g2, stmt[0], stmt[1], variables, deadline)
    if reached == "no" and st.mode == "expr" and last.kind == "eq":
        reached = _same_sides(g1, g2, last.lhs, last.rhs, variables, deadline)  # "Y = X" ending the run
    return reached


def _goal_in_form(goal_form: tuple, st: _State, last: Line) -> bool:
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
    st = _State()

    def add(i, res: StepResult):
        nonlocal first_error, first_undecided
        steps.append({"index": i, "status": res.status, "feedback": dict(res.feedback)})
        if res.status == "error" and first_error is None:
            first_error = i
        if res.status == "undecided" and first_undecided is None:
            first_undecided = i

    r0 = _guarded_step(_first_step, lines[0].index, deadline, lines[0], start, st, variables, deadline)
    add(lines[0].index, r0)
    if r0.status == "ok":
        if start[0] == "eq":
            st.set_eq(lines[0].lhs, lines[0].rhs, _sides_form(lines[0]))
        else:
            _advance(st, lines[0], r0)
            # the chain proves "origin = newest": the origin's form is the learner's first line (or,
            # for "start = X", the given start)
            if lines[0].kind == "expr":
                st.forigin = _sides_form(lines[0])[0]
            elif forms is not None and forms[0] is not None and forms[0][0] == "expr":
                st.forigin = forms[0][1]
        for line in lines[1:]:
            res = _guarded_step(_step, line.index, deadline, line, st, variables, deadline)
            add(line.index, res)
            if res.status != "ok":
                break  # later lines are not judged against a broken (or unchecked) chain
            _advance(st, line, res)

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
    start = _parse_statement(str(spec["start"]), spec, params)
    goal = _parse_statement(str(spec["goal"]), spec, params)
    # forms (what each line says, not its value): the goal must be reached in form, a submission of
    # only the start/goal shows no step, and the key steps are found by form
    start_form, goal_form = (_statement_form(str(spec[k]), spec, params) for k in ("start", "goal"))
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
                verdict = _apply_mistakes(verdict, lines, spec, params, variables, deadline)
        except BudgetExceeded:
            pass
    return verdict


def _statement_form(text: str, spec, params) -> tuple | None:
    try:
        return statement_form(substitute_text(text, params), spec)
    except (AnswerParseError, ValueError):
        return None


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


def _apply_mistakes(verdict: Verdict, lines: list[Line], spec, params, variables, deadline: float) -> Verdict:
    """A known wrong step (``line`` mistakes) gives its feedback when it is the first failing line -- also
    when that step could not be decided (a known wrong step is wrong); a known wrong answer (``answer``)
    when the whole answer is incorrect and equals it line by line."""
    at = _failing_line(verdict, lines)
    by_index = {ln.index: ln for ln in lines}  # Line.index counts blank lines too; positions do not
    for m in spec.get("mistakes") or []:
        try:
            if "line" in m and at is not None and at in by_index:
                target = _parse_line(substitute(str(m["line"]), params), 0, spec)
                if _same_statement(target, by_index[at], variables, deadline):
                    # a partial score for the key steps shown before the known wrong step stays
                    verdict.score = verdict.score if verdict.status == "incorrect" else 0.0
                    verdict.status = "incorrect"
                    verdict.feedback, verdict.note = c.mistake_feedback(m), m["note"]
                    verdict.details["mistake_line"] = at
                    return verdict
            elif "answer" in m and verdict.status == "incorrect":
                mlines = parse_lines(substitute(list(m["answer"]), params), spec)
                if len(mlines) == len(lines) and all(_same_statement(a, b, variables, deadline)
                                                     for a, b in zip(mlines, lines)):
                    verdict.feedback, verdict.note = c.mistake_feedback(m), m["note"]
                    return verdict
        except (AnswerParseError, SpecError):
            continue
    return verdict


def _same_statement(mistake: Line, line: Line, variables, deadline: float) -> bool:
    """Does a learner's line state the known wrong step? Equations: the same solutions; expressions
    (or continuations): equivalent; an expression mistake also matches either side of an equation line."""
    left = lambda: _left(deadline, 0.01)  # noqa: E731
    if mistake.kind == "eq" and line.kind == "eq":
        v, _ = equations_equivalent(mistake.lhs, mistake.rhs, line.lhs, line.rhs, variables,
                                    work_clock() + left())
        return v == "equivalent" or _same_sides(mistake.lhs, mistake.rhs, line.lhs, line.rhs, variables,
                                                deadline) == "yes"
    if mistake.kind != "eq" and line.kind != "eq":
        return check_equivalence(mistake.expr, line.expr, variables, time_budget=left()).equal
    if mistake.kind != "eq":
        return any(check_equivalence(mistake.expr, side, variables, time_budget=left()).equal
                   for side in (line.rhs, line.lhs))
    return False


def _refuse(raw: Any) -> Verdict | None:
    """Refuse, in the calling process, answers that are not text or a list of text lines."""
    if isinstance(raw, str):
        return None
    if not isinstance(raw, (list, tuple)) or not raw:
        return invalid_verdict(AnswerParseError("Enter the derivation as one or more lines.", None))
    if len(raw) > MAX_LINES:
        return invalid_verdict(AnswerParseError("At most %(limit)s lines.", None, limit=MAX_LINES))
    for i, line in enumerate(raw):
        if not isinstance(line, str):
            return invalid_verdict(AnswerParseError("Line %(line)s is not text.", None, field=f"answer[{i}]",
                                                    line=i + 1))
    return None


class DerivationChecker(Kind):
    name = "derivation"
    spec_keys = frozenset({"variables", "functions", "start", "goal", "reference", "key_steps"})
    assets = ("kind.js",)

    def warm(self) -> None:
        warm_parser()

    def accept(self, value: Any, field: str) -> Any:
        """A list of lines, or one text that is split into its non-blank lines."""
        if isinstance(value, str):
            value = [line for line in shape.text(value, field, shape.MAX_LONG_TEXT).splitlines() if line.strip()]
        if not isinstance(value, list):
            raise AnswerShapeError(f"must be a list of strings (one per line), got {shape.type_name(value)}",
                                   field)
        if len(value) > shape.MAX_LINES:
            raise AnswerShapeError(f"more than {shape.MAX_LINES} lines", field)
        return [shape.text(v, f"{field}[{i}]") for i, v in enumerate(value)]

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        out = public_names(part)
        out["start"] = fill(part.get("start"))
        out["goal"] = fill(part.get("goal"))
        return out

    def grade_answer(self, raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any], *,
                     timeout: float | None = None) -> Verdict:
        """Parse *and* grade inside the sandbox pool under a hard wall-clock limit; the steps share one
        soft budget (each gets what is left) and running out names the step reached."""
        refused = _refuse(raw)
        if refused is not None:
            return refused
        # exact str / list objects: nothing of the caller's types travels to the worker
        raw = str.__str__(raw) if isinstance(raw, str) else [str.__str__(line) for line in raw]
        limit = timeout or GRADE_TIMEOUT
        return grade_sandboxed(grade_lines, raw, spec, params, soft_budget(limit), limit)

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        validate_common(spec)
        for key in ("start", "goal"):
            spec_parse_check(spec.get(key), spec, key, allow_relation=True)
        ref = spec.get("reference")
        if ref is not None and (not isinstance(ref, list) or not all(isinstance(x, str) for x in ref)):
            raise SpecError("reference: must be a list of lines")
        c.validate_mistakes(spec, ("answer", "line"))
        KS.validate(spec)

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> list[Line]:
        return parse_lines(raw, spec)

    def interpret(self, parsed: list[Line], spec: Mapping[str, Any]) -> Interpretation:
        return shown.interpretation(parsed, spec)

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        return {"start": substitute(str(spec["start"]), params), "goal": substitute(str(spec["goal"]), params),
                "reference": substitute(list(spec.get("reference") or []), params)}

    def grade(self, parsed: list[Line], spec: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None) -> Verdict:
        """Parsed lines are graded by their text, on the sandboxed path like any other answer."""
        return self.grade_answer([ln.text for ln in parsed], spec, params, timeout=timeout)

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        ex = Examples()
        if spec.get("reference"):
            ex.correct.append(substitute(list(spec["reference"]), params))
        start = substitute(str(spec["start"]), params)
        goal = substitute(str(spec["goal"]), params)
        # no step of its own: the start, the goal, or the start then the goal score 0
        ex.incorrect += [([start], None), ([goal], None), ([start, goal], None)]
        ex.incorrect.append(([start, "= 0"], None))
        ex.incorrect.append(([start, "0 = 0"], None))   # a vacuous identity never follows
        for m in spec.get("mistakes") or []:
            if "answer" in m:
                ex.incorrect.append((substitute(list(m["answer"]), params), m["note"]))
            elif "line" in m:  # the known wrong step right after the start: the first failing step
                ex.incorrect.append(([start, substitute(str(m["line"]), params)], m["note"]))
        ex.invalid += [[], ["("], ["= 1"]]
        return ex


register_kind(DerivationChecker())
