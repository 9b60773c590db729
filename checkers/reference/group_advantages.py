"""Group-baseline advantages from one outcome score per row (contract §4, "Advantages and returns"):
GRPO and RLOO, and the helpers every group estimator shares (scores from token rewards, group ids from
labels or block sizes, per-group sums, per-token advantages). The engine-v2 group estimators
(:mod:`checkers.reference.advantages_v2`) build on the same helpers.

Every upstream computes these under ``torch.no_grad``, so every output is detached.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from .errors import ReferenceInputError
from .groupwise import grpo_vectorized_t
from .masked import CONVENTIONS, check_convention
from .registry import Example, Param, register
from .tensors import TensorContext, require_mask, require_ndim, require_same_shape

GRPO_IMPLEMENTATION_NAMES = ("loop", "vectorized")
GRPO_EPS = {"verl": 1e-6, "trl": 1e-4, "openrlhf": 1e-9}
RLOO_NORMALIZE_EPS = 1e-4
_CONV = Param("convention", "choice", "verl", choices=CONVENTIONS)
BT = "(B, T)"


def scores_from(scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                mask: torch.Tensor | None) -> torch.Tensor:
    """The (B,) outcome scores: ``scores`` as given, or the row sums of ``token_level_rewards`` (B, T)."""
    if (scores is None) == (token_level_rewards is None):
        raise ReferenceInputError("scores", "give exactly one of scores (B,) and token_level_rewards (B, T)")
    if scores is not None:
        require_ndim(scores, "scores", 1)
        if mask is not None:
            require_ndim(mask, "mask", 2)
            require_mask(mask)
            if mask.shape[0] != scores.shape[0]:
                raise ReferenceInputError("mask", f"has {mask.shape[0]} rows but scores has {scores.shape[0]}")
        return scores.detach()
    assert token_level_rewards is not None
    require_ndim(token_level_rewards, "token_level_rewards", 2)
    if mask is None:
        raise ReferenceInputError("mask", "is required with token_level_rewards")
    require_same_shape(token_level_rewards=token_level_rewards, mask=mask)
    require_mask(mask)
    # verl sums the token rewards without masking (outcome rewards sit on counted tokens anyway).
    return token_level_rewards.detach().sum(dim=-1)


def group_ids(index: torch.Tensor | None, group_size: int | None, n: int, device: torch.device) -> torch.Tensor:
    """The group of each of ``n`` rows: the ``index`` labels, or consecutive blocks of ``group_size``."""
    if (index is None) == (group_size is None):
        raise ReferenceInputError("index", "give exactly one of index (group labels) and group_size")
    if index is not None:
        if index.shape[0] != n:
            raise ReferenceInputError("index", f"has {index.shape[0]} labels for {n} rows")
        return index.to(device)
    assert group_size is not None
    if group_size < 1 or n % group_size:
        raise ReferenceInputError("group_size", f"must be a positive divisor of the batch size {n}")
    return torch.arange(n, device=device) // group_size


def group_sum(x: torch.Tensor, ids: torch.Tensor, n_groups: int) -> torch.Tensor:
    """Σ of ``x`` over the rows of each group (``index_add``, no loop over rows)."""
    return torch.zeros(n_groups, dtype=x.dtype, device=x.device).index_add(0, ids, x)


def with_tokens(adv: torch.Tensor, mask: torch.Tensor | None) -> dict[str, torch.Tensor]:
    """The outputs of a group estimator: ``advantages`` (B,) and, with a mask, ``token_advantages`` A·m."""
    out = {"advantages": adv}
    if mask is not None:
        out["token_advantages"] = adv.unsqueeze(-1) * mask.detach()
    return out


def grpo_t(scores: torch.Tensor, ids: torch.Tensor, epsilon: float | None = None, scale: str = "group",
           unbiased: bool = True, convention: str = "verl") -> torch.Tensor:
    """Group-relative advantages of ``scores`` (B,) with int64 group ids (see ``advantages.grpo``)."""
    check_convention(convention)
    if scale not in ("group", "batch", "none"):
        raise ReferenceInputError("scale", "must be 'group', 'batch' or 'none'")
    eps = GRPO_EPS[convention] if epsilon is None else epsilon
    n_groups = int(ids.max().item()) + 1 if ids.numel() else 0
    s = scores
    valid = ~torch.isnan(s) if convention == "trl" else torch.ones_like(s, dtype=torch.bool)
    s0 = torch.where(valid, s, torch.zeros_like(s))
    w = valid.to(s.dtype)
    cnt = group_sum(w, ids, n_groups)
    # Outside trl every row is "valid", so a nan score propagates into its group, as torch.mean does.
    mean_g = group_sum(s0, ids, n_groups) / cnt
    dev = torch.where(valid, s - mean_g[ids], torch.zeros_like(s))
    ddof = 1 if unbiased else 0
    std_g = (group_sum(dev ** 2, ids, n_groups) / (cnt - ddof)).sqrt()
    mean, std = mean_g[ids], std_g[ids]
    if scale == "batch":
        sv = s[valid]
        std_b = sv.std(unbiased=unbiased) if sv.numel() > ddof else torch.tensor(math.nan, dtype=s.dtype)
        std = std_b.to(s.device).expand_as(s)
    single = torch.bincount(ids, minlength=n_groups)[ids] == 1
    if convention == "verl":
        # verl: a one-member group has mean 0 and std 1.
        mean = torch.where(single, torch.zeros_like(mean), mean)
        if scale == "group":
            std = torch.where(single, torch.ones_like(std), std)
    adv = s - mean
    if scale != "none":
        adv = adv / (std + eps)
    if convention == "trl":
        adv = torch.where(single, torch.zeros_like(adv), adv)
        adv = torch.nan_to_num(adv, nan=0.0)
    return adv


@register("advantages.grpo",
          params=[Param("scores", "tensor", None, shape="(B,)"),
                  Param("token_level_rewards", "tensor", None, shape=BT),
                  Param("mask", "tensor", None, shape=BT),
                  Param("index", "labels", None, shape="(B,)", standalone=True, doc="group label of each row"),
                  Param("group_size", "int", None, doc="consecutive blocks of this many rows"),
                  Param("epsilon", "float", None, doc="default: verl 1e-6, trl 1e-4, openrlhf 1e-9"),
                  Param("scale", "choice", "group", choices=("group", "batch", "none")),
                  Param("norm_by_std", "bool", None, doc="alias: True = scale 'group', False = 'none'"),
                  Param("unbiased", "bool", True), _CONV,
                  Param("implementation", "choice", "loop", choices=GRPO_IMPLEMENTATION_NAMES,
                        doc="verl only: 'loop' (compute_grpo_outcome_advantage) or 'vectorized' "
                            "(compute_grpo_vectorized_outcome_advantage: float32 statistics, variance floor ε)")],
          outputs=["advantages", "token_advantages"],
          examples=[Example({"scores": [1.0, 0.0, 0.5, 1.0], "index": ["a", "a", "b", "b"]},
                            "two groups of two (verl loop)"),
                    Example({"scores": [1.0, 0.0, 0.5, 1.0], "index": ["a", "a", "b", "b"],
                             "implementation": "vectorized"},
                            "verl compute_grpo_vectorized_outcome_advantage (float32 statistics)")])
def advantages_grpo(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                    mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                    epsilon: float | None, scale: str, norm_by_std: bool | None, unbiased: bool,
                    convention: str, implementation: str) -> dict[str, torch.Tensor]:
    """GRPO outcome advantages (Shao et al. 2024, DeepSeekMath): A = (s − mean_g)/(std + ε).

    s = scores, or Σ_t token_level_rewards (verl ``compute_grpo_outcome_advantage``). std is the group's
    (``scale="group"``), the whole batch's (``"batch"``, TRL ``scale_rewards="batch"``; the mean stays the
    group's) or no division (``"none"``, Dr.GRPO); ``norm_by_std`` is verl's alias. std is unbiased unless
    ``unbiased=False``.

    * verl: ε = 1e-6; a one-member group uses mean 0, std 1 (so A = s/(1 + ε)).
    * trl (``GRPOTrainer``): ε = 1e-4; nan scores are unscorable: group statistics use the non-nan
      members (nanmean, unbiased nanstd), a one-member group gets 0 and any nan advantage becomes 0.
    * openrlhf (``group_norm``): ε = 1e-9, plain mean/std (a one-member group's std is nan).

    ``implementation="vectorized"`` (verl only, ``compute_grpo_vectorized_outcome_advantage``): the group
    mean and the unbiased std are accumulated in float32 by the one-pass formula Σs² − (Σs)²/c and the
    variance is floored at ε before the square root, so A = (s − mean_g)/(√max(var_g, ε) + ε); a group
    with equal scores gets 0, not 0/ε noise; one-member groups as the loop version.
    With ``mask``, ``token_advantages`` = A·m. Detached (upstream runs under no_grad).
    """
    if norm_by_std is not None:
        scale = "group" if norm_by_std else "none"
    s = scores_from(scores, token_level_rewards, mask)
    ids = group_ids(index, group_size, s.shape[0], s.device)
    with torch.no_grad():
        adv = GRPO_IMPLEMENTATIONS[implementation](s, ids, epsilon, scale, unbiased, convention)
    return with_tokens(adv, mask)


def _grpo_vectorized(scores: torch.Tensor, ids: torch.Tensor, epsilon: float | None, scale: str,
                     unbiased: bool, convention: str) -> torch.Tensor:
    if convention != "verl":
        raise ReferenceInputError("implementation", "'vectorized' is verl's; use convention='verl'")
    if not unbiased:
        raise ReferenceInputError("unbiased", "verl's vectorized GRPO always uses the unbiased group std")
    return grpo_vectorized_t(scores, ids, GRPO_EPS["verl"] if epsilon is None else epsilon, scale)


#: ``advantages.grpo``'s ``implementation`` argument -> the function that computes A from (B,) scores.
GRPO_IMPLEMENTATIONS: dict[str, Callable[..., torch.Tensor]] = {"loop": grpo_t, "vectorized": _grpo_vectorized}


def rloo_t(scores: torch.Tensor, ids: torch.Tensor, normalize: bool = False, singleton: str | None = None,
           convention: str = "verl") -> torch.Tensor:
    check_convention(convention)
    if singleton is None:
        singleton = "score" if convention == "verl" else "zero"
    if singleton not in ("score", "zero"):
        raise ReferenceInputError("singleton", "must be 'score' or 'zero'")
    n_groups = int(ids.max().item()) + 1 if ids.numel() else 0
    s = scores
    if convention == "trl":
        valid = ~torch.isnan(s)
        s0 = torch.where(valid, s, torch.zeros_like(s))
        w = valid.to(s.dtype)
        others_sum = group_sum(s0, ids, n_groups)[ids] - s0
        others_cnt = group_sum(w, ids, n_groups)[ids] - w
    else:
        others_sum = group_sum(s, ids, n_groups)[ids] - s
        others_cnt = group_sum(torch.ones_like(s), ids, n_groups)[ids] - 1
    lone = others_cnt == 0
    baseline = others_sum / torch.where(lone, torch.ones_like(others_cnt), others_cnt)
    adv = s - baseline
    if convention == "trl" and singleton == "zero":
        # TRL head: a row without a scorable sibling gets the baseline 0/0 = nan, so it stays out of the
        # normalisation statistics below; nan_to_num then makes its advantage 0.
        fill = torch.full_like(s, math.nan)
    else:
        fill = s if singleton == "score" else torch.zeros_like(s)
    adv = torch.where(lone, fill, adv)
    if normalize:
        ok = ~torch.isnan(adv)
        a = adv[ok]
        mean = a.mean()
        std = a.std() if a.numel() > 1 else torch.tensor(math.nan, dtype=s.dtype, device=s.device)
        adv = (adv - mean) / (std + RLOO_NORMALIZE_EPS)
    if convention == "trl":
        adv = torch.nan_to_num(adv, nan=0.0)
    return adv


@register("advantages.rloo",
          params=[Param("scores", "tensor", None, shape="(B,)"),
                  Param("token_level_rewards", "tensor", None, shape=BT),
                  Param("mask", "tensor", None, shape=BT),
                  Param("index", "labels", None, shape="(B,)", standalone=True), Param("group_size", "int", None),
                  Param("normalize", "bool", False),
                  Param("singleton", "choice", None, choices=("score", "zero"),
                        doc="one-member groups; default: verl score, trl/openrlhf zero"),
                  _CONV],
          outputs=["advantages", "token_advantages"],
          examples=[{"scores": [1.0, 0.0, 0.5], "group_size": 3}])
def advantages_rloo(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                    mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                    normalize: bool, singleton: str | None, convention: str) -> dict[str, torch.Tensor]:
    """RLOO leave-one-out advantages (Ahmadian et al. 2024, arXiv:2402.14740): A_i = s_i − mean_{j≠i} s_j
    = (c·s_i − Σ_g s)/(c − 1) for a group of c.

    * verl (``compute_rloo_outcome_advantage``): a one-member group keeps its raw score
      (``singleton="score"``); the vectorised verl version and trl/openrlhf give 0 (``"zero"``).
    * trl: the baseline is the nansum over the scorable (non-nan) others divided by their count; a row
      with no scorable other follows ``singleton``; nan advantages become 0.
    ``normalize=True`` (TRL): A ← (A − mean)/(std + 1e-4) over the rows whose A is not nan (under trl also
    leaving out rows with no scorable sibling, whose A is 0), unbiased std.
    With ``mask``, ``token_advantages`` = A·m. Detached.
    """
    s = scores_from(scores, token_level_rewards, mask)
    ids = group_ids(index, group_size, s.shape[0], s.device)
    with torch.no_grad():
        adv = rloo_t(s, ids, normalize, singleton, convention)
    return with_tokens(adv, mask)
