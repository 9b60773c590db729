"""freetext: self-assessed prose; never graded automatically (weight 0, status undecided)."""

from __future__ import annotations

from typing import Any, Mapping

from ...limits import MAX_FREETEXT_CHARS as MAX_CHARS
from ...verdict import AnswerParseError, Interpretation, SpecError, Verdict, msg
from .. import _common as c
from .. import shape
from ..base import Examples, Kind, register_kind


class FreetextChecker(Kind):
    name = "freetext"
    default_weight = 0
    machine_graded = False

    def accept(self, value: Any, field: str) -> Any:
        if isinstance(value, bool):
            return value
        return shape.text(value, field, shape.MAX_LONG_TEXT)

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        w = spec.get("weight", 0)
        if w != 0:
            raise SpecError("freetext parts are self-assessed and must have weight 0")
        c.validate_mistakes(spec, ("answer",))

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> str:
        if not isinstance(raw, str):
            raise AnswerParseError("Expected text.", None)
        if len(raw) > MAX_CHARS:
            raise AnswerParseError("The answer is too long (at most %(limit)s characters).", MAX_CHARS,
                                   limit=MAX_CHARS)
        if "\x00" in raw:
            raise AnswerParseError("The answer contains a null character.", raw.index("\x00"))
        return raw.strip()

    def interpret(self, parsed: str, spec: Mapping[str, Any]) -> Interpretation:
        return Interpretation(text=parsed)

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        return None  # the solution view shows the key points instead

    def grade(self, parsed: str, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        return Verdict("undecided", 0.0,
                       msg("Compare your answer with the key points of the solution."),
                       "self_assessed", self.interpret(parsed, spec), {"chars": len(parsed)})

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        return Examples(correct=[], incorrect=[], invalid=[None, 3, "x" * (MAX_CHARS + 1)])


register_kind(FreetextChecker())
