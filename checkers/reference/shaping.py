"""KL control and reward shaping (contract §4, "KL control and reward shaping")."""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .estimators import estimator_t, kl_penalty_t, PENALTY_MODES
from .masked import CONVENTIONS, masked_mean_t
from .registry import Param, register
from .tensors import TensorContext, require_mask, require_ndim, require_positive, require_same_shape

ADAPTIVE_CLIP = 0.2
TERMINAL_ESTIMATORS = ("k1", "kl", "k2", "mse", "k3", "low_var_kl", "abs")


@register("kl_controller.fixed", params=[Param("kl_coef", "float", range=(0.01, 0.2))], outputs=["kl_coef"],
          examples=[{"kl_coef": 0.05}])
def kl_controller_fixed(ctx: TensorContext, kl_coef: float) -> dict[str, torch.Tensor]:
    """Fixed KL controller (verl ``FixedKLController``): β stays β."""
    return {"kl_coef": ctx.tensor(kl_coef)}


@register("kl_controller.adaptive",
          params=[Param("kl_coef", "float", range=(0.01, 0.2)), Param("current_kl", "float", range=(0.0, 0.2)),
                  Param("target_kl", "float", range=(0.01, 0.1)), Param("n_steps", "float", range=(16.0, 512.0)),
                  Param("horizon", "float", range=(1000.0, 20000.0)),
                  Param("min_coef", "float", None), Param("max_coef", "float", None)],
          outputs=["kl_coef", "proportional_error"],
          examples=[{"kl_coef": 0.1, "current_kl": 8.0, "target_kl": 6.0, "n_steps": 256, "horizon": 10000}])
def kl_controller_adaptive(ctx: TensorContext, kl_coef: float, current_kl: float, target_kl: float,
                           n_steps: float, horizon: float, min_coef: float | None,
                           max_coef: float | None) -> dict[str, torch.Tensor]:
    """Adaptive KL controller (Ziegler et al. 2019, arXiv:1909.08593; verl ``AdaptiveKLController``).

    e = clip(current_kl/target_kl − 1, −0.2, 0.2); β ← β·(1 + e·n_steps/horizon), then clamped to
    [min_coef, max_coef] when given. Outputs the new ``kl_coef`` and ``proportional_error`` e.
    """
    require_positive(target_kl, "target_kl")
    require_positive(horizon, "horizon")
    require_positive(n_steps, "n_steps", allow_zero=True)
    if min_coef is not None and max_coef is not None and min_coef > max_coef:
        raise ReferenceInputError("min_coef", "must not exceed max_coef")
    err = min(max(current_kl / target_kl - 1, -ADAPTIVE_CLIP), ADAPTIVE_CLIP)
    coef = kl_coef * (1 + err * n_steps / horizon)
    if min_coef is not None:
        coef = max(coef, min_coef)
    if max_coef is not None:
        coef = min(coef, max_coef)
    return {"kl_coef": ctx.tensor(coef), "proportional_error": ctx.tensor(err)}


def _coef(kl_coef: float | torch.Tensor, rows: int, name: str = "kl_coef") -> float | torch.Tensor:
    """A scalar, or one coefficient per row (shape (B,)) broadcast over the tokens."""
    if isinstance(kl_coef, torch.Tensor):
        if kl_coef.dim() == 0:
            return kl_coef
        if kl_coef.dim() == 1 and kl_coef.shape[0] == rows:
            return kl_coef.unsqueeze(-1)
        raise ReferenceInputError(name, f"must be a number or have one entry per row ({rows})")
    if not math.isfinite(kl_coef):
        raise ReferenceInputError(name, "must be finite")
    return kl_coef


@register("reward.kl_in_reward",
          params=[Param("token_level_scores", "tensor", shape="(B, T)"),
                  Param("old_log_prob", "tensor", shape="(B, T)"), Param("ref_log_prob", "tensor", shape="(B, T)"),
                  Param("mask", "tensor", shape="(B, T)"), Param("kl_coef", "tensor_or_float", range=(0.01, 0.2)),
                  Param("mode", "choice", "kl", choices=PENALTY_MODES),
                  Param("convention", "choice", "verl", choices=CONVENTIONS)],
          outputs=["token_level_rewards", "kl", "current_kl"],
          examples=[{"token_level_scores": [[0.0, 0.0, 1.0]], "old_log_prob": [[-1.0, -0.5, -2.0]],
                     "ref_log_prob": [[-1.2, -0.4, -2.0]], "mask": [[1, 1, 1]], "kl_coef": 0.1}])
