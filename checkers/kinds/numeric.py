"""numeric: one scalar, |a - b| <= atol + rtol*|b|, with nan/inf rules, sigfigs and precision hints.

* expected nan is matched only by nan; expected ±inf only by the same infinity; a non-finite answer
  never matches a finite expected value.
* ``sigfigs: n`` replaces the tolerance by "agrees with the expected value to n significant figures":
  |a - b| <= 0.5 * 10^(floor(log10|b|) - n + 1).
* Insufficient precision: a decimal typed with too few digits to meet the tolerance, but which *is*
  the expected value rounded to the typed digits, is ``incorrect`` with note ``insufficient_precision``
  and a hint saying how many significant figures are needed (the learner was right, just too coarse).
"""

from __future__ import annotations

import math
import sys
from typing import Any, Mapping

from ..params import resolve_value
from ..verdict import Interpretation, SpecError, Verdict, msg
from . import _common as c
from .base import Examples, register_checker

DEFAULT_RTOL, DEFAULT_ATOL = 1e-3, 1e-8


def _tol_for(spec: Mapping[str, Any], b: float) -> tuple[float, float]:
    sig = spec.get("sigfigs")
    if sig is not None and math.isfinite(b) and b != 0:
        half = 0.5 * 10.0 ** (math.floor(math.log10(abs(b))) - int(sig) + 1)
        # A few ulps of slack: a value exactly halfway (0.125 to 2 figures) may be rounded either way,
        # and |a - b| for 0.13 - 0.125 comes out a hair above 0.005 in binary floating point.
        return 0.0, half * (1 + 1e-9) + 4 * sys.float_info.epsilon * abs(b)
    return c.tolerance(spec, DEFAULT_RTOL, DEFAULT_ATOL)


def _needed_sigfigs(b: float, tol: float) -> int:
    if b == 0 or tol <= 0:
        return 15
    return max(1, min(17, math.ceil(math.log10(abs(b)) - math.log10(2 * tol)) + 1))


class NumericChecker:
    kind = "numeric"

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

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> float:
        return c.as_float(resolve_value(spec["expected"], params))

    def _mistake_value(self, m: Mapping[str, Any], params: Mapping[str, Any]) -> float:
        if "answer" in m:
            return c.read_number(m["answer"]).value
        return c.as_float(resolve_value(m, params), "mistake")

    def grade(self, parsed: c.TypedNumber, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        a = parsed.value
        b = self.expected(spec, params)
        rtol, atol = _tol_for(spec, b)
        interp = self.interpret(parsed, spec)
        details: dict[str, Any] = {"rtol": rtol, "atol": atol}
        if math.isfinite(a) and math.isfinite(b):
            details["abs_err"] = abs(a - b)
            details["rel_err"] = abs(a - b) / abs(b) if b else None
        if c.num_close(a, b, rtol, atol):
            return Verdict("correct", 1.0, msg("Correct.", "正确。"), None, interp, details)

        for m in spec.get("mistakes") or []:
            try:
                mv = self._mistake_value(m, params)
            except Exception:  # an authoring problem must not turn a learner's answer into a crash
                continue
            if c.num_close(a, mv, rtol, atol):
                return Verdict("incorrect", 0.0, c.mistake_feedback(m), m["note"], interp, details)

        if not math.isfinite(b) or not math.isfinite(a):
            if math.isnan(b):
                fb = msg("Not quite: this quantity is undefined here (nan).", "不对：这里的量没有定义（nan）。")
            elif math.isinf(b):
                fb = msg("Not quite: check whether the quantity is finite.", "不对：检查这个量是否有限。")
            else:
                fb = msg("Expected a finite number.", "应为有限数值。")
            return Verdict("incorrect", 0.0, fb, "nonfinite", interp, details)

        if parsed.half_unit is not None and abs(a - b) <= parsed.half_unit * (1 + 1e-9) \
                and parsed.half_unit > atol + rtol * abs(b):
            need = _needed_sigfigs(b, atol + rtol * abs(b))
            if spec.get("sigfigs"):
                need = int(spec["sigfigs"])
            return Verdict("incorrect", 0.0,
                           msg(f"Too few digits to check: give at least {need} significant figures.",
                               f"位数不够，无法判定：请至少给出 {need} 位有效数字。"),
                           "insufficient_precision", interp, {**details, "needed_sigfigs": need})

        hint = c.ratio_hint(a, b, rtol)
        if hint is not None:
            note, fb = hint
            return Verdict("incorrect", 0.0, fb, note, interp, details)
        return Verdict("incorrect", 0.0, msg("Not correct.", "不正确。"), None, interp, details)

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
            if not c.num_close(mv, b, *_tol_for(spec, b)):
                ex.incorrect.append((repr(mv) if math.isfinite(mv) else c.fmt(mv), m["note"]))
        ex.invalid += ["", "abc(", "1 +", True]
        return ex


register_checker(NumericChecker())
