"""grpo.loss loss_type="sapo": TRL f2cd5771's temperatures are float32 (torch.where on Python floats under
torch's stock default dtype); the engine pins that, whatever the caller's default dtype. A float64 τ moves
the loss by the amount dL/dτ_neg · (1.05 − float32(1.05)) predicts: the 4.8e-8 of the issue."""

import math
import struct

import pytest
import torch

from checkers import reference

CPU = {"device": "cpu"}
TAU_NEG_F32 = struct.unpack("f", struct.pack("f", 1.05))[0]   # 1.0499999523162842


def sapo(**kw):
    return reference.call("grpo.loss", loss_type="sapo", beta=0.0, **kw, **CPU)["loss"]


def slow_sapo(lp, old, adv, m, tau_pos, tau_neg):
    """Per-token loop: L = −σ(τ(r − 1))·4/τ·A; loss = mean over rows of the row's masked mean."""
    rows = []
    for b in range(len(m)):
        tau = tau_pos if adv[b] > 0 else tau_neg
        terms = [-(1 / (1 + math.exp(-tau * (math.exp(lp[b][t] - old[b][t]) - 1)))) * 4 / tau * adv[b]
                 for t in range(len(m[b])) if m[b][t]]
        rows.append(sum(terms) / max(len(terms), 1))
    return sum(rows) / len(rows)


def group_batch(seed):
    """Two groups of four with group-normalised advantages (they sum to 0), near on-policy ratios."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.rand(8, generator=g, dtype=torch.float64)
    grouped = scores.view(2, 4)
    adv = ((grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + 1e-4)).reshape(-1)
    old = -2 * torch.rand(8, 6, generator=g, dtype=torch.float64)
    lp = old + 0.05 * torch.randn(8, 6, generator=g, dtype=torch.float64)
    m = torch.ones(8, 6, dtype=torch.float64)
    m[3, 4:] = 0
    return lp, old, adv, m


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_trl_with_float32_temperatures(seed):
    lp, old, adv, m = group_batch(seed)
    got = sapo(log_prob=lp, old_log_prob=old, advantages=adv, mask=m).item()
    expected = slow_sapo(lp.tolist(), old.tolist(), adv.tolist(), m.tolist(), 1.0, TAU_NEG_F32)
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-16)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_float64_temperatures_explain_the_record(seed):
    lp, old, adv, m = group_batch(seed)
    got = sapo(log_prob=lp, old_log_prob=old, advantages=adv, mask=m).item()
    with_f64_tau = slow_sapo(lp.tolist(), old.tolist(), adv.tolist(), m.tolist(), 1.0, 1.05)
    # dL/dτ_neg at the float32 τ, by central differences on the slow loop, times the rounding of 1.05
    h = 1e-5
    slope = (slow_sapo(lp.tolist(), old.tolist(), adv.tolist(), m.tolist(), 1.0, TAU_NEG_F32 + h)
             - slow_sapo(lp.tolist(), old.tolist(), adv.tolist(), m.tolist(), 1.0, TAU_NEG_F32 - h)) / (2 * h)
    predicted = slope * (1.05 - TAU_NEG_F32)
    assert abs(with_f64_tau - got) > 1e-8                      # the two readings of upstream differ ...
    assert with_f64_tau - got == pytest.approx(predicted, rel=1e-3)   # ... by exactly the τ rounding
    assert abs(with_f64_tau - got) / abs(got) > 1e-7           # and by far more than float64 rounding


def test_independent_of_the_callers_default_dtype():
    lp, old, adv, m = group_batch(3)
    base = sapo(log_prob=lp, old_log_prob=old, advantages=adv, mask=m)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        again = sapo(log_prob=lp, old_log_prob=old, advantages=adv, mask=m)
    finally:
        torch.set_default_dtype(previous)
    assert torch.equal(base, again)


def test_gradient_matches_finite_differences():
    lp, old, adv, m = group_batch(4)
    lp = lp.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x: sapo(log_prob=x, old_log_prob=old, advantages=adv, mask=m), (lp,))


def test_float32_batch():
    lp, old, adv, m = group_batch(5)
    f32 = sapo(log_prob=lp, old_log_prob=old, advantages=adv, mask=m, dtype="float32")
    assert f32.dtype == torch.float32
    expected = slow_sapo(lp.tolist(), old.tolist(), adv.tolist(), m.tolist(), 1.0, TAU_NEG_F32)
    assert f32.item() == pytest.approx(expected, rel=1e-4, abs=1e-6)
