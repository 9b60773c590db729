"""Comparing a claimed tensor with the reference engine's: the tolerance rule and the error measures.

This is the one comparison of the verify endpoint (``POST /api/v1/verify/<name>``) and of the ``code``
kind (a learner's outputs and gradients against the engine's), so both report the same verdict and the
same numbers for the same pair of arrays. The ``array`` kind applies the same rule and measures element by
element in plain Python (an array answer is graded without loading torch); tests hold all three equal.

**Tolerance rule**, element by element, ``a`` the claim and ``b`` the reference::

    close(a, b)  <=>  a and b are both NaN,  or  a == b (equal infinities included),
                      or  |a - b| <= atol + rtol * |b|

This is ``torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)`` (PyTorch, ``torch.isclose``) and
the scalar rule of the numeric and array kinds (:func:`checkers.kinds._common.num_close`, pure Python so
those kinds never load torch; ``tests/checkers/test_tensor_compare.py`` holds the two equal). The band is
measured on the reference, not on the claim: the reference is the ground truth, and a claim must not widen
its own tolerance by being large. (The symbolic kinds' sample-point agreement,
:func:`checkers.equivalence.evaluator.close`, is symmetric instead: there neither side is a reference.)

Default tolerances (:func:`default_tolerance`) live in :mod:`checkers.limits`: rtol 1e-6, atol 1e-8 for a
float64 reference, rtol 1e-4, atol 1e-6 where the reference is float32 (about 7 significant digits, of
which a few are spent by the rounding of each operation).

**Error measures**, reported whether or not the tensors match, in float64 (a float32 value converts
exactly)::

    e_i = 0 where a_i and b_i are both NaN or equal, else |a_i - b_i|   (+inf where that is NaN)
    r_i = 0 where e_i = 0, else e_i / |b_i|             (+inf where b_i is 0, infinite or NaN)
    max_abs_err = max_i e_i,   max_rel_err = max_i r_i                  (0 for empty tensors)

``mismatches`` counts the elements that are not close, ``first_mismatch`` is the index (row-major) of the
first, with ``expected_value`` and ``got_value`` there. Tensors of different shapes are not compared
element by element (no broadcasting): ``reason`` is ``"shape"``, ``mismatches`` the larger element count
and the errors are None; a claim that is no tensor at all (a malformed reply) has ``reason``
``"not_a_tensor"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from .limits import TENSOR_ATOL, TENSOR_ATOL_FLOAT32, TENSOR_RTOL, TENSOR_RTOL_FLOAT32


def default_tolerance(dtype: torch.dtype | str) -> tuple[float, float]:
    """``(rtol, atol)`` for a reference of ``dtype``: looser for float32 (and lower precisions)."""
    name = str(dtype).replace("torch.", "")
    if name in ("float32", "float16", "bfloat16"):
        return TENSOR_RTOL_FLOAT32, TENSOR_ATOL_FLOAT32
    return TENSOR_RTOL, TENSOR_ATOL


def close_mask(got: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float) -> torch.Tensor:
    """The tolerance rule elementwise (same shapes, compared in float64)."""
    return torch.isclose(got.to(torch.float64), expected.to(torch.float64), rtol=rtol, atol=atol,
                         equal_nan=True)


def _number(x: float) -> float | str:
    """A float as JSON carries it: non-finite ones as the strings "nan", "inf", "-inf"."""
    return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


@dataclass(frozen=True)
class Comparison:
    """The outcome of :func:`compare` (see the module docstring for each measure)."""

    match: bool
    mismatches: int
    expected_shape: list[int]
    shape: list[int] | None = None             # the claim's shape; None when it is no tensor
    max_abs_err: float | None = None           # None when the shapes differ
    max_rel_err: float | None = None
    first_mismatch: list[int] | None = None
    expected_value: float | None = None        # at first_mismatch
    got_value: float | None = None
    reason: str | None = None                  # "shape" or "not_a_tensor": no element comparison

    def to_json(self) -> dict[str, Any]:
        """The report both callers send: non-finite numbers as strings; absent keys are not applicable."""
        out: dict[str, Any] = {"match": self.match, "mismatches": self.mismatches,
                               "first_mismatch": self.first_mismatch,
                               "max_abs_err": None if self.max_abs_err is None else _number(self.max_abs_err),
                               "max_rel_err": None if self.max_rel_err is None else _number(self.max_rel_err),
                               "expected_shape": self.expected_shape, "shape": self.shape}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.first_mismatch is not None:
            out["expected_value"] = _number(float(self.expected_value))
            out["got_value"] = _number(float(self.got_value))
        return out

    def sentence(self, rtol: float, atol: float) -> str | None:
        """What differs, in one English sentence (None when the tensors match)."""
        if self.match:
            return None
        if self.reason == "not_a_tensor":
            return "not a tensor of numbers"
        if self.reason == "shape":
            return f"shape mismatch: claimed {self.shape}, expected {self.expected_shape}"
        return f"{self.mismatches} element(s) differ beyond rtol={rtol:g}, atol={atol:g}"


def compare(expected: torch.Tensor, got: torch.Tensor | None, rtol: float, atol: float) -> Comparison:
    """The claim ``got`` against the reference ``expected`` under ``rtol``/``atol`` (any device: both are
    brought to the CPU in float64 first)."""
    exp = expected.detach().cpu().to(torch.float64)
    expected_shape = list(exp.shape)
    if got is None:
        return Comparison(False, exp.numel(), expected_shape, reason="not_a_tensor")
    claim = got.detach().cpu().to(torch.float64)
    if claim.shape != exp.shape:
        return Comparison(False, max(exp.numel(), claim.numel()), expected_shape, list(claim.shape),
                          reason="shape")
    bad = ~close_mask(claim, exp, rtol, atol)
    identical = (torch.isnan(claim) & torch.isnan(exp)) | (claim == exp)
    abs_err = torch.where(identical, torch.zeros_like(exp), (claim - exp).abs())
    abs_err = torch.where(torch.isnan(abs_err), math.inf, abs_err)   # NaN against a number
    rel_err = torch.where(abs_err == 0, torch.zeros_like(exp), abs_err / exp.abs())
    rel_err = torch.where(torch.isnan(rel_err), math.inf, rel_err)   # inf / inf, inf / NaN
    mismatches = int(bad.sum())
    empty = exp.numel() == 0
    result = Comparison(mismatches == 0, mismatches, expected_shape, list(claim.shape),
                        0.0 if empty else float(abs_err.max()), 0.0 if empty else float(rel_err.max()))
    if not mismatches:
        return result
    index = [int(i) for i in torch.nonzero(bad)[0].tolist()]
    return Comparison(False, mismatches, expected_shape, list(claim.shape), result.max_abs_err,
                      result.max_rel_err, index, float(exp[tuple(index)]), float(claim[tuple(index)]))
