"""derivation: reasoning by equivalence over a list of lines (cf. STACK).

Each line is an expression, an equation ``lhs = rhs``, or a continuation ``= expr`` (a leading ``=``
continues the previous line: after an expression ``E`` it asserts ``E = expr``; after an equation
``L = R`` it asserts ``R = expr`` and the running equation becomes ``L = expr``).

Semantics of a step (line ``i`` must follow from what came before):

* **expression after expression / continuation**: the two expressions are equivalent under the
  declared assumptions (the layered checker of :mod:`checkers.equivalence`).
* **equation line** ``L = R`` is accepted when one of these holds:
  1. it is an *identity* under the assumptions (L ≡ R), e.g. ``f(log(q/p)) = q/p - log(q/p) - 1``;
  2. it is *equivalent to the previous equation*: solving the previous equation numerically for one
     variable at random values of the others (bracketing + bisection over the variable's domain, a
     bounded number of points), every root also satisfies the new equation, and vice versa — e.g. from
     ``pi_star = pi_ref exp(r/beta)/Z`` to ``r = beta log(pi_star/pi_ref) + beta log Z``. If only the
     forward direction holds the step is accepted as an implication (noted in the step's feedback);
  3. it *sets the derivative to zero*: it is equivalent, as an equation, to ``∂E/∂v = 0`` for an
     earlier expression ``E`` and a variable ``v`` (the Gao peak: from ``d(alpha - beta d)`` to
     ``alpha - 2 beta d = 0``).
* **expression after an equation**: equivalent to its right-hand side (or its left-hand side).

The first line must match ``start`` (an equivalent expression, or an equation equivalent to the start
equation, or an identity whose left side is the start); the final statement must match ``goal``.
``details = {"steps": [{"index", "status", "feedback"}], "first_error": index | None}``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import sympy as sp

from ..equivalence import check_equivalence, evaluate, sample_points, symbol_domain
from ..verdict import AnswerParseError, Interpretation, SpecError, Verdict, msg
from . import _common as c
from .base import Examples, register_checker
from .symbolic import _parser, _spec_parse_check, run_guarded, validate_common

DEFAULT_TIMEOUT = 3.0
TOTAL_BUDGET = 2.0     # soft budget for all steps together (the hard limit is the sandbox's)
STEP_BUDGET = 0.4
MAX_LINES = 60
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


@dataclass
class StepResult:
    status: str               # ok | error | undecided
    en: str
    zh: str
    note: str | None = None
    extra: dict = field(default_factory=dict)


# -------------------------------------------------------------------------------------------------
# parsing

def _parse_line(text: str, index: int, spec: Mapping[str, Any]) -> Line:
    mp = _parser()
    variables, functions = spec.get("variables") or {}, spec.get("functions") or {}
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    try:
        if stripped.startswith("=") and not stripped.startswith("=="):
            p = mp.parse_math(stripped[1:], variables, functions)
            return Line(index, text, "cont", expr=p.expr, parsed=p)
        p = mp.parse_math(text, variables, functions, allow_relation=True)
    except AnswerParseError as err:
        col = None if err.column is None else err.column + (offset + 1 if stripped.startswith("=") else 0)
        raise AnswerParseError(f"Line {index + 1}: {err.message}", col, zh=f"第 {index + 1} 行：{err.message_zh}",
                               field=f"answer[{index}]") from None
    if p.relation:
        rel = p.expr
        if rel is not None and isinstance(rel, sp.core.relational.Relational) and not isinstance(rel, sp.Eq) \
                and rel.rel_op != "==":
            raise AnswerParseError(f"Line {index + 1}: only equations with '=' are allowed in a derivation.",
                                   None, zh=f"第 {index + 1} 行：推导中只允许使用“=”的等式。", field=f"answer[{index}]")
        return Line(index, text, "eq", lhs=p.lhs, rhs=p.rhs, parsed=p)
    return Line(index, text, "expr", expr=p.expr, parsed=p)


def parse_lines(raw: Any, spec: Mapping[str, Any]) -> list[Line]:
    if isinstance(raw, str):
        raw = [ln for ln in raw.splitlines() if ln.strip()]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise AnswerParseError("Enter the derivation as one or more lines.", None, zh="请逐行输入推导过程。")
    if len(raw) > MAX_LINES:
        raise AnswerParseError(f"At most {MAX_LINES} lines.", None, zh=f"最多 {MAX_LINES} 行。")
    lines = []
    for i, t in enumerate(raw):
        if not isinstance(t, str) or not t.strip():
            raise AnswerParseError(f"Line {i + 1} is empty.", None, zh=f"第 {i + 1} 行为空。", field=f"answer[{i}]")
        lines.append(_parse_line(t, i, spec))
    if lines[0].kind == "cont":
        raise AnswerParseError("The first line cannot start with '='.", 0, zh="第一行不能以“=”开头。", field="answer[0]")
    return lines


def _parse_statement(text: str, spec, params) -> tuple[str, Any, Any]:
    """Authored start/goal: ("expr", e, None) or ("eq", lhs, rhs)."""
    from ..params import substitute_text
    mp = _parser()
    p = mp.parse_math(substitute_text(text, params), spec.get("variables") or {}, spec.get("functions") or {},
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
        if time.monotonic() > deadline:
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
            if checked >= EQ_POINTS * 2 or time.monotonic() > deadline:
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

def _expr_step(prev, cur, variables, budget) -> StepResult:
    res = check_equivalence(prev, cur, variables, time_budget=budget)
    if res.outcome == "equal":
        return StepResult("ok", "Follows (equivalent expressions).", "成立（表达式等价）。")
    if res.outcome == "undecided":
        return StepResult("undecided", f"Could not decide whether this line equals the previous one ({res.reason}).",
                          "无法判定这一行是否与上一行相等。", extra={"reason": res.reason})
    return StepResult("error", "This expression is not equal to the previous one.", "这个表达式与上一行不相等。",
                      extra={k: v for k, v in res.details.items() if k in ("point",)})


class _State:
    def __init__(self):
        self.expr = None        # the running expression (for continuations and expression lines)
        self.eq = None          # (lhs, rhs) of the running non-identity equation
        self.exprs: list = []   # expressions seen, newest last (stationarity targets)


def _eq_step(line: Line, st: _State, variables, deadline) -> StepResult:
    l, r = line.lhs, line.rhs
    budget = min(STEP_BUDGET, max(0.05, deadline - time.monotonic()))
    step_deadline = time.monotonic() + budget
    undecided = []
    # 1. identity (also: "previous expression = its simplification")
    ident = _identity(l, r, variables, budget / 2)
    if ident == "yes":
        return StepResult("ok", "Follows (both sides are equal).", "成立（两边相等）。", extra={"identity": True})
    if ident == "unknown":
        undecided.append("identity")
    # 2. equivalent to the running equation
    if st.eq is not None:
        verdict, why = equations_equivalent(st.eq[0], st.eq[1], l, r, variables, step_deadline)
        if verdict == "equivalent":
            return StepResult("ok", "Follows (an equivalent equation).", "成立（等价的方程）。")
        if verdict == "implies":
            return StepResult("ok", "Follows from the previous equation (an implication, not an equivalence).",
                              "可由上一方程推出（蕴含，而非等价）。")
        if verdict == "unknown":
            undecided.append("equation")
    # 3. stationarity: the equation is dE/dv = 0 for an earlier expression E
    for e in reversed(st.exprs[-4:]):
        for v in sorted(e.free_symbols, key=lambda s: s.name):
            if time.monotonic() > step_deadline:
                break
            de = sp.diff(e, v)
            if de == 0:
                continue
            verdict, _ = equations_equivalent(de, sp.Integer(0), l, r, variables, step_deadline)
            if verdict in ("equivalent", "implies"):
                return StepResult("ok", f"Follows (setting the derivative with respect to {v} to zero).",
                                  f"成立（令对 {v} 的导数为零）。", extra={"stationary_in": v.name})
    if undecided:
        return StepResult("undecided", "Could not decide whether this equation follows.",
                          "无法判定这个方程是否成立。")
    if st.eq is None:
        return StepResult("error", "This equation does not hold, and it is not an equivalent rewriting of an "
                                   "earlier line.", "这个等式不成立，也不是前面某行的等价变形。")
    return StepResult("error", "This equation does not follow from the previous one: a solution of the previous "
                               "equation does not satisfy it.",
                      "这个方程不能由上一方程推出：上一方程的解不满足它。")


def _advance(st: _State, line: Line, result: StepResult | None) -> None:
    if line.kind == "expr":
        st.expr = line.expr
        st.exprs.append(line.expr)
    elif line.kind == "cont":
        if st.eq is not None and st.expr is None:
            st.eq = (st.eq[0], line.expr)
        st.expr = line.expr
        st.exprs.append(line.expr)
    else:
        identity = bool(result and result.extra.get("identity"))
        if not identity:
            st.eq = (line.lhs, line.rhs)
            st.expr = None
        else:
            st.expr = line.rhs
            st.exprs.append(line.rhs)


def check_chain(lines: list[Line], start, goal, variables, budget: float = TOTAL_BUDGET) -> Verdict:
    deadline = time.monotonic() + budget
    steps: list[dict[str, Any]] = []
    first_error = None
    first_undecided = None
    st = _State()

    def add(i, res: StepResult):
        nonlocal first_error, first_undecided
        steps.append({"index": i, "status": res.status, "feedback": msg(res.en, res.zh)})
        if res.status == "error" and first_error is None:
            first_error = i
        if res.status == "undecided" and first_undecided is None:
            first_undecided = i

    # line 0 against start
    l0 = lines[0]
    skind, s1, s2 = start
    if skind == "expr":
        if l0.kind == "expr":
            r0 = _expr_step(s1, l0.expr, variables, STEP_BUDGET)
        else:  # "start = something": the left side must be the start and the equation must hold
            r0 = _expr_step(s1, l0.lhs, variables, STEP_BUDGET)
            if r0.status == "ok":
                r0 = _eq_step(l0, st, variables, deadline)
        if r0.status == "error":
            r0 = StepResult("error", "The first line does not match the given starting point.",
                            "第一行与给定的起点不一致。")
    else:
        if l0.kind != "eq":
            r0 = StepResult("error", "Start from the given equation.", "请从给定的方程开始。")
        else:
            verdict, _ = equations_equivalent(s1, s2, l0.lhs, l0.rhs, variables,
                                              time.monotonic() + STEP_BUDGET)
            if verdict == "equivalent":
                r0 = StepResult("ok", "Matches the starting equation.", "与起始方程一致。")
            elif verdict == "unknown":
                r0 = StepResult("undecided", "Could not decide whether the first line matches the start.",
                                "无法判定第一行是否与起点一致。")
            else:
                r0 = StepResult("error", "The first line is not the given starting equation.",
                                "第一行不是给定的起始方程。")
    if r0.status == "ok" and r0.en.startswith("Follows"):
        r0 = StepResult("ok", "Matches the start.", "与起点一致。", extra=r0.extra)
    add(0, r0)
    if skind == "eq" and l0.kind == "eq":
        st.eq = (l0.lhs, l0.rhs)
    else:
        _advance(st, l0, r0)

    for line in lines[1:]:
        if first_error is not None:
            break  # later lines are not judged against a broken chain
        if time.monotonic() > deadline:
            add(line.index, StepResult("undecided", "Ran out of time before checking this line.",
                                       "检查这一行之前已超时。"))
            break
        budget = min(STEP_BUDGET, max(0.05, deadline - time.monotonic()))
        if line.kind == "cont":
            prev = st.expr if st.expr is not None else (st.eq[1] if st.eq is not None else None)
            res = _expr_step(prev, line.expr, variables, budget)
        elif line.kind == "expr":
            if st.expr is not None:
                res = _expr_step(st.expr, line.expr, variables, budget)
            else:
                res = _expr_step(st.eq[1], line.expr, variables, budget)
                if res.status != "ok":
                    alt = _expr_step(st.eq[0], line.expr, variables, budget)
                    res = alt if alt.status == "ok" else res
        else:
            res = _eq_step(line, st, variables, deadline)
        add(line.index, res)
        if res.status == "ok":
            _advance(st, line, res)

    details: dict[str, Any] = {"steps": steps, "first_error": first_error}
    if first_error is not None:
        bad = steps[first_error]
        return Verdict("incorrect", 0.0,
                       msg(f"Line {first_error + 1} does not follow: {bad['feedback']['en']}",
                           f"第 {first_error + 1} 行不成立：{bad['feedback']['zh']}"),
                       "step_error", None, details)
    if first_undecided is not None:
        return Verdict("undecided", 0.0,
                       msg(f"Could not check line {first_undecided + 1}; no attempt was used.",
                           f"无法检查第 {first_undecided + 1} 行，未消耗作答次数。"),
                       "undecided", None, {**details, "first_undecided": first_undecided})
    # goal
    gkind, g1, g2 = goal
    last = lines[-1]
    reached = "no"
    if gkind == "expr":
        final = st.expr if st.expr is not None else (st.eq[1] if st.eq else None)
        if final is not None:
            res = check_equivalence(g1, final, variables, time_budget=STEP_BUDGET)
            reached = {"equal": "yes", "not_equal": "no"}.get(res.outcome, "unknown")
    else:
        eq = st.eq if (last.kind != "expr" and st.eq is not None) else None
        if last.kind == "eq":
            eq = (last.lhs, last.rhs)
        if eq is not None:
            verdict, _ = equations_equivalent(g1, g2, eq[0], eq[1], variables, time.monotonic() + STEP_BUDGET)
            reached = {"equivalent": "yes", "implies": "no", "no": "no"}.get(verdict, "unknown")
    if reached == "yes":
        return Verdict("correct", 1.0, msg("Correct: every step follows and the goal is reached.",
                                           "正确：每一步都成立，并且得到了目标结果。"), None, None, details)
    if reached == "unknown":
        return Verdict("undecided", 0.0, msg("Every step follows, but could not decide whether the last line is "
                                             "the goal; no attempt was used.",
                                             "每一步都成立，但无法判定最后一行是否为目标；未消耗作答次数。"),
                       "undecided", None, details)
    return Verdict("incorrect", 0.0, msg("Every step follows, but the derivation does not reach the goal.",
                                         "每一步都成立，但推导没有得到目标结果。"), "goal_not_reached", None,
                   {**details, "goal_reached": False})


def grade_lines(raw_lines: list[str], spec: Mapping[str, Any], params: Mapping[str, Any],
                budget: float = TOTAL_BUDGET) -> Verdict:
    try:
        lines = parse_lines(raw_lines, spec)
    except AnswerParseError as err:
        return Verdict("invalid", 0.0, msg(err.message, err.message_zh), "parse_error",
                       details={"error": err.to_dict()})
    variables = spec.get("variables") or {}
    start = _parse_statement(str(spec["start"]), spec, params)
    goal = _parse_statement(str(spec["goal"]), spec, params)
    verdict = check_chain(lines, start, goal, variables, budget)
    verdict.interpreted_as = Interpretation(
        text="\n".join(ln.parsed.text for ln in lines),
        latex=" \\\\ ".join(ln.parsed.latex or "" for ln in lines),
        mathml="".join(ln.parsed.mathml or "" for ln in lines))
    if verdict.status == "incorrect":
        verdict = _apply_mistakes(verdict, lines, spec, params, variables)
    return verdict


def _apply_mistakes(verdict: Verdict, lines: list[Line], spec, params, variables) -> Verdict:
    from ..params import substitute
    for m in spec.get("mistakes") or []:
        try:
            if "line" in m:
                target = _parse_line(substitute(str(m["line"]), params), 0, spec)
                for ln in lines:
                    if _same_statement(target, ln, variables):
                        verdict.feedback, verdict.note = c.mistake_feedback(m), m["note"]
                        verdict.details["mistake_line"] = ln.index
                        return verdict
            elif "answer" in m:
                mlines = parse_lines(substitute(list(m["answer"]), params), spec)
                if len(mlines) == len(lines) and all(_same_statement(a, b, variables) for a, b in zip(mlines, lines)):
                    verdict.feedback, verdict.note = c.mistake_feedback(m), m["note"]
                    return verdict
        except (AnswerParseError, SpecError):
            continue
    return verdict


def _same_statement(a: Line, b: Line, variables) -> bool:
    if a.kind == "eq" and b.kind == "eq":
        v, _ = equations_equivalent(a.lhs, a.rhs, b.lhs, b.rhs, variables, time.monotonic() + 0.2)
        return v == "equivalent"
    if a.kind != "eq" and b.kind != "eq":
        return check_equivalence(a.expr, b.expr, variables, time_budget=0.1).equal
    return False


class DerivationChecker:
    kind = "derivation"

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        validate_common(spec)
        for key in ("start", "goal"):
            _spec_parse_check(spec.get(key), spec, key, allow_relation=True)
        ref = spec.get("reference")
        if ref is not None and (not isinstance(ref, list) or not all(isinstance(x, str) for x in ref)):
            raise SpecError("reference: must be a list of lines")
        c.validate_mistakes(spec, ("answer", "line"))

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> list[Line]:
        return parse_lines(raw, spec)

    def interpret(self, parsed: list[Line], spec: Mapping[str, Any]) -> Interpretation:
        return Interpretation(text="\n".join(ln.parsed.text for ln in parsed),
                              latex=" \\\\ ".join(ln.parsed.latex or "" for ln in parsed),
                              mathml="".join(ln.parsed.mathml or "" for ln in parsed))

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        from ..params import substitute
        return {"start": substitute(str(spec["start"]), params), "goal": substitute(str(spec["goal"]), params),
                "reference": substitute(list(spec.get("reference") or []), params)}

    def grade(self, parsed: list[Line], spec: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None) -> Verdict:
        return run_guarded(grade_lines, [ln.text for ln in parsed], dict(spec), dict(params),
                           timeout=timeout or DEFAULT_TIMEOUT, interp=self.interpret(parsed, spec))

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        from ..params import substitute
        ex = Examples()
        if spec.get("reference"):
            ex.correct.append(substitute(list(spec["reference"]), params))
        ex.incorrect.append(([substitute(str(spec["start"]), params), "= 0"], None))
        for m in spec.get("mistakes") or []:
            if "answer" in m:
                ex.incorrect.append((substitute(list(m["answer"]), params), m["note"]))
        ex.invalid += [[], ["("], ["= 1"]]
        return ex


register_checker(DerivationChecker())
