"""Reading a derivation: the learner's lines and the authored start and goal.

Each non-blank line is read by the safe maths parser (:func:`checkers.mathparse.parse_math`) into a
:class:`Line`: an expression, an equation ``lhs = rhs`` (only ``=``; other relations are refused), or a
continuation ``= expr``. ``Line.index`` is the learner's own line number (blank lines count), so
feedback names the line they see. At most ``MAX_GRADED_LINES`` lines (:mod:`checkers.limits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import sympy as sp

from ...limits import MAX_GRADED_LINES as MAX_LINES
from ...mathparse import parse_math
from ...params import substitute_text
from ...verdict import AnswerParseError
from .form import statement as statement_form


@dataclass
class Line:
    index: int
    text: str
    kind: str                 # "expr" | "eq" | "cont"
    expr: Any = None          # expr / cont
    lhs: Any = None           # eq
    rhs: Any = None
    parsed: Any = None
    form: Any = None          # its form (:func:`.form.statement`), set by grade_lines


def parse_line(text: str, index: int, spec: Mapping[str, Any]) -> Line:
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
        lines.append(parse_line(t, i, spec))  # Line.index stays the learner's own line number
    if not lines:
        raise AnswerParseError("Enter the derivation as one or more lines.", None)
    if lines[0].kind == "cont":
        raise AnswerParseError("The first line cannot start with '='.", 0, field=f"answer[{lines[0].index}]")
    return lines


def parse_statement(text: str, spec, params) -> tuple[str, Any, Any]:
    """Authored start/goal: ("expr", e, None) or ("eq", lhs, rhs)."""
    p = parse_math(substitute_text(text, params), spec.get("variables") or {}, spec.get("functions") or {},
                      allow_relation=True)
    if p.relation:
        return "eq", p.lhs, p.rhs
    return "expr", p.expr, None

def authored_form(text: str, spec, params) -> tuple | None:
    try:
        return statement_form(substitute_text(text, params), spec)
    except (AnswerParseError, ValueError):
        return None
