"""advantages.gae with VC-PPO's decoupled λ (lam_critic) and a per-row λ (VAPO's length-adaptive λ):
against the papers' recursion written as a slow per-token loop, closed forms and the HTTP face."""

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def gae(**kw):
    return reference.call("advantages.gae", **kw, **CPU)


def slow_gae(r, v, m, gamma, lams, convention):
    """A_t = δ_t + γλ_b·A_{t+1} per row b with its own λ_b. verl skips holes (V_next and A_next from the
    next counted token, a hole carries the next counted token's A); trl/openrlhf zero r and V at holes."""
    B, T = len(r), len(r[0])
    adv = [[0.0] * T for _ in range(B)]
    for b in range(B):
        lam = lams[b]
        if convention == "verl":
            next_v, last = 0.0, 0.0
            for t in reversed(range(T)):
                if m[b][t]:
                    delta = r[b][t] + gamma * next_v - v[b][t]
                    last = delta + gamma * lam * last
                    next_v = v[b][t]
                adv[b][t] = last
        else:
            last = 0.0
            for t in reversed(range(T)):
                rt, vt = r[b][t] * m[b][t], v[b][t] * m[b][t]
                vn = v[b][t + 1] * m[b][t + 1] if t + 1 < T else 0.0
                last = rt + gamma * vn - vt + gamma * lam * last
                adv[b][t] = last
    return adv


def batch(B, T, seed):
    g = torch.Generator().manual_seed(seed)
    r = torch.randn(B, T, generator=g, dtype=torch.float64)
    v = torch.randn(B, T, generator=g, dtype=torch.float64)
    m = (torch.rand(B, T, generator=g) > 0.25).double()
    m[0, -3:] = 0   # a short row
    m[1, min(2, T - 1)] = 0     # a hole
    lam = torch.rand(B, generator=g, dtype=torch.float64)
    return r, v, m, lam


def _close(a, b):
    assert torch.allclose(torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64),
                          rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("convention", ["verl", "trl", "openrlhf"])
@pytest.mark.parametrize("T", [1, 7, 150])
def test_per_row_lambda_matches_slow_loop(convention, T):
    r, v, m, lam = batch(5, T, T)
    out = gae(rewards=r, values=v, mask=m, gamma=0.97, lam=lam, convention=convention)
    adv = slow_gae(r.tolist(), v.tolist(), m.tolist(), 0.97, lam.tolist(), convention)
    _close(out["advantages"], adv)
    values_term = v if convention == "verl" else v * m
    _close(out["returns"], torch.tensor(adv, dtype=torch.float64) + values_term)


@pytest.mark.parametrize("convention", ["verl", "trl"])
def test_per_row_lambda_equals_one_call_per_row(convention):
    r, v, m, lam = batch(4, 12, 3)
    whole = gae(rewards=r, values=v, mask=m, gamma=0.9, lam=lam, convention=convention)["advantages"]
    for b in range(4):
        row = gae(rewards=r[b:b + 1], values=v[b:b + 1], mask=m[b:b + 1], gamma=0.9, lam=float(lam[b]),
                  convention=convention)["advantages"]
        _close(whole[b:b + 1], row)


@pytest.mark.parametrize("convention", ["verl", "trl", "openrlhf"])
def test_decoupled_lambda_returns_use_the_critic_lambda(convention):
    r, v, m, _ = batch(4, 20, 9)
    dec = gae(rewards=r, values=v, mask=m, gamma=0.99, lam=0.95, lam_critic=1.0, convention=convention)
    actor = gae(rewards=r, values=v, mask=m, gamma=0.99, lam=0.95, convention=convention)
    critic = gae(rewards=r, values=v, mask=m, gamma=0.99, lam=1.0, convention=convention)
    assert torch.equal(dec["advantages"], actor["advantages"])
    assert torch.equal(dec["returns"], critic["returns"])
    adv_c = slow_gae(r.tolist(), v.tolist(), m.tolist(), 0.99, [1.0] * 4, convention)
    _close(dec["returns"], torch.tensor(adv_c, dtype=torch.float64) + (v if convention == "verl" else v * m))


def test_critic_lambda_one_gives_monte_carlo_returns():
    # γ = 1, λ_critic = 1: the value target telescopes to the sum of the remaining counted rewards (verl)
    r = [[0.0, 0.5, 0.0, 1.0], [2.0, 0.0, -1.0, 0.0]]
    v = [[0.3, -0.2, 0.9, 0.4], [0.1, 0.7, 0.2, 5.0]]
    m = [[1, 1, 1, 1], [1, 0, 1, 0]]
    out = gae(rewards=r, values=v, mask=m, gamma=1.0, lam=0.5, lam_critic=1.0)
    _close(out["returns"][0], [1.5, 1.5, 1.0, 1.0])
    # row 1 counts t = 0, 2: A_2 = −1 − 0.2, A_0 = 2 + 0.2 − 0.1 + A_2; a hole carries the next counted
    # token's A (A_2 at t = 1, 0 at t = 3), and returns = A + V everywhere
    a2 = -1.0 - 0.2
    _close(out["returns"][1], [2.0 + 0.2 - 0.1 + a2 + 0.1, a2 + 0.7, a2 + 0.2, 0.0 + 5.0])
    assert out["returns"][1].tolist() == pytest.approx([1.0, -0.5, -1.0, 5.0], abs=1e-12)


