"""Policy and value objectives: PPO ratio, clipped policy loss, value loss, entropy and the TRPO surrogate
(contract §4, "Policy and value objectives"); the GRPO loss is in :mod:`checkers.reference.grpo_loss`.

Authorities: volcengine/verl ``verl/trainer/ppo/core_algos.py`` (``compute_policy_loss_vanilla``,
``compute_value_loss``, ``compute_entropy_loss``, ``agg_loss``) and TRL v0.11 ``PPOTrainer.loss`` for
``ratio_threshold``. Re-implemented, not copied.
"""

from __future__ import annotations

import math

import torch

from .cov_losses import (CLIP_COV_LB, CLIP_COV_RATIO, CLIP_COV_UB, COV_VARIANT_NAMES, KL_COV_RATIO, PPO_KL_COEF,
                         CovArgs, check_cov_args, cov_variant)
from .errors import ReferenceInputError
from .masked import CONVENTIONS, LOSS_AGG_MODES, agg_loss_t, masked_mean_t
from .policy_variants import PPO_VARIANT_NAMES, SAPO_TAU_NEG, SAPO_TAU_POS, PPOVariantArgs, ppo_variant
from .registry import Example, Param, register
from .tensors import TensorContext, require_mask, require_ndim, require_positive, require_same_shape

_BT = "(B, T)"
_CONV = Param("convention", "choice", "verl", choices=CONVENTIONS,
              doc="masked means of the metrics: verl Σm+1e-8, trl/openrlhf Σm")
_AGG = Param("loss_agg_mode", "choice", "token-mean", choices=LOSS_AGG_MODES)
GLOBAL_BATCH_PARAMS = [
    Param("dp_size", "int", 1, doc="data-parallel size (verl agg_loss)"),
    Param("batch_num_tokens", "float", None, doc="counted tokens in the global batch"),
    Param("global_batch_size", "float", None, doc="sequences in the global batch"),
    Param("loss_scale_factor", "float", None, doc="seq-mean-token-sum-norm divisor; default T"),
]


def check_token_tensors(mask: torch.Tensor | None = None, **tensors: torch.Tensor) -> None:
    """The first tensor is (B, T), every other one (and ``mask``) has its shape, and ``mask`` is 0/1."""
    first = next(iter(tensors))
    require_ndim(tensors[first], first, 2)
    require_same_shape(**tensors, **({} if mask is None else {"mask": mask}))
    if mask is not None:
        require_mask(mask)


def check_nonneg(value: float | None, name: str) -> None:
    """``value`` (when given) is a finite number >= 0."""
    if value is not None:
        if not math.isfinite(value):
            raise ReferenceInputError(name, "must be finite")
        require_positive(value, name, allow_zero=True)


def _skip_if_ratio_high(loss: torch.Tensor, ratio: torch.Tensor, mask: torch.Tensor, threshold: float | None,
                        convention: str) -> torch.Tensor:
    """TRL v0.11 skips a batch whose mean ratio exceeds the threshold by multiplying the loss by 0.

    Multiplying (rather than returning a constant) keeps the graph, so the gradient is an exact zero.
    """
    if threshold is None:
        return loss
    with torch.no_grad():
        mean_ratio = masked_mean_t(ratio, mask, None, convention).item()
    return loss * 0.0 if mean_ratio > threshold else loss


@register("ppo.ratio",
          params=[Param("log_prob", "tensor", shape="(...)"), Param("old_log_prob", "tensor", shape="same")],
          outputs=["ratio"],
          examples=[{"log_prob": [[-1.0, -0.5]], "old_log_prob": [[-1.1, -0.4]]}])
def ppo_ratio(ctx: TensorContext, log_prob: torch.Tensor, old_log_prob: torch.Tensor) -> dict[str, torch.Tensor]:
    """Importance ratio ρ = π_θ/π_old = exp(log_prob − old_log_prob) (Schulman et al. 2017, eq. 6)."""
    require_same_shape(log_prob=log_prob, old_log_prob=old_log_prob)
    return {"ratio": torch.exp(log_prob - old_log_prob)}


