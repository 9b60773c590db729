import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError
from checkers.reference.advantages import gae_t
from checkers.reference.reverse_scan import constant_reverse_scan, reverse_linear_scan

CPU = {"device": "cpu"}


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def loop_gae_verl(r, v, m, gamma, lam):
    """Per-timestep reference written from the verl loop's description."""
    B, T = r.shape
    adv = torch.zeros(B, T, dtype=torch.float64)
    for b in range(B):
        nextv, last = 0.0, 0.0
        for t in reversed(range(T)):
            if m[b, t]:
                delta = r[b, t].item() + gamma * nextv - v[b, t].item()
                last = delta + gamma * lam * last
                nextv = v[b, t].item()
            adv[b, t] = last
    return adv, adv + v


def loop_gae_plain(r, v, m, gamma, lam):
    r, v = r * m, v * m
    B, T = r.shape
    adv = torch.zeros(B, T, dtype=torch.float64)
    last = torch.zeros(B, dtype=torch.float64)
    for t in reversed(range(T)):
        nextv = v[:, t + 1] if t + 1 < T else 0.0
        last = r[:, t] + gamma * nextv - v[:, t] + gamma * lam * last
        adv[:, t] = last
    return adv, adv + v


def random_batch(B, T, seed):
    g = torch.Generator().manual_seed(seed)
    r = torch.randn(B, T, generator=g, dtype=torch.float64)
    v = torch.randn(B, T, generator=g, dtype=torch.float64)
    m = (torch.rand(B, T, generator=g) > 0.3).double()
    m[0] = 0  # an empty row
    return r, v, m


@pytest.mark.parametrize("T", [1, 5, 64, 150])
def test_gae_verl_matches_python_loop(T):
    r, v, m = random_batch(6, T, T)
    adv, ret = gae_t(r, v, m, 0.97, 0.9)
    adv_l, ret_l = loop_gae_verl(r, v, m, 0.97, 0.9)
    assert torch.allclose(adv, adv_l, atol=1e-12, rtol=0)
    assert torch.allclose(ret, ret_l, atol=1e-12, rtol=0)


@pytest.mark.parametrize("convention", ["trl", "openrlhf"])
def test_gae_trl_openrlhf_match_python_loop(convention):
    r, v, m = random_batch(5, 130, 7)
    adv, ret = gae_t(r, v, m, 0.9, 0.8, convention=convention)
    adv_l, ret_l = loop_gae_plain(r, v, m, 0.9, 0.8)
    assert torch.allclose(adv, adv_l, atol=1e-12, rtol=0)
    assert torch.allclose(ret, ret_l, atol=1e-12, rtol=0)


def test_gae_hole_hand_computed_verl_vs_trl():
    r, v, m = [[1.0, 7.0, 2.0]], [[0.5, 9.0, 1.0]], [[1, 0, 1]]
    g = 0.5
    verl = call("advantages.gae", rewards=r, values=v, mask=m, gamma=g, lam=1.0)
    # verl skips the hole: A2 = 2 − 1 = 1; A0 = 1 + g·V2 − 0.5 + g·A2 = 1 + 0.5 − 0.5 + 0.5; hole carries A2
    a2 = 2.0 - 1.0
    a0 = 1.0 + g * 1.0 - 0.5 + g * 1.0 * a2
    assert verl["advantages"].tolist()[0] == pytest.approx([a0, a2, a2])
    assert verl["returns"].tolist()[0] == pytest.approx([a0 + 0.5, a2 + 9.0, a2 + 1.0])
    trl = call("advantages.gae", rewards=r, values=v, mask=m, gamma=g, lam=1.0, convention="trl")
    # trl zeroes the hole's r and V: A1 = 0 + g·1 − 0 + g·A2, A0 = 1 + g·0 − 0.5 + g·A1
    t1 = g * 1.0 + g * a2
    t0 = 1.0 - 0.5 + g * t1
    assert trl["advantages"].tolist()[0] == pytest.approx([t0, t1, a2])
    assert trl["returns"].tolist()[0] == pytest.approx([t0 + 0.5, t1, a2 + 1.0])


def test_gae_whiten_conventions():
    r, v, m = random_batch(4, 9, 3)
    raw, _ = gae_t(r, v, m, 1.0, 1.0, convention="trl")
    w_trl = call("advantages.gae", rewards=r, values=v, mask=m, whiten=True, convention="trl")["advantages"]
    sel = raw[m.bool()]
    expected = (raw - sel.mean()) / torch.sqrt(sel.var(unbiased=True) + 1e-8)
    assert torch.allclose(w_trl, expected, atol=1e-12)
    w_orl = call("advantages.gae", rewards=r, values=v, mask=m, whiten=True, convention="openrlhf")["advantages"]
    expected_o = (raw - sel.mean()) / torch.sqrt(sel.var(unbiased=False))
    assert torch.allclose(w_orl, expected_o, atol=1e-12)


