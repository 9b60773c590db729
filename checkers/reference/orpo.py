"""ORPO's odds-ratio term and the log(1 − e^x) it rests on
(TRL ``trl/experimental/orpo/orpo_trainer.py::odds_ratio_loss``; Hong et al. 2024).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .dpo import PAIR
from .dpo_pairs import check_pair_logps
from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_positive

_LN_HALF = -math.log(2.0)


def log1mexp_stable(x: torch.Tensor) -> torch.Tensor:
    """log(1 − e^x) for x < 0, switching at −ln 2 between log1p(−e^x) and log(−expm1(x)).

    Each branch is accurate on its side (Mächler 2012); TRL ≥ 0.27 ``orpo_trainer.log1mexp``.
    The unused branch is fed a safe value so that it cannot put a nan into the gradient.
    """
    far = x < _LN_HALF
    x_far = torch.where(far, x, torch.full_like(x, 2 * _LN_HALF))
    x_near = torch.where(far, torch.full_like(x, _LN_HALF / 2), x)
    return torch.where(far, torch.log1p(-torch.exp(x_far)), torch.log(-torch.expm1(x_near)))


def log1mexp_naive(x: torch.Tensor) -> torch.Tensor:
    """log1p(−e^x), as TRL ≤ 0.26 ORPO: loses all precision as x → 0⁻ (e^x rounds to 1)."""
    return torch.log1p(-torch.exp(x))


LOG1MEXP = {"stable": log1mexp_stable, "naive": log1mexp_naive}


@register("orpo.loss",
          params=[Param("chosen_avg_logps", "tensor", shape=PAIR), Param("rejected_avg_logps", "tensor", shape=PAIR),
                  Param("beta", "float", 0.1),
                  Param("log1mexp", "choice", "stable", choices=tuple(LOG1MEXP))],
          outputs=["losses", "or_loss", "log_odds_ratio", "log_odds_chosen", "chosen_rewards", "rejected_rewards"],
          examples=[{"chosen_avg_logps": [-0.8, -1.1], "rejected_avg_logps": [-1.2, -1.0]}])
def orpo_loss(ctx: TensorContext, chosen_avg_logps: torch.Tensor, rejected_avg_logps: torch.Tensor,
              beta: float, log1mexp: str) -> dict[str, torch.Tensor]:
    """ORPO odds-ratio term, as TRL ``ORPOTrainer.odds_ratio_loss`` (Hong et al. 2024, eqs. 4 and 7).

    With log-odds(p) = log p − log(1 − p) = π − log1mexp(π) on the average log-probs π:
    log_odds_ratio = log-odds(π_c) − log-odds(π_r); losses = β·log σ(log_odds_ratio) (≤ 0, what TRL adds
    with a minus sign to the NLL); or_loss = −mean log σ(log_odds_ratio); log_odds_chosen = π_c −
    log1mexp(π_c); rewards β·π (detached). Computed in the call's dtype (TRL casts to float32).
    """
    check_pair_logps(chosen_avg_logps=chosen_avg_logps, rejected_avg_logps=rejected_avg_logps)
    require_positive(beta, "beta")
    for name, t in (("chosen_avg_logps", chosen_avg_logps), ("rejected_avg_logps", rejected_avg_logps)):
        with torch.no_grad():
            if not (t < 0).all().item():
                raise ReferenceInputError(name, "average log-probabilities must be negative (p < 1) for the odds")
    f = LOG1MEXP[log1mexp]
    odds_c = chosen_avg_logps - f(chosen_avg_logps)
    odds_r = rejected_avg_logps - f(rejected_avg_logps)
    log_odds = odds_c - odds_r
    log_sig = F.logsigmoid(log_odds)
    return {"losses": beta * log_sig, "or_loss": -log_sig.mean(), "log_odds_ratio": log_odds,
            "log_odds_chosen": odds_c, "chosen_rewards": (beta * chosen_avg_logps).detach(),
            "rejected_rewards": (beta * rejected_avg_logps).detach()}