# Two rows with ratios on both sides of the clip band, the second row one token shorter; every loss
# variant's example in docs/reference.md runs on it.
_PPO_EXAMPLE = {"old_log_prob": [[-1.0, -0.5, -2.0], [-0.7, -1.2, -0.3]],
                "log_prob": [[-0.7, -0.6, -2.0], [-1.0, -1.0, -0.3]],
                "advantages": [[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]], "mask": [[1, 1, 1], [1, 1, 0]]}


# Four rows of five tokens with a spread of log-probs and advantages, so that the covariance ranking of
# Clip-Cov / KL-Cov has candidates inside clip_cov's (1, 5) window; the last row is one token shorter.
_COV_EXAMPLE = {"old_log_prob": [[-0.1, -2.5, -0.3, -4.0, -1.0], [-3.0, -0.2, -2.2, -0.4, -0.9],
                                 [-0.5, -3.5, -1.5, -0.2, -2.8], [-2.0, -0.1, -3.2, -0.6, -1.0]],
                "log_prob": [[-0.12, -2.45, -0.31, -3.9, -1.02], [-2.9, -0.22, -2.3, -0.41, -0.88],
                             [-0.52, -3.4, -1.45, -0.21, -2.75], [-2.05, -0.12, -3.1, -0.62, -1.0]],
                "advantages": [[2.0] * 5, [-1.5] * 5, [1.0] * 5, [-2.5] * 5],
                "mask": [[1] * 5, [1] * 5, [1] * 5, [1, 1, 1, 1, 0]]}


@register("ppo.policy_loss",
          params=[Param("old_log_prob", "tensor", shape=_BT), Param("log_prob", "tensor", shape=_BT),
                  Param("advantages", "tensor", shape=_BT), Param("mask", "tensor", shape=_BT),
                  Param("clip_ratio", "float", 0.2),
                  Param("clip_ratio_low", "float", None, doc="default clip_ratio"),
                  Param("clip_ratio_high", "float", None, doc="default clip_ratio"),
                  Param("clip_ratio_c", "float", 3.0, doc="dual-clip bound (> 1); None disables"),
                  _AGG,
                  Param("clamp_log_ratio", "float", 20.0, doc="clamp log ρ to ±this before exp; None: no clamp"),
                  Param("ratio_threshold", "float", None, doc="TRL v0.11: zero the loss when mean ρ exceeds it"),
                  *GLOBAL_BATCH_PARAMS, _CONV,
                  Param("loss_variant", "choice", "vanilla", choices=PPO_VARIANT_NAMES + COV_VARIANT_NAMES,
                        doc="verl compute_policy_loss_<variant>; gspo also under convention openrlhf"),
                  Param("tau_pos", "float", SAPO_TAU_POS, doc="sapo: gate temperature where A > 0 (verl)"),
                  Param("tau_neg", "float", SAPO_TAU_NEG, doc="sapo: gate temperature where A <= 0 (verl)"),
                  Param("seed", "int", 0, doc="clip_cov: seeds the CPU generator of its torch.randperm draw"),
                  Param("rollout_is_weights", "tensor", None, shape=_BT, role="ratio", grad=False,
                        doc="clip_cov/kl_cov: multiply the per-token loss after the selection"),
                  Param("clip_cov_ratio", "float", CLIP_COV_RATIO, doc="clip_cov: share of tokens removed (> 0)"),
                  Param("clip_cov_lb", "float", CLIP_COV_LB, doc="clip_cov: open lower bound of the covariance"),
                  Param("clip_cov_ub", "float", CLIP_COV_UB, doc="clip_cov: open upper bound of the covariance"),
                  Param("kl_cov_ratio", "float", KL_COV_RATIO, doc="kl_cov: share of tokens penalised, in (0, 1]"),
                  Param("ppo_kl_coef", "float", PPO_KL_COEF, doc="kl_cov: weight of |log-ratio| on those tokens")],
          outputs=["pg_loss", "pg_clipfrac", "ppo_kl", "pg_clipfrac_lower", "per_token_loss", "approx_kl",
                   "per_seq_loss", "seq_ratio"],
          examples=[Example(_PPO_EXAMPLE, "vanilla (verl compute_policy_loss_vanilla)"),
                    Example({**_PPO_EXAMPLE, "loss_variant": "gspo"}, "GSPO (verl compute_policy_loss_gspo)"),
                    Example({**_PPO_EXAMPLE, "loss_variant": "sapo"}, "SAPO (verl compute_policy_loss_sapo)"),
                    Example({**_PPO_EXAMPLE, "loss_variant": "cispo"}, "CISPO (verl compute_policy_loss_cispo)"),
                    Example({**_PPO_EXAMPLE, "loss_variant": "gpg"}, "GPG (verl compute_policy_loss_gpg)"),
                    Example({**_PPO_EXAMPLE, "loss_variant": "geo_mean"},
                            "geometric-mean ratio (verl compute_policy_loss_geo_mean)"),
                    Example({**_PPO_EXAMPLE, "loss_variant": "gspo", "convention": "openrlhf"},
                            "GSPO as OpenRLHF PolicyLoss (policy_loss_type gspo)"),
                    Example({**_COV_EXAMPLE, "loss_variant": "clip_cov", "clip_cov_ratio": 0.2},
                            "Clip-Cov (verl compute_policy_loss_clip_cov), seed 0"),
                    Example({**_COV_EXAMPLE, "loss_variant": "kl_cov", "kl_cov_ratio": 0.2},
                            "KL-Cov (verl compute_policy_loss_kl_cov)")])
