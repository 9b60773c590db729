"""Masked reductions, whitening and loss aggregation (contract §4, "Masked helpers").

The ``*_t`` functions are plain tensor helpers that other families import; the registered functions
``masked.*`` and ``loss.aggregate`` wrap them. ``mask`` holds 1 for counted tokens and 0 for ignored ones.

Conventions (contract §3):

* ``verl`` (volcengine/verl ``verl/utils/torch_functional.py``): the numerator is
  ``Σ where(m, x, 0)`` (so nan/inf at masked positions are ignored) and the mean divides by
  ``Σ m + 1e-8`` (an empty mask gives 0).
* ``trl`` (TRL ``masked_mean``/``masked_var``/``masked_whiten``) and ``openrlhf``
  (``openrlhf/models/utils.py::masked_mean``): ``Σ m·x / Σ m`` -- a plain product, so a nan/inf at a
  masked position propagates, and an empty mask gives nan.
"""

from __future__ import annotations

from typing import Any

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_choice, require_mask, require_positive, require_same_shape

CONVENTIONS = ("verl", "trl", "openrlhf")
#: Added to the masked count under ``verl`` (``verl_F.masked_mean``).
VERL_MEAN_EPS = 1e-8
#: Added to the variance under the rsqrt when whitening (verl and TRL ``masked_whiten``).
WHITEN_EPS = 1e-8
LOSS_AGG_MODES = ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")


def check_convention(convention: str) -> None:
    require_choice(convention, "convention", CONVENTIONS)


def _check_axis(axis: Any, ndim: int) -> None:
    if axis is None:
        return
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ReferenceInputError("axis", "must be an integer or None")
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ReferenceInputError("axis", f"out of range for a tensor with {ndim} dimension(s)")


def _check_values_mask(values: torch.Tensor, mask: torch.Tensor, values_name: str = "values") -> None:
    require_same_shape(**{values_name: values, "mask": mask})
    require_mask(mask)


def _reduce_sum(t: torch.Tensor, axis: int | None) -> torch.Tensor:
    return t.sum() if axis is None else t.sum(dim=axis)


def masked_sum_t(values: torch.Tensor, mask: torch.Tensor, axis: int | None = None) -> torch.Tensor:
    """Σ where(m, x, 0)·m over ``axis`` (all elements when None), as verl ``masked_sum``.

    ``where`` before the product keeps a nan/inf at a masked position out of the sum (and out of the
    gradient: the masked branch contributes a zero gradient).
    """
    _check_values_mask(values, mask)
    _check_axis(axis, values.dim())
    valid = torch.where(mask != 0, values, torch.zeros((), dtype=values.dtype, device=values.device))
    return _reduce_sum(valid * mask, axis)


def masked_mean_t(values: torch.Tensor, mask: torch.Tensor, axis: int | None = None,
                  convention: str = "verl") -> torch.Tensor:
    """Masked mean over ``axis`` (all elements when None).

    * verl: ``Σ where(m, x, 0)·m / (Σ m + 1e-8)`` (verl ``masked_mean``; empty mask -> 0).
    * trl / openrlhf: ``Σ m·x / Σ m`` (TRL ``masked_mean``, OpenRLHF ``masked_mean``; empty mask -> nan,
      nan/inf at masked positions propagate because 0·inf = nan).
    """
    check_convention(convention)
    _check_values_mask(values, mask)
    _check_axis(axis, values.dim())
    if convention == "verl":
        return masked_sum_t(values, mask, axis) / (_reduce_sum(mask, axis) + VERL_MEAN_EPS)
    return _reduce_sum(values * mask, axis) / _reduce_sum(mask, axis)


def masked_var_t(values: torch.Tensor, mask: torch.Tensor, unbiased: bool = True,
                 convention: str = "verl") -> torch.Tensor:
    """Masked variance over all elements, as verl / TRL ``masked_var``.

    ``mean = masked_mean(x, m)``, ``var = masked_mean((x − mean)², m)``, times the Bessel factor
    ``n/(n − 1)`` with ``n = Σ m`` when ``unbiased``; both means follow ``convention`` (so under verl the
    1e-8 in the denominator is inside the mean *and* the variance before the Bessel factor).
    Upstream raises for ``Σ m = 0`` and divides by zero for ``Σ m = 1``; here both are input errors
    naming ``mask`` when ``unbiased``.
    """
    check_convention(convention)
    _check_values_mask(values, mask)
    mean = masked_mean_t(values, mask, None, convention)
    var = masked_mean_t((values - mean) ** 2, mask, None, convention)
    if unbiased:
        n = mask.sum()
        count = float(n.detach().item())
        if count <= 1:
            raise ReferenceInputError(
                "mask", f"an unbiased variance needs at least 2 counted elements, got {count:g}")
        var = var * (n / (n - 1))
    return var


