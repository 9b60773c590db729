import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def test_k1_k2_k3_hand_computed():
    lp, ref = [-1.0, -0.5], [-1.5, -0.5]
    # Δ = ref − lp = −0.5, 0
    assert call("kl.k1", log_prob=lp, ref_log_prob=ref)["kl"].tolist() == pytest.approx([0.5, 0.0])
    assert call("kl.k2", log_prob=lp, ref_log_prob=ref)["kl"].tolist() == pytest.approx([0.125, 0.0])
    k3 = call("kl.k3", log_prob=lp, ref_log_prob=ref)["kl"].tolist()
    assert k3 == pytest.approx([math.exp(-0.5) + 0.5 - 1, 0.0])
    assert call("kl.k1", log_prob=lp, ref_log_prob=ref, clamp=0.2)["kl"].tolist() == pytest.approx([0.2, 0.0])


def test_unbiasedness_on_enumerated_distribution():
    pi = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    ref = torch.tensor([0.25, 0.25, 0.4, 0.1], dtype=torch.float64)
    exact = call("kl.exact", p=pi, q=ref)["kl"].item()
    k1 = call("kl.k1", log_prob=pi.log(), ref_log_prob=ref.log())["kl"]
    k2 = call("kl.k2", log_prob=pi.log(), ref_log_prob=ref.log())["kl"]
    k3 = call("kl.k3", log_prob=pi.log(), ref_log_prob=ref.log())["kl"]
    assert (pi * k1).sum().item() == pytest.approx(exact, abs=1e-15)
    assert (pi * k3).sum().item() == pytest.approx(exact, abs=1e-15)
    assert (k2 >= 0).all() and (k3 >= 0).all()
    assert (pi * k2).sum().item() != pytest.approx(exact, abs=1e-6)  # k2 is biased
    assert (k1 < 0).any()


def test_gradients_k3_vs_k2_and_straight_through():
    lp = torch.tensor([-1.0, -2.0, -0.3], dtype=torch.float64, requires_grad=True)
    ref = torch.tensor([-1.4, -1.0, -0.3], dtype=torch.float64)
    delta = (ref - lp).detach()
    (g3,) = torch.autograd.grad(call("kl.k3", log_prob=lp, ref_log_prob=ref)["kl"].sum(), lp)
    assert g3.tolist() == pytest.approx((1 - torch.exp(delta)).tolist(), abs=1e-15)
    (g2,) = torch.autograd.grad(call("kl.k2", log_prob=lp, ref_log_prob=ref)["kl"].sum(), lp)
    assert g2.tolist() == pytest.approx((-delta).tolist(), abs=1e-15)  # (log_prob − ref_log_prob)
    for mode, base in (("k1+", "k1"), ("k3+", "k3"), ("low_var_kl+", "low_var_kl")):
        out = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode=mode)["kl"]
        plain = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode=base)["kl"]
        assert torch.allclose(out, plain, atol=1e-15)
        (g,) = torch.autograd.grad(out.sum(), lp)
        assert torch.allclose(g, g2, atol=1e-15)


def test_penalty_clamps_per_convention():
    lp, ref = [-30.0, -1.0], [0.0, -1.3]
    verl = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode="k3")["kl"]
    trl = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode="k3", convention="trl")["kl"]
    orl = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode="k3", convention="openrlhf")["kl"]
    assert verl[0].item() == 10.0  # Δ = 30 -> clamp to 20 -> e^20 − 21 -> clamp 10
    assert trl[0].item() == pytest.approx(math.exp(30) - 31)
    assert orl.dtype == torch.float32 and orl[0].item() == 10.0
    k1_verl = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode="k1")["kl"]
    k1_orl = call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode="k1", convention="openrlhf")["kl"]
    assert k1_verl[0].item() == -30.0 and k1_orl[0].item() == -10.0
    assert call("kl.penalty", log_prob=lp, ref_log_prob=ref, mode="abs")["kl"][1].item() == pytest.approx(0.3)