def ppo_policy_loss(ctx: TensorContext, old_log_prob: torch.Tensor, log_prob: torch.Tensor,
                    advantages: torch.Tensor, mask: torch.Tensor, clip_ratio: float, clip_ratio_low: float | None,
                    clip_ratio_high: float | None, clip_ratio_c: float | None, loss_agg_mode: str,
                    clamp_log_ratio: float | None, ratio_threshold: float | None, dp_size: int,
                    batch_num_tokens: float | None, global_batch_size: float | None,
                    loss_scale_factor: float | None, convention: str, loss_variant: str, tau_pos: float,
                    tau_neg: float, seed: int, rollout_is_weights: torch.Tensor | None,
                    clip_cov_ratio: float | None, clip_cov_lb: float | None, clip_cov_ub: float | None,
                    kl_cov_ratio: float | None, ppo_kl_coef: float | None) -> dict[str, torch.Tensor]:
    """PPO clipped surrogate with dual clip, as verl ``compute_policy_loss_vanilla``.

    δ = clamp(log_prob − old_log_prob, ±clamp_log_ratio), ρ = e^δ, ε_lo/ε_hi default clip_ratio.
    L1 = −A·ρ, L2 = −A·clip(ρ, 1 − ε_lo, 1 + ε_hi), Lc = max(L1, L2); dual clip (Ye et al. 2020):
    L3 = −A·c, L = min(L3, Lc) where A < 0, else Lc. per_token_loss = L (unmasked);
    pg_loss = loss.aggregate(L, mask, loss_agg_mode, global-batch arguments).
    Metrics (masked means of the convention): pg_clipfrac = mean 1[L2 > L1]; ppo_kl = mean(−δ) (openrlhf,
    as ``PolicyLoss``: mean of −(log_prob − old_log_prob), unclamped and detached);
    pg_clipfrac_lower = mean 1[Lc > L3]·1[A < 0] (0 when clip_ratio_c is None);
    approx_kl = ½·mean (log_prob − old_log_prob)² (unclamped). With ``ratio_threshold`` (TRL v0.11)
    pg_loss is multiplied by 0 when the masked mean of ρ exceeds it.

    ``loss_variant`` other than ``vanilla`` runs verl ``compute_policy_loss_<variant>`` at b178a3cd
    (``gspo``, ``sapo``, ``cispo``, ``gpg``, ``geo_mean``; convention verl) or, for ``gspo`` with
    convention openrlhf, OpenRLHF ``PolicyLoss`` at 3c3be623; formulas in ``policy_variants``. The
    variants return the outputs upstream has (no ``approx_kl``; ``gpg`` only pg_loss and
    per_token_loss; ``geo_mean`` per_seq_loss instead of per_token_loss) plus ``seq_ratio`` (B,) for
    gspo and geo_mean. Upstream fixes some choices, so here: gspo and sapo always aggregate with
    seq-mean-token-mean, geo_mean takes a plain mean over rows; ``clamp_log_ratio`` applies to sapo and
    cispo (upstream ±20), gspo clamps log s from above at 10, geo_mean and openrlhf gspo do not clamp;
    ``clip_ratio_c`` is the dual clip of openrlhf gspo only; ``tau_pos``/``tau_neg`` are sapo's.
    ``ratio_threshold`` is vanilla only.

    ``clip_cov`` and ``kl_cov`` (engine v3) run verl ``compute_policy_loss_clip_cov`` /
    ``compute_policy_loss_kl_cov`` at b178a3cd (Cui et al. 2025, arXiv:2505.22617), formulas in
    ``cov_losses``: no log-ratio clamp and no dual clip (``clamp_log_ratio`` and ``clip_ratio_c`` are
    ignored), upstream's own defaults (``clip_cov_ratio`` 0.0002, window (1, 5), ``kl_cov_ratio`` 0.0002,
    ``ppo_kl_coef`` 1.0; None means these), outputs pg_loss, ppo_kl, per_token_loss and, for clip_cov,
    pg_clipfrac. clip_cov's random pick uses ``seed`` (a CPU generator: the same draw as upstream after
    ``torch.manual_seed(seed)``). ``rollout_is_weights`` (B, T) multiplies their per-token loss after
    the selection; it is accepted by these two variants only.
    """
    check_token_tensors(log_prob=log_prob, old_log_prob=old_log_prob, advantages=advantages, mask=mask)
    check_nonneg(clip_ratio, "clip_ratio")
    check_nonneg(clip_ratio_low, "clip_ratio_low")
    check_nonneg(clip_ratio_high, "clip_ratio_high")
    if clip_ratio_c is not None and not clip_ratio_c > 1.0:
        raise ReferenceInputError("clip_ratio_c", "the dual-clip bound must be greater than 1 (or None to disable it)")
    if clamp_log_ratio is not None:
        require_positive(clamp_log_ratio, "clamp_log_ratio")
    if ratio_threshold is not None:
        require_positive(ratio_threshold, "ratio_threshold")
    eps_lo = clip_ratio if clip_ratio_low is None else clip_ratio_low
    eps_hi = clip_ratio if clip_ratio_high is None else clip_ratio_high
    if loss_variant in COV_VARIANT_NAMES:
        if ratio_threshold is not None:
            raise ReferenceInputError("ratio_threshold", "applies to loss_variant 'vanilla' only")
        impl_cov = cov_variant(loss_variant, convention)
        cov_args = CovArgs(seed, rollout_is_weights, clip_cov_ratio, clip_cov_lb, clip_cov_ub, kl_cov_ratio,
                           ppo_kl_coef)
        check_cov_args(loss_variant, cov_args, log_prob.shape)
        return impl_cov(PPOVariantArgs(old_log_prob, log_prob, advantages, mask, eps_lo, eps_hi, None,
                                       loss_agg_mode, None, tau_pos, tau_neg, dp_size, batch_num_tokens,
                                       global_batch_size, loss_scale_factor), cov_args)
    if rollout_is_weights is not None:
        raise ReferenceInputError("rollout_is_weights", "applies to loss_variant 'clip_cov' and 'kl_cov' only")
    if loss_variant != "vanilla":
        if ratio_threshold is not None:
            raise ReferenceInputError("ratio_threshold", "applies to loss_variant 'vanilla' only")
        for value, name in ((tau_pos, "tau_pos"), (tau_neg, "tau_neg")):
            if not math.isfinite(value):
                raise ReferenceInputError(name, "must be finite")
            require_positive(value, name)
        impl = ppo_variant(loss_variant, convention)
        return impl(PPOVariantArgs(old_log_prob, log_prob, advantages, mask, eps_lo, eps_hi, clip_ratio_c,
                                   loss_agg_mode, clamp_log_ratio, tau_pos, tau_neg, dp_size, batch_num_tokens,
                                   global_batch_size, loss_scale_factor))

    raw = log_prob - old_log_prob
    delta = raw if clamp_log_ratio is None else torch.clamp(raw, -clamp_log_ratio, clamp_log_ratio)
    ratio = torch.exp(delta)
    loss1 = -advantages * ratio
    loss2 = -advantages * torch.clamp(ratio, 1 - eps_lo, 1 + eps_hi)
    clipped = torch.maximum(loss1, loss2)
    pg_clipfrac = masked_mean_t(torch.gt(loss2, loss1).to(ratio.dtype), mask, None, convention)
    negative = advantages < 0
    if clip_ratio_c is None:
        per_token = clipped
        pg_clipfrac_lower = torch.zeros((), dtype=ratio.dtype, device=ratio.device)
    else:
        loss3 = -advantages * clip_ratio_c
        per_token = torch.where(negative, torch.minimum(loss3, clipped), clipped)
        lower = (torch.gt(clipped, loss3) & negative).to(ratio.dtype)
        pg_clipfrac_lower = masked_mean_t(lower, mask, None, convention)
    pg_loss = agg_loss_t(per_token, mask, loss_agg_mode, dp_size, batch_num_tokens, global_batch_size,
                         loss_scale_factor)
    pg_loss = _skip_if_ratio_high(pg_loss, ratio, mask, ratio_threshold, convention)
    return {
        "pg_loss": pg_loss,
        "pg_clipfrac": pg_clipfrac,
        # OpenRLHF ``PolicyLoss`` reports the unclamped log-ratio, detached; verl the clamped one.
        "ppo_kl": masked_mean_t(-(raw.detach() if convention == "openrlhf" else delta), mask, None, convention),
        "pg_clipfrac_lower": pg_clipfrac_lower,
        "per_token_loss": per_token,
        "approx_kl": 0.5 * masked_mean_t(raw ** 2, mask, None, convention),
    }