def reward_kl_in_reward(ctx: TensorContext, token_level_scores: torch.Tensor, old_log_prob: torch.Tensor,
                        ref_log_prob: torch.Tensor, mask: torch.Tensor, kl_coef: float | torch.Tensor, mode: str,
                        convention: str) -> dict[str, torch.Tensor]:
    """KL penalty folded into the token rewards, as verl ``ray_trainer.apply_kl_penalty``.

    kl = kl.penalty(old_log_prob, ref_log_prob, mode, convention)·m; token_level_rewards = scores − β·kl;
    current_kl = mean over rows of masked_mean(kl, m, axis=−1) (the row means follow ``convention``:
    verl Σm + 1e-8, so an empty row counts 0; trl/openrlhf Σm, so an empty row makes it nan).
    """
    require_ndim(token_level_scores, "token_level_scores", 2)
    require_same_shape(token_level_scores=token_level_scores, old_log_prob=old_log_prob,
                       ref_log_prob=ref_log_prob, mask=mask)
    require_mask(mask)
    beta = _coef(kl_coef, mask.shape[0])
    kld = kl_penalty_t(old_log_prob, ref_log_prob, mode, convention) * mask
    rewards = token_level_scores - beta * kld
    current = masked_mean_t(kld, mask, -1, convention).mean(dim=0)
    return {"token_level_rewards": rewards, "kl": kld, "current_kl": current}


@register("reward.terminal",
          params=[Param("scores", "tensor", shape="(B,)"),
                  Param("log_prob", "tensor", None, shape="(B, T)"),
                  Param("ref_log_prob", "tensor", None, shape="(B, T)"),
                  Param("kl", "tensor", None, shape="(B, T)", doc="precomputed per-token KL instead of log-probs"),
                  Param("mask", "tensor", shape="(B, T)"), Param("kl_coef", "float", range=(0.01, 0.2)),
                  Param("estimator", "choice", "k1", choices=TERMINAL_ESTIMATORS),
                  Param("mask_kl", "bool", True),
                  Param("score_position", "choice", "last", choices=("last", "after_last")),
                  Param("reward_clip_range", "list", None, doc="[lo, hi] clamp of the scores"),
                  Param("convention", "choice", "verl", choices=CONVENTIONS)],
          outputs=["rewards"],
          examples=[{"scores": [1.0], "log_prob": [[-1.0, -0.5, -2.0]], "ref_log_prob": [[-1.2, -0.4, -2.0]],
                     "mask": [[1, 1, 0]], "kl_coef": 0.1}])
def reward_terminal(ctx: TensorContext, scores: torch.Tensor, log_prob: torch.Tensor | None,
                    ref_log_prob: torch.Tensor | None, kl: torch.Tensor | None, mask: torch.Tensor,
                    kl_coef: float, estimator: str, mask_kl: bool, score_position: str,
                    reward_clip_range: list | None, convention: str) -> dict[str, torch.Tensor]:
    """Sequence score placed on the last token plus a per-token KL penalty.

    rewards_t = −β·kl_t (·m_t when ``mask_kl``) + [t = t*]·score, with t* the row's last counted token
    (TRL v0.11 ``compute_rewards``, OpenRLHF ``compute_reward`` -- the latter with ``mask_kl=False``), or
    with ``score_position="after_last"`` one past it, or the last if that is the end (TRL PPO at HEAD).
    kl is the estimator k1/kl, k2/mse, k3/low_var_kl or abs of (log_prob, ref_log_prob), unclamped and in
    the input dtype under every convention, or the given ``kl``. ``reward_clip_range=[lo, hi]`` clamps the
    scores first. openrlhf: β ≤ 0 counts as 0. A row without a counted token is an input error.
    """
    require_ndim(mask, "mask", 2)
    require_mask(mask)
    require_ndim(scores, "scores", 1)
    if scores.shape[0] != mask.shape[0]:
        raise ReferenceInputError("scores", f"has {scores.shape[0]} entries but mask has {mask.shape[0]} rows")
    if kl is not None:
        if log_prob is not None or ref_log_prob is not None:
            raise ReferenceInputError("kl", "give either kl or log_prob and ref_log_prob, not both")
        require_same_shape(mask=mask, kl=kl)
        per_token = kl
    else:
        if log_prob is None or ref_log_prob is None:
            raise ReferenceInputError("log_prob" if log_prob is None else "ref_log_prob",
                                      "required unless a precomputed kl is given")
        require_same_shape(mask=mask, log_prob=log_prob, ref_log_prob=ref_log_prob)
        per_token = estimator_t(log_prob, ref_log_prob, estimator)
    if not math.isfinite(kl_coef):
        raise ReferenceInputError("kl_coef", "must be finite")
    beta = 0.0 if (convention == "openrlhf" and kl_coef <= 0) else kl_coef
    if reward_clip_range is not None:
        if (len(reward_clip_range) != 2 or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                   for x in reward_clip_range)
                or reward_clip_range[0] > reward_clip_range[1]):
            raise ReferenceInputError("reward_clip_range", "must be [lo, hi] with lo ≤ hi")
        scores = scores.clamp(min=float(reward_clip_range[0]), max=float(reward_clip_range[1]))
    counted = mask != 0
    if not counted.any(dim=1).all().item():
        raise ReferenceInputError("mask", "every row needs at least one counted token to carry its score")
    T = mask.shape[1]
    positions = torch.arange(T, device=mask.device)
    last = torch.where(counted, positions, torch.full_like(positions, -1)).max(dim=1).values
    if score_position == "after_last":
        last = torch.where(last + 1 < T, last + 1, last)
    penalty = -beta * per_token
    if mask_kl:
        penalty = penalty * mask
    rows = torch.arange(mask.shape[0], device=mask.device)
    rewards = penalty.index_put((rows, last), scores.to(penalty.dtype), accumulate=True)
    return {"rewards": rewards}
