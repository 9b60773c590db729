"""A question's checks before it is stored: the schema, its expressions and the bank self-test.

Every save validates the question against the schema (a schema error is refused: 422, nothing stored) and
runs the bank self-test over ``seeds`` variants (at least :data:`MIN_SEEDS`); the report's failures each
name ``part`` (None for the whole question), ``seed`` (None for a schema error), ``check``, ``reason`` and
the ``field`` they are about, whose ``line`` and ``column`` in the author's text :func:`locate_failures`
adds. No database here: :mod:`quizapp.authoring.versions` stores the report with the version.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from checkers import grading
from checkers.bank import BankError, distinct_failures, params_for, selftest, validate_question
from checkers.bank.selftest import failure
from checkers.kinds import get_kind
from checkers.mathparse import evaluate_numeric
from checkers.params import resolve_value, substitute_text
from checkers.verdict import AnswerParseError, SpecError

from ..errors import ValidationError
from .failure_place import failure_field
from .yamltext import line_excerpt, locate

MIN_SEEDS = 20
_PART_FIELD = re.compile(r"^parts\[(\d+)\]")


def _schema_failure(data: Any, exc: Exception) -> dict[str, Any]:
    field = getattr(exc, "field", None)
    problem = getattr(exc, "problem", None) or str(exc)
    part = None
    m = _PART_FIELD.match(field or "")
    if m and isinstance(data, Mapping) and isinstance(data.get("parts"), list):
        idx = int(m.group(1))
        if idx < len(data["parts"]) and isinstance(data["parts"][idx], Mapping):
            part = data["parts"][idx].get("id")
    return {"part": part, "seed": None, "field": field, "check": "schema", "reason": f"schema: {problem}"}


def validate(data: Any, file: Any = None, text: str | None = None) -> None:
    """Schema validation; raises ValidationError(422, code invalid_question, failures=[...]). With the
    author's ``text`` each failure also names its ``line`` and ``column`` there (:func:`locate_failures`)."""
    try:
        _validate(data, file)
    except ValidationError as exc:
        if text is not None:
            locate_failures(text, exc.extra.get("failures") or [])
        raise


