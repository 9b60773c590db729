"""The grading facade the web service calls (contract: docs/interfaces.md).

Every answer goes through its kind's whole grading path, :meth:`Kind.grade_answer
<checkers.kinds.base.Kind.grade_answer>`: bounded, linear kinds (numeric, array, choice, freetext) grade
in the calling thread; kinds whose checks can be slow (symbolic, derivation) parse *and* grade inside the
sandbox pool (:mod:`checkers.sandbox`) under a hard wall-clock limit, where a time-out is ``undecided``
and costs the learner no attempt. Nothing here raises for learner input, and nothing here names a kind
(the stand-alone symbolic and derivation checks live in their kinds' folders, ``standalone.py``).
"""

from __future__ import annotations

from typing import Any, Mapping

from . import kinds as _kinds  # noqa: F401  (registers every kind)
from .kinds.base import Kind, get_kind
from .limits import GRADE_TIMEOUT as DEFAULT_TIMEOUT  # the public name callers and benchmarks use
from .verdict import AnswerParseError, SpecError, Verdict


def _kind(spec: Mapping[str, Any]) -> str:
    kind = spec.get("kind")
    if not isinstance(kind, str):
        raise SpecError("part has no kind")
    return kind


def validate(raw: Any, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Parse only (the "interpreted as" preview); never grades, never raises for learner input."""
    checker = get_kind(_kind(spec))
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
                "error": AnswerParseError("The answer is too complex to read.").to_dict(), "warning": None}
    # A kind may warn about an answer it can read but that is likely to be judged too coarse (numeric:
    # fewer significant figures than the part asks for, by the same test the grader applies).
    return {"valid": True, "interpreted_as": {"text": interp.text, "latex": interp.latex, "mathml": interp.mathml,
                                              "spoken": interp.spoken},
            "error": None, "warning": checker.warning(parsed, spec)}


def grade(raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any], *, timeout: float | None = None,
          kind: Kind | None = None) -> Verdict:
    """Grade one answer to one part. Parse errors -> ``invalid``; time-outs -> ``undecided``. ``kind``: the
    part's kind when the caller has already looked it up (a submit looks each part's kind up once)."""
    return (kind or get_kind(_kind(spec))).grade_answer(raw, spec, params, timeout=timeout)


def expected(spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
    """JSON-able expected answer for the solution view."""
    return get_kind(_kind(spec)).expected(spec, params)


__all__ = ["expected", "grade", "validate"]
