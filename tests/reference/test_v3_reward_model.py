"""reward_model.loss (engine v3, TRL RewardTrainer.compute_loss): slow loop, hand values, autograd, errors."""

import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(**kw):
    return reference.call("reward_model.loss", **kw, **CPU)


def slow(chosen, rejected, margin=None, coef=None):
    """Per-pair loop: −log σ(x) = log(1 + e^{−x}), then the means."""
    n = len(chosen)
    loss = 0.0
    for i in range(n):
        x = chosen[i] - rejected[i] - (0.0 if margin is None else margin[i])
        loss += math.log1p(math.exp(-x)) / n
    if coef is not None:
        loss += coef * sum((c + r) ** 2 for c, r in zip(chosen, rejected)) / n
    acc = sum(1.0 for c, r in zip(chosen, rejected) if c > r) / n
    gap = sum(c - r for c, r in zip(chosen, rejected)) / n
    return loss, acc, gap


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("with_margin,coef", [(False, None), (True, None), (True, 0.05), (False, 0.0)])
def test_matches_slow_loop(seed, with_margin, coef):
    g = torch.Generator().manual_seed(seed)
    chosen = torch.randn(7, generator=g, dtype=torch.float64).tolist()
    rejected = torch.randn(7, generator=g, dtype=torch.float64).tolist()
    margin = torch.rand(7, generator=g, dtype=torch.float64).tolist() if with_margin else None
    out = call(chosen_rewards=chosen, rejected_rewards=rejected, margin=margin, center_rewards_coefficient=coef)
    loss, acc, gap = slow(chosen, rejected, margin, coef)
    assert out["loss"].item() == pytest.approx(loss, rel=1e-13)
    assert out["accuracy"].item() == pytest.approx(acc, rel=1e-15)
    assert out["margin"].item() == pytest.approx(gap, rel=1e-13, abs=1e-15)


def test_hand_values():
    # gaps 0 and ln 3: −log σ(0) = ln 2, −log σ(ln 3) = ln(4/3); tie counts as wrong; margin metric ignores input
    out = call(chosen_rewards=[1.0, math.log(3)], rejected_rewards=[1.0, 0.0], margin=[0.0, 0.0])
    assert out["loss"].item() == pytest.approx((math.log(2) + math.log(4 / 3)) / 2, rel=1e-14)
    assert out["accuracy"].item() == 0.5
    shifted = call(chosen_rewards=[2.0], rejected_rewards=[0.0], margin=2.0)
    assert shifted["loss"].item() == pytest.approx(math.log(2), rel=1e-14)   # the margin eats the gap
    assert shifted["margin"].item() == 2.0                                    # the logged gap does not
    centred = call(chosen_rewards=[1.0, -1.0], rejected_rewards=[2.0, 0.0], center_rewards_coefficient=0.5)
    plain = call(chosen_rewards=[1.0, -1.0], rejected_rewards=[2.0, 0.0])
    assert centred["loss"].item() - plain["loss"].item() == pytest.approx(0.5 * (9 + 1) / 2, rel=1e-14)


def test_gradients_match_finite_differences_and_metrics_are_detached():
    g = torch.Generator().manual_seed(3)
    c = torch.randn(5, generator=g, dtype=torch.float64, requires_grad=True)
    r = torch.randn(5, generator=g, dtype=torch.float64, requires_grad=True)
    m = torch.rand(5, generator=g, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda c, r, m: call(chosen_rewards=c, rejected_rewards=r, margin=m, center_rewards_coefficient=0.1)["loss"],
        (c, r, m))
    out = call(chosen_rewards=c, rejected_rewards=r, margin=m)
    assert out["loss"].requires_grad
    assert not out["accuracy"].requires_grad and not out["margin"].requires_grad
    # d/dr_c of −mean log σ(gap) is −σ(−gap)/B
    (grad,) = torch.autograd.grad(out["loss"], c)
    expected = -torch.sigmoid(-(c - r - m)).detach() / 5
    assert torch.allclose(grad, expected, rtol=1e-13, atol=0)


def test_float32():
    out = call(chosen_rewards=[0.3, 1.2], rejected_rewards=[0.1, 1.5], dtype="float32")
    assert out["loss"].dtype == torch.float32 and out["accuracy"].dtype == torch.float32
    ref = call(chosen_rewards=[0.3, 1.2], rejected_rewards=[0.1, 1.5])["loss"].item()
    assert out["loss"].item() == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("kw,argument", [
    ({"chosen_rewards": [1.0, 2.0], "rejected_rewards": [1.0]}, "rejected_rewards"),
    ({"chosen_rewards": [[1.0]], "rejected_rewards": [[1.0]]}, "chosen_rewards"),
    ({"chosen_rewards": [], "rejected_rewards": []}, "chosen_rewards"),
    ({"chosen_rewards": [1.0, 2.0], "rejected_rewards": [1.0, 0.0], "margin": [1.0, 2.0, 3.0]}, "margin"),
    ({"chosen_rewards": [1.0], "rejected_rewards": [1.0], "center_rewards_coefficient": "inf"},
     "center_rewards_coefficient"),
])
def test_input_errors(kw, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(**kw)
    assert err.value.argument == argument


def test_http_call_and_verify(client):
    args = {"chosen_rewards": [1.0, math.log(3)], "rejected_rewards": [1.0, 0.0]}
    resp = client.post("/api/v1/reference/reward_model.loss", json=args)
    assert resp.status_code == 200, resp.get_json()
    outs = resp.get_json()["outputs"]
    assert outs["loss"] == pytest.approx((math.log(2) + math.log(4 / 3)) / 2) and outs["accuracy"] == 0.5
    claimed = {"loss": (math.log(2) + math.log(4 / 3)) / 2, "accuracy": 0.5, "margin": math.log(3) / 2}
    assert client.post("/api/v1/verify/reward_model.loss", json={"args": args, "claimed": claimed}).get_json()["match"]
    bad = client.post("/api/v1/reference/reward_model.loss", json={**args, "margin": [1, 2, 3]})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "margin"
    # a JSON null for a required argument is a missing argument (it used to reach the function: a 500)
    null = client.post("/api/v1/reference/reward_model.loss", json={**args, "chosen_rewards": None})
    assert null.status_code == 422 and null.get_json()["error"]["field"] == "chosen_rewards"


def test_explicit_none_for_a_required_argument_is_missing():
    with pytest.raises(ReferenceInputError) as err:
        call(chosen_rewards=None, rejected_rewards=[1.0])
    assert err.value.argument == "chosen_rewards" and "missing" in err.value.reason
