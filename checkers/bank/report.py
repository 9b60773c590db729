"""The whole check of one question, as every caller reports it: ``quizapp selftest``, ``python -m
checkers.bank selftest`` and the authoring tool (saving, publishing, importing) all call
:func:`question_report`, so they report the same failures for the same question and seeds.

The check, in order: the schema (a question that does not follow the format is not self-tested: its
report holds the schema failure only); every numeric expression parses (a syntax error is reported once,
with the column inside the expression); the bank self-test (:func:`checkers.bank.selftest.selftest`) over
seeds ``0 .. seeds-1``; and every known mistake that grades ``correct`` in some variant (it equals the
answer there, so its feedback can never show), which replaces the self-test's vaguer "not exercised" or
"graded correct" records for that mistake. The per-seed records fold into one failure per distinct
problem (:func:`checkers.bank.selftest.distinct_failures`), each with ``part``, ``seed`` (the first),
``seeds``, ``count``, ``check``, ``reason``, ``field`` (the place in the question it is about,
:mod:`checkers.bank.failure_place`; a view that fails, the text that breaks it, :mod:`.question_place`),
``stage`` for a failure outside any part (``params``, ``invariants``, ``question`` or ``solution``) and, for
a grading failure, ``expected`` and ``computed``.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from .. import grading
from ..kinds.base import find_kind
from ..mathparse import evaluate_numeric
from ..params import resolve_value, substitute_text
from ..verdict import AnswerParseError, SpecError
from .failure_place import failure_field
from .question_place import question_stage, view_field
from .fields import BankError
from .schema import get_kind, validate_question
from .selftest import distinct_failures, failure, selftest
from .variants import params_for

#: Seeds a question is checked over unless the caller asks for another number (the authoring tool never
#: publishes on fewer).
DEFAULT_SEEDS = 20
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


def schema_failures(data: Any, file: Any = None) -> list[dict[str, Any]]:
    """The schema's verdict on ``data`` as failures ([] when it follows the format): the first problem,
    with its ``field`` and the ``part`` it sits in; ``reason`` is the schema's own words after "schema: ".
    ``file`` (a path) lets the schema check the level against the folder."""
    if not isinstance(data, dict):
        return [{"part": None, "seed": None, "field": None, "check": "schema", "reason": "schema: not a mapping"}]
    try:
        validate_question(data, file)
    except BankError as exc:
        return [_schema_failure(data, exc)]
    except Exception as exc:  # noqa: BLE001 - a checker's validate_spec may raise its own errors
        return [_schema_failure(data, exc)]
    return []


def _expressions(data: Mapping[str, Any]) -> Iterable[tuple[str, Any, str]]:
    """(field path, part id, expression) of every ``expr`` in the parameters and the parts' value specs."""
    for name, spec in (data.get("params") or {}).items():
        if isinstance(spec, Mapping) and isinstance(spec.get("expr"), str):
            yield f"params.{name}.expr", None, spec["expr"]
    for i, part in enumerate(data.get("parts") or []):
        if not isinstance(part, Mapping):
            continue
        kind = find_kind(part.get("kind"))
        numbers = kind is None or kind.param_exprs  # else ``expr`` is the answer's own formula (Kind.param_exprs)
        exp = part.get("expected")
        if isinstance(exp, Mapping) and isinstance(exp.get("expr"), str) and numbers:
            yield f"parts[{i}].expected.expr", part.get("id"), exp["expr"]
        for j, m in enumerate(part.get("mistakes") or []):
            if isinstance(m, Mapping) and isinstance(m.get("expr"), str) and numbers:
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


def question_report(data: Any, seeds: int = DEFAULT_SEEDS, file: Any = None) -> dict[str, Any]:
    """The check of one question over seeds ``0 .. seeds-1``: {"question", "ok", "seeds", "checks",
    "failures"} (the failures as the module docstring lists them). Never raises for a broken question."""
    seeds = int(seeds)
    qid = data.get("id") if isinstance(data, Mapping) else None
    schema = schema_failures(data, file)
    if schema:
        return {"question": qid, "ok": False, "seeds": seeds, "checks": 0, "failures": schema}
    report = selftest(data, seeds=range(seeds))
    failures = list(report.failures)
    same = _mistakes_equal_to_correct(data, range(seeds))
    if same:  # say why a known mistake was "not exercised" or "graded correct": it equals the correct answer
        explained = {(f["part"], f["seed"], f["args"]["note"]) for f in same}
        failures = [f for f in failures if not _explained_by(f, explained)]
        failures += same
        failures.sort(key=lambda f: (f["seed"] if f["seed"] is not None else -1, str(f["part"])))
    failures = expression_failures(data) + [_with_check(f, data) for f in distinct_failures(failures)]
    return {"question": qid, "ok": bool(report.ok) and not failures, "seeds": seeds, "checks": report.checks,
            "failures": failures}


def _explained_by(f: Mapping[str, Any], explained: set[tuple]) -> bool:
    """Whether a self-test failure is a known mistake of ``explained`` ((part, seed, note)) not showing up
    as a distinct mistake: not exercised by the kind's examples, or graded correct."""
    args = f.get("args") or {}
    if (f.get("part"), f.get("seed"), args.get("note")) not in explained:
        return False
    return f.get("message") == "mistake-not-exercised" or (
        f.get("message") == "incorrect-graded-wrong" and args.get("graded") == "correct")


def _with_check(f: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """A distinct failure as reported: part, check, every seed, expected and computed, and the ``field`` it
    is about (its line and column in the author's text come from that field) and, outside any part, its stage."""
    field = failure_field(data, f)
    if f.get("message") == "view-fail":  # the self-test does not say which view, nor which text
        field = view_field(data, f.get("seed"), (f.get("args") or {}).get("lang")) or field
    elif f.get("message") == "text-fail":  # a hint or feedback: the self-test names the text itself
        field = (f.get("args") or {}).get("field") or field
    out = {"part": f.get("part"), "seed": f.get("seed"), "seeds": f.get("seeds") or [], "count": f.get("count"),
           "check": f["status"], "reason": str(f.get("reason")), "field": field}
    if out["part"] is None and question_stage(f.get("message"), field):
        out["stage"] = question_stage(f.get("message"), field)
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


def format_report(report: Mapping[str, Any], limit: int = 20) -> str:
    """A :func:`question_report` as lines for a terminal: a head line (``ok`` or ``FAILED``), then each
    failure (at most ``limit``) with its part, check, seeds, field (and line), reason, expected and
    computed."""
    name = report.get("file") or report.get("question")
    lines = [f"{name}: {'ok' if report['ok'] else 'FAILED'} ({report['checks']} checks, {report['seeds']} seeds)"]
    failures = list(report.get("failures") or [])
    for f in failures[:limit]:
        seeds = f.get("seeds") or []
        where = f" at {f['field']}" if f.get("field") else ""
        if f.get("line"):
            where += f" (line {f['line']}, column {f.get('column')})"
        shown = ", ".join(str(s) for s in seeds[:12]) + (f" (+{len(seeds) - 12})" if len(seeds) > 12 else "")
        lines.append(f"  part {f.get('part')} [{f.get('check')}]{where}" + (f" seeds {shown}" if seeds else "")
                     + f": {f.get('reason')}")
        if f.get("expected") is not None:
            lines.append(f"    expected {f['expected']}; computed {f.get('computed')}")
    if len(failures) > limit:
        lines.append(f"  ... and {len(failures) - limit} more")
    return "\n".join(lines)
