"""ppo.ratio, ppo.policy_loss, ppo.value_loss, ppo.entropy and trpo.surrogate."""

import math

import pytest
import torch

from checkers.reference import ReferenceInputError, call

D = torch.float64


def t(x, grad=False):
    return torch.tensor(x, dtype=D, requires_grad=grad)


def approx(x, expected, tol=1e-12):
    assert _num(x) == pytest.approx(_num(expected), abs=tol, rel=tol)


def _num(v):
    return float(v.detach()) if isinstance(v, torch.Tensor) else float(v)


# --- ppo.ratio ---------------------------------------------------------------------------------------

def test_ratio_is_exp_of_log_difference():
    out = call("ppo.ratio", log_prob=[[-1.0, -0.5]], old_log_prob=[[-1.5, -0.5]])
    approx(out["ratio"][0, 0], math.exp(0.5))
    approx(out["ratio"][0, 1], 1.0)


# --- ppo.policy_loss: one token per case, each in a different region --------------------------------

# Column j has log ratio LR[j] and advantage A[j]; ε = 0.2, dual-clip c = 3.
#  0: A = +1, ρ = e^0.1 ≈ 1.105 inside the clip range -> L = −ρ
#  1: A = +1, ρ = e^0.5 ≈ 1.649 > 1.2              -> L = −1.2 (clipped, zero gradient)
#  2: A = −1, ρ = e^−0.5 ≈ 0.607 < 0.8              -> L = max(0.607, 0.8) = 0.8 (clipped)
#  3: A = −1, ρ = e^1.5 ≈ 4.48                      -> max(4.48, 1.2) = 4.48, dual clip min(3, 4.48) = 3
LR = [0.1, 0.5, -0.5, 1.5]
A = [1.0, 1.0, -1.0, -1.0]


def _pl(**kw):
    old = t([[0.0] * 4])
    lp = t([LR], grad=True)
    args = dict(old_log_prob=old, log_prob=lp, advantages=[A], mask=[[1.0] * 4])
    args.update(kw)
    return lp, call("ppo.policy_loss", **args)


def test_policy_loss_each_region_by_hand():
    lp, out = _pl()
    rho0 = math.exp(0.1)
    expected_tokens = [-rho0, -1.2, 0.8, 3.0]
    for j, e in enumerate(expected_tokens):
        approx(out["per_token_loss"][0, j], e)
    approx(out["pg_loss"], sum(expected_tokens) / 4)
    # L2 > L1 in columns 1 and 2 only (column 3: L1 = 4.48 > L2 = 1.2)
    approx(out["pg_clipfrac"], 2 / (4 + 1e-8))
    approx(out["pg_clipfrac_lower"], 1 / (4 + 1e-8))
    approx(out["ppo_kl"], -sum(LR) / (4 + 1e-8))
    approx(out["approx_kl"], 0.5 * sum(x * x for x in LR) / (4 + 1e-8))


def test_policy_loss_gradient_is_zero_in_clipped_regions():
    lp, out = _pl()
    (g,) = torch.autograd.grad(out["pg_loss"], lp)
    # only column 0 is unclipped: d(−ρ)/dlogp = −ρ, divided by the 4 counted tokens
    approx(g[0, 0], -math.exp(0.1) / 4)
    assert g[0, 1:].abs().max().item() == 0.0


def test_dual_clip_can_be_disabled():
    _, out = _pl(clip_ratio_c=None)
    approx(out["per_token_loss"][0, 3], math.exp(1.5))
    approx(out["pg_clipfrac_lower"], 0.0)


def test_asymmetric_clip_high_unclips_the_ratio():
    # ρ = e^0.5 ≈ 1.6487: clipped at 1.2 by default, inside [0.8, 1.7] with clip_ratio_high = 0.7
    _, out = _pl(clip_ratio_high=0.7)
    approx(out["per_token_loss"][0, 1], -math.exp(0.5))
    # and clip_ratio_low = 0.5 lets ρ = e^−0.5 ≈ 0.607 through for the negative advantage
    _, out = _pl(clip_ratio_low=0.5)
    approx(out["per_token_loss"][0, 2], math.exp(-0.5))


