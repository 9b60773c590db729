"""Pairwise reward-model loss (contract §6, ``reward_model.loss``).

Authority: TRL ``trl/trainer/reward_trainer.py::RewardTrainer.compute_loss`` at f2cd5771 (one process):
the Bradley–Terry negative log-likelihood (Ouyang et al. 2022, InstructGPT, §3.5 eq. 1; Bradley & Terry
1952), Llama 2's margin (Touvron et al. 2023, §3.2.2 eq. 2) and the centring term of Eisenstein et al.
2023 ("Helping or Herding?", the auxiliary loss that pins the mean reward near 0). Re-implemented.
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_ndim, require_same_shape


@register("reward_model.loss",
          params=[Param("chosen_rewards", "tensor", shape="(B,)", doc="r(x, y_chosen) per pair"),
                  Param("rejected_rewards", "tensor", shape="(B,)", doc="r(x, y_rejected) per pair"),
                  Param("margin", "tensor", None, shape="(B,) or scalar",
                        doc="required reward gap per pair (Llama 2); None: no margin"),
                  Param("center_rewards_coefficient", "float", None,
                        doc="weight of mean((r_c + r_r)²); None: no centring term")],
          outputs=["loss", "accuracy", "margin"],
          examples=[{"chosen_rewards": [1.5, 0.2, -0.3], "rejected_rewards": [0.5, 0.4, -1.0]},
                    {"chosen_rewards": [1.5, 0.2, -0.3], "rejected_rewards": [0.5, 0.4, -1.0],
                     "margin": [1.0, 0.0, 0.5], "center_rewards_coefficient": 0.01}])
def reward_model_loss(ctx: TensorContext, chosen_rewards: torch.Tensor, rejected_rewards: torch.Tensor,
                      margin: torch.Tensor | None,
                      center_rewards_coefficient: float | None) -> dict[str, torch.Tensor]:
    """Bradley–Terry reward-model loss, as TRL ``RewardTrainer.compute_loss`` (f2cd5771).

    loss = −mean_b log σ(r_c − r_r − margin_b) (no margin term when ``margin`` is None), plus
    ``center_rewards_coefficient``·mean_b (r_c + r_r)² when that is given (0.0 adds a zero term).
    Metrics, computed without gradient as upstream does under ``no_grad``: accuracy = mean_b 1[r_c > r_r]
    (a strict >, so ties count as wrong), margin = mean_b (r_c − r_r) (the logged gap, without the margin
    input). log σ is ``logsigmoid``, finite for any finite gap. ``loss`` is differentiable in both
    rewards (and the margin). Upstream's accuracy is a float32 mean; here it is in the requested dtype.
    An empty batch is a ``ReferenceInputError`` (upstream's means would be nan).
    """
    require_ndim(chosen_rewards, "chosen_rewards", 1)
    require_same_shape(chosen_rewards=chosen_rewards, rejected_rewards=rejected_rewards)
    if chosen_rewards.numel() == 0:
        raise ReferenceInputError("chosen_rewards", "needs at least one pair")
    if margin is not None and margin.dim() != 0 and margin.shape != chosen_rewards.shape:
        raise ReferenceInputError("margin", f"must be a scalar or have shape {tuple(chosen_rewards.shape)}, "
                                            f"got {tuple(margin.shape)}")
    if center_rewards_coefficient is not None and not math.isfinite(center_rewards_coefficient):
        raise ReferenceInputError("center_rewards_coefficient", "must be finite")
    gap = chosen_rewards - rejected_rewards
    logits = gap if margin is None else gap - margin
    loss = -torch.nn.functional.logsigmoid(logits).mean()
    if center_rewards_coefficient is not None:
        loss = loss + center_rewards_coefficient * torch.mean((chosen_rewards + rejected_rewards) ** 2)
    with torch.no_grad():
        accuracy = (chosen_rewards > rejected_rewards).to(gap.dtype).mean()
        shown_margin = gap.mean()
    return {"loss": loss, "accuracy": accuracy, "margin": shown_margin}
