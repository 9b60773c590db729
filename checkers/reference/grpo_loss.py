"""The GRPO loss of TRL's ``GRPOTrainer._compute_loss`` (contract §4, "Policy and value objectives"):
the clipped surrogate of each completion's advantage with the k3 KL penalty, under the loss types
grpo, bnpo, dr_grpo and dapo here and the newer TRL types of :mod:`checkers.reference.policy_variants`.

Authority: TRL v0.28 ``GRPOTrainer._compute_loss``. Re-implemented, not copied.
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .policy import check_nonneg, check_token_tensors
from .policy_variants import GRPO_LOSS_VARIANTS, SAPO_TAU_NEG, SAPO_TAU_POS, GRPOVariantArgs
from .registry import Example, Param, register
from .tensors import TensorContext, require_positive

_BT = "(B, T)"

GRPO_LOSS_TYPES = ("grpo", "bnpo", "dr_grpo", "dapo", *GRPO_LOSS_VARIANTS)
IS_LEVELS = ("token", "sequence")


def _grpo_aggregate(per_token: torch.Tensor, mask: torch.Tensor, loss_type: str, max_len: int,
                    num_items: float | torch.Tensor) -> torch.Tensor:
    """The four normalisations of TRL ``GRPOTrainer._compute_loss`` (one process, no accumulation)."""
    summed = per_token * mask
    if loss_type == "grpo":
        return (summed.sum(-1) / mask.sum(-1).clamp(min=1.0)).mean()
    if loss_type == "bnpo":
        return summed.sum() / mask.sum().clamp(min=1.0)
    if loss_type == "dr_grpo":
        return summed.sum() / (per_token.size(0) * max_len)
    return summed.sum() / num_items  # dapo


# Two completions, one advantage each, the second one token shorter; every loss type's example in
# docs/reference.md runs on it.
_GRPO_EXAMPLE = {"log_prob": [[-0.7, -0.6, -2.0], [-1.0, -1.0, -0.3]],
                 "old_log_prob": [[-1.0, -0.5, -2.0], [-0.7, -1.2, -0.3]],
                 "ref_log_prob": [[-0.9, -0.5, -1.9], [-0.8, -1.1, -0.3]],
                 "advantages": [1.0, -1.0], "mask": [[1, 1, 1], [1, 1, 0]]}


@register("grpo.loss",
          params=[Param("log_prob", "tensor", shape=_BT), Param("advantages", "tensor", shape="(B,)"),
                  Param("mask", "tensor", shape=_BT),
                  Param("old_log_prob", "tensor", None, shape=_BT, doc="None: log_prob detached (one update)"),
                  Param("ref_log_prob", "tensor", None, shape=_BT, doc="needed when beta != 0"),
                  Param("epsilon", "float", 0.2), Param("epsilon_high", "float", None, doc="default epsilon"),
                  Param("beta", "float", 0.04),
                  Param("loss_type", "choice", "grpo", choices=GRPO_LOSS_TYPES),
                  Param("max_completion_length", "int", None, doc="dr_grpo divisor; default T"),
                  Param("num_items_in_batch", "float", None, doc="dapo divisor; default Σ mask"),
                  Param("delta", "float", None, doc="upper cap on the unclipped ratio (two-sided clipping)"),
                  Param("importance_sampling_level", "choice", "token", choices=IS_LEVELS),
                  Param("use_bias_correction_kl", "bool", False),
                  Param("sapo_temperature_pos", "float", SAPO_TAU_POS, doc="sapo: temperature where A > 0"),
                  Param("sapo_temperature_neg", "float", SAPO_TAU_NEG, doc="sapo: temperature where A <= 0")],
          outputs=["loss", "kl", "clip_ratio_low", "clip_ratio_high", "clip_ratio_region", "cispo_clip_ratio"],
          examples=[Example(_GRPO_EXAMPLE, "grpo with a k3 penalty (TRL _compute_loss)"),
                    Example({**_GRPO_EXAMPLE, "loss_type": "luspo"}, "LUSPO (TRL HEAD loss_type luspo)"),
                    Example({**_GRPO_EXAMPLE, "loss_type": "cispo"}, "CISPO (TRL HEAD loss_type cispo)"),
                    Example({**_GRPO_EXAMPLE, "loss_type": "sapo"}, "SAPO (TRL HEAD loss_type sapo)")])
def grpo_loss(ctx: TensorContext, log_prob: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor,
              old_log_prob: torch.Tensor | None, ref_log_prob: torch.Tensor | None, epsilon: float,
              epsilon_high: float | None, beta: float, loss_type: str, max_completion_length: int | None,
              num_items_in_batch: float | None, delta: float | None, importance_sampling_level: str,
              use_bias_correction_kl: bool, sapo_temperature_pos: float,
              sapo_temperature_neg: float) -> dict[str, torch.Tensor]:
    """GRPO objective, as TRL v0.28 ``GRPOTrainer._compute_loss`` with one process.

    log w = log_prob − old_log_prob per token (``token``) or its masked mean per row,
    Σ_t m·log w / max(Σ_t m, 1) (``sequence``, GSPO); ρ = e^{log w}; ρ̂ = clip(ρ, 1 − ε, 1 + ε_high);
    with ``delta`` ρ ← min(ρ, δ) after ρ̂ is formed. L = −min(ρ·A, ρ̂·A) + β·k3, k3 = e^{ref − lp} −
    (ref − lp) − 1 (times the unclipped, uncapped ρ when ``use_bias_correction_kl``). old_log_prob None
    means the detached log_prob (ρ = 1, the gradient of ρ is still there).
    loss: grpo mean_b(Σ_t m·L / max(Σ_t m, 1)); bnpo Σ m·L / max(Σ m, 1); dr_grpo Σ m·L / (B·max_len);
    dapo Σ m·L / num_items_in_batch. Metrics: kl = Σ m·k3 / max(Σ m, 1); clip_ratio_low = share of
    ρ < 1 − ε with A < 0, clip_ratio_high = share of ρ > 1 + ε_high with A > 0 (ρ after the δ cap),
    clip_ratio_region their union; token level: masked over tokens, sequence level: mean over rows.
    Defaults β = 0.04 and ``grpo`` follow DeepSeekMath (Shao et al. 2024), not TRL's β = 0 / ``dapo``.

    Loss types ``luspo``, ``cispo`` and ``sapo`` follow TRL HEAD (f2cd5771), formulas in
    ``policy_variants``: luspo = mean of L·|y_i| over all positions; cispo = −sg(min(w, ε_high))·A·lp
    summed / max(num_items_in_batch, 1), metric ``cispo_clip_ratio`` instead of the clip ratios; sapo =
    −σ(τ(w − 1))·4/τ·A with τ = ``sapo_temperature_pos``/``_neg``, aggregated as grpo, no clip metrics;
    τ is float32 as in TRL under torch's stock default dtype (1.05 → 1.0499999523), pinned so that the
    result does not depend on the caller's ``torch.get_default_dtype()`` (``policy_variants.trl_sapo``).
    """
    check_token_tensors(log_prob=log_prob, old_log_prob=old_log_prob, ref_log_prob=ref_log_prob, mask=mask)
    if advantages.dim() == 1:
        if advantages.shape[0] != log_prob.shape[0]:
            raise ReferenceInputError("advantages", f"needs one value per row ({log_prob.shape[0]}), "
                                                    f"got {advantages.shape[0]}")
        adv = advantages.unsqueeze(1)
    elif advantages.shape == log_prob.shape:
        adv = advantages  # TRL also takes per-token advantages (B, T)
    else:
        raise ReferenceInputError("advantages", f"must have shape (B,) or (B, T), got {tuple(advantages.shape)}")
    check_nonneg(epsilon, "epsilon")
    check_nonneg(epsilon_high, "epsilon_high")
    check_nonneg(beta, "beta")
    if beta != 0.0 and ref_log_prob is None:
        raise ReferenceInputError("ref_log_prob", "required when beta != 0 (the KL term)")
    if delta is not None:
        require_positive(delta, "delta")
    if max_completion_length is not None and max_completion_length < 1:
        raise ReferenceInputError("max_completion_length", "must be a positive integer")
    if num_items_in_batch is not None:
        require_positive(num_items_in_batch, "num_items_in_batch")
    for value, name in ((sapo_temperature_pos, "sapo_temperature_pos"),
                        (sapo_temperature_neg, "sapo_temperature_neg")):
        if not math.isfinite(value):
            raise ReferenceInputError(name, "must be finite")
        require_positive(value, name)
    eps_lo = epsilon
    eps_hi = epsilon if epsilon_high is None else epsilon_high
    max_len = log_prob.shape[1] if max_completion_length is None else max_completion_length
    num_items = mask.sum() if num_items_in_batch is None else num_items_in_batch

    old = log_prob.detach() if old_log_prob is None else old_log_prob
    log_ratio = log_prob - old
    if importance_sampling_level == "token":
        log_w = log_ratio
    else:
        log_w = ((log_ratio * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).unsqueeze(-1)
    coef_1 = torch.exp(log_w)

    per_token_kl = None
    if ref_log_prob is not None:
        d = ref_log_prob - log_prob
        per_token_kl = torch.exp(d) - d - 1
        if use_bias_correction_kl:
            per_token_kl = per_token_kl * coef_1

    if loss_type in GRPO_LOSS_VARIANTS:
        return GRPO_LOSS_VARIANTS[loss_type](GRPOVariantArgs(
            log_prob, coef_1, adv, mask, per_token_kl, beta, eps_lo, eps_hi, delta, num_items,
            sapo_temperature_pos, sapo_temperature_neg))

    coef_2 = torch.clamp(coef_1, 1 - eps_lo, 1 + eps_hi)
    if delta is not None:
        coef_1 = torch.clamp(coef_1, max=delta)
    per_token = -torch.minimum(coef_1 * adv, coef_2 * adv)
    if beta != 0.0:
        per_token = per_token + beta * per_token_kl
    loss = _grpo_aggregate(per_token, mask, loss_type, max_len, num_items)

    count = mask.sum().clamp(min=1.0)

    def batch_mean(x: torch.Tensor) -> torch.Tensor:
        # A (B, 1) tensor only arises at sequence level; TRL then averages over rows.
        if x.shape[1] == 1 and importance_sampling_level == "sequence":
            return x.mean()
        return (x * mask).sum() / count

    low = ((coef_1 < 1 - eps_lo) & (adv < 0)).to(log_prob.dtype)
    high = ((coef_1 > 1 + eps_hi) & (adv > 0)).to(log_prob.dtype)
    region = torch.maximum(low, high)
    out = {"loss": loss, "clip_ratio_low": batch_mean(low), "clip_ratio_high": batch_mean(high),
           "clip_ratio_region": batch_mean(region)}
    if per_token_kl is not None:
        out["kl"] = batch_mean(per_token_kl)
    return out
