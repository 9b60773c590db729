import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def test_kl_exact_hand_computed_and_bases():
    p, q = [0.5, 0.5, 0.0], [0.25, 0.25, 0.5]
    # 0.5·ln2 + 0.5·ln2 + 0 (0·log 0 = 0)
    assert call("kl.exact", p=p, q=q)["kl"].item() == pytest.approx(math.log(2), abs=1e-15)
    assert call("kl.exact", p=p, q=q, base="2")["kl"].item() == pytest.approx(1.0, abs=1e-15)
    assert call("kl.exact", p=p, q=q, base="10")["kl"].item() == pytest.approx(math.log10(2), abs=1e-15)
    assert call("kl.exact", p=q, q=p)["kl"].item() == math.inf  # q puts mass where p has none


def test_kl_exact_bernoulli_closed_form():
    a, b = 0.3, 0.8
    expected = a * math.log(a / b) + (1 - a) * math.log((1 - a) / (1 - b))
    assert call("kl.exact", p=[a, 1 - a], q=[b, 1 - b])["kl"].item() == pytest.approx(expected, abs=1e-14)


def test_kl_exact_gradient_finite_at_zero_mass():
    p = torch.tensor([0.5, 0.5, 0.0], dtype=torch.float64, requires_grad=True)
    q = torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64, requires_grad=True)
    kl = call("kl.exact", p=p, q=q)["kl"]
    gp, gq = torch.autograd.grad(kl, (p, q))
    # d/dp_i = log(p_i/q_i) + 1 on the support, d/dq_i = −p_i/q_i
    assert gp[0].item() == pytest.approx(math.log(2) + 1)
    assert gq.tolist() == pytest.approx([-2.0, -2.0, 0.0])
    assert torch.isfinite(gp).all()


def test_gaussian_closed_form_and_zero_when_equal():
    kl = call("kl.gaussian", mu_p=1.0, sigma_p=2.0, mu_q=0.0, sigma_q=1.0)["kl"].item()
    # ln(1/2) + (4 + 1)/2 − 1/2
    assert kl == pytest.approx(math.log(0.5) + 2.5 - 0.5, abs=1e-15)
    same = call("kl.gaussian", mu_p=[0.3, -1.0], sigma_p=[1.5, 0.2], mu_q=[0.3, -1.0], sigma_q=[1.5, 0.2])["kl"]
    assert same.abs().max().item() < 1e-15


def test_gaussian_matches_discretised_kl():
    x = torch.linspace(-12, 12, 20001, dtype=torch.float64)
    dx = x[1] - x[0]

    def pdf(mu, s):
        return torch.exp(-(x - mu) ** 2 / (2 * s * s)) / (s * math.sqrt(2 * math.pi)) * dx

    p, q = pdf(0.5, 0.8), pdf(-0.2, 1.3)
    kl_num = (p * torch.log(p / q)).sum().item()
    kl = call("kl.gaussian", mu_p=0.5, sigma_p=0.8, mu_q=-0.2, sigma_q=1.3)["kl"].item()
    assert kl == pytest.approx(kl_num, abs=1e-8)