def masked_whiten_t(values: torch.Tensor, mask: torch.Tensor, shift_mean: bool = True,
                    convention: str = "verl") -> torch.Tensor:
    """Whiten ``values`` with masked statistics.

    * verl / trl (verl and TRL ``masked_whiten``): batch-wide ``(x − mean)·rsqrt(var + 1e-8)`` with the
      unbiased masked variance; ``shift_mean=False`` adds the mean back; masked positions are *not*
      zeroed (they get the same affine map).
    * openrlhf (``openrlhf/models/utils.py::masked_normalize``): per row along the last axis,
      ``mean = Σ m·x / max(Σ m, 1)``, biased ``var = Σ (m·(x − mean))² / max(Σ m, 1)``,
      ``out = m·(x − mean)·rsqrt(max(var, 1e-8))`` -- zero where m = 0. ``shift_mean=False`` (not in
      OpenRLHF) adds the row mean back and re-applies the mask, so masked positions stay 0.
    """
    check_convention(convention)
    _check_values_mask(values, mask)
    if convention == "openrlhf":
        if values.dim() == 0:
            raise ReferenceInputError("values", "must have at least one dimension (the rows' last axis)")
        count = mask.sum(dim=-1, keepdim=True).clamp(min=1)
        mean = (values * mask).sum(dim=-1, keepdim=True) / count
        centered = (values - mean) * mask
        var = (centered ** 2).sum(dim=-1, keepdim=True) / count
        out = centered * var.clamp(min=WHITEN_EPS).rsqrt()
        if not shift_mean:
            out = (out + mean) * mask
        return out
    mean = masked_mean_t(values, mask, None, convention)
    var = masked_var_t(values, mask, True, convention)
    out = (values - mean) * torch.rsqrt(var + WHITEN_EPS)
    if not shift_mean:
        out = out + mean
    return out


def agg_loss_t(loss_mat: torch.Tensor, mask: torch.Tensor, mode: str, dp_size: int = 1,
               batch_num_tokens: float | torch.Tensor | None = None,
               global_batch_size: float | torch.Tensor | None = None,
               loss_scale_factor: float | None = None) -> torch.Tensor:
    """Aggregate a (B, T) loss matrix into a scalar, as verl ``core_algos.agg_loss``.

    * ``token-mean``: ``Σ where(m, L, 0) / N · dp_size`` with ``N = batch_num_tokens`` or ``Σ m``.
    * ``seq-mean-token-sum``: per row ``s_b = Σ_t m·L``; ``Σ_{rows with Σm>0} s_b / G · dp_size`` with
      ``G = global_batch_size`` or the number of rows with a counted token.
    * ``seq-mean-token-mean``: as above with ``s_b = Σ_t m·L / (Σ_t m + 1e-8)``.
    * ``seq-mean-token-sum-norm``: ``Σ_b Σ_t m·L / loss_scale_factor`` (default T); no ``dp_size``.

    An all-zero mask gives 0/0 = nan under the mean modes, as upstream.
    """
    require_choice(mode, "mode", LOSS_AGG_MODES)
    _check_values_mask(loss_mat, mask, "loss_mat")
    if mode != "token-mean" and loss_mat.dim() < 1:
        raise ReferenceInputError("loss_mat", "the seq-mean modes need a (B, T) matrix")
    if isinstance(dp_size, bool) or not isinstance(dp_size, int) or dp_size < 1:
        raise ReferenceInputError("dp_size", "must be a positive integer")
    for name, val in (("batch_num_tokens", batch_num_tokens), ("global_batch_size", global_batch_size),
                      ("loss_scale_factor", loss_scale_factor)):
        if val is not None:
            require_positive(val, name)
    if mode == "token-mean":
        denom = mask.sum() if batch_num_tokens is None else batch_num_tokens
        return masked_sum_t(loss_mat, mask) / denom * dp_size
    # Upstream multiplies here (not ``where``), so it is reproduced as is.
    row_sum = (loss_mat * mask).sum(dim=-1)
    if mode == "seq-mean-token-sum-norm":
        scale = mask.shape[-1] if loss_scale_factor is None else loss_scale_factor
        return row_sum.sum() / scale
    row_count = mask.sum(dim=-1)
    seq_losses = row_sum if mode == "seq-mean-token-sum" else row_sum / (row_count + VERL_MEAN_EPS)
    seq_mask = (row_count > 0).to(loss_mat.dtype)
    denom = seq_mask.sum() if global_batch_size is None else global_batch_size
    return masked_sum_t(seq_losses, seq_mask) / denom * dp_size


# --- registered functions -------------------------------------------------------------------------

#: The inputs and the example every masked.* statistic shares: two rows, partly masked.
_VALUES = Param("values", "tensor", shape="(...)")
_MASK = Param("mask", "tensor", shape="same as values")
_EXAMPLE = {"values": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "mask": [[1, 1, 0], [1, 0, 0]]}
_CONV = Param("convention", "choice", "verl", choices=CONVENTIONS,
              doc="verl: Σm+1e-8 denominator; trl/openrlhf: Σm (see docstring)")


