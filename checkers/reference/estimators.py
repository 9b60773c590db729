"""Per-token KL estimators from samples of π_θ (contract §4, "Per-token KL estimators").

With Δ = ref_log_prob − log_prob = log(π_ref/π_θ) at a token sampled from π_θ (J. Schulman,
"Approximating KL divergence", 2020, http://joschu.net/blog/kl-approx.html):

* k1 = −Δ (unbiased for KL(π_θ‖π_ref), can be negative),
* k2 = ½Δ² (biased, ≥ 0; as a loss its gradient −Δ·∇log π_θ is, in expectation, the gradient of the KL),
* k3 = e^Δ − Δ − 1 (unbiased, ≥ 0).
"""

from __future__ import annotations

import torch

from .errors import ReferenceInputError
from .masked import CONVENTIONS, check_convention, masked_mean_t, masked_sum_t
from .registry import Param, register
from .tensors import TensorContext, require_choice, require_mask, require_positive, require_same_shape

#: Modes of ``kl.penalty`` (verl ``kl_penalty`` names, with aliases).
PENALTY_MODES = ("kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3", "k1+", "k3+", "low_var_kl+")
ESTIMATORS = ("k1", "k2", "k3")
#: Clamps: verl clamps Δ to ±20 before the exponential of k3 and the k3 value to ±10; OpenRLHF
#: ``compute_approx_kl`` clamps every estimator's value to ±10.
VERL_K3_LOG_RATIO_CLAMP = 20.0
KL_VALUE_CLAMP = 10.0


def k1_t(log_prob: torch.Tensor, ref_log_prob: torch.Tensor) -> torch.Tensor:
    return log_prob - ref_log_prob


def k2_t(log_prob: torch.Tensor, ref_log_prob: torch.Tensor) -> torch.Tensor:
    return 0.5 * (log_prob - ref_log_prob).square()


def k3_t(log_prob: torch.Tensor, ref_log_prob: torch.Tensor) -> torch.Tensor:
    delta = ref_log_prob - log_prob
    return torch.exp(delta) - delta - 1


def estimator_t(log_prob: torch.Tensor, ref_log_prob: torch.Tensor, estimator: str) -> torch.Tensor:
    """Unclamped estimator by name: k1/kl, k2/mse, k3/low_var_kl, abs."""
    if estimator in ("k1", "kl"):
        return k1_t(log_prob, ref_log_prob)
    if estimator in ("k2", "mse"):
        return k2_t(log_prob, ref_log_prob)
    if estimator in ("k3", "low_var_kl"):
        return k3_t(log_prob, ref_log_prob)
    if estimator == "abs":
        return (log_prob - ref_log_prob).abs()
    raise ReferenceInputError("estimator", f"unknown estimator {estimator!r}; use k1, k2, k3 or abs")


def _base_value(log_prob: torch.Tensor, ref_log_prob: torch.Tensor, base: str, convention: str) -> torch.Tensor:
    if convention == "openrlhf":
        # OpenRLHF computes the log-ratio in float32 and clamps every estimator's value.
        lp, ref = log_prob.float(), ref_log_prob.float()
        if base in ("k3", "low_var_kl"):
            # OpenRLHF's own float32 evaluation order, e^(−r) − 1 + r with r = log_prob − ref_log_prob:
            # for small |r| the value is a cancellation, so another order differs by far more than 1 ulp.
            log_ratio = lp - ref
            value = (-log_ratio).exp() - 1 + log_ratio
        else:
            value = estimator_t(lp, ref, base)
        return value.clamp(min=-KL_VALUE_CLAMP, max=KL_VALUE_CLAMP)
    if convention == "verl" and base in ("k3", "low_var_kl"):
        delta = torch.clamp(ref_log_prob - log_prob, min=-VERL_K3_LOG_RATIO_CLAMP, max=VERL_K3_LOG_RATIO_CLAMP)
        value = torch.exp(delta) - delta - 1
        return torch.clamp(value, min=-KL_VALUE_CLAMP, max=KL_VALUE_CLAMP)
    return estimator_t(log_prob, ref_log_prob, base)


