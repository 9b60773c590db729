"""One DPO computation over a batch of pairs: input checks, the per-type losses combined with their
weights, and the rewards, margins and accuracies TRL reports (``DPOTrainer.dpo_loss`` and
``get_batch_loss_metrics``, v0.28.0; TRL main ``_compute_loss`` for ``trl_version="head"``).

Rewards are β·r with the reference, detached, even when ``reference_free``; margins = chosen − rejected
rewards; accuracies = 1[chosen reward > rejected reward]; loss = mean of the per-pair losses.
"""

from __future__ import annotations

import math

import torch

from .dpo_losses import DPO_LOSSES, DPOTerms, f_divergence_score
from .errors import ReferenceInputError
from .tensors import require_ndim, require_positive, require_same_shape

class OneOrMany(tuple):
    """Allowed values of a choice that may also be given as a list of choices.

    The registry checks ``value in param.choices``; this container answers that for a list too, so
    ``describe`` still lists the allowed loss types.
    """

    def __contains__(self, value: object) -> bool:
        if isinstance(value, (list, tuple)):
            return len(value) > 0 and all(tuple.__contains__(self, v) for v in value)
        return tuple.__contains__(self, value)


def _loss_types_and_weights(loss_type: str | list[str], loss_weights: list | None
                            ) -> tuple[list[str], list[float], bool]:
    many = isinstance(loss_type, (list, tuple))
    types = list(loss_type) if many else [loss_type]
    for name in types:
        if name not in DPO_LOSSES:
            raise ReferenceInputError("loss_type", f"unknown DPO loss type {name!r}")
    if len(set(types)) != len(types):
        raise ReferenceInputError("loss_type", "a loss type may appear only once in the list")
    if loss_weights is None:
        weights = [1.0] * len(types)
    else:
        if len(loss_weights) != len(types):
            raise ReferenceInputError(
                "loss_weights", f"needs one weight per loss type ({len(types)}), got {len(loss_weights)}")
        weights = []
        for w in loss_weights:
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
                raise ReferenceInputError("loss_weights", "weights must be finite numbers")
            weights.append(float(w))
    return types, weights, many


def check_pair_logps(**tensors: torch.Tensor) -> None:
    for name, t in tensors.items():
        require_ndim(t, name, 1)
    require_same_shape(**tensors)
    first = next(iter(tensors))
    if tensors[first].numel() == 0:  # the batch mean of no pairs would be a silent nan
        raise ReferenceInputError(first, "needs at least one pair")


def _lengths(t: torch.Tensor | None, name: str, like: torch.Tensor) -> torch.Tensor | None:
    if t is None:
        return None
    require_same_shape(**{"policy_chosen_logps": like, name: t})
    with torch.no_grad():
        if not torch.isfinite(t).all().item() or (t < 0).any().item():
            raise ReferenceInputError(name, "lengths must be finite and non-negative")
    # TRL head clamps the token count at 1 so an empty completion does not divide by zero.
    return t.clamp(min=1.0)


def dpo_outputs(policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
                 ref_chosen_logps: torch.Tensor, ref_rejected_logps: torch.Tensor, beta: float,
                 loss_type: str | list[str], label_smoothing: float, trl_version: str, reference_free: bool,
                 chosen_lengths: torch.Tensor | None, rejected_lengths: torch.Tensor | None,
                 bco_delta: float | None, nll_loss: torch.Tensor | None, loss_weights: list | None,
                 f_divergence: str, f_alpha: float, discopop_tau: float,
                 pair_weights: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    check_pair_logps(policy_chosen_logps=policy_chosen_logps, policy_rejected_logps=policy_rejected_logps,
                      ref_chosen_logps=ref_chosen_logps, ref_rejected_logps=ref_rejected_logps)
    require_positive(beta, "beta")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ReferenceInputError("label_smoothing", "must lie in [0, 1]")
    require_positive(discopop_tau, "discopop_tau")
    if not math.isfinite(f_alpha):
        raise ReferenceInputError("f_alpha", "must be finite")
    types, weights, many = _loss_types_and_weights(loss_type, loss_weights)
    if "robust" in types and label_smoothing >= 0.5:
        raise ReferenceInputError("label_smoothing",
                                  "the robust loss needs label_smoothing < 0.5 (it divides by 1 − 2ε)")
    if (chosen_lengths is None) != (rejected_lengths is None):
        missing = "chosen_lengths" if chosen_lengths is None else "rejected_lengths"
        raise ReferenceInputError(missing, "chosen_lengths and rejected_lengths must be given together")
    if "sigmoid_norm" in types and chosen_lengths is None:
        raise ReferenceInputError("chosen_lengths", "the sigmoid_norm loss needs chosen_lengths and rejected_lengths")
    if "sft" in types:
        if nll_loss is None:
            raise ReferenceInputError("nll_loss", "the sft loss needs the chosen responses' nll_loss")
        if nll_loss.dim() != 0 and nll_loss.shape != policy_chosen_logps.shape:
            raise ReferenceInputError("nll_loss", "must be a scalar or one value per pair")
    if bco_delta is not None and not math.isfinite(bco_delta):
        raise ReferenceInputError("bco_delta", "must be finite")
    len_c = _lengths(chosen_lengths, "chosen_lengths", policy_chosen_logps)
    len_r = _lengths(rejected_lengths, "rejected_lengths", policy_chosen_logps)

    r_c = policy_chosen_logps - ref_chosen_logps
    r_r = policy_rejected_logps - ref_rejected_logps
    h_r_c = policy_chosen_logps if reference_free else r_c
    h_r_r = policy_rejected_logps if reference_free else r_r
    s_c = f_divergence_score(h_r_c, f_divergence, f_alpha)
    s_r = f_divergence_score(h_r_r, f_divergence, f_alpha)
    terms = DPOTerms(
        beta=beta, label_smoothing=label_smoothing, version=trl_version, r_chosen=r_c, r_rejected=r_r,
        h=s_c - s_r, s_chosen=f_divergence_score(r_c, f_divergence, f_alpha),
        s_rejected=f_divergence_score(r_r, f_divergence, f_alpha), h_length=None if len_c is None else s_c / len_c - s_r / len_r,
        logratios=policy_chosen_logps - policy_rejected_logps,
        ref_logratios=ref_chosen_logps - ref_rejected_logps,
        bco_delta=bco_delta, nll_loss=nll_loss, discopop_tau=discopop_tau)

    out: dict[str, torch.Tensor] = {}
    losses = torch.zeros_like(r_c)
    for name, w in zip(types, weights):
        per_pair = DPO_LOSSES[name](terms)
        if pair_weights is not None:  # WPO: TRL head scales each type's per-pair loss before its mean
            per_pair = per_pair * pair_weights
        if many:
            out[f"losses_{name}"] = per_pair
        losses = losses + w * per_pair
    # TRL reports detached rewards, with the reference even when reference_free.
    chosen_rewards = (beta * r_c).detach()
    rejected_rewards = (beta * r_r).detach()
    out.update(
        losses=losses, loss=losses.mean(), chosen_rewards=chosen_rewards, rejected_rewards=rejected_rewards,
        margins=chosen_rewards - rejected_rewards,
        accuracies=(chosen_rewards > rejected_rewards).to(r_c.dtype))
    return out