def test_gae_outputs_detached():
    v = torch.zeros(1, 3, dtype=torch.float64, requires_grad=True)
    out = call("advantages.gae", rewards=[[1.0, 0.0, 1.0]], values=v, mask=[[1, 1, 1]])
    assert not out["advantages"].requires_grad and not out["returns"].requires_grad


def test_scans_against_loops():
    g = torch.Generator().manual_seed(5)
    a = torch.rand(3, 77, generator=g, dtype=torch.float64)
    a[:, 10] = 0
    b = torch.randn(3, 77, generator=g, dtype=torch.float64)
    x = torch.zeros(3, dtype=torch.float64)
    out = torch.zeros_like(b)
    for t in reversed(range(77)):
        x = b[:, t] + a[:, t] * x
        out[:, t] = x
    assert torch.allclose(reverse_linear_scan(a, b, chunk=16), out, atol=1e-12)
    x = torch.zeros(3, dtype=torch.float64)
    for t in reversed(range(77)):
        x = b[:, t] + 0.0 * x
        out[:, t] = x
    assert torch.allclose(constant_reverse_scan(b, 0.0, chunk=16), out, atol=0)


def test_discounted_returns_reset_vs_no_reset():
    r, m = [[1.0, 2.0, 4.0]], [[1, 0, 1]]
    verl = call("advantages.discounted_returns", rewards=r, mask=m, gamma=0.5)["returns"]
    # G2 = 4; at the hole G1 = 2 + 0.5·4 but the carry resets to 0; G0 = 1 + 0.5·0
    assert verl.tolist() == [[1.0, 4.0, 4.0]]
    orl = call("advantages.discounted_returns", rewards=r, mask=m, gamma=0.5, convention="openrlhf")["returns"]
    # r·m = [1, 0, 4]: G1 = 2, G0 = 1 + 0.5·2
    assert orl.tolist() == [[2.0, 2.0, 4.0]]


def test_grpo_conventions_hand_computed():
    s = [1.0, 2.0, 3.0, 5.0]
    idx = ["a", "a", "a", "b"]
    std = 1.0  # unbiased std of 1, 2, 3
    verl = call("advantages.grpo", scores=s, index=idx)["advantages"].tolist()
    assert verl == pytest.approx([-1 / (std + 1e-6), 0.0, 1 / (std + 1e-6), 5.0 / (1 + 1e-6)], abs=1e-15)
    trl = call("advantages.grpo", scores=s, index=idx, convention="trl")["advantages"].tolist()
    assert trl == pytest.approx([-1 / (std + 1e-4), 0.0, 1 / (std + 1e-4), 0.0], abs=1e-15)
    orl = call("advantages.grpo", scores=s[:3], group_size=3, convention="openrlhf")["advantages"].tolist()
    assert orl == pytest.approx([-1 / (1 + 1e-9), 0.0, 1 / (1 + 1e-9)], abs=1e-15)
    dr = call("advantages.grpo", scores=s, index=idx, scale="none")["advantages"].tolist()
    assert dr[:3] == [-1.0, 0.0, 1.0]
    assert call("advantages.grpo", scores=s, index=idx, norm_by_std=False)["advantages"].tolist() == dr


def test_grpo_trl_nan_rules_and_token_advantages():
    s = [1.0, "nan", 3.0, 4.0]
    out = call("advantages.grpo", scores=s, group_size=4, convention="trl")["advantages"].tolist()
    mean = (1 + 3 + 4) / 3
    std = math.sqrt(((1 - mean) ** 2 + (3 - mean) ** 2 + (4 - mean) ** 2) / 2)
    assert out == pytest.approx([(1 - mean) / (std + 1e-4), 0.0, (3 - mean) / (std + 1e-4), (4 - mean) / (std + 1e-4)])
    tok = call("advantages.grpo", token_level_rewards=[[0, 1.0], [0, 3.0]], mask=[[1, 1], [1, 0]], group_size=2)
    a = 1 / (math.sqrt(2) + 1e-6)
    assert tok["advantages"].tolist() == pytest.approx([-a, a])
    assert tok["token_advantages"].flatten().tolist() == pytest.approx([-a, -a, a, 0.0])


def test_rloo_singleton_and_trl_nan():
    s = [1.0, 2.0, 6.0, 5.0]
    idx = [0, 0, 0, 1]
    verl = call("advantages.rloo", scores=s, index=idx)["advantages"].tolist()
    # 1 − (2 + 6)/2, 2 − (1 + 6)/2, 6 − (1 + 2)/2; singleton keeps its score under verl
    assert verl == [1 - 4.0, 2 - 3.5, 6 - 1.5, 5.0]
    assert call("advantages.rloo", scores=s, index=idx, convention="trl")["advantages"].tolist()[3] == 0.0
    assert call("advantages.rloo", scores=s, index=idx, singleton="zero")["advantages"].tolist()[3] == 0.0
    nan = call("advantages.rloo", scores=[1.0, "nan", 3.0], group_size=3, convention="trl")["advantages"].tolist()
    assert nan == [1 - 3.0, 0.0, 3 - 1.0]