def kl_penalty_t(log_prob: torch.Tensor, ref_log_prob: torch.Tensor, mode: str = "kl",
                 convention: str = "verl") -> torch.Tensor:
    """Per-token KL penalty as verl ``core_algos.kl_penalty`` (see ``kl.penalty``)."""
    if mode == "full":
        raise ReferenceInputError("mode", "'full' needs the whole vocabulary: use kl.full_vocab")
    require_choice(mode, "mode", PENALTY_MODES)
    check_convention(convention)
    require_same_shape(log_prob=log_prob, ref_log_prob=ref_log_prob)
    base = mode[:-1] if mode.endswith("+") else mode
    value = _base_value(log_prob, ref_log_prob, base, convention)
    if not mode.endswith("+"):
        return value
    # Straight-through: forward value of the base mode, gradient of k2 (verl kl_penalty with a '+').
    k2 = _base_value(log_prob, ref_log_prob, "k2", convention)
    return k2 - k2.detach() + value.detach()


_LP = Param("log_prob", "tensor", shape="(B, T)", doc="log π_θ of the sampled tokens")
_REF = Param("ref_log_prob", "tensor", shape="(B, T)", doc="log π_ref of the same tokens")
_CLAMP = Param("clamp", "float", None, doc="if given, clamp the value to [−clamp, clamp]")


def _simple(log_prob: torch.Tensor, ref_log_prob: torch.Tensor, clamp: float | None, which: str) -> torch.Tensor:
    require_same_shape(log_prob=log_prob, ref_log_prob=ref_log_prob)
    value = estimator_t(log_prob, ref_log_prob, which)
    if clamp is not None:
        require_positive(clamp, "clamp")
        value = torch.clamp(value, min=-clamp, max=clamp)
    return value


@register("kl.k1", params=[_LP, _REF, _CLAMP], outputs=["kl"],
          examples=[{"log_prob": [[-1.0, -0.5]], "ref_log_prob": [[-1.2, -0.4]]}])
def kl_k1(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor,
          clamp: float | None) -> dict[str, torch.Tensor]:
    """k1 = log_prob − ref_log_prob = log(π_θ/π_ref) (Schulman 2020, http://joschu.net/blog/kl-approx.html).

    Unbiased for KL(π_θ‖π_ref) under samples from π_θ; ``clamp`` clamps the value to ±clamp.
    """
    return {"kl": _simple(log_prob, ref_log_prob, clamp, "k1")}


@register("kl.k2", params=[_LP, _REF, _CLAMP], outputs=["kl"],
          examples=[{"log_prob": [[-1.0, -0.5]], "ref_log_prob": [[-1.2, -0.4]]}])
def kl_k2(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor,
          clamp: float | None) -> dict[str, torch.Tensor]:
    """k2 = ½(log_prob − ref_log_prob)² (Schulman 2020): biased, ≥ 0; as a loss its gradient is
    (log_prob − ref_log_prob)·∇log π_θ = −Δ·∇log π_θ. ``clamp`` clamps the value to ±clamp."""
    return {"kl": _simple(log_prob, ref_log_prob, clamp, "k2")}


@register("kl.k3", params=[_LP, _REF, _CLAMP], outputs=["kl"],
          examples=[{"log_prob": [[-1.0, -0.5]], "ref_log_prob": [[-1.2, -0.4]]}])
def kl_k3(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor,
          clamp: float | None) -> dict[str, torch.Tensor]:
    """k3 = e^Δ − Δ − 1 with Δ = ref_log_prob − log_prob (Schulman 2020): unbiased, ≥ 0; as a loss its
    gradient is (1 − e^Δ)·∇log π_θ. No built-in clamp (use ``kl.penalty`` for verl's); ``clamp`` clamps
    the value to ±clamp."""
    return {"kl": _simple(log_prob, ref_log_prob, clamp, "k3")}


