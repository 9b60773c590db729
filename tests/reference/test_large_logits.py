"""Every engine function that normalises logits stays finite and exact for logits near ±1e4.

exp(1e4) overflows and exp(-1e4) underflows in float64 (and far earlier in float32), so a log-sum-exp
written as ``log(exp(z).sum())`` gives inf or -inf there; the engine must subtract the maximum first.
Each expected value below is a closed form evaluated in float64, independently of the engine, from the
inputs as rounded to the dtype under test:

    s = z − max(z),  lse = max(z) + log Σ_v exp(s_v),  log p = s − log Σ_v exp(s_v)

(the shift leaves every quantity unchanged and keeps each exponent ≤ 0). The functions: ``ppo.entropy``
(verl ``entropy_from_logits``), ``kl.full_vocab`` from logits (TRL v0.11 ``kl_penalty="full"``),
``dpo.loss`` WPO weights from logits (TRL ``DPOTrainer``: log Σ_v p_v² = logsumexp(2·log_softmax(z))),
and ``policy.optimal`` (log Z = logsumexp(r/β + log π_ref), whose r/β plays the role of logits).
"""

from __future__ import annotations

import math

import pytest
import torch

from checkers import reference

CPU = {"device": "cpu"}
BIG = 1e4

# (B=1, T=5, V=5): two near-tied logits at 1e4 beside ordinary ones and one at -1e4; every logit near
# -1e4; one dominant logit (p one-hot to float64 precision); logits near -2e4 and -1e4 together; ordinary.
LOGITS = [[[BIG, BIG - 1.0, 0.0, -BIG, 2.5],
           [-BIG, -BIG + 0.5, -BIG - 3.0, -BIG + 1.25, -BIG - 0.75],
           [0.3, -1.2, 2.0, 0.0, BIG],
           [-2 * BIG, -BIG, -BIG + 2.0, -2 * BIG + 1.0, -BIG - 1.0],
           [0.3, -1.2, 2.0, 0.0, 1.0]]]
REF_LOGITS = [[[-BIG, 0.0, BIG - 2.0, BIG, 3.0],
               [BIG, 0.0, 0.0, 0.5, -1.0],
               [0.0, 0.0, 0.0, 0.0, 0.0],
               [-BIG, -BIG - 1.5, -BIG + 0.25, -BIG, -BIG + 4.0],
               [1.0, -0.5, 0.2, 0.0, -2.0]]]
DTYPES = ("float64", "float32")
# float32 results are checked at a few units of float32 rounding of O(1)-sized quantities (float32 eps
# 1.2e-7); a form that lets two terms of size 1e4 cancel misses by about 1e-3 there.
TOL = {"float64": dict(rel=1e-11, abs=1e-11), "float32": dict(rel=2e-6, abs=2e-6)}


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def rounded(values, dtype: str) -> torch.Tensor:
    """``values`` as the engine receives them in ``dtype``, widened to float64 for the closed forms."""
    return torch.tensor(values, dtype=getattr(torch, dtype)).to(torch.float64)


def log_softmax_closed(z: torch.Tensor) -> torch.Tensor:
    """log p = (z − max z) − log Σ exp(z − max z) over the last axis, in float64."""
    s = z - z.max(dim=-1, keepdim=True).values
    return s - torch.log(torch.exp(s).sum(dim=-1, keepdim=True))


def entropy_closed(z: torch.Tensor) -> torch.Tensor:
    lp = log_softmax_closed(z)
    p = torch.exp(lp)
    return -torch.where(p > 0, p * lp, torch.zeros_like(lp)).sum(-1)


def assert_close(got: torch.Tensor, expected: torch.Tensor, dtype: str) -> None:
    assert got.shape == expected.shape
    assert torch.isfinite(got).all(), got
    for g, e in zip(got.to(torch.float64).reshape(-1).tolist(), expected.reshape(-1).tolist()):
        assert g == pytest.approx(e, **TOL[dtype])


def test_the_inputs_overflow_a_naive_log_sum_exp():
    # The cases below are meaningful only if log(Σ exp z) without the shift is not finite on them.
    for values in (LOGITS, REF_LOGITS):
        for dtype in DTYPES:
            z = torch.tensor(values, dtype=getattr(torch, dtype))
            naive = torch.log(torch.exp(z).sum(-1))
            assert not torch.isfinite(naive).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_entropy_from_large_logits_matches_the_shifted_closed_form(dtype):
    z = rounded(LOGITS, dtype)
    out = call("ppo.entropy", logits=LOGITS, mask=[[1.0, 1.0, 0.0, 1.0, 1.0]], dtype=dtype)
    expected = entropy_closed(z)
    assert_close(out["entropy"], expected, dtype)
    # the dominant-logit position is one-hot to float64 precision: entropy 0 (its other terms underflow)
    assert out["entropy"][0, 2].item() == pytest.approx(0.0, abs=TOL[dtype]["abs"])
    # token-mean over the counted positions (contract: Σ m·H / Σ m)
    m = torch.tensor([1.0, 1.0, 0.0, 1.0, 1.0], dtype=torch.float64)
    assert_close(out["entropy_loss"].reshape(1), ((expected[0] * m).sum() / m.sum()).reshape(1), dtype)