def test_rloo_normalize():
    out = call("advantages.rloo", scores=[1.0, 3.0], group_size=2, normalize=True)["advantages"].tolist()
    # raw A = [−2, 2]: mean 0, unbiased std √8
    assert out == pytest.approx([-2 / (math.sqrt(8) + 1e-4), 2 / (math.sqrt(8) + 1e-4)])


def test_reinforce_pp_and_remax():
    r, m = [[0.0, 1.0], [2.0, 0.0]], [[1, 1], [1, 0]]
    out = call("advantages.reinforce_pp", token_level_rewards=r, mask=m, gamma=1.0)
    assert out["returns"].tolist() == [[1.0, 1.0], [2.0, 0.0]]
    vals = [1.0, 1.0, 2.0]
    mu = 4 / 3
    sd = math.sqrt(sum((x - mu) ** 2 for x in vals) / 2 + 1e-8)
    assert out["advantages"].flatten().tolist() == pytest.approx([(1 - mu) / sd, (1 - mu) / sd, (2 - mu) / sd, 0.0], abs=1e-7)
    rm = call("advantages.remax", token_level_rewards=[[1.0, 2.0, 5.0]], reward_baselines=[0.5], mask=[[1, 1, 0]])
    assert rm["returns"].tolist() == [[3.0, 2.0, 0.0]]
    assert rm["advantages"].tolist() == [[2.5, 1.5, 0.0]]


@pytest.mark.parametrize("name,kwargs,argument", [
    ("advantages.gae", {"rewards": [[1.0, 2.0]], "values": [[1.0]], "mask": [[1, 1]]}, "values"),
    ("advantages.gae", {"rewards": [1.0], "values": [1.0], "mask": [1]}, "rewards"),
    ("advantages.grpo", {"scores": [1.0, 2.0, 3.0], "index": [0, 0]}, "index"),
    ("advantages.grpo", {"scores": [1.0, 2.0, 3.0], "group_size": 2}, "group_size"),
    ("advantages.rloo", {"scores": [1.0, 2.0], "index": [0, 0, 1]}, "index"),
    ("advantages.rloo", {"scores": [1.0, 2.0], "group_size": 2, "convention": "ray"}, "convention"),
    ("advantages.remax", {"token_level_rewards": [[1.0]], "reward_baselines": [1.0, 2.0], "mask": [[1]]},
     "reward_baselines"),
    ("advantages.discounted_returns", {"rewards": [[1.0]], "mask": [[3]]}, "mask"),
])
def test_validation_names_argument(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(name, **kwargs)
    assert err.value.argument == argument


# --- non-finite inputs: x_t depends on the rewards at k ≥ t only (as the upstream loops) -----------------

@pytest.mark.parametrize("convention", ["verl", "openrlhf"])
def test_discounted_returns_non_finite_reward_stays_behind_it(convention):
    # G_3 = 3, G_2 = 2 + ½·3 = 3.5, G_1 = inf + ½·3.5 = inf, G_0 = 1 + ½·inf = inf
    out = call("advantages.discounted_returns", rewards=[[1.0, "inf", 2.0, 3.0]], mask=[[1, 1, 1, 1]],
               gamma=0.5, convention=convention)["returns"]
    assert out.tolist() == [[math.inf, math.inf, 3.5, 3.0]]
    out = call("advantages.reinforce_pp", token_level_rewards=[[1.0, "inf", 2.0, 3.0], [1.0, 1.0, 1.0, 1.0]],
               mask=[[1, 1, 1, 1], [1, 1, 1, 1]], gamma=0.5)["returns"]
    assert out[0].tolist() == [math.inf, math.inf, 3.5, 3.0]


@pytest.mark.parametrize("convention", ["verl", "trl", "openrlhf"])
def test_gae_nan_reward_does_not_reach_later_positions(convention):
    # V = 0, γ = λ = 1: A_3 = 2, A_2 = 1 + 2 = 3, A_1 = nan + 3 = nan, A_0 = 0 + nan = nan; R = A + V
    for T_pad in (0, 100):  # short rows and rows longer than one scan chunk
        r = [[0.0, "nan", 1.0, 2.0] + [0.0] * T_pad]
        m = [[1, 1, 1, 1] + [0] * T_pad]
        v = [[0.0] * (4 + T_pad)]
        out = call("advantages.gae", rewards=r, values=v, mask=m, gamma=1.0, lam=1.0, convention=convention)
        adv = out["advantages"][0, :4]
        assert math.isnan(adv[0]) and math.isnan(adv[1])
        assert adv[2:].tolist() == [3.0, 2.0]
        assert out["returns"][0, 2:4].tolist() == [3.0, 2.0]
