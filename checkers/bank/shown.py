"""An expected value as a person reads it: plain text for self-test reports and the authoring preview.

``repr`` of a computed value is Python's, not a learner's or an author's: ``-0.01799999999999997`` (float
noise from the arithmetic that produced it), ``{'text': ..., 'mathml': ...}`` (a symbolic part's expected
form), ``None``. :func:`shown_value` gives what a learner would read instead:

* a float at 12 significant digits, then shortest round trip (``-0.018``, ``-0.07`` for
  ``-0.06999999999999994``): a float64 carries 15 to 17 digits and the last few hold the rounding noise of
  the arithmetic that computed the value, while no part asks for more than a handful of figures (its
  tolerance); whole numbers without ``.0``;
* lists as ``[a, b]`` (nested the same way, like ``checkers.params.format_value``);
* a symbolic expected form as its typed text, a derivation as ``start → goal``, a code part by its
  function's name;
* no value as an em dash.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

__all__ = ["shown_number", "shown_value", "NO_VALUE"]

NO_VALUE = "\u2014"
SIGNIFICANT = 12


def shown_number(x: float | int) -> str:
    """``x`` at :data:`SIGNIFICANT` significant digits, shortest round trip: ``-0.01799999999999997`` ->
    ``-0.018``, ``3.0`` -> ``3``."""
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return str(x)
    x = float(x)
    if not math.isfinite(x):
        return repr(x)
    clean = float(f"{x:.{SIGNIFICANT}g}")
    if clean.is_integer() and abs(clean) < 1e15:
        return str(int(clean))
    return repr(clean)


def shown_value(value: Any) -> str:
    """``value`` as plain text a learner would read (see the module's docstring)."""
    if value is None:
        return NO_VALUE
    if isinstance(value, (bool, int, float)):
        return shown_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        if isinstance(value.get("text"), str):
            return value["text"]
        if "start" in value and "goal" in value:
            return f"{value['start']} \u2192 {value['goal']}"
        if isinstance(value.get("name"), str) and "solution" in value:
            return f"{value['name']}(...)"
        if "reference" in value:
            return shown_value(value["reference"])
        return ", ".join(f"{k}: {shown_value(v)}" for k, v in value.items())
    return str(value)
