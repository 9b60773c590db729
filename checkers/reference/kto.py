"""KTO: a loss on unpaired desirable and undesirable examples, against a detached KL baseline
(TRL v0.28 ``trl/experimental/kto/kto_trainer.py::kto_loss``; Ethayarajh et al. 2024).
"""

from __future__ import annotations

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_ndim, require_positive, require_same_shape

KTO_LOSS_TYPES = ("kto", "apo_zero_unpaired")


def _kto_chosen(r: torch.Tensor, z: torch.Tensor, beta: float, loss_type: str) -> torch.Tensor:
    if loss_type == "kto":
        return 1 - torch.sigmoid(beta * (r - z))
    return 1 - torch.sigmoid(beta * r)


def _kto_rejected(r: torch.Tensor, z: torch.Tensor, beta: float, loss_type: str) -> torch.Tensor:
    if loss_type == "kto":
        return 1 - torch.sigmoid(beta * (z - r))
    return torch.sigmoid(beta * r)


@register("kto.loss",
          params=[Param("policy_chosen_logps", "tensor", shape="(N_c,)"),
                  Param("policy_rejected_logps", "tensor", shape="(N_r,)"),
                  Param("policy_kl_logps", "tensor", None, shape="(N_kl,)", doc="mismatched pairs for z"),
                  Param("ref_chosen_logps", "tensor", shape="(N_c,)"),
                  Param("ref_rejected_logps", "tensor", shape="(N_r,)"),
                  Param("ref_kl_logps", "tensor", None, shape="(N_kl,)"),
                  Param("beta", "float", 0.1), Param("desirable_weight", "float", 1.0),
                  Param("undesirable_weight", "float", 1.0),
                  Param("loss_type", "choice", "kto", choices=KTO_LOSS_TYPES),
                  Param("calculate_kl", "bool", True)],
          outputs=["losses", "loss", "chosen_rewards", "rejected_rewards", "kl"],
          examples=[{"policy_chosen_logps": [-10.0], "policy_rejected_logps": [-12.0], "policy_kl_logps": [-11.0, -9.0],
                     "ref_chosen_logps": [-11.0], "ref_rejected_logps": [-11.5], "ref_kl_logps": [-11.2, -9.1]}])
def kto_loss(ctx: TensorContext, policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
             policy_kl_logps: torch.Tensor | None, ref_chosen_logps: torch.Tensor,
             ref_rejected_logps: torch.Tensor, ref_kl_logps: torch.Tensor | None, beta: float,
             desirable_weight: float, undesirable_weight: float, loss_type: str,
             calculate_kl: bool) -> dict[str, torch.Tensor]:
    """KTO loss, as TRL v0.28 ``KTOTrainer.kto_loss`` (Ethayarajh et al. 2024, eq. 7).

    z = max(0, mean(π_kl − π_ref,kl)), detached (0 when ``calculate_kl=False``); r = π − π_ref.
    kto: chosen 1 − σ(β(r_c − z)), rejected 1 − σ(β(z − r_r)); apo_zero_unpaired: chosen 1 − σ(βr_c),
    rejected σ(βr_r) (z unused). losses = [λ_D·chosen, λ_U·rejected] concatenated; loss = nanmean;
    rewards β·r (detached); ``kl`` = z.
    """
    for name, t in (("policy_chosen_logps", policy_chosen_logps), ("policy_rejected_logps", policy_rejected_logps),
                    ("ref_chosen_logps", ref_chosen_logps), ("ref_rejected_logps", ref_rejected_logps)):
        require_ndim(t, name, 1)
    require_same_shape(policy_chosen_logps=policy_chosen_logps, ref_chosen_logps=ref_chosen_logps)
    require_same_shape(policy_rejected_logps=policy_rejected_logps, ref_rejected_logps=ref_rejected_logps)
    require_positive(beta, "beta")
    require_positive(desirable_weight, "desirable_weight", allow_zero=True)
    require_positive(undesirable_weight, "undesirable_weight", allow_zero=True)
    if policy_chosen_logps.numel() + policy_rejected_logps.numel() == 0:
        raise ReferenceInputError("policy_chosen_logps", "needs at least one chosen or rejected example")
    if calculate_kl:
        for name, t in (("policy_kl_logps", policy_kl_logps), ("ref_kl_logps", ref_kl_logps)):
            if t is None:
                raise ReferenceInputError(name, "required when calculate_kl is true")
            require_ndim(t, name, 1)
            if t.numel() == 0:
                raise ReferenceInputError(name, "needs at least one element when calculate_kl is true")
        require_same_shape(policy_kl_logps=policy_kl_logps, ref_kl_logps=ref_kl_logps)
        z = (policy_kl_logps - ref_kl_logps).mean().detach().clamp(min=0)
    else:
        z = torch.zeros((), dtype=policy_chosen_logps.dtype, device=policy_chosen_logps.device)
    r_c = policy_chosen_logps - ref_chosen_logps
    r_r = policy_rejected_logps - ref_rejected_logps
    losses = torch.cat((desirable_weight * _kto_chosen(r_c, z, beta, loss_type),
                        undesirable_weight * _kto_rejected(r_r, z, beta, loss_type)))
    return {"losses": losses, "loss": losses.nanmean(), "chosen_rewards": (beta * r_c).detach(),
            "rejected_rewards": (beta * r_r).detach(), "kl": z}
