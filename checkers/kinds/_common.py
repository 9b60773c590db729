"""Helpers shared by the kinds: spec checks, known mistakes, number reading and display."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from ..limits import MAX_SHORT_ANSWER
from ..mathparse import evaluate_numeric  # the safe parser; maths such as ln(2)/2
from ..params import substitute_text
from ..verdict import AnswerParseError, SpecError, msg

NOTE_RE = re.compile(r"^[a-z0-9-]+$")

_NONFINITE = {
    "nan": math.nan, "+nan": math.nan, "-nan": math.nan,
    "inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf, "∞": math.inf,
    "+∞": math.inf, "-inf": -math.inf, "-infinity": -math.inf, "-∞": -math.inf, "−inf": -math.inf,
    "−∞": -math.inf,
}
# A plain decimal literal: the only form whose typed precision we can judge.
DECIMAL_RE = re.compile(r"^[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d{1,4}))?$")


def require_message(value: Any, where: str) -> None:
    if not (isinstance(value, Mapping) and isinstance(value.get("en"), str) and isinstance(value.get("zh"), str)):
        raise SpecError(f"{where}: needs {{en: ..., zh: ...}}")


def validate_mistakes(spec: Mapping[str, Any], value_keys: tuple[str, ...]) -> None:
    """Every mistake has a note id, bilingual feedback and exactly one of ``value_keys``."""
    mistakes = spec.get("mistakes") or []
    if not isinstance(mistakes, list):
        raise SpecError("mistakes: must be a list")
    seen = set()
    for i, m in enumerate(mistakes):
        where = f"mistakes[{i}]"
        if not isinstance(m, Mapping):
            raise SpecError(f"{where}: must be a mapping")
        note = m.get("note")
        if not (isinstance(note, str) and NOTE_RE.match(note)):
            raise SpecError(f"{where}.note: needs an id matching [a-z0-9-]+")
        if note in seen:
            raise SpecError(f"{where}.note: {note!r} used twice")
        seen.add(note)
        require_message(m.get("feedback"), f"{where}.feedback")
        present = [k for k in value_keys if k in m]
        if len(present) != 1:
            raise SpecError(f"{where}: needs exactly one of {', '.join(value_keys)}")


def tolerance(spec: Mapping[str, Any], rtol: float, atol: float) -> tuple[float, float]:
    tol = spec.get("tolerance") or {}
    if not isinstance(tol, Mapping):
        raise SpecError("tolerance: must be a mapping with rtol/atol")
    r, a = tol.get("rtol", rtol), tol.get("atol", atol)
    for name, v in (("rtol", r), ("atol", a)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or not math.isfinite(v):
            raise SpecError(f"tolerance.{name}: must be a finite number >= 0")
    return float(r), float(a)


def as_float(value: Any, where: str = "expected") -> float:
    """A resolved value spec that must be one number (a 1-element list counts)."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, str) and value.strip().lower() in _NONFINITE:
            return _NONFINITE[value.strip().lower()]
        raise SpecError(f"{where}: must resolve to a single number, got {type(value).__name__}")
    return float(value)


@dataclass
class TypedNumber:
    value: float
    text: str
    half_unit: float | None = None   # half a unit in the last typed place (plain decimals only)
    sigfigs: int | None = None       # significant figures typed (plain decimals only)
    literal: bool = True             # False when the text was maths, evaluated by the parser


