"""The reference engine over HTTP (docs/reference.md, "Calling it").

Tensors travel as nested lists; non-finite floats as the strings "nan", "inf", "-inf" in both
directions. 404 for an unknown function (the body lists the names), 422 for bad arguments (naming the
field), 413 for more than 1,000,000 elements in one request.
"""

from __future__ import annotations

import math
from typing import Any

from flask import current_app

from ..config import REFERENCE_MAX_ELEMENTS as MAX_ELEMENTS
from ..errors import NotFound, PayloadTooLarge, ValidationError
from ..httpkit.jsonio import json_safe
from . import bp
from ..httpkit.jsonapi import check_unknown, json_body, ok
NONFINITE = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
             "infinity": math.inf, "-infinity": -math.inf}


def _engine():
    from checkers import reference  # local: torch, imported by the first engine call, not at app start-up

    return reference


def count_elements(value: Any) -> int:
    """Scalars in a JSON value (lists and objects walked iteratively)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            count += 1
    return count


def _check_size(body: Any) -> None:
    n = count_elements(body)
    if n > MAX_ELEMENTS:
        raise PayloadTooLarge(f"{n} elements in one request; the limit is {MAX_ELEMENTS:,}", None,
                              code="too_many_elements")


def _known(name: str):
    engine = _engine()
    if name not in engine.names():
        names = engine.names()
        raise NotFound(f"no reference function {name!r}; GET /api/v1/reference lists them", "name",
                       code="unknown_function", extra={"names": names})
    return engine


def encode_tensor(t: Any) -> Any:
    """A tensor (or number) as JSON: nested lists, non-finite floats as strings."""
    import torch  # local: loaded with the engine, never at app start-up

    if isinstance(t, torch.Tensor):
        t = t.detach().cpu()
        if t.is_floating_point() and bool(torch.isfinite(t).all()):
            return t.tolist()
        return json_safe(t.tolist())
    return json_safe(t)


def _call(engine, name: str, kwargs: dict[str, Any], field_prefix: str = "") -> dict[str, Any]:
    device = current_app.config.get("QUIZ_DEVICE")
    if device and "device" not in kwargs:
        kwargs = {**kwargs, "device": device}
    try:
        return engine.call(name, **kwargs)
    except engine.ReferenceInputError as exc:
        where = f"{field_prefix}{exc.argument}" if exc.argument else (field_prefix.rstrip(".") or None)
        raise ValidationError(exc.reason if exc.argument else str(exc), where, code="invalid_argument") from None


@bp.get("/reference")
def reference_list():
    engine = _engine()
    return ok({"functions": [json_safe(engine.describe(n)) for n in engine.names()]})


@bp.post("/reference/<name>")
def reference_call(name: str):
    engine = _known(name)
    body = json_body()
    _check_size(body)
    outputs = _call(engine, name, body)
    return ok({"function": name, "outputs": {k: encode_tensor(v) for k, v in outputs.items()}})


def _decode(value: Any, path: str) -> Any:
    if isinstance(value, list):
        return [_decode(v, path) for v in value]
    if isinstance(value, str):
        key = value.strip().lower()
        if key in NONFINITE:
            return NONFINITE[key]
        raise ValidationError(f"expected a number, got the string {value!r}", path)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValidationError("expected a number or a nested list of numbers", path)
    return float(value)


def _tolerance(body: dict, name: str) -> float | None:
    """The request's ``rtol``/``atol``; None: the default for each output's dtype."""
    if name not in body:
        return None
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValidationError(f"{name} must be a non-negative number", name)
    return float(value)


def compare(expected_t: Any, claimed_raw: Any, path: str, rtol: float | None, atol: float | None
            ) -> dict[str, Any]:
    """One output's comparison (:mod:`checkers.tensor_compare`: the rule and the measures the code kind
    reports too), with the tolerances used, both tensors, and an English ``message`` when they differ."""
    import torch  # local: loaded with the engine, never at app start-up

    from checkers import tensor_compare  # local: imports torch

    expected = expected_t.detach().cpu() if isinstance(expected_t, torch.Tensor) \
        else torch.tensor(float(expected_t), dtype=torch.float64)
    try:
        claimed = torch.tensor(_decode(claimed_raw, path), dtype=torch.float64)
    except (ValueError, TypeError):
        raise ValidationError("must be a number or a rectangular nested list of numbers", path) from None
    default_rtol, default_atol = tensor_compare.default_tolerance(expected.dtype)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    outcome = tensor_compare.compare(expected, claimed, rtol, atol)
    result = outcome.to_json()
    message = outcome.sentence(rtol, atol)
    if message is not None:
        result["message"] = message
    result.update(rtol=rtol, atol=atol, expected=encode_tensor(expected.to(torch.float64)),
                  claimed=encode_tensor(claimed))
    return result


@bp.post("/verify/<name>")
def verify(name: str):
    engine = _known(name)
    body = json_body()
    check_unknown(body, {"args", "claimed", "rtol", "atol"})
    _check_size(body)
    args = body.get("args", {})
    if not isinstance(args, dict):
        raise ValidationError("args must be an object of keyword arguments", "args")
    claimed = body.get("claimed")
    if not isinstance(claimed, dict) or not claimed:
        raise ValidationError("claimed must be an object {output: value} naming at least one output", "claimed")
    rtol, atol = _tolerance(body, "rtol"), _tolerance(body, "atol")
    declared = engine.describe(name)["outputs"]
    for out_name in claimed:
        if out_name not in declared:
            raise ValidationError(f"{name} has no output {out_name!r} (outputs: {', '.join(declared)})",
                                  f"claimed.{out_name}", code="unknown_output")
    outputs = _call(engine, name, args, "args.")
    results = {}
    for out_name, value in claimed.items():
        if out_name not in outputs:
            raise ValidationError(f"{name} does not return {out_name!r} for these arguments",
                                  f"claimed.{out_name}", code="unknown_output")
        results[out_name] = compare(outputs[out_name], value, f"claimed.{out_name}", rtol, atol)
    return ok({"function": name, "match": all(r["match"] for r in results.values()), "outputs": results})
