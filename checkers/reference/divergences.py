"""Divergences between known discrete distributions and Gaussians (contract §4, "Divergences").

The last axis of ``p`` and ``q`` is the support; leading axes are batch axes. Terms with ``p = 0``
contribute 0 (0·log 0 = 0); ``p > 0`` where ``q = 0`` gives +inf. Masked-out terms are computed from
"safe" substitutes so that autograd never multiplies a zero gradient by an infinite partial (which would
turn the gradient into nan).
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import (TensorContext, require_distribution, require_mask, require_positive, require_same_shape,
                      require_choice)

BASES = {"e": 1.0, "2": math.log(2.0), "10": math.log(10.0)}
#: Tolerance on Σ exp(log_probs) = 1 for ``kl.full_vocab``.
LOG_PROB_SUM_TOL = 1e-6


def _log_base(base: str) -> float:
    require_choice(base, "base", tuple(BASES))
    return BASES[base]


def _pair(p: torch.Tensor, q: torch.Tensor) -> None:
    require_distribution(p, "p")
    require_distribution(q, "q")
    require_same_shape(p=p, q=q)


def _safe(x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """``x`` where ``keep``, else 1 (log 1 = 0, finite gradients in the discarded branch)."""
    return torch.where(keep, x, torch.ones((), dtype=x.dtype, device=x.device))


def kl_t(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Σ_i p_i (log p_i − log q_i) over the last axis, in nats (0·log 0 = 0; p>0, q=0 -> inf)."""
    support = p > 0
    terms = p * (torch.log(_safe(p, support)) - torch.log(_safe(q, support)))
    return torch.where(support, terms, torch.zeros_like(terms)).sum(-1)


def entropy_t(p: torch.Tensor) -> torch.Tensor:
    support = p > 0
    terms = -p * torch.log(_safe(p, support))
    return torch.where(support, terms, torch.zeros_like(terms)).sum(-1)


def cross_entropy_t(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    support = p > 0
    terms = -p * torch.log(_safe(q, support))
    return torch.where(support, terms, torch.zeros_like(terms)).sum(-1)


BASE_PARAM = Param("base", "choice", "e", choices=tuple(BASES), doc="logarithm base")
P = Param("p", "tensor", shape="(..., K)", role="probs", doc="probabilities, summing to 1 on the last axis")
Q = Param("q", "tensor", shape="(..., K)", role="probs", doc="probabilities, summing to 1 on the last axis")


@register("kl.exact", params=[P, Q, BASE_PARAM], outputs=["kl"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]]}])
def kl_exact(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor, base: str) -> dict[str, torch.Tensor]:
    """Exact KL divergence KL(p‖q) = Σ_i p_i log(p_i/q_i) over the last axis (Cover & Thomas, eq. 2.26).

    0·log(0/q) = 0; p_i > 0 with q_i = 0 gives +inf. ``base`` "2"/"10" divides by ln 2 / ln 10 (bits, dits).
    """
    _pair(p, q)
    return {"kl": kl_t(p, q) / _log_base(base)}


@register("kl.gaussian",
          params=[Param("mu_p", "tensor", role="mean"), Param("sigma_p", "tensor", role="std"),
                  Param("mu_q", "tensor", role="mean"), Param("sigma_q", "tensor", role="std")],
          outputs=["kl"],
          examples=[{"mu_p": [0.0], "sigma_p": [1.0], "mu_q": [1.0], "sigma_q": [2.0]}])
def kl_gaussian(ctx: TensorContext, mu_p: torch.Tensor, sigma_p: torch.Tensor, mu_q: torch.Tensor,
                sigma_q: torch.Tensor) -> dict[str, torch.Tensor]:
    """KL(N(μ_p, σ_p²) ‖ N(μ_q, σ_q²)) = ln(σ_q/σ_p) + (σ_p² + (μ_p − μ_q)²)/(2σ_q²) − ½.

    Element-wise with broadcasting; σ's must be positive. (Closed form: e.g. Bishop, PRML, exercise 1.30.)
    """
    require_positive(sigma_p, "sigma_p")
    require_positive(sigma_q, "sigma_q")
    shapes = [("mu_p", mu_p), ("sigma_p", sigma_p), ("mu_q", mu_q), ("sigma_q", sigma_q)]
    try:
        torch.broadcast_shapes(*(t.shape for _, t in shapes))
    except RuntimeError:
        first = tuple(shapes[0][1].shape)
        culprit = next((n for n, t in shapes[1:] if _not_broadcastable(first, tuple(t.shape))), "sigma_q")
        raise ReferenceInputError(culprit, "shape cannot be broadcast with the other arguments") from None
    kl = torch.log(sigma_q / sigma_p) + (sigma_p ** 2 + (mu_p - mu_q) ** 2) / (2 * sigma_q ** 2) - 0.5
    return {"kl": kl}


