"""grpo.loss against hand computations of TRL's GRPOTrainer._compute_loss (one process)."""

import math

import pytest
import torch

from checkers.reference import ReferenceInputError, call

D = torch.float64


def approx(x, expected, tol=1e-12):
    assert _num(x) == pytest.approx(_num(expected), abs=tol, rel=tol)


def _num(v):
    return float(v.detach()) if isinstance(v, torch.Tensor) else float(v)


# Two rows, old_log_prob = 0 so ρ = e^{log_prob}. Row 0 (A = +1): ρ = 1.5, 1.1. Row 1 (A = −1): ρ = 0.5 and a
# masked token. With ε = 0.2:
#   row 0 token 0: −min(1.5, 1.2) = −1.2 (clipped high)     row 0 token 1: −min(1.1, 1.1) = −1.1
#   row 1 token 0: −min(−0.5, −0.8) = 0.8 (clipped low)     row 1 token 1: masked
RHO = [[1.5, 1.1], [0.5, 7.0]]
MASK = [[1.0, 1.0], [1.0, 0.0]]
ADV = [1.0, -1.0]
L00, L01, L10 = -1.2, -1.1, 0.8


def _lp(grad=True):
    return torch.tensor([[math.log(r) for r in row] for row in RHO], dtype=D, requires_grad=grad)


def _call(**kw):
    args = dict(log_prob=_lp(), advantages=ADV, mask=MASK, old_log_prob=[[0.0, 0.0], [0.0, 0.0]], beta=0.0)
    args.update(kw)
    return call("grpo.loss", **args)


@pytest.mark.parametrize("loss_type, extra, expected", [
    ("grpo", {}, ((L00 + L01) / 2 + L10 / 1) / 2),
    ("bnpo", {}, (L00 + L01 + L10) / 3),
    ("dr_grpo", {}, (L00 + L01 + L10) / (2 * 2)),
    ("dr_grpo", {"max_completion_length": 10}, (L00 + L01 + L10) / (2 * 10)),
    ("dapo", {}, (L00 + L01 + L10) / 3),
    ("dapo", {"num_items_in_batch": 6.0}, (L00 + L01 + L10) / 6),
])
def test_loss_types_by_hand(loss_type, extra, expected):
    approx(_call(loss_type=loss_type, **extra)["loss"], expected)


def test_clip_metrics_by_hand():
    out = _call()
    approx(out["clip_ratio_low"], 1 / 3)     # row 1 token 0: ρ = 0.5 < 0.8 with A < 0
    approx(out["clip_ratio_high"], 1 / 3)    # row 0 token 0: ρ = 1.5 > 1.2 with A > 0
    approx(out["clip_ratio_region"], 2 / 3)
    assert "kl" not in out                   # no ref_log_prob


def test_gradient_is_zero_on_clipped_tokens():
    lp = _lp()
    out = _call(log_prob=lp)
    (g,) = torch.autograd.grad(out["loss"], lp)
    # grpo: row 0 weight 1/2 per token, batch mean 1/2 -> d(−ρ·1)/dlogp · ¼ = −1.1/4
    approx(g[0, 1], -1.1 / 4)
    assert g[0, 0].item() == 0.0 and g[1, 0].item() == 0.0 and g[1, 1].item() == 0.0


def test_epsilon_high_widens_upper_clip():
    # ρ = 1.5 < 1 + 0.6: row 0 token 0 becomes −1.5
    out = _call(epsilon_high=0.6, loss_type="bnpo")
    approx(out["loss"], (-1.5 + L01 + L10) / 3)
    approx(out["clip_ratio_high"], 0.0)


def test_delta_caps_the_unclipped_ratio():
    # A = −1 and ρ = 5: −min(−5, −1.2) = 5; with δ = 2 the unclipped ρ is capped: −min(−2, −1.2) = 2
    args = dict(log_prob=[[math.log(5.0)]], advantages=[-1.0], mask=[[1.0]], old_log_prob=[[0.0]], beta=0.0)
    approx(call("grpo.loss", **args)["loss"], 5.0)
    approx(call("grpo.loss", delta=2.0, **args)["loss"], 2.0)


def test_delta_cap_comes_after_the_clipped_ratio_is_formed():
    # δ = 0.5 below 1 − ε: ρ̂ = clip(5, 0.8, 1.2) = 1.2 is formed from the uncapped ρ, then ρ = min(5, 0.5);
    # A = −1: −min(−0.5, −1.2) = 1.2 (capping first would give clip(0.5) = 0.8)
    args = dict(log_prob=[[math.log(5.0)]], advantages=[-1.0], mask=[[1.0]], old_log_prob=[[0.0]], beta=0.0)
    approx(call("grpo.loss", delta=0.5, **args)["loss"], 1.2)
    # the clip metrics see the capped ratio: 0.5 < 0.8 with A < 0 counts as low-clipped
    approx(call("grpo.loss", delta=0.5, **args)["clip_ratio_low"], 1.0)


