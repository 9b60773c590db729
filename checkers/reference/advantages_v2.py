"""Outcome-advantage estimators added in engine v2 (contract §5): verl's pass@k GRPO, REINFORCE++ with a
group baseline, OPO and GPG (``verl/trainer/ppo/core_algos.py`` at b178a3cd), and TRL's multi-reward GRPO
advantages (``GRPOTrainer._generate_and_score_completions``, ``trl/trainer/grpo_trainer.py`` at f2cd5771).

Every upstream computes these under ``torch.no_grad``, so every output is detached. Scores are the row
sums of ``token_level_rewards`` (unmasked, as verl) or given directly as ``scores`` (B,); groups come
from ``index`` labels or consecutive blocks of ``group_size`` rows. The per-group loops of verl are
evaluated with group sums (``index_add``) instead of Python loops over rows.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from .errors import ReferenceInputError
from .group_advantages import BT, group_ids, group_sum, scores_from, with_tokens
from .masked import masked_whiten_t
from .registry import Example, Param, register
from .tensors import TensorContext, require_ndim

VERL_EPS = 1e-6
#: TRL's GRPO adds this to every std it divides by (``_generate_and_score_completions``).
TRL_STD_EPS = 1e-4

_GROUP_PARAMS = [
    Param("scores", "tensor", None, shape="(B,)", doc="outcome score per row (or give token_level_rewards)"),
    Param("token_level_rewards", "tensor", None, shape=BT, doc="scores are their row sums"),
    Param("mask", "tensor", None, shape=BT, doc="response_mask"),
    Param("index", "labels", None, shape="(B,)", standalone=True, doc="group label of each row"),
    Param("group_size", "int", None, doc="consecutive blocks of this many rows"),
]


def _setup(scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None, mask: torch.Tensor | None,
           index: torch.Tensor | None, group_size: int | None) -> tuple[torch.Tensor, torch.Tensor, int]:
    s = scores_from(scores, token_level_rewards, mask)
    ids = group_ids(index, group_size, s.shape[0], s.device)
    n_groups = int(ids.max().item()) + 1 if ids.numel() else 0
    return s, ids, n_groups


def _group_counts(ids: torch.Tensor, n_groups: int) -> torch.Tensor:
    return torch.bincount(ids, minlength=n_groups)


def _verl_group_mean(s: torch.Tensor, ids: torch.Tensor, n_groups: int) -> torch.Tensor:
    """Per-row group mean as verl's loops take it: ``torch.mean`` of the group, 0 for a one-member group."""
    cnt = _group_counts(ids, n_groups)
    mean = group_sum(s, ids, n_groups) / cnt.to(s.dtype)
    return torch.where(cnt[ids] == 1, torch.zeros_like(s), mean[ids])