def test_clamp_log_ratio_and_unclamped_approx_kl():
    args = dict(old_log_prob=[[0.0]], log_prob=[[30.0]], advantages=[[1.0]], mask=[[1.0]], clip_ratio_c=None)
    out = call("ppo.policy_loss", **args)
    approx(out["ppo_kl"], -20.0 / (1 + 1e-8))            # the clamp at ±20 applies
    approx(out["approx_kl"], 0.5 * 900.0 / (1 + 1e-8))   # ½·30², unclamped
    out = call("ppo.policy_loss", clamp_log_ratio=None, **args)
    approx(out["ppo_kl"], -30.0 / (1 + 1e-8))


def test_ratio_threshold_zeroes_loss_and_gradient():
    # masked mean ρ = (e^0.1 + e^0.5 + e^−0.5 + e^1.5)/4 ≈ 1.96
    _, base = _pl()
    lp, out = _pl(ratio_threshold=1.5)
    approx(out["pg_loss"], 0.0)
    (g,) = torch.autograd.grad(out["pg_loss"], lp)
    assert g.abs().max().item() == 0.0
    _, out = _pl(ratio_threshold=2.5)
    approx(out["pg_loss"], base["pg_loss"].detach())


def test_masked_tokens_are_ignored_and_aggregation_modes_differ():
    # row 0 tokens 0,1 counted; row 1 token 0 counted. Use ρ = 1 so L = −A.
    args = dict(old_log_prob=[[0.0, 0.0], [0.0, 0.0]], log_prob=[[0.0, 0.0], [0.0, 0.0]],
                advantages=[[1.0, 3.0], [5.0, 100.0]], mask=[[1.0, 1.0], [1.0, 0.0]])
    tm = call("ppo.policy_loss", **args)["pg_loss"]
    approx(tm, -(1 + 3 + 5) / 3)
    sm = call("ppo.policy_loss", loss_agg_mode="seq-mean-token-mean", **args)["pg_loss"]
    approx(sm, -((1 + 3) / (2 + 1e-8) + 5 / (1 + 1e-8)) / 2)
    gb = call("ppo.policy_loss", batch_num_tokens=10.0, dp_size=2, **args)["pg_loss"]
    approx(gb, -(1 + 3 + 5) / 10 * 2)


def test_convention_decides_empty_mask_metrics():
    args = dict(old_log_prob=[[0.0]], log_prob=[[0.3]], advantages=[[1.0]], mask=[[0.0]])
    verl = call("ppo.policy_loss", **args)
    trl = call("ppo.policy_loss", convention="trl", **args)
    approx(verl["ppo_kl"], 0.0)
    assert math.isnan(float(trl["ppo_kl"]))
    assert math.isnan(float(trl["pg_clipfrac"]))


@pytest.mark.parametrize("kwargs, argument", [
    (dict(mask=[[1.0, 1.0, 1.0]]), "mask"),
    (dict(advantages=[[1.0, 1.0]]), "advantages"),
    (dict(mask=[[1.0, 0.5, 1.0, 1.0]]), "mask"),
    (dict(clip_ratio_c=1.0), "clip_ratio_c"),
    (dict(clip_ratio=-0.1), "clip_ratio"),
    (dict(loss_agg_mode="token-sum"), "loss_agg_mode"),
])
def test_policy_loss_rejects_bad_input(kwargs, argument):
    args = dict(old_log_prob=[[0.0] * 4], log_prob=[LR], advantages=[A], mask=[[1.0] * 4])
    args.update(kwargs)
    with pytest.raises(ReferenceInputError) as err:
        call("ppo.policy_loss", **args)
    assert err.value.argument == argument


# --- ppo.value_loss -----------------------------------------------------------------------------------

def test_value_loss_by_hand_and_clipped_gradient():
    # token 0: v = 1, V_old = 0, R = 2, c = 0.5 -> v_clip = 0.5: (1−2)² = 1 < (0.5−2)² = 2.25 -> ½·2.25
    # token 1: v = 0.2, V_old = 0, R = 2 -> v_clip = v, both 3.24 -> ½·3.24, not clipped
    v = t([[1.0, 0.2]], grad=True)
    out = call("ppo.value_loss", vpreds=v, returns=[[2.0, 2.0]], values=[[0.0, 0.0]], mask=[[1.0, 1.0]])
    approx(out["per_token_loss"][0, 0], 1.125)
    approx(out["per_token_loss"][0, 1], 1.62)
    approx(out["vf_loss"], (1.125 + 1.62) / 2)
    approx(out["vf_clipfrac"], 1 / (2 + 1e-8))
    (g,) = torch.autograd.grad(out["vf_loss"], v)
    approx(g[0, 0], 0.0)                     # the clipped branch does not depend on v
    approx(g[0, 1], (0.2 - 2.0) / 2)         # d/dv ½(v−R)² = v − R, over 2 tokens