def test_full_vocab_matches_exact_kl_of_softmaxes():
    logits = torch.tensor([[[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]], dtype=torch.float64)
    ref = torch.tensor([[[0.0, 0.0, 0.0], [1.0, 1.0, -2.0]]], dtype=torch.float64)
    out = call("kl.full_vocab", logits=logits, ref_logits=ref, mask=[[1, 0]])["kl"]
    p, r = torch.softmax(logits, -1), torch.softmax(ref, -1)
    exact0 = call("kl.exact", p=p[0, 0], q=r[0, 0])["kl"].item()
    assert out[0, 0].item() == pytest.approx(exact0, abs=1e-14)
    assert out[0, 1].item() == 0.0
    via_log_probs = call("kl.full_vocab", log_probs=torch.log_softmax(logits, -1), ref_logits=ref)["kl"]
    assert via_log_probs[0, 1].item() > 0


def test_entropy_cross_entropy_js_tv_hellinger_chi2_hand_computed():
    p, q = [0.5, 0.5], [0.25, 0.75]
    assert call("divergence.entropy", p=p, base="2")["entropy"].item() == pytest.approx(1.0)
    h_pq = -(0.5 * math.log(0.25) + 0.5 * math.log(0.75))
    assert call("divergence.cross_entropy", p=p, q=q)["cross_entropy"].item() == pytest.approx(h_pq)
    assert call("divergence.tv", p=p, q=q)["tv"].item() == pytest.approx(0.5 * (0.25 + 0.25))
    hel = 0.5 * ((math.sqrt(0.5) - 0.5) ** 2 + (math.sqrt(0.5) - math.sqrt(0.75)) ** 2)
    assert call("divergence.hellinger", p=p, q=q)["hellinger_sq"].item() == pytest.approx(hel)
    chi2 = 0.25 ** 2 / 0.25 + 0.25 ** 2 / 0.75
    assert call("divergence.chi2", p=p, q=q)["chi2"].item() == pytest.approx(chi2)
    # disjoint supports: JS = ln 2, the maximum
    assert call("divergence.js", p=[1.0, 0.0], q=[0.0, 1.0])["js"].item() == pytest.approx(math.log(2))
    # cross-entropy = entropy + KL
    kl = call("kl.exact", p=p, q=q)["kl"].item()
    assert h_pq == pytest.approx(math.log(2) + kl)


def test_alpha_divergence_limits_and_special_values():
    p, q = [0.2, 0.5, 0.3], [0.4, 0.4, 0.2]
    kl_pq = call("kl.exact", p=p, q=q)["kl"].item()
    kl_qp = call("kl.exact", p=q, q=p)["kl"].item()
    assert call("divergence.alpha", p=p, q=q, alpha=1.0)["alpha_div"].item() == pytest.approx(kl_pq, abs=1e-15)
    assert call("divergence.alpha", p=p, q=q, alpha=0.0)["alpha_div"].item() == pytest.approx(kl_qp, abs=1e-15)
    assert call("divergence.alpha", p=p, q=q, alpha=1 - 1e-6)["alpha_div"].item() == pytest.approx(kl_pq, rel=1e-4)
    assert call("divergence.alpha", p=p, q=q, alpha=1e-6)["alpha_div"].item() == pytest.approx(kl_qp, rel=1e-4)
    # α = ½: 4·H² ; α = 2: χ²/2
    hel = call("divergence.hellinger", p=p, q=q)["hellinger_sq"].item()
    assert call("divergence.alpha", p=p, q=q, alpha=0.5)["alpha_div"].item() == pytest.approx(4 * hel)
    chi2 = call("divergence.chi2", p=p, q=q)["chi2"].item()
    assert call("divergence.alpha", p=p, q=q, alpha=2.0)["alpha_div"].item() == pytest.approx(chi2 / 2)


def test_pinsker_on_random_pairs():
    g = torch.Generator().manual_seed(1)
    p = torch.softmax(torch.randn(200, 6, generator=g, dtype=torch.float64) * 2, -1)
    q = torch.softmax(torch.randn(200, 6, generator=g, dtype=torch.float64) * 2, -1)
    tv = call("divergence.tv", p=p, q=q)["tv"]
    kl = call("kl.exact", p=p, q=q)["kl"]
    assert (tv ** 2 <= kl / 2 + 1e-15).all()


@pytest.mark.parametrize("name,kwargs,argument", [
    ("kl.exact", {"p": [0.5, 0.6], "q": [0.5, 0.5]}, "p"),
    ("kl.exact", {"p": [0.5, 0.5], "q": [0.2, 0.3, 0.5]}, "q"),
    ("kl.exact", {"p": [0.5, 0.5], "q": [0.5, 0.5], "base": "3"}, "base"),
    ("kl.gaussian", {"mu_p": 0, "sigma_p": -1, "mu_q": 0, "sigma_q": 1}, "sigma_p"),
    ("kl.full_vocab", {"logits": [[1.0, 2.0]], "log_probs": [[-0.5, -1.0]], "ref_logits": [[0.0, 0.0]]}, "logits"),
    ("kl.full_vocab", {"log_probs": [[-0.1, -0.1]], "ref_logits": [[0.0, 0.0]]}, "log_probs"),
    ("divergence.tv", {"p": [1.2, -0.2], "q": [0.5, 0.5]}, "p"),
    ("divergence.alpha", {"p": [0.5, 0.5], "q": [0.5, 0.5], "alpha": "inf"}, "alpha"),
])
def test_validation_names_argument(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(name, **kwargs)
    assert err.value.argument == argument
