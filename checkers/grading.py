"""The grading facade the web service calls (contract: docs/interfaces.md).

* Numeric, array, choice and freetext answers are graded in the calling thread: they are bounded,
  linear work (well under a millisecond) and may need the torch reference engine for expected values.
* Symbolic and derivation answers are parsed *and* graded inside the sandbox pool
  (:mod:`checkers.sandbox`) under a hard wall-clock limit; a time-out is ``undecided`` and costs the
  learner no attempt. Nothing here raises for learner input.
"""

from __future__ import annotations

from typing import Any, Mapping

from . import kinds as _kinds  # noqa: F401  (registers every checker)
from .kinds import derivation as _deriv
from .kinds import symbolic as _sym
from .kinds.base import get_checker
from .verdict import AnswerParseError, SpecError, Verdict, msg

DEFAULT_TIMEOUT = 1.0  # hard wall-clock limit per graded answer (symbolic and derivation), in seconds
_SANDBOXED = ("symbolic", "derivation")


def _kind(spec: Mapping[str, Any]) -> str:
    kind = spec.get("kind")
    if not isinstance(kind, str):
        raise SpecError("part has no kind")
    return kind


def validate(raw: Any, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Parse only (the "interpreted as" preview); never grades, never raises for learner input."""
    checker = get_checker(_kind(spec))
    try:
        parsed = checker.parse(raw, spec)
        interp = checker.interpret(parsed, spec)
    except AnswerParseError as err:
        e = err.to_dict()
        return {"valid": False, "interpreted_as": None,
                "error": {"message": e["message"], "message_zh": e["message_zh"], "column": e["column"],
                          "field": e["field"]}, "warning": None}
    except (RecursionError, MemoryError, OverflowError):
        return {"valid": False, "interpreted_as": None,
                "error": {"message": "The answer is too complex to read.", "message_zh": "答案过于复杂，无法读取。",
                          "column": None, "field": None}, "warning": None}
    # A kind may warn about an answer it can read but that is likely to be judged too coarse (numeric:
    # fewer significant figures than the part asks for, by the same test the grader applies).
    warn = getattr(checker, "warning", None)
    return {"valid": True, "interpreted_as": {"text": interp.text, "latex": interp.latex, "mathml": interp.mathml},
            "error": None, "warning": warn(parsed, spec) if warn is not None else None}


def _invalid(err: AnswerParseError) -> Verdict:
    return Verdict("invalid", 0.0, msg(err.message, err.message_zh), "parse_error", details={"error": err.to_dict()})


def _too_complex(exc: BaseException) -> Verdict:
    return _invalid(AnswerParseError(f"The answer is too complex to read ({type(exc).__name__}).", None,
                                     zh="答案过于复杂，无法读取。"))


def _grade_in_worker(raw: Any, spec: dict, params: dict, budget: float) -> Verdict:
    """Parse + grade a symbolic/derivation answer; runs in a sandbox worker."""
    kind = spec["kind"]
    try:
        if kind == "symbolic":
            return _sym.grade_expression(raw, spec, params, budget=budget)
        return _deriv.grade_lines(raw, spec, params, budget=budget)  # parses (once) within the budget
    except AnswerParseError as err:
        return _invalid(err)
    except (RecursionError, MemoryError) as exc:
        return _too_complex(exc)


def _precheck(kind: str, raw: Any) -> Verdict | None:
    """Refuse, in the calling process, answers that are not text (or a list of text lines).

    They could not be graded anyway, and arbitrary objects need not even survive the trip to a worker.
    """
    if kind == "symbolic":
        if not isinstance(raw, str):
            return _invalid(AnswerParseError("Expected a maths expression as text.", None,
                                             zh="需要以文本输入的数学表达式。"))
        return None
    if isinstance(raw, str):
        return None
    if not isinstance(raw, (list, tuple)) or not raw:
        return _invalid(AnswerParseError("Enter the derivation as one or more lines.", None, zh="请逐行输入推导过程。"))
    if len(raw) > _deriv.MAX_LINES:
        return _invalid(AnswerParseError(f"At most {_deriv.MAX_LINES} lines.", None, zh=f"最多 {_deriv.MAX_LINES} 行。"))
    for i, line in enumerate(raw):
        if not isinstance(line, str):
            return _invalid(AnswerParseError(f"Line {i + 1} is not text.", None, zh=f"第 {i + 1} 行不是文本。",
                                             field=f"answer[{i}]"))
    return None


def grade(raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any], *, timeout: float | None = None) -> Verdict:
    """Grade one answer to one part. Parse errors -> ``invalid``; time-outs -> ``undecided``."""
    kind = _kind(spec)
    checker = get_checker(kind)
    if kind in _SANDBOXED:
        refused = _precheck(kind, raw)
        if refused is not None:
            return refused
        # exact str / list objects: nothing of the caller's types travels to the worker
        raw = str.__str__(raw) if isinstance(raw, str) else [str.__str__(line) for line in raw]
        limit = timeout or DEFAULT_TIMEOUT
        # The layers stop themselves well before the hard limit, so a slow-but-finishing check still
        # returns its own reasoned verdict instead of a bare time-out. A derivation's steps share one
        # budget (each step gets what is left); running out names the step reached.
        if kind == "derivation":
            budget = _deriv.soft_budget(limit)
        else:
            budget = max(0.05, min(0.6 * limit, _sym.EQUIV_BUDGET))
        return _sym.run_guarded(_grade_in_worker, raw, dict(spec), dict(params), budget, timeout=limit)
    try:
        parsed = checker.parse(raw, spec)
    except AnswerParseError as err:
        return _invalid(err)
    except SpecError:
        raise  # the part is malformed: an authoring error, not the learner's
    except Exception as exc:  # odd learner input a reader did not foresee: invalid, never a crash
        return _too_complex(exc)
    return checker.grade(parsed, spec, params)


def expected(spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
    """JSON-able expected answer for the solution view."""
    return get_checker(_kind(spec)).expected(spec, params)


def check_symbolic(expected: str, answer: str, variables: Mapping[str, Any] | None = None,
                   mode: str = "equivalent", *, functions: Mapping[str, Any] | None = None,
                   timeout: float | None = None, constants: list[str] | None = None,
                   decimals: Mapping[str, float] | None = None) -> Verdict:
    spec = {"kind": "symbolic", "expected": expected, "variables": dict(variables or {}), "mode": mode,
            "functions": dict(functions or {})}
    if constants:
        spec["constants"] = list(constants)
    if decimals is not None:
        spec["decimals"] = dict(decimals)
    return grade(answer, spec, {}, timeout=timeout)


def check_derivation(steps: list[str], start: str, goal: str, variables: Mapping[str, Any] | None = None,
                     functions: Mapping[str, Any] | None = None, *, timeout: float | None = None,
                     milestones: list[str] | None = None) -> Verdict:
    """A stand-alone derivation: the last line must be the goal in form and a submission of only the
    start/goal scores 0; ``milestones`` (expressions) are key steps that must appear in order (partial
    credit, the missing ones named). A malformed milestone raises SpecError ``key_steps[i].expr: ...``."""
    spec: dict[str, Any] = {"kind": "derivation", "start": start, "goal": goal,
                            "variables": dict(variables or {}), "functions": dict(functions or {})}
    if milestones:
        spec["key_steps"] = [{"expr": m, "feedback": {"en": f"the step {m}", "zh": f"步骤 {m}"}}
                             for m in milestones]
        _deriv.KS.validate(spec)  # parser only (no sympy): bounded, in the calling process
    return grade(steps, spec, {}, timeout=timeout)


__all__ = ["check_derivation", "check_symbolic", "expected", "grade", "validate"]