@register("masked.mean",
          params=[_VALUES, _MASK,
                  Param("axis", "int", None, doc="reduce this axis; None: all elements"), _CONV],
          outputs=["mean"],
          examples=[dict(_EXAMPLE)])
def masked_mean(ctx: TensorContext, values: torch.Tensor, mask: torch.Tensor, axis: int | None,
                convention: str) -> dict[str, torch.Tensor]:
    """Masked mean.

    verl: mean = Σ where(m, x, 0)·m / (Σ m + 1e-8) (verl ``verl/utils/torch_functional.py::masked_mean``;
    an empty mask gives 0). trl / openrlhf: mean = Σ m·x / Σ m (TRL ``masked_mean``, OpenRLHF
    ``openrlhf/models/utils.py::masked_mean``; an empty mask gives nan).
    """
    return {"mean": masked_mean_t(values, mask, axis, convention)}


@register("masked.sum",
          params=[_VALUES, _MASK,
                  Param("axis", "int", None, doc="reduce this axis; None: all elements")],
          outputs=["sum"],
          examples=[dict(_EXAMPLE, axis=1)])
def masked_sum(ctx: TensorContext, values: torch.Tensor, mask: torch.Tensor,
               axis: int | None) -> dict[str, torch.Tensor]:
    """Masked sum = Σ where(m, x, 0) (verl ``masked_sum``): nan/inf at masked positions are ignored."""
    return {"sum": masked_sum_t(values, mask, axis)}


@register("masked.var",
          params=[_VALUES, _MASK,
                  Param("unbiased", "bool", True), _CONV],
          outputs=["var"],
          examples=[dict(_EXAMPLE)])
def masked_var(ctx: TensorContext, values: torch.Tensor, mask: torch.Tensor, unbiased: bool,
               convention: str) -> dict[str, torch.Tensor]:
    """Masked variance over all elements (verl / TRL ``masked_var``).

    var = masked_mean((x − μ)², m)·n/(n − 1) with μ = masked_mean(x, m), n = Σ m, the Bessel factor only
    when ``unbiased``; both means follow the convention's masked mean. Σ m ≤ 1 with ``unbiased`` is an
    input error naming ``mask``.
    """
    return {"var": masked_var_t(values, mask, unbiased, convention)}


@register("masked.whiten",
          params=[_VALUES, _MASK,
                  Param("shift_mean", "bool", True), _CONV],
          outputs=["whitened"],
          examples=[dict(_EXAMPLE)])
def masked_whiten(ctx: TensorContext, values: torch.Tensor, mask: torch.Tensor, shift_mean: bool,
                  convention: str) -> dict[str, torch.Tensor]:
    """Whitening with masked statistics.

    verl / trl (``masked_whiten``): (x − μ)·rsqrt(σ²_unbiased + 1e-8) batch-wide, + μ when
    ``shift_mean=False``; masked positions are not re-masked. openrlhf (``masked_normalize``): per row,
    m·(x − μ_row)·rsqrt(max(σ²_row,biased, 1e-8)), so 0 where m = 0.
    """
    return {"whitened": masked_whiten_t(values, mask, shift_mean, convention)}


@register("loss.aggregate",
          params=[Param("loss_mat", "tensor", shape="(B, T)"), Param("mask", "tensor", shape="(B, T)"),
                  Param("mode", "choice", choices=LOSS_AGG_MODES),
                  Param("dp_size", "int", 1),
                  Param("batch_num_tokens", "float", None, doc="counted tokens in the global batch"),
                  Param("global_batch_size", "float", None, doc="sequences in the global batch"),
                  Param("loss_scale_factor", "float", None, doc="seq-mean-token-sum-norm divisor; default T")],
          outputs=["loss"],
          examples=[{"loss_mat": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "mask": [[1, 1, 0], [1, 0, 0]],
                     "mode": "seq-mean-token-mean"}])
def loss_aggregate(ctx: TensorContext, loss_mat: torch.Tensor, mask: torch.Tensor, mode: str, dp_size: int,
                   batch_num_tokens: float | None, global_batch_size: float | None,
                   loss_scale_factor: float | None) -> dict[str, torch.Tensor]:
    """Loss aggregation, as verl ``core_algos.agg_loss``.

    token-mean: Σ m·L / (batch_num_tokens or Σ m) · dp_size. seq-mean-token-sum: Σ_b (Σ_t m·L) over rows
    with a counted token / (global_batch_size or their count) · dp_size. seq-mean-token-mean: the same
    with per-row means Σ_t m·L / (Σ_t m + 1e-8). seq-mean-token-sum-norm: Σ m·L / (loss_scale_factor or T).
    """
    return {"loss": agg_loss_t(loss_mat, mask, mode, dp_size, batch_num_tokens, global_batch_size,
                               loss_scale_factor)}