def test_masked_estimate_and_sequence():
    lp = [[-1.0, -2.0, -3.0]]
    ref = [[-1.5, -2.0, 9.0]]
    m = [[1, 1, 0]]
    out = call("kl.masked_estimate", log_prob=lp, ref_log_prob=ref, mask=m, estimator="k1")
    assert out["kl"].item() == pytest.approx((0.5 + 0.0) / 2, abs=1e-8)
    assert out["per_token"].tolist() == [[0.5, 0.0, 0.0]]
    trl = call("kl.masked_estimate", log_prob=lp, ref_log_prob=ref, mask=m, estimator="k2", convention="trl")
    assert trl["kl"].item() == 0.125 / 2
    assert call("kl.sequence", log_prob=lp, ref_log_prob=ref, mask=m)["kl"].tolist() == [0.5]


@pytest.mark.parametrize("name,kwargs,argument", [
    ("kl.k1", {"log_prob": [1.0, 2.0], "ref_log_prob": [1.0]}, "ref_log_prob"),
    ("kl.k3", {"log_prob": [1.0], "ref_log_prob": [1.0], "clamp": -1.0}, "clamp"),
    ("kl.penalty", {"log_prob": [1.0], "ref_log_prob": [1.0], "mode": "full"}, "mode"),
    ("kl.penalty", {"log_prob": [1.0], "ref_log_prob": [1.0], "convention": "x"}, "convention"),
    ("kl.masked_estimate", {"log_prob": [1.0], "ref_log_prob": [1.0], "mask": [2], "estimator": "k1"}, "mask"),
    ("kl.sequence", {"log_prob": [[1.0]], "ref_log_prob": [[1.0]], "mask": [[1, 1]]}, "mask"),
])
def test_validation_names_argument(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(name, **kwargs)
    assert err.value.argument == argument


def test_full_mode_points_to_full_vocab():
    from checkers.reference.estimators import kl_penalty_t
    with pytest.raises(ReferenceInputError, match="kl.full_vocab"):
        kl_penalty_t(torch.zeros(1), torch.zeros(1), "full")


def test_openrlhf_k3_uses_openrlhf_float32_evaluation_order():
    # OpenRLHF compute_approx_kl: r = float32(log_prob) − float32(ref_log_prob), k3 = (e^(−r) − 1) + r in
    # float32, clamped to ±10. For small |r| the value (≈ r²/2) is a cancellation, so the order of the
    # float32 operations decides far more than the last bit: e^Δ − Δ − 1 (Δ = −r) is a different number.
    lp = torch.tensor([-1.0, -2.0, -0.5, -3.0, -1.25, -0.75], dtype=torch.float32)
    r_wanted = torch.tensor([1e-4, 3e-4, 1e-3, -2e-3, 5e-3, -7e-3], dtype=torch.float32)
    ref = lp - r_wanted
    r = lp - ref                                  # the float32 log-ratio OpenRLHF forms
    upstream_order = (torch.exp(-r) - 1) + r      # written as in OpenRLHF, in float32
    other_order = torch.exp(-r) - (-r) - 1        # e^Δ − Δ − 1
    assert not torch.equal(upstream_order, other_order)   # the inputs do tell the two orders apart
    for in_dtype, extra in ((torch.float32, {"dtype": "float32"}), (torch.float64, {})):
        out = call("kl.penalty", log_prob=lp.to(in_dtype), ref_log_prob=ref.to(in_dtype), mode="k3",
                   convention="openrlhf", **extra)["kl"]
        assert out.dtype == torch.float32
        assert torch.equal(out, upstream_order)
    # the clamp at 10 still applies: r = −20 gives e^20 − 21 > 10
    big = call("kl.penalty", log_prob=[0.0], ref_log_prob=[20.0], mode="low_var_kl", convention="openrlhf")["kl"]
    assert big.tolist() == [10.0]