def _not_broadcastable(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        torch.broadcast_shapes(a, b)
        return False
    except RuntimeError:
        return True


def _full_log_probs(logits: torch.Tensor | None, log_probs: torch.Tensor | None, logits_name: str,
                    log_probs_name: str) -> torch.Tensor:
    if (logits is None) == (log_probs is None):
        raise ReferenceInputError(logits_name, f"give exactly one of {logits_name} and {log_probs_name}")
    if logits is not None:
        if logits.dim() == 0:
            raise ReferenceInputError(logits_name, "must have a vocabulary axis")
        return torch.log_softmax(logits, dim=-1)
    assert log_probs is not None
    if log_probs.dim() == 0:
        raise ReferenceInputError(log_probs_name, "must have a vocabulary axis")
    with torch.no_grad():
        if torch.isnan(log_probs).any().item() or (log_probs > 0).any().item():
            raise ReferenceInputError(log_probs_name, "log-probabilities must be ≤ 0 and not nan")
        worst = (log_probs.exp().sum(-1) - 1).abs().max().item()
    if worst > LOG_PROB_SUM_TOL:
        raise ReferenceInputError(log_probs_name, f"exp(log_probs) must sum to 1 on the last axis (off by {worst:.3g})")
    return log_probs


@register("kl.full_vocab",
          params=[Param("logits", "tensor", None, shape="(B, T, V)"),
                  Param("log_probs", "tensor", None, shape="(B, T, V)"),
                  Param("ref_logits", "tensor", None, shape="(B, T, V)"),
                  Param("ref_log_probs", "tensor", None, shape="(B, T, V)"),
                  Param("mask", "tensor", None, shape="(B, T)")],
          outputs=["kl"],
          examples=[{"logits": [[[1.0, 0.0, -1.0], [0.5, 0.5, 0.0]]],
                     "ref_logits": [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]], "mask": [[1, 1]]}])
def kl_full_vocab(ctx: TensorContext, logits: torch.Tensor | None, log_probs: torch.Tensor | None,
                  ref_logits: torch.Tensor | None, ref_log_probs: torch.Tensor | None,
                  mask: torch.Tensor | None) -> dict[str, torch.Tensor]:
    """Full-vocabulary KL per position: kl = Σ_v p_v (log p_v − log p_ref,v), p = softmax(logits).

    As TRL v0.11 ``PPOTrainer._kl_penalty`` with ``kl_penalty="full"``
    (``F.kl_div(ref_logprob, logprob, log_target=True).sum(-1)``). Give ``logits`` or normalised
    ``log_probs`` for each policy; with ``mask`` (one axis fewer) masked positions are 0.
    """
    lp = _full_log_probs(logits, log_probs, "logits", "log_probs")
    ref = _full_log_probs(ref_logits, ref_log_probs, "ref_logits", "ref_log_probs")
    if lp.shape != ref.shape:
        raise ReferenceInputError("ref_logits" if ref_logits is not None else "ref_log_probs",
                                  f"shape {tuple(ref.shape)} does not match the policy's {tuple(lp.shape)}")
    # exp(lp)·(lp − ref) with p = 0 exactly (lp = −inf) contributes 0, as kl_div does.
    p = lp.exp()
    support = p > 0
    terms = p * (_safe(lp, support) - torch.where(support, ref, torch.zeros_like(ref)))
    kl = torch.where(support, terms, torch.zeros_like(terms)).sum(-1)
    if mask is not None:
        if mask.shape != kl.shape:
            raise ReferenceInputError("mask", f"shape {tuple(mask.shape)} must be the positions' shape {tuple(kl.shape)}")
        require_mask(mask)
        kl = torch.where(mask != 0, kl, torch.zeros_like(kl)) * mask
    return {"kl": kl}


@register("divergence.entropy", params=[P, BASE_PARAM], outputs=["entropy"],
          examples=[{"p": [[0.5, 0.25, 0.25]], "base": "2"}])
def divergence_entropy(ctx: TensorContext, p: torch.Tensor, base: str) -> dict[str, torch.Tensor]:
    """Shannon entropy H(p) = −Σ_i p_i log p_i over the last axis (Cover & Thomas eq. 2.1); 0·log 0 = 0."""
    require_distribution(p, "p")
    return {"entropy": entropy_t(p) / _log_base(base)}


