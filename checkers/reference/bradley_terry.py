"""Preference models behind the losses: the Bradley-Terry probability of a preference and the
KL-regularised optimal policy π* = π_ref·e^{r/β}/Z (Rafailov et al. 2023, eq. 4).
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_distribution, require_positive, require_same_shape

@register("preference.bradley_terry",
          params=[Param("reward_chosen", "tensor", shape="(...)"), Param("reward_rejected", "tensor", shape="same")],
          outputs=["prob"],
          examples=[{"reward_chosen": [1.0, 0.2], "reward_rejected": [0.0, 0.5]}])
def bradley_terry(ctx: TensorContext, reward_chosen: torch.Tensor,
                  reward_rejected: torch.Tensor) -> dict[str, torch.Tensor]:
    """Bradley-Terry preference probability P(y_c ≻ y_r) = σ(r_c − r_r) = e^{r_c}/(e^{r_c} + e^{r_r})."""
    require_same_shape(reward_chosen=reward_chosen, reward_rejected=reward_rejected)
    return {"prob": torch.sigmoid(reward_chosen - reward_rejected)}


@register("policy.optimal",
          params=[Param("ref_probs", "tensor", shape="(..., K)", role="probs", doc="π_ref over the last axis"),
                  Param("rewards", "tensor", shape="same as ref_probs"), Param("beta", "float", range=(0.05, 1.0))],
          outputs=["probs", "log_partition"],
          examples=[{"ref_probs": [[0.5, 0.3, 0.2]], "rewards": [[1.0, 0.0, -1.0]], "beta": 0.5}])
def policy_optimal(ctx: TensorContext, ref_probs: torch.Tensor, rewards: torch.Tensor,
                   beta: float) -> dict[str, torch.Tensor]:
    """Maximiser of E_π[r] − β·KL(π‖π_ref): π* = π_ref·e^{r/β}/Z, Z = Σ π_ref·e^{r/β}.

    (Rafailov et al. 2023, eq. 4; Peters & Schaal 2007.) log Z = logsumexp(r/β + log π_ref) is taken over
    the support of π_ref with the maximum of r/β factored out, so neither a large r/β nor π_ref = 0
    overflows or puts a nan in the gradient.
    """
    require_distribution(ref_probs, "ref_probs")
    require_same_shape(ref_probs=ref_probs, rewards=rewards)
    require_positive(beta, "beta")
    with torch.no_grad():
        if not torch.isfinite(rewards).all().item():
            raise ReferenceInputError("rewards", "must be finite")
    support = ref_probs > 0
    a = torch.where(support, rewards / beta, torch.full_like(rewards, -math.inf))
    # The shift cancels in π* and is added back to log Z, so it needs no gradient.
    shift = a.amax(dim=-1, keepdim=True).detach()
    w = torch.exp(a - shift)
    total = (ref_probs * w).sum(dim=-1, keepdim=True)
    probs = ref_probs * w / total
    log_partition = (shift + torch.log(total)).squeeze(-1)
    return {"probs": probs, "log_partition": log_partition}