def test_value_loss_without_clipping_and_ratio_threshold():
    args = dict(vpreds=[[1.0]], returns=[[2.0]], values=[[0.0]], mask=[[1.0]])
    out = call("ppo.value_loss", cliprange_value=None, **args)
    approx(out["vf_loss"], 0.5)
    approx(out["vf_clipfrac"], 0.0)
    out = call("ppo.value_loss", ratio=[[3.0]], ratio_threshold=2.0, **args)
    approx(out["vf_loss"], 0.0)
    out = call("ppo.value_loss", ratio=[[1.0]], ratio_threshold=2.0, **args)
    approx(out["vf_loss"], 1.125)


def test_value_loss_threshold_needs_ratio():
    with pytest.raises(ReferenceInputError) as err:
        call("ppo.value_loss", vpreds=[[1.0]], returns=[[2.0]], values=[[0.0]], mask=[[1.0]], ratio_threshold=2.0)
    assert err.value.argument == "ratio_threshold"


def test_value_loss_rejects_shape_mismatch():
    with pytest.raises(ReferenceInputError) as err:
        call("ppo.value_loss", vpreds=[[1.0]], returns=[[2.0, 1.0]], values=[[0.0]], mask=[[1.0]])
    assert err.value.argument == "returns"


# --- ppo.entropy and trpo.surrogate -------------------------------------------------------------------

def test_entropy_by_hand():
    # row 0: uniform over 4 -> ln 4; row 1: logits (0, ln 3) -> p = (¼, ¾)
    logits = [[[0.0, 0.0, 0.0, 0.0], [0.0, math.log(3.0), -math.inf, -math.inf]]]
    out = call("ppo.entropy", logits=logits, mask=[[1.0, 0.0]])
    approx(out["entropy"][0, 0], math.log(4.0))
    approx(out["entropy"][0, 1], -(0.25 * math.log(0.25) + 0.75 * math.log(0.75)))
    approx(out["entropy_loss"], math.log(4.0))
    assert "entropy_loss" not in call("ppo.entropy", logits=logits)


def test_entropy_rejects_mask_of_wrong_shape():
    with pytest.raises(ReferenceInputError) as err:
        call("ppo.entropy", logits=[[[0.0, 1.0]]], mask=[[1.0, 1.0]])
    assert err.value.argument == "mask"


def test_trpo_surrogate_by_hand():
    lp = t([[math.log(2.0), 0.0]], grad=True)
    out = call("trpo.surrogate", log_prob=lp, old_log_prob=[[0.0, 0.0]], advantages=[[3.0, 7.0]],
               mask=[[1.0, 0.0]])
    approx(out["per_token"][0, 0], 6.0)
    approx(out["surrogate"], 6.0 / (1 + 1e-8))
    (g,) = torch.autograd.grad(out["surrogate"], lp)
    approx(g[0, 0], 6.0 / (1 + 1e-8))   # d(ρA)/dlogp = ρA
    approx(g[0, 1], 0.0)


def test_trpo_rejects_bad_mask():
    with pytest.raises(ReferenceInputError) as err:
        call("trpo.surrogate", log_prob=[[0.0]], old_log_prob=[[0.0]], advantages=[[1.0]], mask=[[2.0]])
    assert err.value.argument == "mask"


def test_openrlhf_ppo_kl_is_the_unclamped_detached_log_ratio():
    # OpenRLHF PolicyLoss: ppo_kl = masked_mean(−(log_prob − old_log_prob).detach()), no ±20 clamp;
    # verl compute_policy_loss_vanilla uses the clamped log-ratio.
    lp = t([[30.0, 1.0]], grad=True)
    args = dict(old_log_prob=[[0.0, 0.0]], advantages=[[1.0, 1.0]], mask=[[1.0, 1.0]])
    orl = call("ppo.policy_loss", log_prob=lp, convention="openrlhf", **args)
    approx(orl["ppo_kl"], -(30.0 + 1.0) / 2)
    assert not orl["ppo_kl"].requires_grad
    verl = call("ppo.policy_loss", log_prob=lp, **args)
    approx(verl["ppo_kl"], -(20.0 + 1.0) / (2 + 1e-8))
    # the loss itself still uses the clamped ratio under both conventions: −(e^20 clipped to 1.2 ... ) → −1.2
    approx(orl["per_token_loss"][0, 0], -1.2)
