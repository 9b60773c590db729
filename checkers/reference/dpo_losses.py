"""The per-type DPO losses of TRL's ``DPOTrainer``, and the f-divergence score that feeds them.

Authorities: huggingface/trl v0.28.0 ``DPOTrainer.dpo_loss`` and TRL main ``DPOTrainer._compute_loss``
for ``trl_version="head"``. Each loss takes the :class:`DPOTerms` of a batch of pairs and returns one
loss per pair; the names of the quantities follow the contract:

* r_c = π_c − π_ref,c and r_r = π_r − π_ref,r: log-ratios of the summed sequence log-probs, always
  with the reference (they feed the rewards and the non-sigmoid losses);
* h = s(r̃_c) − s(r̃_r): the "sigmoid-family" logits, where r̃ drops the reference when
  ``reference_free`` and s is the score of the chosen f-divergence (:func:`f_divergence_score`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

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


def smoothed_sigmoid(z: torch.Tensor, eps: float) -> torch.Tensor:
    """cDPO: −(1 − ε)·log σ(z) − ε·log σ(−z)."""
    return -(1 - eps) * F.logsigmoid(z) - eps * F.logsigmoid(-z)


def _dpo_sigmoid(t: DPOTerms) -> torch.Tensor:
    eps = t.label_smoothing if t.version == "0.28" else 0.0  # TRL head dropped cDPO smoothing for sigmoid
    return smoothed_sigmoid(t.beta * t.h, eps)


def _dpo_sigmoid_norm(t: DPOTerms) -> torch.Tensor:
    assert t.h_length is not None  # checked before dispatch
    eps = t.label_smoothing if t.version == "0.28" else 0.0
    return smoothed_sigmoid(t.beta * t.h_length, eps)


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
    return smoothed_sigmoid(t.beta * delta, t.label_smoothing)


def _dpo_aot_unpaired(t: DPOTerms) -> torch.Tensor:
    delta = torch.sort(t.r_chosen, dim=0).values - torch.sort(t.r_rejected, dim=0).values
    return smoothed_sigmoid(t.beta * delta, t.label_smoothing)


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