def test_vapo_length_adaptive_lambda():
    # λ_b = 1 − 1/(α·l_b) with α = 0.05 over the rows' counted lengths
    r, v, m, _ = batch(3, 40, 11)
    m[2, 25:] = 0
    lengths = m.sum(1)
    lam = 1 - 1 / (0.05 * lengths)
    out = gae(rewards=r, values=v, mask=m, gamma=1.0, lam=lam, lam_critic=1.0)
    _close(out["advantages"], slow_gae(r.tolist(), v.tolist(), m.tolist(), 1.0, lam.tolist(), "verl"))
    critic = slow_gae(r.tolist(), v.tolist(), m.tolist(), 1.0, [1.0] * 3, "verl")
    _close(out["returns"], torch.tensor(critic, dtype=torch.float64) + v)


def test_lambda_zero_is_the_td_error_and_per_row_critic_lambda():
    r, v, m, _ = batch(2, 6, 4)
    m = torch.ones_like(m)
    out = gae(rewards=r, values=v, mask=m, gamma=0.8, lam=[0.0, 0.0], lam_critic=torch.tensor([0.0, 1.0]))
    next_v = torch.cat([v[:, 1:], torch.zeros(2, 1, dtype=torch.float64)], dim=1)
    td = r + 0.8 * next_v - v
    _close(out["advantages"], td)
    _close(out["returns"][0], td[0] + v[0])
    critic = slow_gae(r.tolist(), v.tolist(), m.tolist(), 0.8, [1.0, 1.0], "verl")
    _close(out["returns"][1], torch.tensor(critic[1], dtype=torch.float64) + v[1])


def test_whitening_leaves_the_returns_raw():
    r, v, m, lam = batch(4, 9, 5)
    raw = gae(rewards=r, values=v, mask=m, lam=lam, lam_critic=0.7)
    white = gae(rewards=r, values=v, mask=m, lam=lam, lam_critic=0.7, whiten=True)
    assert torch.equal(raw["returns"], white["returns"])
    sel = raw["advantages"][m.bool()]
    # verl's masked means carry 1e-8 in the denominator, so this plain form agrees to ~1e-9
    expected = (raw["advantages"] - sel.mean()) / torch.sqrt(sel.var() + 1e-8)
    assert torch.allclose(white["advantages"], expected, rtol=1e-7, atol=1e-8)


def test_scalar_tensor_lambda_and_default_unchanged():
    r, v, m, _ = batch(3, 8, 6)
    a = gae(rewards=r, values=v, mask=m, lam=torch.tensor(0.9, dtype=torch.float64))
    b = gae(rewards=r, values=v, mask=m, lam=0.9)
    c = gae(rewards=r, values=v, mask=m, lam=0.9, lam_critic=None)
    assert torch.equal(a["advantages"], b["advantages"]) and torch.equal(b["returns"], c["returns"])
    d = gae(rewards=r, values=v, mask=m, lam=[0.9, 0.9, 0.9])
    _close(d["advantages"], b["advantages"])


def test_float32():
    r, v, m, lam = batch(3, 70, 8)
    f32 = gae(rewards=r, values=v, mask=m, lam=lam, lam_critic=1.0, dtype="float32")
    f64 = gae(rewards=r, values=v, mask=m, lam=lam, lam_critic=1.0)
    assert f32["advantages"].dtype == torch.float32 and f32["returns"].dtype == torch.float32
    assert torch.allclose(f32["advantages"].double(), f64["advantages"], rtol=1e-4, atol=1e-4)
    assert torch.allclose(f32["returns"].double(), f64["returns"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kw,argument", [
    ({"lam": [0.9, 0.9]}, "lam"),
    ({"lam": [[0.9], [0.9], [0.9]]}, "lam"),
    ({"lam": [0.9, "nan", 0.9]}, "lam"),
    ({"lam": "inf"}, "lam"),
    ({"lam_critic": [1.0]}, "lam_critic"),
    ({"lam_critic": ["inf", 1.0, 1.0]}, "lam_critic"),
])
def test_input_errors(kw, argument):
    r, v, m, _ = batch(3, 4, 1)
    with pytest.raises(ReferenceInputError) as err:
        gae(rewards=r, values=v, mask=m, **kw)
    assert err.value.argument == argument


def test_http_per_row_and_decoupled(client):
    args = {"rewards": [[0.0, 1.0], [1.0, 0.0]], "values": [[0.5, 0.5], [0.0, 0.5]], "mask": [[1, 1], [1, 1]],
            "lam": [0.5, 0.0], "lam_critic": 1.0}
    resp = client.post("/api/v1/reference/advantages.gae", json=args)
    assert resp.status_code == 200, resp.get_json()
    outs = resp.get_json()["outputs"]
    # row 0: A1 = 1 − 0.5 = 0.5, A0 = 0 + 0.5 − 0.5 + 0.5·0.5 = 0.25; row 1 (λ = 0): A0 = 1 + 0.5 − 0 = 1.5
    assert outs["advantages"] == [[0.25, 0.5], [1.5, -0.5]]
    assert outs["returns"] == [[1.0, 1.0], [1.0, 0.0]]
    bad = client.post("/api/v1/reference/advantages.gae", json={**args, "lam": [0.5]})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "lam"
