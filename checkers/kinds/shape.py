"""JSON-shape checks of learners' answers, shared by every kind's ``accept`` (limits: :mod:`checkers.limits`).

Answers are stored as they came (JSONB on PostgreSQL), so text is refused when JSONB would refuse it
(NUL characters, unpaired surrogates) on every database alike. Each check raises
:class:`~checkers.verdict.AnswerShapeError` naming the field.
"""

from __future__ import annotations

from typing import Any

from ..limits import (MAX_ARRAY_DEPTH, MAX_ARRAY_ELEMENTS, MAX_ARRAY_ENTRY, MAX_LINES, MAX_LONG_TEXT,
                      MAX_OPTION_ID, MAX_OPTIONS, MAX_TEXT)
from ..verdict import AnswerShapeError


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def storable(value: str, field: str) -> None:
    """Refuse what JSONB cannot store: NUL characters and unpaired surrogates."""
    if "\x00" in value:
        raise AnswerShapeError("must not contain NUL characters", field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise AnswerShapeError("is not valid Unicode (unpaired surrogate)", field) from None


def text(value: Any, field: str, limit: int = MAX_TEXT) -> str:
    """A string of at most ``limit`` characters that the database can store."""
    if not isinstance(value, str):
        raise AnswerShapeError(f"must be a string, got {type_name(value)}", field)
    if len(value) > limit:
        raise AnswerShapeError(f"longer than {limit} characters", field)
    storable(value, field)
    return value


def count_leaves(value: Any, field: str, budget: list[int], depth: int = 0) -> None:
    """Walk a nested list of numbers (or short numeric strings), spending ``budget[0]`` per entry."""
    if depth > MAX_ARRAY_DEPTH:
        raise AnswerShapeError("nested too deeply", field)
    if isinstance(value, list):
        for i, v in enumerate(value):
            count_leaves(v, f"{field}[{i}]", budget, depth + 1)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise AnswerShapeError(f"array entries must be numbers, got {type_name(value)}", field)
    if isinstance(value, str):
        if len(value) > MAX_ARRAY_ENTRY:
            raise AnswerShapeError(f"entry longer than {MAX_ARRAY_ENTRY} characters", field)
        storable(value, field)
    budget[0] -= 1
    if budget[0] < 0:
        raise AnswerShapeError(f"more than {MAX_ARRAY_ELEMENTS} entries", field)


__all__ = ["MAX_ARRAY_ELEMENTS", "MAX_LINES", "MAX_LONG_TEXT", "MAX_TEXT", "count_leaves", "storable", "text", "type_name"]
