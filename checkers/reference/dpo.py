"""The registered DPO functions: ``dpo.loss`` (summed or per-token inputs), ``dpo.gradient`` and
``dpo.implicit_reward`` (contract §4, "Preference optimisation").

Authorities: huggingface/trl v0.28.0 ``DPOTrainer.dpo_loss`` and TRL main ``DPOTrainer._compute_loss``
for ``trl_version="head"``; the per-token inputs are reduced to sequence log-probs by
:mod:`.preference_weighting`, the losses live in :mod:`.dpo_losses`, one batch in :mod:`.dpo_pairs`.
"""

from __future__ import annotations

import torch

from .dpo_losses import DPO_LOSSES, DPO_VERSIONS, F_DIVERGENCES
from .dpo_pairs import OneOrMany, dpo_outputs
from .errors import ReferenceInputError
from .preference_weighting import pair_inputs_from_tokens
from .registry import Example, Param, register
from .tensors import TensorContext, require_positive, require_same_shape

#: Shape of one value per preference pair.
PAIR = "(B,)"
DPO_PARAMS = [
    Param("policy_chosen_logps", "tensor", shape=PAIR, doc="summed log π_θ(y_w|x)"),
    Param("policy_rejected_logps", "tensor", shape=PAIR, doc="summed log π_θ(y_l|x)"),
    Param("ref_chosen_logps", "tensor", shape=PAIR),
    Param("ref_rejected_logps", "tensor", shape=PAIR),
    Param("beta", "float", 0.1),
    Param("loss_type", "choice", "sigmoid", choices=OneOrMany(DPO_LOSSES),
          doc="one loss type, or a list of them combined with loss_weights"),
    Param("label_smoothing", "float", 0.0),
    Param("trl_version", "choice", "0.28", choices=DPO_VERSIONS),
    Param("reference_free", "bool", False),
    Param("chosen_lengths", "tensor", None, shape=PAIR, doc="completion token counts (ipo, sigmoid_norm)"),
    Param("rejected_lengths", "tensor", None, shape=PAIR),
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
        return dpo_outputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
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
    out = dpo_outputs(pair.chosen_logps, pair.rejected_logps, pair.ref_chosen_logps, pair.ref_rejected_logps,
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
        res = dpo_outputs(pc, pr, ref_chosen_logps, ref_rejected_logps, beta, loss_type, label_smoothing,
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
