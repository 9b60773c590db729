"""CPO and SimPO: preference losses on the policy's own (summed or length-averaged) log-probs, with no
reference model (TRL ``trl/experimental/cpo/cpo_trainer.py::cpo_loss``; AlphaPO's reward transform).
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from .dpo import PAIR
from .dpo_losses import smoothed_sigmoid
from .dpo_pairs import check_pair_logps
from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_positive

CPO_LOSS_TYPES = ("sigmoid", "hinge", "ipo", "simpo")


def _cpo_smoothed(z: torch.Tensor, beta: float, gamma: float, eps: float) -> torch.Tensor:
    return smoothed_sigmoid(beta * z, eps)


def _cpo_simpo(z: torch.Tensor, beta: float, gamma: float, eps: float) -> torch.Tensor:
    # SimPO's target margin γ enters the logits as γ/β so that β·(z − γ/β) = βz − γ.
    return smoothed_sigmoid(beta * (z - gamma / beta), eps)


def _cpo_hinge(z: torch.Tensor, beta: float, gamma: float, eps: float) -> torch.Tensor:
    return torch.relu(1 - beta * z)


def _cpo_ipo(z: torch.Tensor, beta: float, gamma: float, eps: float) -> torch.Tensor:
    return (z - 1 / (2 * beta)) ** 2


CPO_LOSSES: dict[str, Callable[[torch.Tensor, float, float, float], torch.Tensor]] = {
    "sigmoid": _cpo_smoothed, "hinge": _cpo_hinge, "ipo": _cpo_ipo, "simpo": _cpo_simpo}


def alphapo_reward(logp: torch.Tensor, alpha: float) -> torch.Tensor:
    """AlphaPO reward (1 − p^{−α})/α = (1 − e^{−α·log p})/α; the log-prob itself when α = 0."""
    if alpha == 0.0:
        return logp
    return (1 - torch.exp(-alpha * logp)) / alpha


def _cpo_outputs(chosen: torch.Tensor, rejected: torch.Tensor, beta: float, loss_type: str, gamma: float,
                 label_smoothing: float, alpha: float, names: tuple[str, str]) -> dict[str, torch.Tensor]:
    check_pair_logps(**{names[0]: chosen, names[1]: rejected})
    require_positive(beta, "beta")
    if loss_type not in CPO_LOSSES:
        raise ReferenceInputError("loss_type", f"unknown CPO loss type {loss_type!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ReferenceInputError("label_smoothing", "must lie in [0, 1]")
    if not math.isfinite(gamma):
        raise ReferenceInputError("gamma", "must be finite")
    if not math.isfinite(alpha):
        raise ReferenceInputError("alpha", "must be finite")
    u_c, u_r = alphapo_reward(chosen, alpha), alphapo_reward(rejected, alpha)
    losses = CPO_LOSSES[loss_type](u_c - u_r, beta, gamma, label_smoothing)
    return {"losses": losses, "loss": losses.mean(),
            "chosen_rewards": (beta * u_c).detach(), "rejected_rewards": (beta * u_r).detach()}


@register("cpo.loss",
          params=[Param("policy_chosen_logps", "tensor", shape=PAIR),
                  Param("policy_rejected_logps", "tensor", shape=PAIR),
                  Param("beta", "float", 0.1),
                  Param("loss_type", "choice", "sigmoid", choices=CPO_LOSS_TYPES),
                  Param("gamma", "float", 0.5, doc="SimPO target margin γ (simpo_gamma)"),
                  Param("label_smoothing", "float", 0.0),
                  Param("alpha", "float", 0.0, doc="AlphaPO α; 0 keeps the log-probs")],
          outputs=["losses", "loss", "chosen_rewards", "rejected_rewards"],
          examples=[{"policy_chosen_logps": [-10.0, -8.0], "policy_rejected_logps": [-12.0, -7.5]}])
def cpo_loss(ctx: TensorContext, policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
             beta: float, loss_type: str, gamma: float, label_smoothing: float,
             alpha: float) -> dict[str, torch.Tensor]:
    """CPO preference loss without its NLL term, as TRL ``CPOTrainer.cpo_loss``.

    u = log π (or, AlphaPO with α ≠ 0, u = (1 − e^{−α·log π})/α); z = u_c − u_r; ε = label_smoothing.
    sigmoid: −(1−ε)log σ(βz) − ε log σ(−βz); simpo: the same with z − γ/β; hinge: relu(1 − βz);
    ipo: (z − 1/(2β))². loss = mean(losses); rewards β·u (detached, as TRL).
    """
    return _cpo_outputs(policy_chosen_logps, policy_rejected_logps, beta, loss_type, gamma, label_smoothing,
                        alpha, ("policy_chosen_logps", "policy_rejected_logps"))


@register("simpo.loss",
          params=[Param("chosen_avg_logps", "tensor", shape=PAIR, doc="length-averaged log π(y_w|x)"),
                  Param("rejected_avg_logps", "tensor", shape=PAIR),
                  Param("beta", "float", 2.0), Param("gamma", "float", 0.5),
                  Param("label_smoothing", "float", 0.0)],
          outputs=["losses", "loss", "chosen_rewards", "rejected_rewards"],
          examples=[{"chosen_avg_logps": [-0.8, -1.1], "rejected_avg_logps": [-1.2, -1.0]}])
def simpo_loss(ctx: TensorContext, chosen_avg_logps: torch.Tensor, rejected_avg_logps: torch.Tensor,
               beta: float, gamma: float, label_smoothing: float) -> dict[str, torch.Tensor]:
    """SimPO (Meng et al. 2024) = ``cpo.loss`` with ``loss_type="simpo"`` on length-averaged log-probs.

    losses = −(1−ε)log σ(β(u_c − u_r) − γ) − ε log σ(−(β(u_c − u_r) − γ)), u = average log-prob
    (TRL ``CPOTrainer.cpo_loss``, simpo branch); rewards β·u.
    """
    return _cpo_outputs(chosen_avg_logps, rejected_avg_logps, beta, "simpo", gamma, label_smoothing, 0.0,
                        ("chosen_avg_logps", "rejected_avg_logps"))
