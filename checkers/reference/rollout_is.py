"""Rollout importance weights for the training–inference mismatch (contract §6, ``rollout.importance_weights``).

The rollout engine (e.g. vLLM in bf16) and the trainer (e.g. FSDP in fp32) assign different probabilities
to the same sampled tokens, so the "on-policy" batch is slightly off-policy; truncated importance
sampling (TIS) reweights by π_train/π_rollout capped from above, masked importance sampling (MIS) drops
tokens or sequences whose ratio leaves a band. Authority: verl ``verl/trainer/ppo/mismatch_helper.py`` at
commit 4424616d, ``compute_rollout_importance_weights`` with ``compute_is_metrics`` and
``compute_mismatch_metrics`` (the helper's last form before verl replaced it by ``rollout_corr``).
Re-implemented, not copied.
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .masked import masked_mean_t, masked_sum_t
from .registry import Param, register
from .tensors import TensorContext, require_mask, require_ndim, require_same_shape

LEVELS = ("token", "sequence", "geometric")
MODES = ("truncate", "mask")
#: Log-ratios are bounded to ±this before ``exp`` (upstream's SAFETY_BOUND).
SAFETY_BOUND = 20.0

IS_METRICS = (
    "rollout_is_mean", "rollout_is_max", "rollout_is_min", "rollout_is_ratio_fraction_high",
    "rollout_is_ratio_fraction_low", "rollout_is_std", "rollout_is_eff_sample_size", "rollout_is_seq_mean",
    "rollout_is_seq_std", "rollout_is_seq_max", "rollout_is_seq_min", "rollout_is_seq_max_deviation",
    "rollout_is_seq_fraction_high", "rollout_is_seq_fraction_low", "rollout_is_veto_fraction",
    "rollout_is_catastrophic_token_fraction", "rollout_is_masked_fraction", "rollout_is_seq_masked_fraction",
)
MISMATCH_METRICS = (
    "mismatch_kl", "mismatch_k3_kl", "mismatch_training_ppl", "mismatch_training_log_ppl", "mismatch_rollout_ppl",
    "mismatch_rollout_log_ppl", "mismatch_log_ppl_diff", "mismatch_log_ppl_abs_diff", "mismatch_log_ppl_diff_max",
    "mismatch_log_ppl_diff_min", "mismatch_ppl_ratio",
)


def _mm(x: torch.Tensor, mask: torch.Tensor, axis: int | None = None) -> torch.Tensor:
    """verl ``masked_mean``: Σ where(m, x, 0)·m / (Σ m + 1e-8)."""
    return masked_mean_t(x, mask, axis, "verl")


def _log_threshold(value: float, like: torch.Tensor) -> torch.Tensor:
    """Upstream takes ``torch.log(torch.tensor(threshold))``: a float32 tensor under torch's default dtype,
    so the comparisons in log space use log(threshold) rounded to float32. Pinned to float32 here so the
    result does not depend on the caller's ``torch.get_default_dtype()``."""
    return torch.log(torch.tensor(value, dtype=torch.float32, device=like.device))