@register("divergence.cross_entropy", params=[P, Q, BASE_PARAM], outputs=["cross_entropy"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]]}])
def divergence_cross_entropy(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor,
                             base: str) -> dict[str, torch.Tensor]:
    """Cross-entropy H(p, q) = −Σ_i p_i log q_i = H(p) + KL(p‖q); p_i > 0 with q_i = 0 gives +inf."""
    _pair(p, q)
    return {"cross_entropy": cross_entropy_t(p, q) / _log_base(base)}


@register("divergence.js", params=[P, Q, BASE_PARAM], outputs=["js"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]], "base": "2"}])
def divergence_js(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor, base: str) -> dict[str, torch.Tensor]:
    """Jensen–Shannon divergence JS = ½KL(p‖m) + ½KL(q‖m), m = (p + q)/2 (Lin 1991); ≤ ln 2 nats."""
    _pair(p, q)
    m = (p + q) / 2
    return {"js": (0.5 * kl_t(p, m) + 0.5 * kl_t(q, m)) / _log_base(base)}


@register("divergence.tv", params=[P, Q], outputs=["tv"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]]}])
def divergence_tv(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor) -> dict[str, torch.Tensor]:
    """Total variation distance TV = ½ Σ_i |p_i − q_i| (Pinsker: TV² ≤ KL/2)."""
    _pair(p, q)
    return {"tv": 0.5 * (p - q).abs().sum(-1)}


@register("divergence.hellinger", params=[P, Q], outputs=["hellinger_sq"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]]}])
def divergence_hellinger(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor) -> dict[str, torch.Tensor]:
    """Squared Hellinger distance H² = ½ Σ_i (√p_i − √q_i)² = 1 − Σ_i √(p_i q_i)."""
    _pair(p, q)
    return {"hellinger_sq": 0.5 * (p.sqrt() - q.sqrt()).pow(2).sum(-1)}


@register("divergence.chi2", params=[P, Q], outputs=["chi2"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]]}])
def divergence_chi2(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor) -> dict[str, torch.Tensor]:
    """Pearson χ² divergence χ²(p‖q) = Σ_i (p_i − q_i)²/q_i; terms with p_i = q_i = 0 are 0, p_i > 0 = q_i
    gives +inf."""
    _pair(p, q)
    both_zero = (p == 0) & (q == 0)
    terms = (p - q) ** 2 / _safe(q, ~both_zero)
    return {"chi2": torch.where(both_zero, torch.zeros_like(terms), terms).sum(-1)}


@register("divergence.alpha",
          params=[P, Q, Param("alpha", "float", range=(0.2, 0.8), doc="real order α; α = 1 gives KL(p‖q), α = 0 KL(q‖p)")],
          outputs=["alpha_div"],
          examples=[{"p": [[0.5, 0.3, 0.2]], "q": [[0.4, 0.4, 0.2]], "alpha": 0.5}])
def divergence_alpha(ctx: TensorContext, p: torch.Tensor, q: torch.Tensor, alpha: float) -> dict[str, torch.Tensor]:
    """Amari α-divergence D_α = (1 − Σ_i p_i^α q_i^(1−α)) / (α(1 − α)) (Amari 2009; Cichocki & Amari 2010).

    The limits are taken exactly at the endpoints: α = 1 -> KL(p‖q), α = 0 -> KL(q‖p). Support points
    with p_i = q_i = 0 contribute nothing; otherwise 0 raised to a negative power gives +inf, as the
    formula does.
    """
    _pair(p, q)
    if not math.isfinite(alpha):
        raise ReferenceInputError("alpha", "must be finite")
    if alpha == 1.0:
        return {"alpha_div": kl_t(p, q)}
    if alpha == 0.0:
        return {"alpha_div": kl_t(q, p)}
    either = (p > 0) | (q > 0)
    # 0^α (α>0) is 0 and its derivative is finite only away from 0, so zero entries go through the
    # safe branch and are put back by exact case analysis.
    p_pos, q_pos = p > 0, q > 0
    both = p_pos & q_pos
    prod = _safe(p, both) ** alpha * _safe(q, both) ** (1 - alpha)
    zero = torch.zeros((), dtype=p.dtype, device=p.device)
    inf = torch.full((), math.inf, dtype=p.dtype, device=p.device)
    # p = 0 < q: 0^α·q^(1−α) is 0 for α > 0, +inf for α < 0; q = 0 < p likewise with 1 − α.
    only_q = either & ~p_pos
    only_p = either & ~q_pos
    prod = torch.where(both, prod, zero)
    if alpha < 0:
        prod = torch.where(only_q, inf, prod)
    if alpha > 1:
        prod = torch.where(only_p, inf, prod)
    return {"alpha_div": (1 - prod.sum(-1)) / (alpha * (1 - alpha))}