def locate_failures(text: str, failures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add ``line``/``column`` (1-based, in ``text``) to each failure with a ``field``; an expression's
    failure (``expr_column``) points at the character inside the expression."""
    for f in failures:
        where = locate(text, f.get("field")) if f.get("field") else None
        if where is None:
            continue
        f["line"], f["column"] = where["line"], where["column"]
        if f.get("expr_column") is not None and where.get("value_column") is not None:
            f["line"], f["column"] = where["value_line"], where["value_column"] + int(f["expr_column"]) - 1
        f["source_line"] = line_excerpt(text, f["line"])
    return failures


def _expressions(data: Mapping[str, Any]) -> Iterable[tuple[str, Any, str]]:
    """(field path, part id, expression) of every ``expr`` in the parameters and the parts' value specs."""
    for name, spec in (data.get("params") or {}).items():
        if isinstance(spec, Mapping) and isinstance(spec.get("expr"), str):
            yield f"params.{name}.expr", None, spec["expr"]
    for i, part in enumerate(data.get("parts") or []):
        if not isinstance(part, Mapping):
            continue
        exp = part.get("expected")
        if isinstance(exp, Mapping) and isinstance(exp.get("expr"), str) and part.get("kind") != "symbolic":
            yield f"parts[{i}].expected.expr", part.get("id"), exp["expr"]
        for j, m in enumerate(part.get("mistakes") or []):
            if isinstance(m, Mapping) and isinstance(m.get("expr"), str) and part.get("kind") != "symbolic":
                yield f"parts[{i}].mistakes[{j}].expr", part.get("id"), m["expr"]


def expression_failures(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Parse every numeric expression with the first variant's parameters: a syntax error is reported once,
    naming the part, the field and the column inside the expression (``expr_column``, 1-based), next to the
    self-test's per-seed "cannot be computed" that the same error causes."""
    try:
        params = params_for(data, 0)
    except Exception:  # noqa: BLE001 - parameters that do not generate are the self-test's to report
        params = None
    numeric = {k: float(v) for k, v in (params or {}).items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    failures = []
    for field, part, expr in _expressions(data):
        if len(expr) > 2000:
            continue  # the self-test bounds and reports it
        try:
            evaluate_numeric(substitute_text(expr, params or {}), numeric)
        except AnswerParseError as exc:
            if "{{" in expr or (params is None and getattr(exc, "column", None) is None):
                continue  # a placeholder or unknown parameter: the column would not be the author's
            col = exc.column + 1 if exc.column is not None else None
            where = f" at column {col}" if col is not None else ""
            failures.append({"part": part, "seed": None, "seeds": [], "field": field, "expr_column": col,
                             "check": "expression",
                             "reason": f"expression {expr!r} does not parse{where}: {exc.message}"})
        except Exception:  # noqa: BLE001 - an evaluation error (domain, engine) belongs to the self-test
            continue
    return failures


def _validate(data: Any, file: Any = None) -> None:
    if not isinstance(data, dict):
        raise ValidationError("a question must be a mapping (the structure of a question file)", None,
                              code="invalid_question",
                              extra={"failures": [{"part": None, "seed": None, "field": None,
                                                   "reason": "schema: not a mapping"}]})
    try:
        validate_question(data, file)
    except BankError as exc:
        failure = _schema_failure(data, exc)
        if file is not None:
            failure["file"] = str(file)
        raise ValidationError(f"the question does not follow the format: {exc.field}: {exc.problem}",
                              exc.field, code="invalid_question", extra={"failures": [failure]}) from None
    except Exception as exc:  # noqa: BLE001 - a checker's validate_spec may raise its own errors
        failure = _schema_failure(data, exc)
        raise ValidationError(f"the question does not follow the format: {exc}", None,
                              code="invalid_question", extra={"failures": [failure]}) from None


def selftest_report(data: Mapping[str, Any], seeds: int = MIN_SEEDS) -> dict[str, Any]:
    """The self-test over ``seeds`` (>= 20) variants: {"ok", "seeds", "checks", "failures"}."""
    seeds = max(int(seeds), MIN_SEEDS)
    report = selftest(data, seeds=range(seeds))
    failures = list(report.failures)
    same = _mistakes_equal_to_correct(data, range(seeds))
    if same:  # say why a known mistake was "not exercised" or "graded correct": it equals the correct answer
        explained = {(f["part"], f["seed"], f["args"]["note"]) for f in same}
        failures = [f for f in failures if not _explained_by(f, explained)]
        failures += same
        failures.sort(key=lambda f: (f["seed"] if f["seed"] is not None else -1, str(f["part"])))
    failures = expression_failures(data) + [_with_check(f, data) for f in distinct_failures(failures)]
    return {"ok": bool(report.ok) and not failures, "seeds": seeds, "checks": report.checks, "failures": failures}


def _explained_by(f: Mapping[str, Any], explained: set[tuple]) -> bool:
    """Whether a self-test failure is a known mistake of ``explained`` ((part, seed, note)) not showing up
    as a distinct mistake: not exercised by the kind's examples, or graded correct."""
    args = f.get("args") or {}
    if (f.get("part"), f.get("seed"), args.get("note")) not in explained:
        return False
    return f.get("message") == "mistake-not-exercised" or (
        f.get("message") == "incorrect-graded-wrong" and args.get("graded") == "correct")


def _with_check(f: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """A distinct failure as stored with the version: part, check, every seed, expected and computed, and
    the ``field`` it is about (its line and column in the author's text come from that field)."""
    out = {"part": f.get("part"), "seed": f.get("seed"), "seeds": f.get("seeds") or [], "count": f.get("count"),
           "check": f["status"], "reason": str(f.get("reason")), "field": failure_field(data, f)}
    if f.get("expected") is not None or f.get("computed") is not None:
        out["expected"], out["computed"] = f.get("expected"), f.get("computed")
    return out


def _mistakes_are_answers(kind: Any) -> bool:
    """Whether the kind's known mistakes are answers that can be graded (its ``mistake_answers``)."""
    try:
        return get_kind(kind).mistake_answers
    except SpecError:
        return False


def _mistakes_equal_to_correct(data: Mapping[str, Any], seeds: Iterable[int]) -> list[dict[str, Any]]:
    """Known mistakes that grade ``correct`` for a seed (so they can never give their feedback)."""
    out = []
    for seed in seeds:
        try:
            params = params_for(data, seed)
        except Exception:  # noqa: BLE001 - reported by the self-test
            continue
        for part in data.get("parts") or []:
            if not _mistakes_are_answers(part.get("kind")):
                continue
            for m in part.get("mistakes") or []:
                try:
                    if "answer" in m:
                        raw = m["answer"]
                    else:
                        raw = resolve_value({k: v for k, v in m.items() if k not in ("note", "feedback")}, params)
                        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                            raw = repr(float(raw))
                    verdict = grading.grade(raw, part, params)
                except Exception:  # noqa: BLE001 - a mistake that cannot be computed is the self-test's
                    continue
                if verdict.status == "correct":
                    out.append(failure(part.get("id"), seed, "mistake-equals-correct",
                                       f"known mistake {m.get('note')!r} equals the correct answer in this "
                                       f"variant (it grades correct, so its feedback can never show)",
                                       "known-mistake", expected="incorrect", computed="correct",
                                       note=m.get("note"), graded=verdict.status))
    return out