def test_entropy_gradient_at_large_logits_matches_the_closed_form():
    # ∂H/∂z_v = −p_v (log p_v + H): differentiate Σ_v p_v log p_v with Σ p = 1.
    z = torch.tensor(LOGITS, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(call("ppo.entropy", logits=z)["entropy"].sum(), z)
    lp = log_softmax_closed(z.detach())
    p = torch.exp(lp)
    h = entropy_closed(z.detach()).unsqueeze(-1)
    expected = -torch.where(p > 0, p * (lp + h), torch.zeros_like(p))
    assert torch.isfinite(grad).all()
    assert torch.allclose(grad, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_vocab_kl_from_large_logits_matches_the_shifted_closed_form(dtype):
    lp, lr = log_softmax_closed(rounded(LOGITS, dtype)), log_softmax_closed(rounded(REF_LOGITS, dtype))
    p = torch.exp(lp)
    expected = torch.where(p > 0, p * (lp - lr), torch.zeros_like(p)).sum(-1)
    got = call("kl.full_vocab", logits=LOGITS, ref_logits=REF_LOGITS, dtype=dtype)["kl"]
    assert_close(got, expected, dtype)
    # positions where the policy's mass sits on a token the reference scores ~1e4 lower: KL of order 1e4
    assert expected[0, 0].item() > BIG and expected[0, 3].item() > 1.0


def test_full_vocab_kl_gradient_at_large_logits_matches_the_closed_form():
    # ∂KL/∂z_v = p_v ((log p_v − log p_ref,v) − KL) for KL = Σ p (log p − log p_ref).
    z = torch.tensor(LOGITS, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(call("kl.full_vocab", logits=z, ref_logits=REF_LOGITS)["kl"].sum(), z)
    lp, lr = log_softmax_closed(z.detach()), log_softmax_closed(torch.tensor(REF_LOGITS, dtype=torch.float64))
    p = torch.exp(lp)
    diff = torch.where(p > 0, lp - lr, torch.zeros_like(p))
    kl = (p * diff).sum(-1, keepdim=True)
    expected = torch.where(p > 0, p * (diff - kl), torch.zeros_like(p))
    assert torch.isfinite(grad).all()
    assert torch.allclose(grad, expected, rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("dtype", DTYPES)
def test_wpo_weights_from_large_logits_match_the_closed_form(dtype):
    # One pair; the chosen side's logits are LOGITS, the rejected side's REF_LOGITS (T = 5 tokens each).
    tok_c = [[-0.5, -1.0, -0.25, -2.0, -1.5]]
    tok_r = [[-1.0, -0.75, -3.0, -0.5, -2.5]]
    mask_c, mask_r = [[1.0, 1.0, 1.0, 1.0, 0.0]], [[1.0, 1.0, 1.0, 1.0, 1.0]]
    out = call("dpo.loss", chosen_token_logps=tok_c, rejected_token_logps=tok_r, chosen_mask=mask_c,
               rejected_mask=mask_r, ref_chosen_logps=[-4.0], ref_rejected_logps=[-7.0],
               chosen_logits=LOGITS, rejected_logits=REF_LOGITS, trl_version="head", use_weighting=True,
               dtype=dtype)

    def weight(tokens, mask, logits):
        # WPO (arXiv:2406.11827 eq. 2, length-normalised as TRL): exp(mean_t (log p_t − log Σ_v p_v²))
        log_denom = torch.log(torch.exp(2 * log_softmax_closed(rounded(logits, dtype))).sum(-1))
        t, m = rounded(tokens, dtype), rounded(mask, dtype)
        return torch.exp(((t - log_denom) * m).sum(-1) / m.sum(-1))

    assert_close(out["chosen_weights"], weight(tok_c, mask_c, LOGITS), dtype)
    assert_close(out["rejected_weights"], weight(tok_r, mask_r, REF_LOGITS), dtype)
    assert torch.isfinite(out["losses"]).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_optimal_policy_with_large_reward_over_beta_matches_the_closed_form(dtype):
    # r/β up to 4e4 and down to -4e4: π* = softmax(r/β + log π_ref) over π_ref's support. β is a power of
    # two so that r/β is exact in float32 too: a float32 quotient near 4e4 is rounded by up to 2e-3, which
    # moves π* by as much (conditioning of the input, not instability of the engine).
    ref_probs = [[0.25, 0.25, 0.25, 0.25], [0.5, 0.0, 0.3, 0.2], [0.1, 0.2, 0.3, 0.4]]
    rewards = [[BIG, BIG - 0.125, 0.0, -BIG], [-BIG, BIG, -BIG + 0.5, -BIG], [0.3, -0.2, 0.1, 0.0]]
    beta = 0.25
    out = call("policy.optimal", ref_probs=ref_probs, rewards=rewards, beta=beta, dtype=dtype)
    pi, r = rounded(ref_probs, dtype), rounded(rewards, dtype)
    a = torch.where(pi > 0, r / beta + torch.log(torch.where(pi > 0, pi, torch.ones_like(pi))),
                    torch.full_like(pi, -math.inf))
    top = a.max(dim=-1, keepdim=True).values
    log_z = top + torch.log(torch.exp(a - top).sum(-1, keepdim=True))
    assert_close(out["log_partition"], log_z.squeeze(-1), dtype)
    assert_close(out["probs"], torch.exp(a - log_z), dtype)
