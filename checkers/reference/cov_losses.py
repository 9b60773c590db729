"""Clip-Cov and KL-Cov policy losses (contract §6, ``ppo.policy_loss(loss_variant="clip_cov" | "kl_cov")``).

Cui et al. 2025 (arXiv:2505.22617, "Clip-Cov" and "KL-Cov"): keep the policy's entropy from collapsing by
restraining the few tokens whose centred log-prob × advantage product (``entropy_cov``) is largest.
Authority for every detail: verl ``verl/trainer/ppo/core_algos.py`` at b178a3cd,
``compute_policy_loss_clip_cov`` and ``compute_policy_loss_kl_cov`` (functions' own defaults, not the
config's). Re-implemented, not copied. ``policy.ppo_policy_loss`` validates the shared arguments and
calls :func:`cov_variant`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch

from .entropy_cov import clip_cov_product_t, kl_cov_product_t
from .errors import ReferenceInputError
from .masked import masked_mean_t
from .policy_variants import PPOVariantArgs

COV_VARIANT_NAMES = ("clip_cov", "kl_cov")
#: Upstream's fallbacks when the config leaves a hyperparameter None.
CLIP_COV_RATIO = 0.0002
CLIP_COV_LB = 1.0
CLIP_COV_UB = 5.0
KL_COV_RATIO = 0.0002
PPO_KL_COEF = 1.0


@dataclass(frozen=True)
class CovArgs:
    """The extra arguments of the two covariance losses (None: upstream's default)."""

    seed: int
    rollout_is_weights: torch.Tensor | None
    clip_cov_ratio: float | None
    clip_cov_lb: float | None
    clip_cov_ub: float | None
    kl_cov_ratio: float | None
    ppo_kl_coef: float | None


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def _vmean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return masked_mean_t(x, mask, None, "verl")


def _weighted(per_token: torch.Tensor, c: CovArgs) -> torch.Tensor:
    """Rollout importance weights multiply the per-token loss after the selection (upstream's order)."""
    return per_token if c.rollout_is_weights is None else per_token * c.rollout_is_weights


def seeded_choice(n_candidates: int, count: int, seed: int) -> torch.Tensor:
    """The first ``count`` entries of one ``torch.randperm(n_candidates)`` drawn from a CPU generator
    seeded with ``seed``: the draw upstream makes from torch's global CPU generator after
    ``torch.manual_seed(seed)``, without touching the caller's global random state."""
    gen = torch.Generator(device="cpu")
    gen.manual_seed(seed)
    perm = torch.randperm(n_candidates, generator=gen)
    return perm[:min(count, n_candidates)]


def verl_clip_cov(a: PPOVariantArgs, c: CovArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_clip_cov`` (b178a3cd): vanilla clipping, minus a few random
    high-covariance tokens.

    ρ = e^{lp − old} (no log-ratio clamp, no dual clip); L1 = −A·ρ, L2 = −A·clip(ρ, 1 − ε_lo, 1 + ε_hi).
    cov = (A − mm(A))·(lp − mm(sg(lp))) with mm(x) = Σ m·x/(Σ m + 1e-8). Candidates: valid tokens with
    L2 ≤ L1 (the clip is not already active) and ``clip_cov_lb`` < cov < ``clip_cov_ub`` (open window),
    listed in row-major order; clip_num = max(int(``clip_cov_ratio``·Σ m), 1); one
    ``torch.randperm(#candidates)`` from a CPU generator seeded with ``seed``, the first clip_num (or all)
    of them are removed: corr = 0 there, 1 elsewhere. per_token_loss = max(L1, L2)·corr (× the rollout
    IS weights when given), so a removed token contributes neither value nor gradient; pg_loss =
    loss.aggregate(per_token_loss, mask, loss_agg_mode, global-batch arguments). pg_clipfrac =
    mm(1[corr = 0]) (the tokens removed, not PPO's clip fraction); ppo_kl = mm(old − lp).
    """
    ratio_c = _or(c.clip_cov_ratio, CLIP_COV_RATIO)
    lb, ub = _or(c.clip_cov_lb, CLIP_COV_LB), _or(c.clip_cov_ub, CLIP_COV_UB)
    neg_kl = a.log_prob - a.old_log_prob
    ratio = torch.exp(neg_kl)
    loss1 = -a.advantages * ratio
    loss2 = -a.advantages * torch.clamp(ratio, 1 - a.eps_lo, 1 + a.eps_hi)
    valid = a.mask > 0
    with torch.no_grad():
        clip_by_origin = (loss2 > loss1) & valid
        cov = clip_cov_product_t(a.log_prob, a.advantages, a.mask)
        candidates = valid & ~clip_by_origin & (cov > lb) & (cov < ub)
        clip_num = max(int(ratio_c * a.mask.sum().item()), 1)
        where = torch.nonzero(candidates)                 # row-major, as upstream's torch.nonzero
        corr = torch.ones_like(a.advantages)
        if where.shape[0] > 0:
            chosen = where[seeded_choice(where.shape[0], clip_num, c.seed).to(where.device)]
            corr[chosen[:, 0], chosen[:, 1]] = 0
    per_token = _weighted(torch.maximum(loss1, loss2) * corr, c)
    return {
        "pg_loss": a.agg(per_token),
        "pg_clipfrac": _vmean((corr == 0).to(ratio.dtype), a.mask),
        "ppo_kl": _vmean(-neg_kl, a.mask),
        "per_token_loss": per_token,
    }


def verl_kl_cov(a: PPOVariantArgs, c: CovArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_kl_cov`` (b178a3cd): no clipping; a |log-ratio| penalty on the
    tokens of largest covariance.

    δ = lp − old (unclamped), ρ = e^δ; L = −A·ρ everywhere, and L = −A·ρ + ``ppo_kl_coef``·|δ| on the k
    valid tokens with the largest cov = (A − Ā)·(lp − mean lp) (plain means over the N valid tokens,
    detached, computed on the CPU as upstream; ``torch.topk`` picks them, so ties resolve as upstream's),
    k = max(1, int(N·``kl_cov_ratio``)); no selection when N = 0. per_token_loss = L (× the rollout IS
    weights when given); pg_loss = loss.aggregate(per_token_loss, mask, loss_agg_mode, global-batch
    arguments); ppo_kl = mm(|δ|). Upstream reports no clip fraction.
    """
    ratio_k = _or(c.kl_cov_ratio, KL_COV_RATIO)
    coef = _or(c.ppo_kl_coef, PPO_KL_COEF)
    neg_kl = a.log_prob - a.old_log_prob
    abs_kl = neg_kl.abs()
    ratio = torch.exp(neg_kl)
    loss1 = -a.advantages * ratio
    loss_kl = -a.advantages * ratio + coef * abs_kl
    with torch.no_grad():
        valid = a.mask > 0
        valid_flat = torch.nonzero(valid.reshape(-1), as_tuple=True)[0]
        selected = torch.zeros_like(valid)
        if valid_flat.numel() > 0:
            cov = kl_cov_product_t(a.log_prob, a.advantages, a.mask)
            k = max(1, int(cov.numel() * ratio_k))
            top = torch.topk(cov, k, largest=True).indices.to(valid_flat.device)
            selected.view(-1)[valid_flat[top]] = True
    per_token = _weighted(torch.where(selected, loss_kl, loss1), c)
    return {
        "pg_loss": a.agg(per_token),
        "ppo_kl": _vmean(abs_kl, a.mask),
        "per_token_loss": per_token,
    }


def check_cov_args(variant: str, c: CovArgs, shape: torch.Size) -> None:
    """The contract's input errors for the two losses (replacing upstream's asserts)."""
    if c.rollout_is_weights is not None and c.rollout_is_weights.shape != shape:
        raise ReferenceInputError("rollout_is_weights", f"shape {tuple(c.rollout_is_weights.shape)} does not "
                                                        f"match log_prob's shape {tuple(shape)}")
    if isinstance(c.seed, bool) or not 0 <= c.seed < 2 ** 63:
        raise ReferenceInputError("seed", "must be an integer in [0, 2**63)")
    for value, name in ((c.clip_cov_ratio, "clip_cov_ratio"), (c.clip_cov_lb, "clip_cov_lb"),
                        (c.clip_cov_ub, "clip_cov_ub"), (c.kl_cov_ratio, "kl_cov_ratio"),
                        (c.ppo_kl_coef, "ppo_kl_coef")):
        if value is not None and math.isnan(value):
            raise ReferenceInputError(name, "must be a number, not nan")
    if variant == "clip_cov" and not _or(c.clip_cov_ratio, CLIP_COV_RATIO) > 0:
        raise ReferenceInputError("clip_cov_ratio", "must be positive (as verl asserts)")
    if variant == "kl_cov":
        ratio_k = _or(c.kl_cov_ratio, KL_COV_RATIO)
        if not 0 < ratio_k <= 1:
            raise ReferenceInputError("kl_cov_ratio", "must lie in (0, 1]")
        if not math.isfinite(_or(c.ppo_kl_coef, PPO_KL_COEF)):
            raise ReferenceInputError("ppo_kl_coef", "must be finite")


COV_VARIANTS: dict[str, Callable[[PPOVariantArgs, CovArgs], dict[str, torch.Tensor]]] = {
    "clip_cov": verl_clip_cov,
    "kl_cov": verl_kl_cov,
}


def cov_variant(variant: str, convention: str) -> Callable[[PPOVariantArgs, CovArgs], dict[str, torch.Tensor]]:
    if convention != "verl":
        raise ReferenceInputError("convention", f"loss_variant {variant!r} is implemented for convention "
                                                f"['verl'] only, not {convention!r}")
    return COV_VARIANTS[variant]
