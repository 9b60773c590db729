"""Reward-model over-optimisation scaling laws (Gao, Schulman & Hilton 2023, "Scaling Laws for Reward
Model Overoptimization", arXiv:2210.10760) and the best-of-n KL (contract §4, "Over-optimisation").

d = √KL(π‖π_init). Gold reward: best-of-n R_bon(d) = d(α − β·d); RL R_rl(d) = d(α − β·ln d).
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext, require_positive

METHODS = ("bon", "rl")


def _check_finite(value: float, name: str) -> None:
    if not math.isfinite(value):
        raise ReferenceInputError(name, "must be finite")


@register("overopt.gold_reward",
          params=[Param("kl", "tensor", None, role="nonnegative", range=(0.0, 25.0), standalone=True,
                        doc="KL(π‖π_init) in nats"),
                  Param("d", "tensor", None, role="nonnegative", standalone=False, doc="√KL; give kl or d"),
                  Param("alpha", "float", range=(0.5, 2.0)), Param("beta", "float", range=(0.05, 0.5)),
                  Param("method", "choice", choices=METHODS)],
          outputs=["reward"],
          examples=[{"kl": [1.0, 4.0], "alpha": 1.0, "beta": 0.1, "method": "bon"}])
def overopt_gold_reward(ctx: TensorContext, kl: torch.Tensor | None, d: torch.Tensor | None, alpha: float,
                        beta: float, method: str) -> dict[str, torch.Tensor]:
    """Gold reward as a function of d = √KL (Gao et al. 2023, eq. 1–2):
    ``bon``: R = d(α − β·d); ``rl``: R = d(α − β·ln d), with d·ln d = 0 at d = 0."""
    if (kl is None) == (d is None):
        raise ReferenceInputError("kl", "give exactly one of kl and d")
    _check_finite(alpha, "alpha")
    _check_finite(beta, "beta")
    if kl is not None:
        require_positive(kl, "kl", allow_zero=True)
        d = kl.sqrt()
    else:
        require_positive(d, "d", allow_zero=True)
    assert d is not None
    if method == "bon":
        return {"reward": d * (alpha - beta * d)}
    pos = d > 0
    safe = torch.where(pos, d, torch.ones_like(d))
    reward = torch.where(pos, d * (alpha - beta * torch.log(safe)), torch.zeros_like(d))
    return {"reward": reward}


@register("overopt.peak",
          params=[Param("alpha", "float", range=(0.5, 2.0)),
                  Param("beta", "float", range=(0.05, 0.5), doc="must be positive for a maximum"),
                  Param("method", "choice", choices=METHODS)],
          outputs=["d", "kl", "reward"],
          examples=[{"alpha": 0.5, "beta": 0.25, "method": "rl"}])
def overopt_peak(ctx: TensorContext, alpha: float, beta: float, method: str) -> dict[str, torch.Tensor]:
    """Maximum of the gold-reward curve (set dR/dd = 0).

    ``bon``: α − 2βd = 0 -> d* = α/(2β), R* = α²/(4β) (α ≥ 0; for α < 0 the maximum over d ≥ 0 is at 0).
    ``rl``: α − β(ln d + 1) = 0 -> d* = e^{α/β − 1}, R* = β·d*. kl* = d*².
    """
    _check_finite(alpha, "alpha")
    require_positive(beta, "beta")
    if method == "bon":
        d = max(alpha, 0.0) / (2 * beta)
        reward = d * (alpha - beta * d)
    else:
        d = math.exp(alpha / beta - 1)
        reward = beta * d
    return {"d": ctx.tensor(d), "kl": ctx.tensor(d * d), "reward": ctx.tensor(reward)}


@register("bon.kl", params=[Param("n", "tensor", role="count", doc="number of samples, ≥ 1")], outputs=["kl"],
          examples=[{"n": 16}])
def bon_kl(ctx: TensorContext, n: torch.Tensor) -> dict[str, torch.Tensor]:
    """Analytic KL of best-of-n sampling from its base policy: KL = ln n − (n − 1)/n
    (Stiennon et al. 2020, appendix; Gao et al. 2023, §2). n = 1 gives 0."""
    with torch.no_grad():
        if torch.isnan(n).any().item() or (n < 1).any().item():
            raise ReferenceInputError("n", "must be at least 1")
    return {"kl": torch.log(n) - (n - 1) / n}
