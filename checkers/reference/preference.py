"""Preference optimisation: DPO and its loss variants, CPO/SimPO, ORPO, KTO, Bradley-Terry and the
KL-regularised optimal policy (contract §4, "Preference optimisation").

Authorities: huggingface/trl v0.28.0 ``DPOTrainer.dpo_loss`` and ``get_batch_loss_metrics``
(``trl/trainer/dpo_trainer.py``), TRL main ``DPOTrainer._compute_loss`` for ``trl_version="head"``,
``trl/experimental/cpo/cpo_trainer.py::cpo_loss``, ``trl/experimental/orpo/orpo_trainer.py::
odds_ratio_loss``, ``trl/experimental/kto/kto_trainer.py::kto_loss``. Everything here is a
re-implementation; the names of the intermediate quantities follow the contract:

* r_c = π_c − π_ref,c and r_r = π_r − π_ref,r: log-ratios of the summed sequence log-probs, always
  with the reference (they feed the rewards and the non-sigmoid losses);
* h = s(r̃_c) − s(r̃_r): the "sigmoid-family" logits, where r̃ drops the reference when
  ``reference_free`` and s is the score of the chosen f-divergence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from .errors import ReferenceInputError
from .preference_weighting import pair_inputs_from_tokens
from .registry import Example, Param, register
from .tensors import (TensorContext, require_distribution, require_ndim, require_positive,
                      require_same_shape)

# --- DPO ------------------------------------------------------------------------------------------

DPO_VERSIONS = ("0.28", "head")
F_DIVERGENCES = ("reverse_kl", "forward_kl", "js_divergence", "alpha_divergence")
#: TRL v0.28 replaces a zero label smoothing by this value for ``exo_pair`` (the EXO paper's advice).
EXO_DEFAULT_EPSILON = 1e-3
#: Below this distance from α = 1 the alpha-divergence score is its limit, the plain log-ratio (TRL head).
ALPHA_LIMIT_TOL = 1e-6


@dataclass(frozen=True)
class DPOTerms:
    """Everything a per-type DPO loss may need, computed once per call."""

    beta: float
    label_smoothing: float
    version: str
    r_chosen: torch.Tensor          # π_c − π_ref,c (with the reference)
    r_rejected: torch.Tensor        # π_r − π_ref,r
    h: torch.Tensor                 # sigmoid-family logits s(r̃_c) − s(r̃_r)
    s_chosen: torch.Tensor          # s(r_c), the f-divergence score of the log-ratio with the reference
    s_rejected: torch.Tensor        # s(r_r)
    h_length: torch.Tensor | None   # s(r̃_c)/ℓ_c − s(r̃_r)/ℓ_r when lengths are given
    logratios: torch.Tensor         # π_c − π_r
    ref_logratios: torch.Tensor     # π_ref,c − π_ref,r
    bco_delta: float | None
    nll_loss: torch.Tensor | None
    discopop_tau: float


def _smoothed_sigmoid(z: torch.Tensor, eps: float) -> torch.Tensor:
    """cDPO: −(1 − ε)·log σ(z) − ε·log σ(−z)."""
    return -(1 - eps) * F.logsigmoid(z) - eps * F.logsigmoid(-z)


def _dpo_sigmoid(t: DPOTerms) -> torch.Tensor:
    eps = t.label_smoothing if t.version == "0.28" else 0.0  # TRL head dropped cDPO smoothing for sigmoid
    return _smoothed_sigmoid(t.beta * t.h, eps)


def _dpo_sigmoid_norm(t: DPOTerms) -> torch.Tensor:
    assert t.h_length is not None  # checked before dispatch
    eps = t.label_smoothing if t.version == "0.28" else 0.0
    return _smoothed_sigmoid(t.beta * t.h_length, eps)


def _dpo_hinge(t: DPOTerms) -> torch.Tensor:
    return torch.relu(1 - t.beta * t.h)


def _dpo_ipo(t: DPOTerms) -> torch.Tensor:
    h = t.h if t.h_length is None else t.h_length
    return (h - 1 / (2 * t.beta)) ** 2


def _dpo_robust(t: DPOTerms) -> torch.Tensor:
    z = t.beta * t.h
    eps = t.label_smoothing
    return (-(1 - eps) * F.logsigmoid(z) + eps * F.logsigmoid(-z)) / (1 - 2 * eps)


def _dpo_exo_pair(t: DPOTerms) -> torch.Tensor:
    eps = t.label_smoothing
    if t.version == "0.28" and eps == 0:
        eps = EXO_DEFAULT_EPSILON
    z = t.beta * t.h
    # log(0) = −inf is wanted under head with ε = 0: the contract says the loss is then inf.
    log_pw = math.log1p(-eps) if eps < 1 else -math.inf
    log_pl = math.log(eps) if eps > 0 else -math.inf
    return torch.sigmoid(z) * (F.logsigmoid(z) - log_pw) + torch.sigmoid(-z) * (F.logsigmoid(-z) - log_pl)


def _scores(t: DPOTerms) -> tuple[torch.Tensor, torch.Tensor]:
    """The per-response quantities of nca_pair, bco_pair and sppo_hard: TRL head feeds them the
    f-divergence scores s(r), v0.28 the plain log-ratios r (the two agree under reverse_kl)."""
    if t.version == "head":
        return t.s_chosen, t.s_rejected
    return t.r_chosen, t.r_rejected


def _dpo_nca_pair(t: DPOTerms) -> torch.Tensor:
    sc, sr = _scores(t)
    zc, zr = t.beta * sc, t.beta * sr
    return -F.logsigmoid(zc) - 0.5 * F.logsigmoid(-zc) - 0.5 * F.logsigmoid(-zr)


def _dpo_bco_pair(t: DPOTerms) -> torch.Tensor:
    sc, sr = _scores(t)
    zc, zr = t.beta * sc, t.beta * sr
    if t.bco_delta is not None:
        delta: torch.Tensor | float = t.bco_delta
    elif t.version == "head":
        delta = 0.0
    else:
        # TRL v0.28 RunningMoments after its first update: the detached batch mean of both rewards,
        # stored as a float32 scalar.
        with torch.no_grad():
            mean = torch.cat((zc, zr)).mean()
        delta = mean.detach().to(torch.float32).to(zc.dtype)
    return -F.logsigmoid(zc - delta) - F.logsigmoid(-(zr - delta))


def _dpo_sppo_hard(t: DPOTerms) -> torch.Tensor:
    sc, sr = _scores(t)
    return (sc - 0.5 / t.beta) ** 2 + (sr + 0.5 / t.beta) ** 2


def _dpo_aot(t: DPOTerms) -> torch.Tensor:
    delta = torch.sort(t.logratios, dim=0).values - torch.sort(t.ref_logratios, dim=0).values
    return _smoothed_sigmoid(t.beta * delta, t.label_smoothing)


def _dpo_aot_unpaired(t: DPOTerms) -> torch.Tensor:
    delta = torch.sort(t.r_chosen, dim=0).values - torch.sort(t.r_rejected, dim=0).values
    return _smoothed_sigmoid(t.beta * delta, t.label_smoothing)


def _dpo_apo_zero(t: DPOTerms) -> torch.Tensor:
    return (1 - torch.sigmoid(t.beta * t.r_chosen)) + torch.sigmoid(t.beta * t.r_rejected)


def _dpo_apo_down(t: DPOTerms) -> torch.Tensor:
    sc, sr = _scores(t)  # head: the second term is σ(β(s_c − s_r)), the f-divergence score difference
    return torch.sigmoid(t.beta * t.r_chosen) + (1 - torch.sigmoid(t.beta * (sc - sr)))


def _dpo_discopop(t: DPOTerms) -> torch.Tensor:
    # v0.28 rebuilds the plain reverse-KL logits here, with the reference and without f-divergence;
    # head uses the f-divergence score difference s(r_c) − s(r_r).
    if t.version == "head":
        z = t.beta * (t.s_chosen - t.s_rejected)
    else:
        z = t.beta * (t.logratios - t.ref_logratios)
    mix = torch.sigmoid(z / t.discopop_tau)
    return -F.logsigmoid(z) * (1 - mix) + torch.exp(-z) * mix


def _dpo_sft(t: DPOTerms) -> torch.Tensor:
    assert t.nll_loss is not None  # checked before dispatch
    return t.nll_loss.expand_as(t.r_chosen)


DPO_LOSSES: dict[str, Callable[[DPOTerms], torch.Tensor]] = {
    "sigmoid": _dpo_sigmoid,
    "hinge": _dpo_hinge,
    "ipo": _dpo_ipo,
    "sigmoid_norm": _dpo_sigmoid_norm,
    "robust": _dpo_robust,
    "exo_pair": _dpo_exo_pair,
    "nca_pair": _dpo_nca_pair,
    "bco_pair": _dpo_bco_pair,
    "sppo_hard": _dpo_sppo_hard,
    "aot": _dpo_aot,
    "aot_unpaired": _dpo_aot_unpaired,
    "apo_zero": _dpo_apo_zero,
    "apo_down": _dpo_apo_down,
    "discopop": _dpo_discopop,
    "sft": _dpo_sft,
}


def f_divergence_score(r: torch.Tensor, kind: str, alpha: float) -> torch.Tensor:
    """Score s(r) of a log-ratio r under the f-divergence ``kind`` (TRL head ``_compute_loss``).

    reverse_kl: r; forward_kl: −e^{−r}; js_divergence: log σ(r); alpha_divergence: e^{(α−1)r}/(α−1),
    or r when |α − 1| < 1e-6. TRL v0.28 writes the alpha case with a = 1 − α:
    s_c − s_r = (e^{−a·r_r} − e^{−a·r_c})/a.
    """
    if kind == "reverse_kl":
        return r
    if kind == "forward_kl":
        return -torch.exp(-r)
    if kind == "js_divergence":
        return F.logsigmoid(r)
    if abs(alpha - 1.0) < ALPHA_LIMIT_TOL:
        return r
    return torch.exp((alpha - 1.0) * r) / (alpha - 1.0)


class _OneOrMany(tuple):
    """Allowed values of a choice that may also be given as a list of choices.

    The registry checks ``value in param.choices``; this container answers that for a list too, so
    ``describe`` still lists the allowed loss types.
    """

    def __contains__(self, value: object) -> bool:
        if isinstance(value, (list, tuple)):
            return len(value) > 0 and all(tuple.__contains__(self, v) for v in value)
        return tuple.__contains__(self, value)


def _loss_types_and_weights(loss_type: str | list[str], loss_weights: list | None
                            ) -> tuple[list[str], list[float], bool]:
    many = isinstance(loss_type, (list, tuple))
    types = list(loss_type) if many else [loss_type]
    for name in types:
        if name not in DPO_LOSSES:
            raise ReferenceInputError("loss_type", f"unknown DPO loss type {name!r}")
    if len(set(types)) != len(types):
        raise ReferenceInputError("loss_type", "a loss type may appear only once in the list")
    if loss_weights is None:
        weights = [1.0] * len(types)
    else:
        if len(loss_weights) != len(types):
            raise ReferenceInputError(
                "loss_weights", f"needs one weight per loss type ({len(types)}), got {len(loss_weights)}")
        weights = []
        for w in loss_weights:
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
                raise ReferenceInputError("loss_weights", "weights must be finite numbers")
            weights.append(float(w))
    return types, weights, many


def _check_pair_logps(**tensors: torch.Tensor) -> None:
    for name, t in tensors.items():
        require_ndim(t, name, 1)
    require_same_shape(**tensors)
    first = next(iter(tensors))
    if tensors[first].numel() == 0:  # the batch mean of no pairs would be a silent nan
        raise ReferenceInputError(first, "needs at least one pair")


def _lengths(t: torch.Tensor | None, name: str, like: torch.Tensor) -> torch.Tensor | None:
    if t is None:
        return None
    require_same_shape(**{"policy_chosen_logps": like, name: t})
    with torch.no_grad():
        if not torch.isfinite(t).all().item() or (t < 0).any().item():
            raise ReferenceInputError(name, "lengths must be finite and non-negative")
    # TRL head clamps the token count at 1 so an empty completion does not divide by zero.
    return t.clamp(min=1.0)


def _dpo_outputs(policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
                 ref_chosen_logps: torch.Tensor, ref_rejected_logps: torch.Tensor, beta: float,
                 loss_type: str | list[str], label_smoothing: float, trl_version: str, reference_free: bool,
                 chosen_lengths: torch.Tensor | None, rejected_lengths: torch.Tensor | None,
                 bco_delta: float | None, nll_loss: torch.Tensor | None, loss_weights: list | None,
                 f_divergence: str, f_alpha: float, discopop_tau: float,
                 pair_weights: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    _check_pair_logps(policy_chosen_logps=policy_chosen_logps, policy_rejected_logps=policy_rejected_logps,
                      ref_chosen_logps=ref_chosen_logps, ref_rejected_logps=ref_rejected_logps)
    require_positive(beta, "beta")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ReferenceInputError("label_smoothing", "must lie in [0, 1]")
    require_positive(discopop_tau, "discopop_tau")
    if not math.isfinite(f_alpha):
        raise ReferenceInputError("f_alpha", "must be finite")
    types, weights, many = _loss_types_and_weights(loss_type, loss_weights)
    if "robust" in types and label_smoothing >= 0.5:
        raise ReferenceInputError("label_smoothing",
                                  "the robust loss needs label_smoothing < 0.5 (it divides by 1 − 2ε)")
    if (chosen_lengths is None) != (rejected_lengths is None):
        missing = "chosen_lengths" if chosen_lengths is None else "rejected_lengths"
        raise ReferenceInputError(missing, "chosen_lengths and rejected_lengths must be given together")
    if "sigmoid_norm" in types and chosen_lengths is None:
        raise ReferenceInputError("chosen_lengths", "the sigmoid_norm loss needs chosen_lengths and rejected_lengths")
    if "sft" in types:
        if nll_loss is None:
            raise ReferenceInputError("nll_loss", "the sft loss needs the chosen responses' nll_loss")
        if nll_loss.dim() != 0 and nll_loss.shape != policy_chosen_logps.shape:
            raise ReferenceInputError("nll_loss", "must be a scalar or one value per pair")
    if bco_delta is not None and not math.isfinite(bco_delta):
        raise ReferenceInputError("bco_delta", "must be finite")
    len_c = _lengths(chosen_lengths, "chosen_lengths", policy_chosen_logps)
    len_r = _lengths(rejected_lengths, "rejected_lengths", policy_chosen_logps)

    r_c = policy_chosen_logps - ref_chosen_logps
    r_r = policy_rejected_logps - ref_rejected_logps
    h_r_c = policy_chosen_logps if reference_free else r_c
    h_r_r = policy_rejected_logps if reference_free else r_r
    s_c = f_divergence_score(h_r_c, f_divergence, f_alpha)
    s_r = f_divergence_score(h_r_r, f_divergence, f_alpha)
    terms = DPOTerms(
        beta=beta, label_smoothing=label_smoothing, version=trl_version, r_chosen=r_c, r_rejected=r_r,
        h=s_c - s_r, s_chosen=f_divergence_score(r_c, f_divergence, f_alpha),
        s_rejected=f_divergence_score(r_r, f_divergence, f_alpha), h_length=None if len_c is None else s_c / len_c - s_r / len_r,
        logratios=policy_chosen_logps - policy_rejected_logps,
        ref_logratios=ref_chosen_logps - ref_rejected_logps,
        bco_delta=bco_delta, nll_loss=nll_loss, discopop_tau=discopop_tau)

    out: dict[str, torch.Tensor] = {}
    losses = torch.zeros_like(r_c)
    for name, w in zip(types, weights):
        per_pair = DPO_LOSSES[name](terms)
        if pair_weights is not None:  # WPO: TRL head scales each type's per-pair loss before its mean
            per_pair = per_pair * pair_weights
        if many:
            out[f"losses_{name}"] = per_pair
        losses = losses + w * per_pair
    # TRL reports detached rewards, with the reference even when reference_free.
    chosen_rewards = (beta * r_c).detach()
    rejected_rewards = (beta * r_r).detach()
    out.update(
        losses=losses, loss=losses.mean(), chosen_rewards=chosen_rewards, rejected_rewards=rejected_rewards,
        margins=chosen_rewards - rejected_rewards,
        accuracies=(chosen_rewards > rejected_rewards).to(r_c.dtype))
    return out


_PAIR = "(B,)"
DPO_PARAMS = [
    Param("policy_chosen_logps", "tensor", shape=_PAIR, doc="summed log π_θ(y_w|x)"),
    Param("policy_rejected_logps", "tensor", shape=_PAIR, doc="summed log π_θ(y_l|x)"),
    Param("ref_chosen_logps", "tensor", shape=_PAIR),
    Param("ref_rejected_logps", "tensor", shape=_PAIR),
    Param("beta", "float", 0.1),
    Param("loss_type", "choice", "sigmoid", choices=_OneOrMany(DPO_LOSSES),
          doc="one loss type, or a list of them combined with loss_weights"),
    Param("label_smoothing", "float", 0.0),
    Param("trl_version", "choice", "0.28", choices=DPO_VERSIONS),
    Param("reference_free", "bool", False),
    Param("chosen_lengths", "tensor", None, shape=_PAIR, doc="completion token counts (ipo, sigmoid_norm)"),
    Param("rejected_lengths", "tensor", None, shape=_PAIR),
    Param("bco_delta", "float", None, doc="bco_pair shift δ; default: v0.28 batch mean, head 0"),
    Param("nll_loss", "tensor", None, shape="() or (B,)", doc="sft loss on the chosen responses"),
    Param("loss_weights", "list", None, doc="one weight per loss type"),
    Param("f_divergence", "choice", "reverse_kl", choices=F_DIVERGENCES),
    Param("f_alpha", "float", 0.5),
    Param("discopop_tau", "float", 0.05),
]
DPO_OUTPUTS = ["losses", "loss", "chosen_rewards", "rejected_rewards", "margins", "accuracies"] + [
    f"losses_{name}" for name in DPO_LOSSES]

_TOK = "(B, T)"
#: dpo.loss also takes per-token inputs (TRL head ``_compute_loss``); the summed log-probs then become optional.
DPO_LOSS_PARAMS = [Param(p.name, p.kind, shape=p.shape, doc=p.doc, optional=True)
                   if p.name in ("policy_chosen_logps", "policy_rejected_logps", "ref_chosen_logps",
                                 "ref_rejected_logps") else p for p in DPO_PARAMS] + [
    Param("chosen_token_logps", "tensor", None, shape=_TOK, doc="per-token log π_θ of the chosen completion"),
    Param("rejected_token_logps", "tensor", None, shape=_TOK),
    Param("chosen_mask", "tensor", None, shape=_TOK, doc="completion mask of chosen_token_logps"),
    Param("rejected_mask", "tensor", None, shape=_TOK),
    Param("ref_chosen_token_logps", "tensor", None, shape=_TOK, doc="per-token reference log-probs (or give ref_chosen_logps)"),
    Param("ref_rejected_token_logps", "tensor", None, shape=_TOK),
    Param("ld_alpha", "float", None, doc="LD-DPO weight of the tokens beyond the shorter response, in [0, 1]"),
    Param("use_weighting", "bool", False, doc="WPO pair weights (needs logits or log_denom)"),
    Param("chosen_logits", "tensor", None, shape="(B, T, V)", doc="policy logits at the chosen tokens (WPO)"),
    Param("rejected_logits", "tensor", None, shape="(B, T, V)"),
    Param("chosen_log_denom", "tensor", None, shape=_TOK, doc="log Σ_v p_v² per position, instead of chosen_logits"),
    Param("rejected_log_denom", "tensor", None, shape=_TOK),
]
_TOKEN_ONLY = ("chosen_token_logps", "rejected_token_logps", "chosen_mask", "rejected_mask",
               "ref_chosen_token_logps", "ref_rejected_token_logps", "chosen_logits", "rejected_logits",
               "chosen_log_denom", "rejected_log_denom")
DPO_LOSS_OUTPUTS = DPO_OUTPUTS + ["chosen_logps", "rejected_logps", "chosen_weights", "rejected_weights"]


# Two preference pairs, the first ranked right by the policy and the second wrong (docs/reference.md).
_DPO_EXAMPLE = {"policy_chosen_logps": [-10.0, -8.0], "policy_rejected_logps": [-12.0, -7.5],
                "ref_chosen_logps": [-11.0, -8.2], "ref_rejected_logps": [-11.5, -7.8]}


@register("dpo.loss", params=DPO_LOSS_PARAMS, outputs=DPO_LOSS_OUTPUTS,
          examples=[Example(_DPO_EXAMPLE, "sigmoid loss on summed log-probs (TRL v0.28 dpo_loss)"),
                    Example({"chosen_token_logps": [[-1.0, -2.0, -0.5]],
                             "rejected_token_logps": [[-1.5, -2.5, 0.0]],
                             "chosen_mask": [[1, 1, 1]], "rejected_mask": [[1, 1, 0]],
                             "ref_chosen_token_logps": [[-1.1, -2.1, -0.6]],
                             "ref_rejected_token_logps": [[-1.4, -2.2, 0.0]],
                             "trl_version": "head", "ld_alpha": 0.5},
                            "LD-DPO: the chosen response's third token counts with weight ld_alpha "
                            "(TRL HEAD _compute_loss)"),
                    Example({"chosen_token_logps": [[-1.0, -2.0]], "rejected_token_logps": [[-1.5, -2.5]],
                             "chosen_mask": [[1, 1]], "rejected_mask": [[1, 1]],
                             "ref_chosen_logps": [-3.2], "ref_rejected_logps": [-3.6],
                             "chosen_logits": [[[2.0, 1.0, 0.0], [0.0, 1.0, 0.5]]],
                             "rejected_logits": [[[1.0, 1.0, 0.0], [0.5, 0.0, 1.0]]],
                             "trl_version": "head", "use_weighting": True},
                            "WPO pair weights from the policy logits (TRL HEAD _compute_loss)")])
def dpo_loss(ctx: TensorContext, policy_chosen_logps: torch.Tensor | None,
             policy_rejected_logps: torch.Tensor | None, ref_chosen_logps: torch.Tensor | None,
             ref_rejected_logps: torch.Tensor | None, beta: float,
             loss_type: str | list[str], label_smoothing: float, trl_version: str, reference_free: bool,
             chosen_lengths: torch.Tensor | None, rejected_lengths: torch.Tensor | None,
             bco_delta: float | None, nll_loss: torch.Tensor | None, loss_weights: list | None,
             f_divergence: str, f_alpha: float, discopop_tau: float,
             chosen_token_logps: torch.Tensor | None = None, rejected_token_logps: torch.Tensor | None = None,
             chosen_mask: torch.Tensor | None = None, rejected_mask: torch.Tensor | None = None,
             ref_chosen_token_logps: torch.Tensor | None = None,
             ref_rejected_token_logps: torch.Tensor | None = None, ld_alpha: float | None = None,
             use_weighting: bool = False, chosen_logits: torch.Tensor | None = None,
             rejected_logits: torch.Tensor | None = None, chosen_log_denom: torch.Tensor | None = None,
             rejected_log_denom: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
    """DPO loss and its variants, as TRL v0.28 ``DPOTrainer.dpo_loss``.

    r_c = π_c − π_ref,c, r_r = π_r − π_ref,r; h = s(r̃_c) − s(r̃_r) with r̃ = r, or the policy log-prob
    alone when ``reference_free``, and s the f-divergence score (reverse_kl r, forward_kl −e^{−r},
    js_divergence log σ(r), alpha_divergence e^{(α−1)r}/(α−1)). With ε = label_smoothing:

    sigmoid −(1−ε)log σ(βh) − ε log σ(−βh) (head: ε ignored); sigmoid_norm the same on
    h_ℓ = s_c/ℓ_c − s_r/ℓ_r; hinge relu(1 − βh); ipo (h − 1/(2β))², on h_ℓ when lengths are given;
    robust [−(1−ε)log σ(βh) + ε log σ(−βh)]/(1 − 2ε); exo_pair σ(βh)(log σ(βh) − log(1−ε)) +
    σ(−βh)(log σ(−βh) − log ε) (v0.28: ε = 0 → 1e-3); nca_pair −log σ(βr_c) − ½log σ(−βr_c) −
    ½log σ(−βr_r); bco_pair −log σ(βr_c − δ) − log σ(−(βr_r − δ)), δ = bco_delta or (v0.28) the
    float32-rounded, detached mean of [βr_c, βr_r], (head) 0; sppo_hard (r_c − 1/(2β))² +
    (r_r + 1/(2β))²; aot / aot_unpaired: the smoothed sigmoid of β·(sorted(π_c − π_r) −
    sorted(π_ref,c − π_ref,r)) / β·(sorted r_c − sorted r_r); apo_zero 1 − σ(βr_c) + σ(βr_r);
    apo_down σ(βr_c) + 1 − σ(β(r_c − r_r)); discopop with z = β(r_c − r_r):
    −log σ(z)(1 − σ(z/τ)) + e^{−z}σ(z/τ); sft the given nll_loss.

    Under ``trl_version="head"`` nca_pair, bco_pair, sppo_hard, the second apo_down term and discopop
    take the f-divergence scores s(r_c), s(r_r) (with the reference) in place of r_c, r_r (TRL head
    ``_compute_loss``); v0.28 uses the plain log-ratios there. ``reference_free`` only changes h. Rewards are β·r (detached, as TRL), margins their difference,
    accuracies 1[chosen_reward > rejected_reward]; ``loss`` = mean(losses). A list of loss types gives
    losses = Σ w·losses_type per pair, so loss = Σ w·mean(losses_type), and one ``losses_<type>`` output
    per type.

    Per-token inputs (TRL head ``DPOTrainer._compute_loss``): instead of the summed log-probs give
    ``chosen_token_logps``/``rejected_token_logps`` with ``chosen_mask``/``rejected_mask`` (positions with
    m = 0 are set to 0, as TRL), and the reference either per token (``ref_*_token_logps``) or summed
    (``ref_*_logps``, taken as given). π = Σ_t m_t·log p_t; the lengths ℓ = Σ_t m_t feed ipo and
    sigmoid_norm. ``ld_alpha`` (LD-DPO, arXiv:2409.06411): with ℓ_s = min(ℓ_c, ℓ_r) of the pair and p_t the
    count of completion tokens up to t, π = Σ_{1≤p_t≤ℓ_s} log p_t + α·Σ_{p_t>ℓ_s} log p_t, for the policy and
    a per-token reference alike. ``use_weighting`` (WPO, arXiv:2406.11827): each pair's loss of every type
    is multiplied by w_c·w_r, w = exp(Σ_t m_t(log p_t − log Σ_v p_v²)/max(ℓ, 1)), detached, from
    ``*_logits`` (B, T, V) or ``*_log_denom`` = log Σ_v p_v² (B, T); not with aot/aot_unpaired (TRL refuses).
    Both need ``trl_version="head"`` (TRL v0.28 computed them differently). Outputs then also
    ``chosen_logps``/``rejected_logps`` (the π used) and, with weighting, ``chosen_weights``/``rejected_weights``.
    """
    token_args = dict(chosen_token_logps=chosen_token_logps, rejected_token_logps=rejected_token_logps,
                      chosen_mask=chosen_mask, rejected_mask=rejected_mask,
                      ref_chosen_token_logps=ref_chosen_token_logps, ref_rejected_token_logps=ref_rejected_token_logps,
                      chosen_logits=chosen_logits, rejected_logits=rejected_logits,
                      chosen_log_denom=chosen_log_denom, rejected_log_denom=rejected_log_denom)
    per_token = chosen_token_logps is not None or rejected_token_logps is not None
    if (ld_alpha is not None or use_weighting) and trl_version != "head":
        raise ReferenceInputError("trl_version", "ld_alpha and use_weighting follow TRL head's _compute_loss: "
                                                 "pass trl_version='head'")
    if not per_token:
        given = [k for k, v in token_args.items() if v is not None]
        if given:
            raise ReferenceInputError(given[0], "needs chosen_token_logps and rejected_token_logps")
        if ld_alpha is not None or use_weighting:
            raise ReferenceInputError("ld_alpha" if ld_alpha is not None else "use_weighting",
                                      "needs the per-token inputs chosen_token_logps, rejected_token_logps and masks")
        for name, value in (("policy_chosen_logps", policy_chosen_logps),
                            ("policy_rejected_logps", policy_rejected_logps),
                            ("ref_chosen_logps", ref_chosen_logps), ("ref_rejected_logps", ref_rejected_logps)):
            if value is None:
                raise ReferenceInputError(name, "missing required argument of dpo.loss")
        return _dpo_outputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
                            beta, loss_type, label_smoothing, trl_version, reference_free, chosen_lengths,
                            rejected_lengths, bco_delta, nll_loss, loss_weights, f_divergence, f_alpha, discopop_tau)
    if chosen_token_logps is None or rejected_token_logps is None:
        raise ReferenceInputError("chosen_token_logps" if chosen_token_logps is None else "rejected_token_logps",
                                  "chosen_token_logps and rejected_token_logps must be given together")
    for name, value in (("policy_chosen_logps", policy_chosen_logps), ("policy_rejected_logps", policy_rejected_logps),
                        ("chosen_lengths", chosen_lengths), ("rejected_lengths", rejected_lengths)):
        if value is not None:
            raise ReferenceInputError(name, "comes from the per-token inputs; do not give both")
    if use_weighting and any(t in ("aot", "aot_unpaired") for t in (
            loss_type if isinstance(loss_type, (list, tuple)) else [loss_type])):
        raise ReferenceInputError("use_weighting", "WPO weighting is not defined for aot/aot_unpaired, "
                                                   "which sort the pairs (TRL refuses it)")
    pair = pair_inputs_from_tokens(ref_chosen_logps=ref_chosen_logps, ref_rejected_logps=ref_rejected_logps,
                                   ld_alpha=ld_alpha, use_weighting=use_weighting, **token_args)
    weights = None if pair.chosen_weights is None else pair.chosen_weights * pair.rejected_weights
    out = _dpo_outputs(pair.chosen_logps, pair.rejected_logps, pair.ref_chosen_logps, pair.ref_rejected_logps,
                       beta, loss_type, label_smoothing, trl_version, reference_free, pair.chosen_lengths,
                       pair.rejected_lengths, bco_delta, nll_loss, loss_weights, f_divergence, f_alpha, discopop_tau,
                       pair_weights=weights)
    out.update(chosen_logps=pair.chosen_logps, rejected_logps=pair.rejected_logps)
    if pair.chosen_weights is not None and pair.rejected_weights is not None:
        out.update(chosen_weights=pair.chosen_weights, rejected_weights=pair.rejected_weights)
    return out


@register("dpo.gradient", params=DPO_PARAMS, outputs=["grad_chosen", "grad_rejected", "weight"],
          examples=[_DPO_EXAMPLE])
def dpo_gradient(ctx: TensorContext, policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
                 ref_chosen_logps: torch.Tensor, ref_rejected_logps: torch.Tensor, beta: float,
                 loss_type: str | list[str], label_smoothing: float, trl_version: str, reference_free: bool,
                 chosen_lengths: torch.Tensor | None, rejected_lengths: torch.Tensor | None,
                 bco_delta: float | None, nll_loss: torch.Tensor | None, loss_weights: list | None,
                 f_divergence: str, f_alpha: float, discopop_tau: float) -> dict[str, torch.Tensor]:
    """Gradient of ``dpo.loss``'s ``loss`` (the batch mean) w.r.t. the policy log-probs, by autograd.

    grad_chosen_i = ∂loss/∂π_c,i, grad_rejected_i = ∂loss/∂π_r,i. For the plain sigmoid loss
    (reverse_kl, ε = 0, with the reference) this is ∓(β/B)·σ(β(r_r − r_c)) (Rafailov et al. 2023,
    eq. 7); ``weight`` = σ(β(r_rejected − r_chosen)) = σ(rejected_reward − chosen_reward) is reported
    when ``loss_type="sigmoid"``. The gradients keep the graph (create_graph), so they are themselves
    differentiable w.r.t. the inputs.
    """
    with torch.enable_grad():
        pc = policy_chosen_logps if policy_chosen_logps.requires_grad else policy_chosen_logps.detach().requires_grad_()
        pr = (policy_rejected_logps if policy_rejected_logps.requires_grad
              else policy_rejected_logps.detach().requires_grad_())
        res = _dpo_outputs(pc, pr, ref_chosen_logps, ref_rejected_logps, beta, loss_type, label_smoothing,
                           trl_version, reference_free, chosen_lengths, rejected_lengths, bco_delta, nll_loss,
                           loss_weights, f_divergence, f_alpha, discopop_tau)
        loss = res["loss"]
        if loss.requires_grad:
            g_c, g_r = torch.autograd.grad(loss, (pc, pr), create_graph=True, allow_unused=True)
        else:
            g_c = g_r = None
    out = {"grad_chosen": torch.zeros_like(pc) if g_c is None else g_c,
           "grad_rejected": torch.zeros_like(pr) if g_r is None else g_r}
    if loss_type == "sigmoid":
        out["weight"] = torch.sigmoid(beta * ((policy_rejected_logps - ref_rejected_logps)
                                              - (policy_chosen_logps - ref_chosen_logps)))
    return out


@register("dpo.implicit_reward",
          params=[Param("log_prob", "tensor", shape="(...)"), Param("ref_log_prob", "tensor", shape="same"),
                  Param("beta", "float", 0.1)],
          outputs=["reward"],
          examples=[{"log_prob": [-10.0, -8.0], "ref_log_prob": [-11.0, -8.2], "beta": 0.1}])
def dpo_implicit_reward(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor,
                        beta: float) -> dict[str, torch.Tensor]:
    """DPO implicit reward r = β·(log π_θ − log π_ref) (Rafailov et al. 2023, §5; TRL ``chosen_rewards``)."""
    require_same_shape(log_prob=log_prob, ref_log_prob=ref_log_prob)
    require_positive(beta, "beta")
    return {"reward": beta * (log_prob - ref_log_prob)}


# --- CPO / SimPO ----------------------------------------------------------------------------------

CPO_LOSS_TYPES = ("sigmoid", "hinge", "ipo", "simpo")


def _cpo_smoothed(z: torch.Tensor, beta: float, gamma: float, eps: float) -> torch.Tensor:
    return _smoothed_sigmoid(beta * z, eps)


def _cpo_simpo(z: torch.Tensor, beta: float, gamma: float, eps: float) -> torch.Tensor:
    # SimPO's target margin γ enters the logits as γ/β so that β·(z − γ/β) = βz − γ.
    return _smoothed_sigmoid(beta * (z - gamma / beta), eps)


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
    _check_pair_logps(**{names[0]: chosen, names[1]: rejected})
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
          params=[Param("policy_chosen_logps", "tensor", shape=_PAIR),
                  Param("policy_rejected_logps", "tensor", shape=_PAIR),
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
          params=[Param("chosen_avg_logps", "tensor", shape=_PAIR, doc="length-averaged log π(y_w|x)"),
                  Param("rejected_avg_logps", "tensor", shape=_PAIR),
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


# --- ORPO -----------------------------------------------------------------------------------------

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
          params=[Param("chosen_avg_logps", "tensor", shape=_PAIR), Param("rejected_avg_logps", "tensor", shape=_PAIR),
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
    _check_pair_logps(chosen_avg_logps=chosen_avg_logps, rejected_avg_logps=rejected_avg_logps)
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


# --- KTO ------------------------------------------------------------------------------------------

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


# --- Bradley-Terry and the optimal KL-regularised policy -----------------------------------------

@register("preference.bradley_terry",
          params=[Param("reward_chosen", "tensor", shape="(...)"), Param("reward_rejected", "tensor", shape="same")],
          outputs=["prob"],
          examples=[{"reward_chosen": [1.0, 0.2], "reward_rejected": [0.0, 0.5]}])
def bradley_terry(ctx: TensorContext, reward_chosen: torch.Tensor,
                  reward_rejected: torch.Tensor) -> dict[str, torch.Tensor]:
    """Bradley-Terry preference probability P(y_c ≻ y_r) = σ(r_c − r_r) = e^{r_c}/(e^{r_c} + e^{r_r})."""
    require_same_shape(reward_chosen=reward_chosen, reward_rejected=reward_rejected)
    return {"prob": torch.sigmoid(reward_chosen - reward_rejected)}


@register("policy.optimal",
          params=[Param("ref_probs", "tensor", shape="(..., K)", doc="π_ref over the last axis"),
                  Param("rewards", "tensor", shape="same as ref_probs"), Param("beta", "float")],
          outputs=["probs", "log_partition"],
          examples=[{"ref_probs": [[0.5, 0.3, 0.2]], "rewards": [[1.0, 0.0, -1.0]], "beta": 0.5}])
def policy_optimal(ctx: TensorContext, ref_probs: torch.Tensor, rewards: torch.Tensor,
                   beta: float) -> dict[str, torch.Tensor]:
    """Maximiser of E_π[r] − β·KL(π‖π_ref): π* = π_ref·e^{r/β}/Z, Z = Σ π_ref·e^{r/β}.

    (Rafailov et al. 2023, eq. 4; Peters & Schaal 2007.) log Z = logsumexp(r/β + log π_ref) is taken over
    the support of π_ref with the maximum of r/β factored out, so neither a large r/β nor π_ref = 0
    overflows or puts a nan in the gradient.
    """
    require_distribution(ref_probs, "ref_probs")
    require_same_shape(ref_probs=ref_probs, rewards=rewards)
    require_positive(beta, "beta")
    with torch.no_grad():
        if not torch.isfinite(rewards).all().item():
            raise ReferenceInputError("rewards", "must be finite")
    support = ref_probs > 0
    a = torch.where(support, rewards / beta, torch.full_like(rewards, -math.inf))
    # The shift cancels in π* and is added back to log Z, so it needs no gradient.
    shift = a.amax(dim=-1, keepdim=True).detach()
    w = torch.exp(a - shift)
    total = (ref_probs * w).sum(dim=-1, keepdim=True)
    probs = ref_probs * w / total
    log_partition = (shift + torch.log(total)).squeeze(-1)
    return {"probs": probs, "log_partition": log_partition}