def _require_mask_for(name: str, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None:
        raise ReferenceInputError("mask", f"{name} needs the response mask (B, T)")
    return mask.detach()


# --- pass@k ---------------------------------------------------------------------------------------

def grpo_passk_t(s: torch.Tensor, ids: torch.Tensor, n_groups: int, epsilon: float,
                 norm_adv_by_std_in_grpo: bool) -> torch.Tensor:
    cnt = _group_counts(ids, n_groups)
    if bool((cnt < 2).any().item()):
        bad = int(torch.nonzero(cnt < 2)[0, 0].item())
        raise ReferenceInputError("index", f"pass@k needs at least 2 samples per group; group {bad} has "
                                           f"{int(cnt[bad].item())}")
    # Rows ordered by group, then by score from high to low (NaN first, as torch.topk ranks it highest);
    # both sorts are stable, so among equal scores the earlier row comes first.
    order = torch.sort(s, descending=True, stable=True).indices
    order = order[torch.sort(ids[order], stable=True).indices]
    starts = torch.cumsum(cnt, 0) - cnt
    i_max, i_second = order[starts], order[starts + 1]
    gap = s[i_max] - s[i_second]
    if norm_adv_by_std_in_grpo:
        mean = group_sum(s, ids, n_groups) / cnt.to(s.dtype)
        var = group_sum((s - mean[ids]) ** 2, ids, n_groups) / (cnt - 1).to(s.dtype)
        gap = gap / (var.sqrt() + epsilon)
    adv = torch.zeros_like(s)
    adv[i_max] = gap
    return adv


@register("advantages.grpo_passk",
          params=_GROUP_PARAMS + [Param("epsilon", "float", VERL_EPS),
                                  Param("norm_adv_by_std_in_grpo", "bool", True,
                                        doc="divide the gap by the group's unbiased std + ε")],
          outputs=["advantages", "token_advantages"],
          examples=[{"scores": [1.0, 0.0, 0.5, 0.25], "group_size": 2}])
def advantages_grpo_passk(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                          mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                          epsilon: float, norm_adv_by_std_in_grpo: bool) -> dict[str, torch.Tensor]:
    """Pass@k GRPO advantages (Chen et al. 2025, arXiv:2503.19595), as verl
    ``compute_grpo_passk_outcome_advantage``.

    Only the best row of each group gets a non-zero advantage, the gap to the runner-up:
    A_max = (r_max − r_second)/(std_g + ε) with std_g the group's unbiased std (no division when
    ``norm_adv_by_std_in_grpo=False``); every other row gets 0. Ties: the gap is 0 (the earlier row is
    the "best"). A group of fewer than 2 rows is an input error (upstream raises). With ``mask``,
    ``token_advantages`` = A·m. Detached.
    """
    s, ids, n_groups = _setup(scores, token_level_rewards, mask, index, group_size)
    with torch.no_grad():
        adv = grpo_passk_t(s, ids, n_groups, epsilon, norm_adv_by_std_in_grpo)
    return with_tokens(adv, mask)


# --- REINFORCE++ with a group baseline ------------------------------------------------------------

@register("advantages.reinforce_pp_baseline",
          params=_GROUP_PARAMS + [Param("epsilon", "float", VERL_EPS, doc="accepted as upstream; unused")],
          outputs=["advantages", "returns"],
          examples=[{"token_level_rewards": [[0.0, 1.0], [0.0, 0.0]], "mask": [[1, 1], [1, 0]], "group_size": 2}])
def advantages_reinforce_pp_baseline(ctx: TensorContext, scores: torch.Tensor | None,
                                     token_level_rewards: torch.Tensor | None, mask: torch.Tensor | None,
                                     index: torch.Tensor | None, group_size: int | None,
                                     epsilon: float) -> dict[str, torch.Tensor]:
    """REINFORCE++-baseline (Hu 2025, arXiv:2501.03262), as verl
    ``compute_reinforce_plus_plus_baseline_outcome_advantage``.

    a_i = s_i − mean_g (mean 0 for a one-member group), broadcast over the tokens and masked, then
    whitened batch-wide over the counted tokens with verl ``masked_whiten`` (unbiased variance + 1e-8
    under the rsqrt) and masked again: A_{i,t} = m_{i,t}·(a_i − μ)/√(σ² + 1e-8), μ and σ² over every
    counted token, so long responses weigh more in the statistics. ``returns`` equals ``advantages``
    (upstream returns the same tensor twice). Needs ``mask``; fewer than 2 counted tokens is an input
    error (verl raises). Detached.
    """
    s, ids, n_groups = _setup(scores, token_level_rewards, mask, index, group_size)
    m = _require_mask_for("reinforce_pp_baseline", mask)
    with torch.no_grad():
        a = s - _verl_group_mean(s, ids, n_groups)
        tiled = a.unsqueeze(-1).expand_as(m) * m
        adv = masked_whiten_t(tiled, m, True, "verl") * m
    return {"advantages": adv, "returns": adv}


# --- OPO ------------------------------------------------------------------------------------------

@register("advantages.opo",
          params=_GROUP_PARAMS + [Param("epsilon", "float", VERL_EPS, doc="accepted as upstream; unused")],
          outputs=["advantages", "token_advantages", "baseline"],
          examples=[{"scores": [1.0, 0.0], "mask": [[1, 1, 1], [1, 0, 0]], "group_size": 2}])
def advantages_opo(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                   mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                   epsilon: float) -> dict[str, torch.Tensor]:
    """On-Policy RL with the Optimal reward baseline (OPO, Hao et al. 2025, arXiv:2505.23585), as verl
    ``compute_opo_outcome_advantage``.

    With ℓ_i = Σ_t m_{i,t} the response length, the baseline is the length-weighted group mean
    b_g = Σ_{j∈g} ℓ_j·s_j / Σ_{j∈g} ℓ_j (0 for a one-member group; 0/0 = nan when every member is empty),
    A_i = s_i − b_g, no std division. Needs ``mask`` (it gives the lengths); ``token_advantages`` = A·m,
    ``baseline`` = b_g per row. Detached.
    """
    s, ids, n_groups = _setup(scores, token_level_rewards, mask, index, group_size)
    m = _require_mask_for("opo", mask)
    with torch.no_grad():
        length = m.sum(dim=-1).to(s.dtype)
        cnt = _group_counts(ids, n_groups)
        bsl = group_sum(length * s, ids, n_groups) / group_sum(length, ids, n_groups)
        bsl = torch.where(cnt[ids] == 1, torch.zeros_like(s), bsl[ids])
        adv = s - bsl
    out = with_tokens(adv, mask)
    out["baseline"] = bsl
    return out


# --- GPG ------------------------------------------------------------------------------------------

@register("advantages.gpg",
          params=_GROUP_PARAMS + [Param("epsilon", "float", VERL_EPS, doc="accepted as upstream; unused"),
                                  Param("f_norm", "float", 1.0, doc="the advantage is divided by it"),
                                  Param("alpha", "float", 1.0,
                                        doc="accepted as upstream, which overwrites it with B/m; no effect")],
          outputs=["advantages", "token_advantages", "alpha"],
          examples=[{"scores": [1.0, 0.0, 0.0, 0.0], "group_size": 2}])
def advantages_gpg(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                   mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                   epsilon: float, f_norm: float, alpha: float) -> dict[str, torch.Tensor]:
    """Group Policy Gradient (GPG, arXiv:2504.02546), as verl
    ``compute_gpg_outcome_advantage``.

    A_i = α·(s_i − mean_g)/f_norm with mean_g the group mean (0 for a one-member group), no std division,
    and α = B / max(m, 1) where m counts the rows whose score is non-zero in the whole batch (the
    correction for groups that carry no signal). Upstream divides two integer tensors, so α is a float32
    number (B = 7, m = 3 gives 2.3333332538604736, not 7/3) and is used as such; the ``alpha`` argument
    is overwritten upstream and has no effect here either. Outputs ``alpha`` (the α used).
    With ``mask``, ``token_advantages`` = A·m. Detached.
    """
    if f_norm == 0 or not math.isfinite(f_norm):
        raise ReferenceInputError("f_norm", "must be finite and non-zero")
    s, ids, n_groups = _setup(scores, token_level_rewards, mask, index, group_size)
    with torch.no_grad():
        nonzero = torch.count_nonzero(s)
        a = (torch.tensor(s.shape[0], device=s.device) / nonzero.clamp(min=1)).to(torch.float32)
        adv = (a * (s - _verl_group_mean(s, ids, n_groups)) / f_norm).to(s.dtype)
    out = with_tokens(adv, mask)
    out["alpha"] = a.to(s.dtype)
    return out


# --- TRL multi-reward GRPO (sum then normalise, or GDPO) ---------------------------------------------

def _nan_group_stats(x: torch.Tensor, ids: torch.Tensor, n_groups: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-group nanmean and TRL ``nanstd`` (unbiased; nan when fewer than 2 non-nan values), (G, ...)."""
    valid = ~torch.isnan(x)
    x0 = torch.where(valid, x, torch.zeros_like(x))
    cnt = torch.zeros((n_groups,) + x.shape[1:], dtype=x.dtype, device=x.device).index_add(0, ids, valid.to(x.dtype))
    mean = torch.zeros_like(cnt).index_add(0, ids, x0) / cnt
    dev2 = torch.where(valid, (x - mean[ids]) ** 2, torch.zeros_like(x))
    variance = torch.zeros_like(cnt).index_add(0, ids, dev2) / cnt
    correction = torch.where(cnt > 1, cnt / (cnt - 1), torch.full_like(cnt, math.nan))
    return mean, torch.sqrt(variance * correction)


def _nanstd_all(x: torch.Tensor) -> torch.Tensor:
    count = (~torch.isnan(x)).sum().to(x.dtype)
    mean = torch.nanmean(x)
    variance = torch.nanmean((x - mean) ** 2)
    # Bessel's factor in the rewards' dtype (TRL's rewards are float32, so its int64 count/(count − 1) is too).
    correction = count / (count - 1) if count.item() > 1 else torch.full_like(count, math.nan)
    return torch.sqrt(variance * correction)


def _sum_then_normalize(rewards_per_func: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, n_groups: int,
                        singleton_groups: bool, scale_rewards: str) -> tuple[torch.Tensor, torch.Tensor]:
    unscorable = torch.isnan(rewards_per_func).all(dim=1)
    rewards = (rewards_per_func * weights.unsqueeze(0)).nansum(dim=1)
    rewards = torch.where(unscorable, torch.full_like(rewards, math.nan), rewards)
    mean_g, std_g = _nan_group_stats(rewards, ids, n_groups)
    if scale_rewards == "batch":
        std = _nanstd_all(rewards).expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
    else:
        std = torch.zeros_like(rewards) if singleton_groups else std_g[ids]
    adv = rewards - mean_g[ids]
    if scale_rewards != "none":
        adv = adv / (std + TRL_STD_EPS)
    return adv, rewards


def _normalize_then_sum(rewards_per_func: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, n_groups: int,
                        singleton_groups: bool, scale_rewards: str) -> tuple[torch.Tensor, torch.Tensor]:
    unscorable = torch.isnan(rewards_per_func).all(dim=1)
    mean_k, std_k = _nan_group_stats(rewards_per_func, ids, n_groups)
    if singleton_groups:
        std_k = torch.zeros_like(mean_k)
    reward_k = (rewards_per_func - mean_k[ids]) / (std_k[ids] + TRL_STD_EPS)
    rewards = (reward_k * weights.unsqueeze(0)).nansum(dim=1)
    rewards = torch.where(unscorable, torch.full_like(rewards, math.nan), rewards)
    std = _nanstd_all(rewards).expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
    adv = (rewards - torch.nanmean(rewards)) / (std + TRL_STD_EPS)
    return adv, rewards


#: ``multi_objective_aggregation`` -> (rewards_per_func, weights, ids, G, all groups of one, scale) -> (A, r).
AGGREGATIONS: dict[str, Callable[..., tuple[torch.Tensor, torch.Tensor]]] = {
    "sum_then_normalize": _sum_then_normalize,
    "normalize_then_sum": _normalize_then_sum,
}


# Two groups of two rows, two reward functions weighted 1 and 0.5 (the examples in docs/reference.md).
_MULTI_EXAMPLE = {"rewards_per_func": [[1.0, 0.5], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], "reward_weights": [1.0, 0.5],
                  "group_size": 2}


@register("advantages.grpo_multi",
          params=[Param("rewards_per_func", "tensor", shape="(B, K)", doc="one column per reward function; nan = none"),
                  Param("reward_weights", "tensor", None, shape="(K,)", doc="default: all ones"),
                  Param("index", "labels", None, shape="(B,)", standalone=True, doc="group label of each row"),
                  Param("group_size", "int", None, doc="num_generations: consecutive blocks of this many rows"),
                  Param("multi_objective_aggregation", "choice", "sum_then_normalize", choices=tuple(AGGREGATIONS)),
                  Param("scale_rewards", "choice", "group", choices=("group", "batch", "none"),
                        doc="sum_then_normalize only; normalize_then_sum ignores it, as TRL")],
          outputs=["advantages", "rewards"],
          examples=[Example(_MULTI_EXAMPLE, "weighted sum, then normalised in each group"),
                    Example({**_MULTI_EXAMPLE, "multi_objective_aggregation": "normalize_then_sum"},
                            "GDPO: each reward normalised in its group, then summed")])
def advantages_grpo_multi(ctx: TensorContext, rewards_per_func: torch.Tensor, reward_weights: torch.Tensor | None,
                          index: torch.Tensor | None, group_size: int | None, multi_objective_aggregation: str,
                          scale_rewards: str) -> dict[str, torch.Tensor]:
    """GRPO advantages from several reward functions, as TRL ``GRPOTrainer._generate_and_score_completions``
    (one process). R is ``rewards_per_func`` (B, K), w the ``reward_weights``; ε = 1e-4.

    * ``sum_then_normalize``: r_i = Σ_k w_k·R_ik (nansum), A = (r − nanmean_g r)/(nanstd_g r + ε) with the
      group's unbiased std (``scale_rewards="group"``), the batch's (``"batch"``; the mean stays the
      group's), or no division (``"none"``).
    * ``normalize_then_sum`` (GDPO, arXiv:2601.05242): each reward is normalised in its
      group first, R̂_ik = (R_ik − nanmean_g R_k)/(nanstd_g R_k + ε); r_i = Σ_k w_k·R̂_ik (nansum); then
      A = (r − nanmean r)/(nanstd r + ε) over the whole batch. ``scale_rewards`` is not used.

    A row whose rewards are all nan is unscorable: its r is nan (left out of every statistic) and its A is 0;
    any other nan advantage becomes 0 as well. When every group has one row (num_generations = 1) the group
    std is taken as 0, as TRL does. Outputs ``advantages`` (B,) and the aggregated ``rewards`` r (B,).
    Detached.
    """
    require_ndim(rewards_per_func, "rewards_per_func", 2)
    B, K = rewards_per_func.shape
    if reward_weights is None:
        weights = torch.ones(K, dtype=rewards_per_func.dtype, device=rewards_per_func.device)
    else:
        require_ndim(reward_weights, "reward_weights", 1)
        if reward_weights.shape[0] != K:
            raise ReferenceInputError("reward_weights", f"has {reward_weights.shape[0]} weights for {K} reward functions")
        weights = reward_weights.detach()
    ids = group_ids(index, group_size, B, rewards_per_func.device)
    n_groups = int(ids.max().item()) + 1 if ids.numel() else 0
    singleton = bool((_group_counts(ids, n_groups) == 1).all().item()) if n_groups else False
    with torch.no_grad():
        adv, rewards = AGGREGATIONS[multi_objective_aggregation](
            rewards_per_func.detach(), weights, ids, n_groups, singleton, scale_rewards)
        adv = torch.nan_to_num(adv, nan=0.0)
    return {"advantages": adv, "rewards": rewards}