@register("ppo.value_loss",
          params=[Param("vpreds", "tensor", shape=_BT), Param("returns", "tensor", shape=_BT),
                  Param("values", "tensor", shape=_BT, grad=False, doc="old values (rollout)"), Param("mask", "tensor", shape=_BT),
                  Param("cliprange_value", "float", 0.5, doc="None: no clipping"), _AGG,
                  Param("ratio", "tensor", None, shape=_BT, doc="policy ratio for ratio_threshold"),
                  Param("ratio_threshold", "float", None), *GLOBAL_BATCH_PARAMS, _CONV],
          outputs=["vf_loss", "vf_clipfrac", "per_token_loss"],
          examples=[{"vpreds": [[0.5, 1.5]], "returns": [[1.0, 1.0]], "values": [[0.4, 0.6]], "mask": [[1, 1]]}])
def ppo_value_loss(ctx: TensorContext, vpreds: torch.Tensor, returns: torch.Tensor, values: torch.Tensor,
                   mask: torch.Tensor, cliprange_value: float | None, loss_agg_mode: str,
                   ratio: torch.Tensor | None, ratio_threshold: float | None, dp_size: int,
                   batch_num_tokens: float | None, global_batch_size: float | None,
                   loss_scale_factor: float | None, convention: str) -> dict[str, torch.Tensor]:
    """Clipped value loss, as verl ``compute_value_loss``.

    v_clip = clamp(v, V_old − c, V_old + c); per_token_loss = ½·max((v − R)², (v_clip − R)²) (unmasked);
    vf_loss = ½·loss.aggregate(max(...), mask, loss_agg_mode); vf_clipfrac = masked mean of
    1[(v_clip − R)² > (v − R)²] (the convention's mean). ``cliprange_value=None``: v_clip = v.
    With ``ratio`` and ``ratio_threshold`` (TRL v0.11) vf_loss is multiplied by 0 when the masked mean
    ratio exceeds the threshold.
    """
    check_token_tensors(vpreds=vpreds, returns=returns, values=values, mask=mask)
    check_nonneg(cliprange_value, "cliprange_value")
    if ratio_threshold is not None:
        if ratio is None:
            raise ReferenceInputError("ratio_threshold", "needs the policy ratio in `ratio`")
        require_positive(ratio_threshold, "ratio_threshold")
    if ratio is not None:
        require_same_shape(vpreds=vpreds, ratio=ratio)
    if cliprange_value is None:
        v_clip = vpreds
    else:
        v_clip = torch.clamp(vpreds, values - cliprange_value, values + cliprange_value)
    loss1 = (vpreds - returns) ** 2
    loss2 = (v_clip - returns) ** 2
    worst = torch.maximum(loss1, loss2)
    vf_loss = 0.5 * agg_loss_t(worst, mask, loss_agg_mode, dp_size, batch_num_tokens, global_batch_size,
                               loss_scale_factor)
    if ratio is not None:
        vf_loss = _skip_if_ratio_high(vf_loss, ratio, mask, ratio_threshold, convention)
    return {"vf_loss": vf_loss,
            "vf_clipfrac": masked_mean_t(torch.gt(loss2, loss1).to(loss1.dtype), mask, None, convention),
            "per_token_loss": 0.5 * worst}


