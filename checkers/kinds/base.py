"""The one small protocol every answer kind implements (cf. PrairieLearn elements).

* ``parse(raw, spec)``            -> a parsed answer, or raise :class:`AnswerParseError` (column-precise)
* ``grade(parsed, spec, params)`` -> :class:`Verdict`
* ``interpret(parsed, spec)``     -> :class:`Interpretation` (the "interpreted as" preview)
* ``examples(spec, params)``      -> :class:`Examples` (correct / incorrect / invalid raw answers)
* ``validate_spec(spec)``         -> raise :class:`SpecError` if the authored part is malformed
* ``expected(spec, params)``      -> the JSON-able expected answer shown after an attempt

``spec`` is the part as authored (a dict from the question file); ``params`` are the variant's
parameter values. Checkers resolve ``{{name}}`` placeholders and reference-engine calls themselves
through :mod:`checkers.params`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable

from ..verdict import AnswerParseError, Interpretation, SpecError, Verdict


@dataclass
class Examples:
    correct: list[Any] = field(default_factory=list)
    incorrect: list[tuple[Any, str | None]] = field(default_factory=list)  # (raw answer, expected note id or None)
    invalid: list[Any] = field(default_factory=list)


@runtime_checkable
class Checker(Protocol):
    kind: str

    def validate_spec(self, spec: Mapping[str, Any]) -> None: ...

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> Any: ...

    def interpret(self, parsed: Any, spec: Mapping[str, Any]) -> Interpretation: ...

    def grade(self, parsed: Any, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict: ...

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any: ...

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples: ...


_CHECKERS: dict[str, Checker] = {}


def register_checker(checker: Checker) -> Checker:
    if checker.kind in _CHECKERS:
        raise RuntimeError(f"checker kind {checker.kind!r} registered twice")
    _CHECKERS[checker.kind] = checker
    return checker


def get_checker(kind: str) -> Checker:
    try:
        return _CHECKERS[kind]
    except KeyError:
        raise SpecError(f"unknown part kind {kind!r}; known: {', '.join(sorted(_CHECKERS))}") from None


def checker_kinds() -> list[str]:
    return sorted(_CHECKERS)


def grade_raw(raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
    """parse + grade, turning a parse error into an ``invalid`` verdict that costs no attempt."""
    checker = get_checker(spec["kind"])
    try:
        parsed = checker.parse(raw, spec)
    except AnswerParseError as err:
        from ..verdict import msg
        return Verdict(status="invalid", feedback=msg(err.message, err.message_zh), note="parse_error",
                       details={"error": err.to_dict()})
    return checker.grade(parsed, spec, params)


__all__ = ["AnswerParseError", "Checker", "Examples", "Interpretation", "SpecError", "Verdict",
           "checker_kinds", "get_checker", "grade_raw", "register_checker"]
