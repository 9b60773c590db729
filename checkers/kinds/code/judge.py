"""One case of a code exercise judged: the sealed child's reply read back and compared with the engine.

Each graded output, and in a gradient case each gradient, is compared by :mod:`checkers.tensor_compare`
(the rule and the error measures of the verify endpoint) at the default tolerances of the case's dtype.
Where the engine detaches an output (every advantage estimator: upstream computes them under
``no_grad``), the learner's output must not carry a gradient back to the inputs either (``not_detached``).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from ... import tensor_compare
from .cases import Case, CaseBuilder, Reference

SHOW_INPUT_NUMBERS = 48         # the inputs of a failing case are quoted when this small


def tensor_from(reply: Any) -> torch.Tensor | None:
    """A learner tensor from the child's JSON ``{"shape", "data"}`` (row-major, non-finite numbers as the
    strings "nan", "inf", "-inf"), in float64; None when the reply is not well formed."""
    if not isinstance(reply, dict):
        return None
    shape, data = reply.get("shape"), reply.get("data")
    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)
            and isinstance(data, list) and len(data) == math.prod(shape)):
        return None
    try:
        flat = [float(x) for x in data]   # "nan"/"inf"/"-inf" strings read as the floats they name
    except (TypeError, ValueError):
        return None
    return torch.tensor(flat, dtype=torch.float64).reshape(shape)


def compare_reply(expected: torch.Tensor, reply: Any, dtype: str) -> dict[str, Any]:
    """One output or gradient of the child's reply against the engine's: the comparison's report."""
    return tensor_compare.compare(expected, tensor_from(reply), *tensor_compare.default_tolerance(dtype)).to_json()


def replies_match(expected: dict[str, torch.Tensor], reply: dict, outputs: list[str], dtype: str) -> bool:
    """Whether every output of ``reply`` is within tolerance of ``expected`` (another reference's outputs)."""
    rtol, atol = tensor_compare.default_tolerance(dtype)
    return all(tensor_compare.compare(expected[n], tensor_from((reply.get("outputs") or {}).get(n)),
                                      rtol, atol).match for n in outputs)


def _brief(t: torch.Tensor) -> Any:
    """A small input as nested lists, non-finite numbers as strings (JSON-safe)."""
    def conv(x: Any) -> Any:
        if isinstance(x, list):
            return [conv(y) for y in x]
        x = float(x)
        return x if math.isfinite(x) else str(x)
    return conv(t.tolist())


def judge_case(builder: CaseBuilder, case: Case, reply: dict, reference: Reference, outputs: list[str]
               ) -> dict[str, Any]:
    """The case's row: ``ok``, a comparison per output (``outputs``) and per gradient (``grads``), the
    outputs that should be detached and are not (``not_detached``), and a failing case's small inputs."""
    row: dict[str, Any] = {"id": case.id, "label": case.label, "ok": True, "outputs": {}, "grads": {}}
    for name in outputs:
        cmp = compare_reply(reference.outputs[name], (reply.get("outputs") or {}).get(name), case.dtype)
        row["outputs"][name] = cmp
        row["ok"] &= cmp["match"]
    if case.grad:
        attached = reply.get("attached") if isinstance(reply.get("attached"), dict) else {}
        # The engine's output is detached (upstream computes it under no_grad): the learner's must be too.
        leaking = [n for n in outputs if not reference.attached[n] and attached.get(n) is True]
        if leaking:
            row["not_detached"] = leaking
            row["ok"] = False
        for name, ref in reference.grads.items():
            raw = (reply.get("grads") or {}).get(name, "missing")
            if raw is None:   # the learner's output does not depend on this input: its gradient is zero
                raw = {"shape": list(ref.shape), "data": [0.0] * ref.numel()}
            cmp = compare_reply(ref, raw, case.dtype)
            row["grads"][name] = cmp
            row["ok"] &= cmp["match"]
    if not row["ok"]:
        row["inputs"] = {k: _brief(v) for k, v in builder.typed(case).items()
                         if sum(t.numel() for t in case.tensors.values()) <= SHOW_INPUT_NUMBERS}
        row["inputs"].update(case.scalars)
    return row