@register("ppo.entropy",
          params=[Param("logits", "tensor", shape="(B, T, V)"),
                  Param("mask", "tensor", None, shape=_BT), _AGG, *GLOBAL_BATCH_PARAMS],
          outputs=["entropy", "entropy_loss"],
          examples=[{"logits": [[[1.0, 0.0, -1.0], [0.0, 0.0, 0.0]]], "mask": [[1, 1]]}])
def ppo_entropy(ctx: TensorContext, logits: torch.Tensor, mask: torch.Tensor | None, loss_agg_mode: str,
                dp_size: int, batch_num_tokens: float | None, global_batch_size: float | None,
                loss_scale_factor: float | None) -> dict[str, torch.Tensor]:
    """Per-position entropy of softmax(logits) over the last axis, as verl ``entropy_from_logits``.

    H = logsumexp(z) − Σ softmax(z)·z. With a mask: entropy_loss = loss.aggregate(H, mask,
    loss_agg_mode) (verl ``compute_entropy_loss``).

    Both terms are evaluated on z − max(z): H is unchanged by a shift of the logits (so is its gradient).
    Without the shift the two terms are each about max(z) and cancel: for logits near 10⁴ a float32
    entropy keeps only three or four of its seven digits (an error near 1e-3), float64 about twelve.
    """
    if logits.dim() < 1 or logits.shape[-1] == 0:
        raise ReferenceInputError("logits", "needs a non-empty last (vocabulary) axis")
    with torch.no_grad():
        if torch.isnan(logits).any().item() or torch.isposinf(logits).any().item():
            raise ReferenceInputError("logits", "must not contain nan or +inf")
    top = logits.detach().amax(dim=-1, keepdim=True)
    # A row of only −inf has no finite maximum: it is left unshifted (its entropy is undefined either way).
    shifted = logits - torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    probs = torch.softmax(shifted, dim=-1)
    # 0·(−inf) would be nan for a masked-out vocabulary entry; its contribution is 0.
    weighted = torch.where(probs > 0, probs * shifted, torch.zeros_like(shifted))
    entropy = torch.logsumexp(shifted, dim=-1) - weighted.sum(dim=-1)
    out = {"entropy": entropy}
    if mask is not None:
        if mask.shape != entropy.shape:
            raise ReferenceInputError("mask", f"shape {tuple(mask.shape)} does not match logits' leading shape "
                                              f"{tuple(entropy.shape)}")
        require_mask(mask)
        out["entropy_loss"] = agg_loss_t(entropy, mask, loss_agg_mode, dp_size, batch_num_tokens,
                                         global_batch_size, loss_scale_factor)
    return out


@register("trpo.surrogate",
          params=[Param("log_prob", "tensor", shape=_BT), Param("old_log_prob", "tensor", shape=_BT),
                  Param("advantages", "tensor", shape=_BT), Param("mask", "tensor", shape=_BT)],
          outputs=["per_token", "surrogate"],
          examples=[{"log_prob": [[-0.9, -0.6]], "old_log_prob": [[-1.0, -0.5]], "advantages": [[1.0, 1.0]],
                     "mask": [[1, 1]]}])
def trpo_surrogate(ctx: TensorContext, log_prob: torch.Tensor, old_log_prob: torch.Tensor,
                   advantages: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """TRPO surrogate objective (Schulman et al. 2015, eq. 14) L = E[ρ·A], ρ = exp(log_prob − old_log_prob).

    per_token = ρ·A; surrogate = masked mean (verl convention, Σm + 1e-8). Maximised, not a loss.
    """
    check_token_tensors(log_prob=log_prob, old_log_prob=old_log_prob, advantages=advantages, mask=mask)
    per_token = torch.exp(log_prob - old_log_prob) * advantages
    return {"per_token": per_token, "surrogate": masked_mean_t(per_token, mask, None, "verl")}
