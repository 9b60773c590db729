"""The one precision rule of numeric answers: what a part asks for, how an answer is judged against it.

A numeric part accepts a *band* around the expected value ``b``:

* ``sigfigs: n`` -> the band is half a unit in the n-th significant figure of ``b``,
  ``|a - b| <= 0.5 * 10^(floor(log10|b|) - n + 1)``;
* otherwise ``tolerance: {rtol, atol}`` -> ``|a - b| <= atol + rtol * |b|`` (the usual ``isclose`` band).

From the band follows the *requirement* stated to the learner before answering, chosen so that the
promise holds for every variant: "give at least n significant figures" where ``n`` is the smallest count
whose rounding error, half a unit in the n-th figure, ``0.5 * 10^(1-n) * |b|`` at most, fits in the
relative band ``rtol * |b|`` (``n = sigfigs`` when the part sets it). With ``rtol = 0`` the band is
absolute and the requirement is decimal places: the smallest ``k`` with ``0.5 * 10^-k <= atol``.
The requirement depends on the tolerance only, never on ``b``, so stating it reveals nothing.

The verdict (:func:`judge`), for a finite answer ``a``:

1. inside the band -> correct, whatever digits were typed (``0.0499`` for ``b = 0.04994`` at
   ``rtol = 1e-3``);
2. outside the band, typed as a plain decimal with fewer digits than required (:func:`short_of`) and
   equal to ``b`` rounded to the typed digits (``|a - b| <=`` half a unit in the last typed place)
   -> "give more digits" (``0.05`` for the same ``b``). It counts as an incorrect attempt: the
   requirement was stated under the input and the preview warned before submitting;
3. anything else -> incorrect (the numeric checker then looks for a known mistake or a slip).

A typed zero has no significant figures to count and is never "too coarse". Maths answers
(``ln(2)/2``) and JSON numbers are exact as written and are judged by the band alone. The preview's
warning (:func:`warning`) is :func:`short_of`, the very test step 2 uses, so a learner the preview
did not warn is never told "give more digits".

Source: the significant-figure convention of ISO 80000-1 Annex B (rounding to n figures) and the
``isclose`` band of numpy/torch (``atol + rtol * |b|``).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Literal, Mapping

from ...verdict import Message, msg
from .. import _common as c

DEFAULT_RTOL, DEFAULT_ATOL = 1e-3, 1e-8
MAX_DIGITS = 17  # a float64 carries at most 17 significant decimal digits
_SLACK = 1 + 1e-9  # float slack on half-unit comparisons: 0.13 - 0.125 is a hair above 0.005 in binary

Mode = Literal["sigfigs", "decimals", "exact"]


@dataclass(frozen=True)
class Requirement:
    """What a part asks of a typed answer: ``digits`` significant figures or decimal places."""

    mode: Mode
    digits: int
    rtol: float
    atol: float
    sigfigs: int | None = None  # set when the part grades by significant figures


def requirement(spec: Mapping[str, Any]) -> Requirement:
    """The stated requirement of a numeric part (tolerance only; independent of the variant)."""
    rtol, atol = c.tolerance(spec, DEFAULT_RTOL, DEFAULT_ATOL)
    sig = spec.get("sigfigs")
    if sig is not None:
        return Requirement("sigfigs", int(sig), rtol, atol, int(sig))
    if rtol > 0:
        for n in range(1, MAX_DIGITS + 1):
            if 0.5 * 10.0 ** (1 - n) <= rtol * _SLACK:
                return Requirement("sigfigs", n, rtol, atol)
        return Requirement("sigfigs", MAX_DIGITS, rtol, atol)
    if atol > 0:
        for k in range(0, MAX_DIGITS + 1):
            if 0.5 * 10.0 ** -k <= atol * _SLACK:
                return Requirement("decimals", k, rtol, atol)
        return Requirement("decimals", MAX_DIGITS, rtol, atol)
    return Requirement("exact", 0, rtol, atol)


def band(spec: Mapping[str, Any], b: float) -> tuple[float, float]:
    """(rtol, atol) of the band around ``b``: ``|a - b| <= atol + rtol * |b|``."""
    sig = spec.get("sigfigs")
    if sig is not None and math.isfinite(b) and b != 0:
        half = 0.5 * 10.0 ** (math.floor(math.log10(abs(b))) - int(sig) + 1)
        # A few ulps of slack: a value exactly halfway (0.125 to 2 figures) may be rounded either way.
        return 0.0, half * _SLACK + 4 * sys.float_info.epsilon * abs(b)
    return c.tolerance(spec, DEFAULT_RTOL, DEFAULT_ATOL)


def typed_digits(parsed: c.TypedNumber, req: Requirement) -> int | None:
    """Significant figures (or decimal places, by ``req.mode``) typed; None when not countable.

    Only a plain decimal literal has countable digits; a typed zero has none worth counting.
    """
    if parsed.half_unit is None or parsed.sigfigs is None or not math.isfinite(parsed.value) \
            or parsed.value == 0:
        return None
    if req.mode == "decimals":
        return -round(math.log10(2 * parsed.half_unit))
    return parsed.sigfigs


def short_of(parsed: c.TypedNumber, req: Requirement) -> int | None:
    """The typed digit count when it is fewer than required (the preview's warning), else None."""
    if req.mode == "exact":
        return None
    typed = typed_digits(parsed, req)
    return typed if typed is not None and typed < req.digits else None


def judge(parsed: c.TypedNumber, b: float, spec: Mapping[str, Any]) -> Literal["correct", "more_digits", "outside"]:
    """Steps 1-2 of the rule (module docstring); "outside" leaves the diagnosis to the checker."""
    rtol, atol = band(spec, b)
    a = parsed.value
    if c.num_close(a, b, rtol, atol):
        return "correct"
    if math.isfinite(a) and math.isfinite(b) and short_of(parsed, requirement(spec)) is not None \
            and abs(a - b) <= parsed.half_unit * _SLACK:
        return "more_digits"
    return "outside"


def _unit(req: Requirement, n: int) -> Message:
    if req.mode == "decimals":
        return msg("decimal place") if n == 1 else msg("decimal places")
    return msg("significant figure") if n == 1 else msg("significant figures")


def _num(x: float) -> str:
    return f"{x:.3g}".replace("e-0", "e-").replace("e+0", "e+")


def statement(spec: Mapping[str, Any]) -> Message:
    """The precision sentence shown under every numeric input, generated from the part's tolerance."""
    req = requirement(spec)
    if req.mode == "exact":
        return msg("Give the exact value: no rounding is accepted.")
    unit = _unit(req, req.digits)
    if req.sigfigs is not None:
        return msg("Give at least %(digits)s %(unit)s (graded to %(digits)s significant figures).",
                   digits=req.digits, unit=unit)
    if req.mode == "decimals" and req.digits == 0:
        return msg("Give a whole number (accepted within ±%(atol)s of the exact value).", atol=_num(req.atol))
    if req.mode == "decimals":
        return msg("Give at least %(digits)s %(unit)s (accepted within ±%(atol)s of the exact value).",
                   digits=req.digits, unit=unit, atol=_num(req.atol))
    pct = f"{req.rtol * 100:.3g} %"
    return msg("Give at least %(digits)s %(unit)s (accepted within %(rtol)s relative or "
               "%(atol)s absolute of the exact value).", digits=req.digits, unit=unit, rtol=pct, atol=_num(req.atol))


def need_more_digits(req: Requirement) -> Message:
    """The grader's feedback for step 2 of the rule."""
    return msg("Too few digits to check: give at least %(digits)s %(unit)s.", digits=req.digits,
               unit=_unit(req, req.digits))


def warning(parsed: c.TypedNumber, spec: Mapping[str, Any]) -> Message | None:
    """The preview's warning when the typed answer has fewer digits than the part asks for."""
    req = requirement(spec)
    typed = short_of(parsed, req)
    if typed is None:
        return None
    return msg("%(answer)s has %(typed)s %(typed_unit)s; this part asks for at least %(digits)s %(unit)s, "
               "so it may be marked too coarse.", answer=parsed.text, typed=typed, typed_unit=_unit(req, typed),
               digits=req.digits, unit=_unit(req, req.digits))
