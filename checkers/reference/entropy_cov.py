"""Per-token covariance between log-probability and advantage (contract §6, ``entropy.covariance``).

Cui et al. 2025 ("The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models",
arXiv:2505.22617) derive that a softmax policy's entropy changes by minus the covariance between
log π(a|s) and the change of that action's logit, which policy-gradient updates make grow with the
advantage; Clip-Cov and KL-Cov therefore rank tokens by the centred product (log π − mean)·(A − mean)
and restrain the few with the largest values. The two losses centre
differently; both forms live here, and ``cov_losses`` ranks by them. Authority for the exact arithmetic:
verl ``verl/trainer/ppo/core_algos.py`` at b178a3cd, ``compute_policy_loss_clip_cov`` and
``compute_policy_loss_kl_cov``. Re-implemented, not copied.
"""

from __future__ import annotations

import torch

from .masked import VERL_MEAN_EPS, masked_mean_t
from .registry import Param, register
from .tensors import TensorContext, require_mask, require_ndim, require_same_shape

CENTRINGS = ("clip_cov", "kl_cov")


def clip_cov_product_t(log_prob: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(A − mm(A))·(log π − mm(sg(log π))) at every position (masked ones included), verl's mean mm.

    As clip_cov: the log-prob mean is taken of the detached log-probs, the advantage mean is not, and
    the product itself keeps log π in the graph. Masked positions hold whatever the formula gives there.
    """
    adv_c = advantages - masked_mean_t(advantages, mask, None, "verl")
    lp_c = log_prob - masked_mean_t(log_prob.detach(), mask, None, "verl")
    return adv_c * lp_c


def kl_cov_product_t(log_prob: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """kl_cov's covariance over the valid tokens, as a 1-D tensor in row-major order of the valid tokens.

    As upstream: the valid tokens' advantages and log-probs are gathered, detached and moved to the CPU;
    each is centred with its plain ``mean()`` and the two are multiplied, (A − Ā)·(log π − mean).
    """
    valid = mask > 0
    adv = advantages[valid].detach().reshape(-1).cpu()
    logp = log_prob[valid].detach().reshape(-1).cpu()
    return (adv - adv.mean()) * (logp - logp.mean())


@register("entropy.covariance",
          params=[Param("log_prob", "tensor", shape="(B, T)"), Param("advantages", "tensor", shape="(B, T)"),
                  Param("mask", "tensor", shape="(B, T)"),
                  Param("centring", "choice", "clip_cov", choices=CENTRINGS,
                        doc="clip_cov: means over N + 1e-8, log π mean detached; kl_cov: plain means, detached")],
          outputs=["per_token", "covariance"],
          examples=[{"log_prob": [[-0.2, -1.5, -3.0], [-0.7, -0.1, -2.0]],
                     "advantages": [[1.0, 1.0, 1.0], [-0.5, -0.5, -0.5]], "mask": [[1, 1, 1], [1, 1, 0]]},
                    {"log_prob": [[-0.2, -1.5, -3.0], [-0.7, -0.1, -2.0]],
                     "advantages": [[1.0, 1.0, 1.0], [-0.5, -0.5, -0.5]], "mask": [[1, 1, 1], [1, 1, 0]],
                     "centring": "kl_cov"}])
def entropy_covariance(ctx: TensorContext, log_prob: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor,
                       centring: str) -> dict[str, torch.Tensor]:
    """Centred product of log-prob and advantage per valid token, and its mean (Cui et al. 2025).

    per_token = (log π − μ_logπ)·(A − μ_A) at valid tokens, 0 where m = 0; covariance = Σ per_token / D.
    ``centring="clip_cov"`` (verl ``compute_policy_loss_clip_cov``, b178a3cd): μ = Σ m·x / (N + 1e-8) and
    D = N + 1e-8 (N = Σ m; an empty mask gives 0); μ_logπ is of the detached log-probs, so the output is
    differentiable in both inputs with that mean held fixed, as upstream's ``cov_all``.
    ``centring="kl_cov"`` (verl ``compute_policy_loss_kl_cov``): plain means over the N valid tokens and
    D = N (an empty mask gives nan); upstream detaches both inputs here, so the outputs are detached.
    These are the scores the two losses rank tokens by (``ppo.policy_loss`` with ``loss_variant``
    ``clip_cov`` / ``kl_cov``).
    """
    require_ndim(log_prob, "log_prob", 2)
    require_same_shape(log_prob=log_prob, advantages=advantages, mask=mask)
    require_mask(mask)
    valid = mask > 0
    zero = torch.zeros((), dtype=log_prob.dtype, device=log_prob.device)
    if centring == "clip_cov":
        per_token = torch.where(valid, clip_cov_product_t(log_prob, advantages, mask), zero)
        covariance = per_token.sum() / (mask.sum() + VERL_MEAN_EPS)
    else:
        per_token = torch.zeros_like(log_prob.detach())
        per_token[valid] = kl_cov_product_t(log_prob, advantages, mask).to(per_token.device)
        covariance = per_token.sum() / mask.sum()
    return {"per_token": per_token, "covariance": covariance}