def test_bias_correction_uses_the_uncapped_ratio():
    # ρ = 5, δ = 2, ref − log_prob = 0.5: kl = (e^0.5 − 0.5 − 1)·5
    args = dict(log_prob=[[math.log(5.0)]], advantages=[-1.0], mask=[[1.0]], old_log_prob=[[0.0]],
                ref_log_prob=[[math.log(5.0) + 0.5]], beta=0.1, delta=2.0, use_bias_correction_kl=True)
    out = call("grpo.loss", **args)
    k3 = math.exp(0.5) - 0.5 - 1
    approx(out["kl"], 5 * k3)
    approx(out["loss"], 2.0 + 0.1 * 5 * k3)


def test_bias_corrected_kl_keeps_the_ratio_in_the_graph():
    # A = 0 leaves only β·k3·ρ with β = 1; d = ref − lp = 0.5, ρ = 5:
    # d/dlp [k3(d)·ρ] = (1 − e^d)·ρ + k3·ρ = ρ·(1 − e^d + e^d − d − 1) = −d·ρ = −2.5
    lp = torch.tensor([[math.log(5.0)]], dtype=D, requires_grad=True)
    out = call("grpo.loss", log_prob=lp, advantages=[0.0], mask=[[1.0]], old_log_prob=[[0.0]],
               ref_log_prob=[[math.log(5.0) + 0.5]], beta=1.0, use_bias_correction_kl=True, loss_type="bnpo")
    (g,) = torch.autograd.grad(out["loss"], lp)
    approx(g[0, 0], -2.5)


def test_kl_term_and_metric():
    # ref − log_prob = d per token; k3 = e^d − d − 1
    d = [[0.5, -0.2], [1.0, 3.0]]
    ref = (_lp(grad=False) + torch.tensor(d, dtype=D)).tolist()
    k3 = [[math.exp(x) - x - 1 for x in row] for row in d]
    beta = 0.1
    out = _call(ref_log_prob=ref, beta=beta, loss_type="bnpo")
    approx(out["kl"], (k3[0][0] + k3[0][1] + k3[1][0]) / 3)
    approx(out["loss"], (L00 + L01 + L10 + beta * (k3[0][0] + k3[0][1] + k3[1][0])) / 3)
    # β = 0 still reports kl when the reference is given, and leaves it out of the loss
    out0 = _call(ref_log_prob=ref, beta=0.0, loss_type="bnpo")
    approx(out0["kl"], out["kl"])
    approx(out0["loss"], (L00 + L01 + L10) / 3)


def test_bias_corrected_kl_is_weighted_by_the_ratio():
    d = [[0.5, -0.2], [1.0, 3.0]]
    ref = (_lp(grad=False) + torch.tensor(d, dtype=D)).tolist()
    k3w = [[(math.exp(x) - x - 1) * r for x, r in zip(drow, rrow)] for drow, rrow in zip(d, RHO)]
    out = _call(ref_log_prob=ref, beta=0.1, use_bias_correction_kl=True, loss_type="bnpo")
    approx(out["kl"], (k3w[0][0] + k3w[0][1] + k3w[1][0]) / 3)


def test_sequence_level_importance_sampling():
    # row 0: log w = (log 1.5 + log 1.1)/2, w = √1.65 ≈ 1.2845 > 1.2 -> −1.2 on both tokens
    # row 1: log w = log 0.5 (the masked token is left out) -> w = 0.5 < 0.8 -> 0.8
    out = _call(importance_sampling_level="sequence")
    approx(out["loss"], ((-1.2 - 1.2) / 2 + 0.8) / 2)
    # the metrics are means over rows at sequence level: both rows are clipped
    approx(out["clip_ratio_high"], 1 / 2)
    approx(out["clip_ratio_low"], 1 / 2)
    out = _call(importance_sampling_level="sequence", epsilon_high=0.5, loss_type="bnpo")
    w = math.sqrt(1.5 * 1.1)
    approx(out["loss"], (-w - w + 0.8) / 3)


def test_without_old_log_prob_ratio_is_one_but_gradient_flows():
    lp = _lp()
    out = call("grpo.loss", log_prob=lp, advantages=ADV, mask=MASK, beta=0.0)
    approx(out["loss"], ((-1 - 1) / 2 + 1 / 1) / 2)   # ρ = 1: L = −A
    (g,) = torch.autograd.grad(out["loss"], lp)
    approx(g[0, 0], -1 / 4)      # −A·ρ/(2 tokens · 2 rows)
    approx(g[1, 0], 1 / 2)       # row 1 has one counted token
    approx(g[1, 1], 0.0)


@pytest.mark.parametrize("kwargs, argument", [
    (dict(beta=0.04), "ref_log_prob"),
    (dict(beta=-0.1, ref_log_prob=[[0.0, 0.0], [0.0, 0.0]]), "beta"),
    (dict(advantages=[1.0, 2.0, 3.0]), "advantages"),
    (dict(mask=[[1.0, 1.0]]), "mask"),
    (dict(loss_type="vespo"), "loss_type"),
    (dict(importance_sampling_level="row"), "importance_sampling_level"),
    (dict(max_completion_length=0), "max_completion_length"),
    (dict(epsilon=-0.2), "epsilon"),
])
def test_rejects_bad_input(kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        _call(**kwargs)
    assert err.value.argument == argument