def _mismatch_metrics(old: torch.Tensor, rollout: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """``compute_mismatch_metrics``: KL estimates and perplexities of the two policies, rows averaged."""
    lp_train = _mm(old, mask, -1)
    lp_roll = _mm(rollout, mask, -1)
    log_ratio = old - rollout
    diff = lp_roll - lp_train
    return {
        "mismatch_training_ppl": torch.exp(-lp_train).mean(),
        "mismatch_training_log_ppl": (-lp_train).mean(),
        "mismatch_kl": _mm(rollout - old, mask),
        "mismatch_k3_kl": _mm(torch.exp(log_ratio) - log_ratio - 1, mask),
        "mismatch_rollout_ppl": torch.exp(-lp_roll).mean(),
        "mismatch_rollout_log_ppl": (-lp_roll).mean(),
        "mismatch_log_ppl_diff": diff.mean(),
        "mismatch_log_ppl_abs_diff": diff.abs().mean(),
        "mismatch_log_ppl_diff_max": diff.max(),
        "mismatch_log_ppl_diff_min": diff.min(),
        "mismatch_ppl_ratio": torch.exp(diff).mean(),
    }


@register("rollout.importance_weights",
          params=[Param("old_log_prob", "tensor", shape="(B, T)", doc="training policy's log-probs (e.g. FSDP)"),
                  Param("rollout_log_prob", "tensor", shape="(B, T)", doc="rollout engine's log-probs (e.g. vLLM)"),
                  Param("mask", "tensor", shape="(B, T)", doc="response_mask"),
                  Param("rollout_is_level", "choice", "token", choices=LEVELS),
                  Param("rollout_is_mode", "choice", "truncate", choices=MODES),
                  Param("rollout_is_threshold", "float", None, doc="upper threshold; None: disabled"),
                  Param("rollout_is_threshold_lower", "float", None, doc="lower threshold; None: 1/upper"),
                  Param("rollout_is_veto_threshold", "float", None,
                        doc="reject a row holding a token with ratio below this; None: no veto")],
          outputs=["rollout_is_weights", "modified_response_mask", *IS_METRICS, *MISMATCH_METRICS],
          examples=[{"old_log_prob": [[-1.0, -0.5, -2.0], [-0.3, -1.2, -0.8]],
                     "rollout_log_prob": [[-1.2, -0.5, -1.0], [-0.3, -1.0, -0.9]], "mask": [[1, 1, 1], [1, 1, 0]],
                     "rollout_is_threshold": 2.0},
                    {"old_log_prob": [[-1.0, -0.5, -2.0], [-0.3, -1.2, -0.8]],
                     "rollout_log_prob": [[-1.2, -0.5, -1.0], [-0.3, -1.0, -0.9]], "mask": [[1, 1, 1], [1, 1, 0]],
                     "rollout_is_level": "sequence", "rollout_is_mode": "mask", "rollout_is_threshold": 2.0,
                     "rollout_is_veto_threshold": 0.4}])
def rollout_importance_weights(ctx: TensorContext, old_log_prob: torch.Tensor, rollout_log_prob: torch.Tensor,
                               mask: torch.Tensor, rollout_is_level: str, rollout_is_mode: str,
                               rollout_is_threshold: float | None, rollout_is_threshold_lower: float | None,
                               rollout_is_veto_threshold: float | None) -> dict[str, torch.Tensor]:
    """Rollout importance weights, rejection mask and mismatch metrics, as verl
    ``compute_rollout_importance_weights`` (``verl/trainer/ppo/mismatch_helper.py`` at 4424616d).

    log r = old_log_prob − rollout_log_prob. Weights w: token level e^{clamp(log r, ±20)}; sequence level
    e^{clamp(Σ_t m·log r, ±20)} and geometric level e^{clamp(mm_row(log r), ±20)}, broadcast over the row
    (mm(x) = Σ m·x/(Σ m + 1e-8)). upper = ``rollout_is_threshold``, lower = ``rollout_is_threshold_lower``
    or 1/upper. Mode ``truncate`` (TIS): w ← min(w, upper), mask unchanged; ``mask`` (MIS): w kept,
    ``modified_response_mask`` = m·1[lower ≤ w ≤ upper]. Veto: a row with a counted token of
    log r < log(veto) gets mask 0 in every mode. Finally w ← w·m (the original mask), detached.
    ``rollout_is_threshold=None`` disables everything: only ``modified_response_mask`` = mask.

    Metrics (upstream's keys without the ``mismatch/`` prefix; all detached), w the ±20-bounded weights
    before truncation, w_c = clamp(w, lower, upper): rollout_is_mean mm(w); token level: max/min of w
    over counted tokens, ratio_fraction_high/low mm(w > upper)/mm(w < lower); sequence and geometric
    level, as upstream, from the per-row log-ratio ℓ_b of every row (fully masked rows included): max
    e^{min(max ℓ, 20)}, min e^{min ℓ} (not bounded below), fraction_high/low the share of rows with
    ℓ > log(upper) / ℓ < log(lower) (sequence) or mm over tokens of that row flag (geometric), log
    thresholds rounded to float32 as upstream's ``torch.log(torch.tensor(t))``; rollout_is_std
    √max(mm(w_c²) − mm(w_c)², 0) (0 when Σ m ≤ 1); rollout_is_eff_sample_size 1/mm((w_c/(mm(w_c) +
    1e-8))²); over s_b = mm_row(w): seq_mean, seq_std (unbiased; 0 for one row), seq_max, seq_min,
    seq_max_deviation max|s − 1|, seq_fraction_high/low (s > upper / s < lower, share of rows);
    veto_fraction (rows vetoed) and catastrophic_token_fraction mm(1[log r < log veto]) (both 0 without
    a veto); mask mode only: masked_fraction mm(1 − keep), seq_masked_fraction = share of rows with a
    rejected counted token (token level) or whose weight is rejected (sequence/geometric: all rows).
    Mismatch metrics: mismatch_kl mm(rollout − old), mismatch_k3_kl mm(r − 1 − log r) with r = e^{log r}
    (unbounded), training/rollout log_ppl the mean over rows of −mm_row(log p), ppl the mean of its exp,
    log_ppl_diff = mm_row(rollout) − mm_row(old) per row: mean, abs mean, max, min; ppl_ratio
    mean e^{diff}. Upstream's float32 ``.float().mean()`` fractions are in the requested dtype here.
    Upstream asserts a non-empty mask; here an all-zero mask (with a threshold) is a ReferenceInputError.

    Release v0.6.0 differs: it returns no mask (weights and metrics only); mask mode multiplies the
    weights by the keep flag instead of editing the mask, and the veto zeroes the vetoed rows' weights;
    the veto threshold defaults to 1e-4 (None here and at 4424616d).
    """
    require_ndim(old_log_prob, "old_log_prob", 2)
    require_same_shape(old_log_prob=old_log_prob, rollout_log_prob=rollout_log_prob, mask=mask)
    require_mask(mask)
    if rollout_is_threshold is None:
        return {"modified_response_mask": mask.detach().clone()}
    for value, name in ((rollout_is_threshold, "rollout_is_threshold"),
                        (rollout_is_threshold_lower, "rollout_is_threshold_lower"),
                        (rollout_is_veto_threshold, "rollout_is_veto_threshold")):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise ReferenceInputError(name, "must be a positive finite number")
    if not bool((mask > 0).any().item()):
        raise ReferenceInputError("mask", "needs at least one counted token (verl asserts it)")

    with torch.no_grad():
        old, roll, m = old_log_prob.detach(), rollout_log_prob.detach(), mask.detach()
        upper = rollout_is_threshold
        lower = 1.0 / upper if rollout_is_threshold_lower is None else rollout_is_threshold_lower
        log_ratio = old - roll
        if rollout_is_level == "token":
            log_for_metrics = log_ratio
            weights = torch.exp(torch.clamp(log_ratio, -SAFETY_BOUND, SAFETY_BOUND))
        else:
            if rollout_is_level == "sequence":
                log_for_metrics = masked_sum_t(log_ratio, m, -1).unsqueeze(-1)
            else:
                log_for_metrics = _mm(log_ratio, m, -1).unsqueeze(-1)
            weights = torch.exp(torch.clamp(log_for_metrics, -SAFETY_BOUND, SAFETY_BOUND)).expand_as(old)

        counted = m > 0
        if rollout_is_veto_threshold is not None:
            catastrophic = (log_ratio < _log_threshold(rollout_is_veto_threshold, old)) & counted
        else:
            catastrophic = torch.zeros_like(counted)
        vetoed = catastrophic.any(dim=-1, keepdim=True)
        out: dict[str, torch.Tensor] = {
            "rollout_is_veto_fraction": vetoed.to(old.dtype).mean(),
            "rollout_is_catastrophic_token_fraction": _mm(catastrophic.to(old.dtype), m),
        }
        out.update(_is_metrics(weights, log_for_metrics, m, rollout_is_level, upper, lower))

        if rollout_is_mode == "truncate":
            weights = weights.clamp(max=upper)
            modified = m
        else:
            keep = ((weights >= lower) & (weights <= upper)).to(old.dtype)
            out["rollout_is_masked_fraction"] = _mm(1 - keep, m)
            if rollout_is_level == "token":
                rows_hit = masked_sum_t(1 - keep, m, -1) > 0
                out["rollout_is_seq_masked_fraction"] = rows_hit.to(old.dtype).mean()
            else:
                out["rollout_is_seq_masked_fraction"] = (1 - keep[:, 0]).mean()
            modified = m * keep
        modified = modified * (~vetoed).to(old.dtype)
        out["rollout_is_weights"] = weights * m
        out["modified_response_mask"] = modified
        out.update(_mismatch_metrics(old, roll, m))
    return out


def _is_metrics(weights: torch.Tensor, log_for_metrics: torch.Tensor, m: torch.Tensor, level: str,
                upper: float, lower: float) -> dict[str, torch.Tensor]:
    """``compute_is_metrics`` (4424616d) on the bounded, not yet truncated weights."""
    dtype = weights.dtype
    out: dict[str, torch.Tensor] = {"rollout_is_mean": _mm(weights, m)}
    if level == "token":
        counted = m > 0
        out["rollout_is_ratio_fraction_high"] = _mm((weights > upper).to(dtype), m)
        out["rollout_is_ratio_fraction_low"] = _mm((weights < lower).to(dtype), m)
        out["rollout_is_max"] = weights.masked_fill(~counted, float("-inf")).max()
        out["rollout_is_min"] = weights.masked_fill(~counted, float("inf")).min()
    else:
        out["rollout_is_max"] = torch.exp(torch.clamp(log_for_metrics.max(), max=SAFETY_BOUND))
        out["rollout_is_min"] = torch.exp(log_for_metrics.min())
        high = log_for_metrics > _log_threshold(upper, weights)
        low = log_for_metrics < _log_threshold(lower, weights)
        if level == "sequence":
            out["rollout_is_ratio_fraction_high"] = high.to(dtype).mean()
            out["rollout_is_ratio_fraction_low"] = low.to(dtype).mean()
        else:
            out["rollout_is_ratio_fraction_high"] = _mm(high.expand_as(m).to(dtype), m)
            out["rollout_is_ratio_fraction_low"] = _mm(low.expand_as(m).to(dtype), m)
    clamped = weights.clamp(min=lower, max=upper)
    if m.sum().item() > 1:
        mean_c = _mm(clamped, m)
        out["rollout_is_std"] = torch.sqrt(torch.clamp(_mm(clamped.square(), m) - mean_c.square(), min=0.0))
    else:
        out["rollout_is_std"] = torch.zeros((), dtype=dtype, device=weights.device)
    normalised = clamped / (_mm(clamped, m) + 1e-8)
    out["rollout_is_eff_sample_size"] = 1.0 / _mm(normalised.square(), m)
    seq = _mm(weights, m, -1)
    out["rollout_is_seq_mean"] = seq.mean()
    out["rollout_is_seq_std"] = seq.std() if seq.numel() > 1 else torch.zeros((), dtype=dtype, device=seq.device)
    out["rollout_is_seq_max"] = seq.max()
    out["rollout_is_seq_min"] = seq.min()
    out["rollout_is_seq_max_deviation"] = (seq - 1.0).abs().max()
    out["rollout_is_seq_fraction_high"] = (seq > upper).to(dtype).mean()
    out["rollout_is_seq_fraction_low"] = (seq < lower).to(dtype).mean()
    return out