@register("kl.penalty",
          params=[_LP, _REF,
                  Param("mode", "choice", "kl", choices=PENALTY_MODES,
                        doc="'+' modes: base value with k2's gradient; 'full' is not here: use kl.full_vocab"),
                  Param("convention", "choice", "verl", choices=CONVENTIONS)],
          outputs=["kl"],
          examples=[{"log_prob": [[-1.0, -0.5]], "ref_log_prob": [[-1.2, -0.4]], "mode": "low_var_kl"}])
def kl_penalty(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor, mode: str,
               convention: str) -> dict[str, torch.Tensor]:
    """Per-token KL penalty, as verl ``core_algos.kl_penalty`` / ``kl_penalty_forward``.

    Modes: ``kl``/``k1`` = log_prob − ref_log_prob; ``abs`` = |k1|; ``mse``/``k2`` = ½k1²;
    ``low_var_kl``/``k3`` = e^Δ − Δ − 1 (Δ = ref_log_prob − log_prob); ``k1+``, ``k3+``, ``low_var_kl+``:
    straight-through k2 − sg(k2) + sg(value), i.e. the base value with k2's gradient.

    Conventions: verl clamps Δ to ±20 then the k3 value to ±10, other modes unclamped; openrlhf
    (``openrlhf/models/utils.py::compute_approx_kl``) computes in float32 and clamps every mode's value to
    ±10, returning float32; trl (``PPOTrainer._kl_penalty``) clamps nothing. ``mode="full"`` is an input
    error: use ``kl.full_vocab``.
    """
    return {"kl": kl_penalty_t(log_prob, ref_log_prob, mode, convention)}


@register("kl.masked_estimate",
          params=[_LP, _REF, Param("mask", "tensor", shape="(B, T)"),
                  Param("estimator", "choice", choices=ESTIMATORS),
                  Param("convention", "choice", "verl", choices=CONVENTIONS,
                        doc="masked-mean convention (verl: Σm + 1e-8)")],
          outputs=["kl", "per_token"],
          examples=[{"log_prob": [[-1.0, -0.5, -2.0]], "ref_log_prob": [[-1.2, -0.4, -1.0]], "mask": [[1, 1, 0]],
                     "estimator": "k3"}])
def kl_masked_estimate(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor,
                       mask: torch.Tensor, estimator: str, convention: str) -> dict[str, torch.Tensor]:
    """KL(π_θ‖π_ref) estimated as the masked mean over counted tokens of k1, k2 or k3 (unclamped).

    ``kl`` = masked_mean(k, m) under ``convention`` (verl Σ m·k/(Σ m + 1e-8); trl/openrlhf Σ m·k/Σ m);
    ``per_token`` = k where m = 1 and 0 elsewhere.
    """
    require_same_shape(log_prob=log_prob, ref_log_prob=ref_log_prob, mask=mask)
    require_mask(mask)
    k = estimator_t(log_prob, ref_log_prob, estimator)
    per_token = torch.where(mask != 0, k, torch.zeros_like(k))
    return {"kl": masked_mean_t(k, mask, None, convention), "per_token": per_token}


@register("kl.sequence", params=[_LP, _REF, Param("mask", "tensor", shape="(B, T)")], outputs=["kl"],
          examples=[{"log_prob": [[-1.0, -0.5, -2.0]], "ref_log_prob": [[-1.2, -0.4, -1.0]], "mask": [[1, 1, 0]]}])
def kl_sequence(ctx: TensorContext, log_prob: torch.Tensor, ref_log_prob: torch.Tensor,
                mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """Sequence-level KL estimate per row: Σ_t m_t·(log_prob_t − ref_log_prob_t) = log π_θ(y)/π_ref(y) of
    the counted tokens (the k1 estimator of the sequence KL; TRL ``mean_kl = kl.sum(1)``)."""
    require_same_shape(log_prob=log_prob, ref_log_prob=ref_log_prob, mask=mask)
    require_mask(mask)
    if log_prob.dim() < 1:
        raise ReferenceInputError("log_prob", "needs a token axis")
    return {"kl": masked_sum_t(log_prob - ref_log_prob, mask, -1)}
