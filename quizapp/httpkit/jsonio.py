"""JSON in and out: the app's JSON provider (request bodies that cannot be read are a client error, never a
crash) and :func:`json_safe`, the plain JSON values of what the service stores, answers or queues (verdicts,
views, answers, engine results; plain Python), which the services, the grading backends and the blueprints
import from here, below each of them."""

from __future__ import annotations

import math
import numbers
from dataclasses import fields, is_dataclass
from typing import Any

from flask.json.provider import DefaultJSONProvider


class BoundedJSONProvider(DefaultJSONProvider):
    """``DefaultJSONProvider`` whose ``loads`` turns a body nested too deeply for the decoder into a
    ``ValueError``, which Flask reports as 400 (``request.get_json``) or ``None`` (``silent=True``)."""

    sort_keys = False   # keep the order the service builds responses in

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None


def shallow_fields(obj: Any) -> dict[str, Any]:
    """A dataclass instance's fields, one level deep: the callers convert the values themselves, recursively
    (``dataclasses.asdict`` would deep-copy every value first, and a verdict is converted on every submit)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


_PLAIN = (str, int, bool, type(None))


def json_safe(obj: Any) -> Any:
    """Dataclasses -> dicts, tuples -> lists, non-finite floats -> "nan"/"inf"/"-inf", others -> str."""
    # Exact built-in types first: a verdict is dozens of nested plain values, and each submit converts it.
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): json_safe(v) for k, v in obj.items()}
    if kind is list:
        return [json_safe(v) for v in obj]
    if kind is float and math.isfinite(obj):
        return obj
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = shallow_fields(obj)
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    try:  # numpy / torch scalars
        if isinstance(obj, numbers.Integral):
            return int(obj)
        if isinstance(obj, numbers.Real):
            return json_safe(float(obj))
    except Exception:  # noqa: BLE001
        pass
    if hasattr(obj, "tolist"):
        return json_safe(obj.tolist())
    return str(obj)