def read_number(raw: Any, field: str | None = None) -> TypedNumber:
    """A learner's scalar: a number, ``nan``/``inf``, a decimal literal or plain maths."""
    if isinstance(raw, bool):
        raise AnswerParseError("Expected a number, not true/false.", None, field=field)
    if isinstance(raw, (int, float)):
        try:
            return TypedNumber(float(raw), repr(raw), None, None, True)
        except (OverflowError, ValueError):  # an int beyond float range (or beyond int->str limits)
            raise AnswerParseError("The number is too large.", None, field=field) from None
    if not isinstance(raw, str):
        raise AnswerParseError("Expected a number.", None, field=field)
    text = raw.strip()
    if not text:
        raise AnswerParseError("The answer is empty.", 0, field=field)
    if len(text) > MAX_SHORT_ANSWER:
        raise AnswerParseError("The answer is too long (%(length)s characters).", MAX_SHORT_ANSWER,
                               field=field, length=len(text))
    low = text.lower().replace(" ", "")
    if low in _NONFINITE:
        return TypedNumber(_NONFINITE[low], text, None, None, True)
    m = DECIMAL_RE.match(text)
    if m and (m.group("int") or m.group("frac")):
        value = float(text)
        if not math.isfinite(value):  # a finite literal beyond float range: not what was typed
            raise AnswerParseError("The number is too large.", None, field=field)
        digits = (m.group("int") or "") + (m.group("frac") or "")
        stripped = digits.lstrip("0")
        sig = len(stripped) if stripped else 1
        exp = int(m.group("exp") or 0)
        frac_len = len(m.group("frac") or "")
        half = 0.5 * 10.0 ** (exp - frac_len)
        return TypedNumber(value, text, half, sig, True)
    value = evaluate_numeric(text, {})
    if isinstance(value, complex):
        raise AnswerParseError("The answer is not a real number.", None, field=field)
    return TypedNumber(float(value), text, None, None, False)


def fmt(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.6g}"


def mathml_number(x: float) -> str:
    s = fmt(x)
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML"><mn>{s}</mn></math>'


def same_nonfinite(a: float, b: float) -> bool | None:
    """True/False when either side is nan/inf (nan matches only nan, inf only the same inf); None otherwise."""
    if math.isnan(b) or math.isnan(a):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(b) or math.isinf(a):
        return a == b
    return None


def num_close(a: float, b: float, rtol: float, atol: float) -> bool:
    nf = same_nonfinite(a, b)
    if nf is not None:
        return nf
    return abs(a - b) <= atol + rtol * abs(b)


LN2 = math.log(2)


def ratio_hint(a: float, b: float, rtol: float) -> tuple[str, dict[str, str]] | None:
    """A specific message for common slips when ``a`` is wrong: factor 2, bits/nats, sign, powers of 10."""
    if not (math.isfinite(a) and math.isfinite(b)) or b == 0 or a == 0:
        return None
    r = a / b
    tol = max(rtol * 3, 1e-3)

    def near(x):
        return abs(r - x) <= tol * abs(x)

    if near(-1):
        return "wrong-sign", msg("The magnitude is right but the sign is wrong.")
    if near(2) or near(0.5):
        return "factor-2", msg("Off by a factor of 2: check for a missing or extra 1/2 (or 2).")
    if near(1 / LN2):
        return "bits-vs-nats", msg("Your answer is the expected value divided by ln 2: you answered in bits, "
                                   "nats (natural log) expected.")
    if near(LN2):
        return "bits-vs-nats", msg("Your answer is the expected value times ln 2: you answered in nats, "
                                   "bits (log base 2) expected.")
    for k in (1, 2, 3):
        if near(10.0 ** k) or near(10.0 ** -k):
            return "power-of-ten", msg("Off by a factor of 10^%(power)s: check units and the decimal point.",
                                       power=k)
    return None


def mistake_feedback(m: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, str]:
    """A known mistake's feedback in every language, its ``{{name}}`` placeholders filled with the variant's
    parameters like every other text of the question. One that does not fill (an authoring error: the bank
    self-test fills every feedback for every seed and names it) is left as written, so the learner still
    gets the verdict, its note and the rest of the text."""
    return msg(*(_filled(str(m["feedback"][lang]), params) for lang in ("en", "zh")))


def _filled(text: str, params: Mapping[str, Any]) -> str:
    try:
        return substitute_text(text, params)
    except SpecError:
        return text
