"""numeric: one scalar judged by the precision rule of :mod:`.precision`, with nan/inf rules and hints.

* expected nan is matched only by nan; expected ±inf only by the same infinity; a non-finite answer
  never matches a finite expected value.
* The band (``tolerance: {rtol, atol}``, or ``sigfigs: n``), the stated requirement and the
  "give more digits" verdict (note ``insufficient_precision``, counted as incorrect) all come from
  :mod:`.precision`; the preview's warning (:meth:`NumericChecker.warning`) is the same test.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from ...params import resolve_value
from ...verdict import Interpretation, Message, SpecError, Verdict, msg
from .. import _common as c
from . import precision
from .. import shape
from ..base import Examples, Kind, register_kind
from .precision import DEFAULT_ATOL, DEFAULT_RTOL  # noqa: F401  (the defaults live with the rule)


class NumericChecker(Kind):
    name = "numeric"
    spec_keys = frozenset({"expected", "tolerance", "sigfigs", "constant", "constant_reason"})
    value_keys = ("expected",)
    mistake_answers = True
    assets = ("kind.js",)
    plain_form = "text"
    answer_schema = {"type": ["string", "number"], "description": "a number, or text such as ln(2)/2"}
    public_schema = {"sigfigs": {"type": "integer"},
                     "precision": {"type": "string",
                                   "description": "numeric parts: the precision expected, from the tolerance"}}

    def placeholder(self, part: Mapping[str, Any]) -> Message:
        return msg("A number, e.g. 0.25, 1e-3 or ln(2)/2")

    def syntax_help(self, part: Mapping[str, Any]) -> Message:
        return msg("A number or an expression of numbers only, such as ln(2)/2.")

    def accept(self, value: Any, field: str) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        return shape.text(value, field)

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "sigfigs" in part:
            out["sigfigs"] = part["sigfigs"]
        # What precision is expected, generated from the part's tolerance (never typed per file).
        out["precision"] = precision.statement(part)[lang]
        return out

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        if "expected" not in spec:
            raise SpecError("numeric part needs expected")
        c.tolerance(spec, DEFAULT_RTOL, DEFAULT_ATOL)
        sig = spec.get("sigfigs")
        if sig is not None and (isinstance(sig, bool) or not isinstance(sig, int) or not 1 <= sig <= 15):
            raise SpecError("sigfigs: must be an integer in [1, 15]")
        c.validate_mistakes(spec, ("value", "expr", "call", "answer"))

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> c.TypedNumber:
        return c.read_number(raw)

    def interpret(self, parsed: c.TypedNumber, spec: Mapping[str, Any]) -> Interpretation:
        shown = c.fmt(parsed.value)
        text = shown if parsed.literal else f"{parsed.text} = {shown}"
        return Interpretation(text=text, latex=shown, mathml=c.mathml_number(parsed.value))

    def warning(self, parsed: c.TypedNumber, spec: Mapping[str, Any]) -> dict[str, str] | None:
        """The preview's warning: fewer digits typed than the part asks for (same test as the grader)."""
        return precision.warning(parsed, spec)

    def precision(self, spec: Mapping[str, Any]) -> dict[str, str]:
        """The precision sentence of the public view, generated from the part's tolerance."""
        return precision.statement(spec)

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> float:
        return c.as_float(resolve_value(spec["expected"], params))

    def _mistake_value(self, m: Mapping[str, Any], params: Mapping[str, Any]) -> float:
        if "answer" in m:
            return c.read_number(m["answer"]).value
        return c.as_float(resolve_value(m, params), "mistake")

    def grade(self, parsed: c.TypedNumber, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        a = parsed.value
        b = self.expected(spec, params)
        rtol, atol = precision.band(spec, b)
        interp = self.interpret(parsed, spec)
        details: dict[str, Any] = {"rtol": rtol, "atol": atol}
        if math.isfinite(a) and math.isfinite(b):
            details["abs_err"] = abs(a - b)
            details["rel_err"] = abs(a - b) / abs(b) if b else None
        judged = precision.judge(parsed, b, spec)
        if judged == "correct":
            return Verdict("correct", 1.0, msg("Correct."), None, interp, details)

        for m in spec.get("mistakes") or []:
            try:
                mv = self._mistake_value(m, params)
            except Exception:  # an authoring problem must not turn a learner's answer into a crash
                continue
            if c.num_close(a, mv, rtol, atol):
                return Verdict("incorrect", 0.0, c.mistake_feedback(m, params), m["note"], interp, details)

        if not math.isfinite(b) or not math.isfinite(a):
            if math.isnan(b):
                fb = msg("Not quite: this quantity is undefined here (nan).")
            elif math.isinf(b):
                fb = msg("Not quite: check whether the quantity is finite.")
            else:
                fb = msg("Expected a finite number.")
            return Verdict("incorrect", 0.0, fb, "nonfinite", interp, details)

        if judged == "more_digits":
            req = precision.requirement(spec)
            key = "needed_decimals" if req.mode == "decimals" else "needed_sigfigs"
            return Verdict("incorrect", 0.0, precision.need_more_digits(req),
                           "insufficient_precision", interp, {**details, key: req.digits})

        hint = c.ratio_hint(a, b, rtol)
        if hint is not None:
            note, fb = hint
            return Verdict("incorrect", 0.0, fb, note, interp, details)
        return Verdict("incorrect", 0.0, msg("Not correct."), None, interp, details)

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        b = self.expected(spec, params)
        ex = Examples()
        ex.correct.append(repr(b) if math.isfinite(b) else c.fmt(b))
        if math.isfinite(b):
            ex.correct.append(b)
            wrong = b * 1.37 + 1.0 if b else 1.0
            ex.incorrect.append((repr(wrong), self.grade(self.parse(repr(wrong), spec), spec, params).note))
        else:
            ex.incorrect.append(("0", "nonfinite"))
        for m in spec.get("mistakes") or []:
            try:
                mv = self._mistake_value(m, params)
            except Exception:
                continue
            if not c.num_close(mv, b, *precision.band(spec, b)):
                ex.incorrect.append((repr(mv) if math.isfinite(mv) else c.fmt(mv), m["note"]))
        ex.invalid += ["", "abc(", "1 +", True]
        return ex


register_kind(NumericChecker())
