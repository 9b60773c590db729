"""Per-group statistics with verl's vectorised arithmetic (verl ``verl/utils/groupwise.py::group_mean_std``,
used by ``compute_grpo_vectorized_outcome_advantage`` in ``verl/trainer/ppo/core_algos.py``).

The loop version of verl's GRPO takes ``torch.mean``/``torch.std`` of each group in the scores' dtype;
the vectorised version instead accumulates Σs and Σs² per group in **float32** and floors the variance
at ε before the square root, so the two differ both in rounding and when a group has (near-)zero spread.
This module reproduces the vectorised arithmetic; it has no dependency on the other engine modules.
"""

from __future__ import annotations

import torch

from .errors import ReferenceInputError


def group_mean_std_f32(scores: torch.Tensor, ids: torch.Tensor, eps: float
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-group mean, std and count, each float32 of shape (G,), as verl ``group_mean_std``.

    mean_g = Σs / max(c, 1); var_g = (Σs² − (Σs)²/max(c, 1)) / max(c − 1, 1) (the one-pass formula, whose
    float32 cancellation is part of the behaviour); std_g = √max(var_g, ε). A one-member group gets mean 0
    and std 1.
    """
    s = scores.reshape(-1).to(torch.float32)
    g = ids.reshape(-1).to(torch.long)
    n_groups = int(g.max().item()) + 1 if g.numel() else 0
    zeros = torch.zeros(n_groups, dtype=torch.float32, device=s.device)
    count = zeros.clone().index_add_(0, g, torch.ones_like(s))
    s1 = zeros.clone().index_add_(0, g, s)
    s2 = zeros.clone().index_add_(0, g, s * s)
    mean = s1 / count.clamp_min(1.0)
    var = (s2 - (s1 * s1) / count.clamp_min(1.0)) / (count - 1.0).clamp_min(1.0)
    std = torch.sqrt(torch.clamp(var, min=eps))
    single = count <= 1.0
    mean = torch.where(single, torch.zeros_like(mean), mean)
    std = torch.where(single, torch.ones_like(std), std)
    return mean, std, count


def grpo_vectorized_t(scores: torch.Tensor, ids: torch.Tensor, epsilon: float, scale: str) -> torch.Tensor:
    """verl ``compute_grpo_vectorized_outcome_advantage`` on summed scores (B,).

    A = (s − mean_g)/(std_g + ε) with float32 group statistics from :func:`group_mean_std_f32` (ε is used
    twice: as the variance floor and in the denominator), or s − mean_g when ``scale="none"``. The scores
    themselves stay in their dtype, so float64 scores minus a float32 mean is evaluated in float64 (torch
    type promotion), exactly as upstream with float64 rewards.
    """
    if scale not in ("group", "none"):
        raise ReferenceInputError("scale", "the vectorized verl GRPO supports only 'group' and 'none'")
    mean_g, std_g, _ = group_mean_std_f32(scores, ids, epsilon)
    if scale == "group":
        return (scores - mean_g[ids]) / (std_g[ids] + epsilon)
    return scores - mean_g[ids]
