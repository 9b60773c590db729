"""entropy.covariance (engine v3): the centred log-prob × advantage product Clip-Cov and KL-Cov rank by,
against a slow loop, autograd and the contract's edge cases."""

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(**kw):
    return reference.call("entropy.covariance", **kw, **CPU)


def slow(lp, adv, m, centring):
    """Loop over the valid tokens: means Σ/(N + 1e-8) (clip_cov) or Σ/N (kl_cov), then the products."""
    cells = [(b, t) for b in range(len(m)) for t in range(len(m[0])) if m[b][t]]
    n = len(cells)
    denom = n + 1e-8 if centring == "clip_cov" else n
    mean_lp = sum(lp[b][t] for b, t in cells) / denom
    mean_a = sum(adv[b][t] for b, t in cells) / denom
    per = [[0.0] * len(m[0]) for _ in m]
    for b, t in cells:
        per[b][t] = (lp[b][t] - mean_lp) * (adv[b][t] - mean_a)
    return per, sum(per[b][t] for b, t in cells) / denom


def batch(seed, B=4, T=6):
    g = torch.Generator().manual_seed(seed)
    lp = -3 * torch.rand(B, T, generator=g, dtype=torch.float64)
    adv = torch.randn(B, T, generator=g, dtype=torch.float64)
    m = (torch.rand(B, T, generator=g) > 0.3).double()
    m[0, 0] = 1
    return lp, adv, m


@pytest.mark.parametrize("centring", ["clip_cov", "kl_cov"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_slow_loop(centring, seed):
    lp, adv, m = batch(seed)
    out = call(log_prob=lp, advantages=adv, mask=m, centring=centring)
    per, cov = slow(lp.tolist(), adv.tolist(), m.tolist(), centring)
    assert torch.allclose(out["per_token"], torch.tensor(per, dtype=torch.float64), rtol=1e-12, atol=1e-14)
    assert out["covariance"].item() == pytest.approx(cov, rel=1e-12, abs=1e-15)
    assert (out["per_token"][m == 0] == 0).all()


def test_hand_values():
    # valid log-probs −1, −3 (mean −2), advantages 1, −1 (mean 0): products (1)(1) and (−1)(−1); kl_cov: mean 1
    out = call(log_prob=[[-1.0, -3.0, -9.0]], advantages=[[1.0, -1.0, 7.0]], mask=[[1, 1, 0]], centring="kl_cov")
    assert out["per_token"].tolist() == [[1.0, 1.0, 0.0]] and out["covariance"].item() == 1.0
    clip = call(log_prob=[[-1.0, -3.0, -9.0]], advantages=[[1.0, -1.0, 7.0]], mask=[[1, 1, 0]])
    assert clip["per_token"].tolist()[0][:2] == pytest.approx([1.0, 1.0], rel=1e-7)   # the 1e-8 shifts the means
    assert clip["covariance"].item() == pytest.approx(1.0, rel=1e-7)


def test_gradient_clip_cov_holds_the_log_prob_mean_fixed():
    lp, adv, m = batch(5)
    lp.requires_grad_(True)
    adv.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x, a: call(log_prob=x, advantages=a, mask=m)["covariance"], (lp, adv))
    out = call(log_prob=lp, advantages=adv, mask=m)
    (g_lp,) = torch.autograd.grad(out["covariance"], lp)
    n = m.sum() + 1e-8
    centred_a = adv.detach() - (adv.detach() * m).sum() / n
    # ∂/∂lp_t of Σ m·(lp − sg(μ))·(A − μ_A) / n is m_t·(A_t − μ_A)/n: the detached mean adds nothing
    assert torch.allclose(g_lp, m * centred_a / n, rtol=1e-12, atol=1e-15)


def test_kl_cov_centring_is_detached_as_upstream():
    lp, adv, m = batch(6)
    lp.requires_grad_(True)
    out = call(log_prob=lp, advantages=adv, mask=m, centring="kl_cov")
    assert not out["per_token"].requires_grad and not out["covariance"].requires_grad


def test_empty_mask():
    z = [[0.0, 0.0]]
    assert call(log_prob=[[-1.0, -2.0]], advantages=[[1.0, 2.0]], mask=z)["covariance"].item() == 0.0
    assert torch.isnan(call(log_prob=[[-1.0, -2.0]], advantages=[[1.0, 2.0]], mask=z,
                            centring="kl_cov")["covariance"]).item()


def test_float32():
    lp, adv, m = batch(7)
    for centring in ("clip_cov", "kl_cov"):
        f32 = call(log_prob=lp, advantages=adv, mask=m, centring=centring, dtype="float32")
        f64 = call(log_prob=lp, advantages=adv, mask=m, centring=centring)
        assert f32["per_token"].dtype == torch.float32
        assert torch.allclose(f32["per_token"].double(), f64["per_token"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw,argument", [
    ({"mask": [[1, 0.5]]}, "mask"),
    ({"advantages": [[1.0]]}, "advantages"),
    ({"log_prob": [-1.0, -2.0], "advantages": [1.0, 2.0], "mask": [1, 1]}, "log_prob"),
    ({"centring": "mean"}, "centring"),
])
def test_input_errors(kw, argument):
    args = {"log_prob": [[-1.0, -2.0]], "advantages": [[1.0, 2.0]], "mask": [[1, 1]], **kw}
    with pytest.raises(ReferenceInputError) as err:
        call(**args)
    assert err.value.argument == argument


def test_http(client):
    args = {"log_prob": [[-1.0, -3.0, -9.0]], "advantages": [[1.0, -1.0, 7.0]], "mask": [[1, 1, 0]],
            "centring": "kl_cov"}
    resp = client.post("/api/v1/reference/entropy.covariance", json=args)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["outputs"] == {"per_token": [[1.0, 1.0, 0.0]], "covariance": 1.0}
    v = client.post("/api/v1/verify/entropy.covariance", json={"args": args, "claimed": {"covariance": 1.0}})
    assert v.get_json()["match"] is True
