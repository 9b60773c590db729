"""Argument conversion and validation shared by every engine family.

Conversions never detach: a tensor that already requires grad is only cast/moved, which autograd
tracks, so gradients flow back to the caller's tensor.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Hashable, Sequence

import torch

from .errors import ReferenceInputError

if TYPE_CHECKING:  # pragma: no cover
    from .registry import Param

PROB_SUM_TOL = 1e-6


@dataclass(frozen=True)
class TensorContext:
    dtype: torch.dtype
    device: torch.device

    def tensor(self, value: Any) -> torch.Tensor:
        return torch.as_tensor(value, dtype=self.dtype, device=self.device)


def resolve_device(device: Any = None) -> torch.device:
    """``device`` argument, else ``QUIZ_DEVICE``, else CUDA when available, else CPU."""
    spec = device if device not in (None, "") else os.environ.get("QUIZ_DEVICE") or None
    if spec is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(str(spec))
    except (RuntimeError, ValueError):
        raise ReferenceInputError("device", f"not a torch device: {spec!r}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ReferenceInputError("device", "CUDA was requested but is not available")
    if dev.type not in ("cpu", "cuda"):
        raise ReferenceInputError("device", f"unsupported device type {dev.type!r}")
    return dev


def _decode_nonfinite(value: Any, name: str) -> Any:
    """Nested lists may carry non-finite floats as the strings 'nan', 'inf', '-inf' (contract §2)."""
    if isinstance(value, str):
        table = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
                 "infinity": math.inf, "-infinity": -math.inf}
        key = value.strip().lower()
        if key in table:
            return table[key]
        raise ReferenceInputError(name, f"expected a number, got the string {value!r}")
    if isinstance(value, (list, tuple)):
        return [_decode_nonfinite(v, name) for v in value]
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return value
    if value is None:
        raise ReferenceInputError(name, "expected a number, got null")
    raise ReferenceInputError(name, f"expected a number or nested list of numbers, got {type(value).__name__}")


def as_tensor(value: Any, name: str, ctx: TensorContext) -> torch.Tensor:
    """Convert ``value`` (tensor, number or nested list) to a floating tensor of ``ctx``."""
    if isinstance(value, torch.Tensor):
        t = value
        if t.is_complex():
            raise ReferenceInputError(name, "complex tensors are not supported")
        return t.to(device=ctx.device, dtype=ctx.dtype)
    decoded = _decode_nonfinite(value, name)
    try:
        t = torch.tensor(decoded, dtype=ctx.dtype, device=ctx.device)
    except (ValueError, TypeError, RuntimeError, OverflowError):
        raise ReferenceInputError(name, "must be a number or a rectangular nested list of numbers") from None
    # No size cap here: notebook users pass real batches; the HTTP layer bounds request size (contract §2).
    return t


def as_labels(value: Any, name: str, ctx: TensorContext) -> torch.Tensor:
    """Group labels (any hashables, contract §1) -> int64 group ids 0..G-1 in order of first appearance."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 1:
            raise ReferenceInputError(name, "must be one-dimensional")
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise ReferenceInputError(name, "must be a list of group labels")
    ids: dict[Hashable, int] = {}
    out = []
    for label in value:
        if isinstance(label, (list, dict, set)):
            raise ReferenceInputError(name, "labels must be ints or strings")
        if isinstance(label, float) and label.is_integer():
            label = int(label)
        out.append(ids.setdefault(label, len(ids)))
    return torch.tensor(out, dtype=torch.int64, device=ctx.device)


def coerce_argument(param: "Param", value: Any, ctx: TensorContext) -> Any:
    kind, name = param.kind, param.name
    if kind == "tensor":
        return as_tensor(value, name, ctx)
    if kind == "tensor_or_float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return as_tensor(value, name, ctx)
    if kind == "labels":
        return as_labels(value, name, ctx)
    if kind == "float":
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            return float(value.item())
        if isinstance(value, str):
            value = _decode_nonfinite(value, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ReferenceInputError(name, "must be a number")
        return float(value)
    if kind == "int":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ReferenceInputError(name, "must be an integer")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ReferenceInputError(name, "must be true or false")
        return value
    if kind == "str":
        if not isinstance(value, str):
            raise ReferenceInputError(name, "must be a string")
        return value
    if kind == "choice":
        if param.choices is not None and value not in param.choices:
            allowed = ", ".join(repr(c) for c in param.choices)
            raise ReferenceInputError(name, f"must be one of {allowed}, got {value!r}")
        return value
    if kind == "list":
        if not isinstance(value, (list, tuple)):
            raise ReferenceInputError(name, "must be a list")
        return list(value)
    raise AssertionError(kind)


# --- validation helpers used by the family modules -------------------------------------------------

def require_same_shape(**tensors: torch.Tensor) -> None:
    """All given tensors share one shape; the error names the first one that differs."""
    items = [(k, v) for k, v in tensors.items() if v is not None]
    if not items:
        return
    ref_name, ref = items[0]
    for name, t in items[1:]:
        if t.shape != ref.shape:
            raise ReferenceInputError(
                name, f"shape {tuple(t.shape)} does not match {ref_name}'s shape {tuple(ref.shape)}")


def require_ndim(t: torch.Tensor, name: str, ndims: int | Sequence[int]) -> None:
    allowed = (ndims,) if isinstance(ndims, int) else tuple(ndims)
    if t.dim() not in allowed:
        want = " or ".join(str(n) for n in allowed)
        raise ReferenceInputError(name, f"must have {want} dimension(s), got shape {tuple(t.shape)}")


def require_mask(mask: torch.Tensor, name: str = "mask") -> None:
    """A mask holds only 0 and 1."""
    with torch.no_grad():
        ok = ((mask == 0) | (mask == 1)).all().item()
    if not ok:
        raise ReferenceInputError(name, "must contain only 0 and 1")


def require_finite(t: torch.Tensor, name: str) -> None:
    with torch.no_grad():
        if not torch.isfinite(t).all().item():
            raise ReferenceInputError(name, "must be finite")


def require_distribution(p: torch.Tensor, name: str, tol: float = PROB_SUM_TOL) -> None:
    """Non-negative entries that sum to 1 along the last axis (within ``tol``)."""
    if p.dim() == 0:
        raise ReferenceInputError(name, "must have at least one dimension (the support)")
    with torch.no_grad():
        if not torch.isfinite(p).all().item():
            raise ReferenceInputError(name, "must be finite")
        if (p < 0).any().item():
            raise ReferenceInputError(name, "probabilities must be non-negative")
        total = p.sum(-1)
        worst = (total - 1).abs().max().item()
    if worst > tol:
        raise ReferenceInputError(name, f"probabilities must sum to 1 along the last axis (off by {worst:.3g})")


def require_positive(value: float | torch.Tensor, name: str, allow_zero: bool = False) -> None:
    with torch.no_grad():
        v = value if isinstance(value, torch.Tensor) else torch.tensor(float(value))
        bad = (v < 0).any().item() if allow_zero else (v <= 0).any().item()
        if torch.isnan(v).any().item():
            bad = True
    if bad:
        raise ReferenceInputError(name, "must be non-negative" if allow_zero else "must be positive")


def require_choice(value: Any, name: str, choices: Sequence[Any]) -> None:
    """``value`` is one of ``choices`` (for helpers called directly, outside the registry's coercion)."""
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ReferenceInputError(name, f"must be one of {allowed}, got {value!r}")
