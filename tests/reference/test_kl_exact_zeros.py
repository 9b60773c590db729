"""``kl.exact`` at zero probabilities: the contract's conventions against torch's own functions.

Contract (§4): KL(p‖q) = Σ p log(p/q) with 0·log 0 = 0 (a term with p_i = 0 is 0, whatever q_i is, q_i = 0
included: Cover & Thomas §2.3, 0·log(0/0) = 0) and p_i > 0 = q_i giving +inf. The closed form used here is
Σ xlogy(p, p) − xlogy(p, q), since ``torch.special.xlogy(0, y) = 0`` for every y (0 included) and
xlogy(p, 0) = −inf for p > 0. ``torch.nn.functional.kl_div(log q, p)`` computes xlogy(p, p) − p·log q and
so gives 0·(−inf) = nan where p_i = q_i = 0; the naive p·log(p/q) gives nan wherever p_i = 0.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from checkers import reference

CPU = {"device": "cpu"}

# One row per edge: (p, q)
ROWS = [
    ([0.0, 0.5, 0.5], [0.0, 0.5, 0.5]),      # p = q = 0 at one entry, p = q elsewhere: KL = 0
    ([0.0, 0.5, 0.5], [0.2, 0.3, 0.5]),      # p = 0 < q: that term is 0
    ([0.0, 0.4, 0.6], [0.0, 0.7, 0.3]),      # p = q = 0 beside a non-trivial pair
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5]),      # p > 0 = q: +inf
    ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),      # p > 0 = q and p = q = 0 in one row: +inf
    ([0.25, 0.25, 0.5], [0.5, 0.25, 0.25]),  # no zeros
]
P = [r[0] for r in ROWS]
Q = [r[1] for r in ROWS]
FINITE_ROWS = [0, 1, 2, 5]
INFINITE_ROWS = [3, 4]


def call(name, **kw):
    return reference.call(name, **kw, **CPU)


def closed_form(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    return (torch.special.xlogy(p, p) - torch.special.xlogy(p, q)).sum(-1)


def test_closed_form_values_by_hand():
    # The closed form itself, against numbers derived by hand: row 1 is 0.5·ln(0.5/0.3) + 0 = 0.5·ln(5/3),
    # row 2 is 0.4·ln(4/7) + 0.6·ln 2, row 5 is 0.25·ln ½ + 0 + 0.5·ln 2 = 0.25·ln 2.
    expected = closed_form(torch.tensor(P, dtype=torch.float64), torch.tensor(Q, dtype=torch.float64))
    assert expected[0].item() == 0.0
    assert expected[1].item() == pytest.approx(0.5 * math.log(5 / 3), rel=1e-14)
    assert expected[2].item() == pytest.approx(0.4 * math.log(4 / 7) + 0.6 * math.log(2), rel=1e-14)
    assert expected[5].item() == pytest.approx(0.25 * math.log(2), rel=1e-14)
    assert expected[3].item() == math.inf and expected[4].item() == math.inf


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("base", ["e", "2", "10"])
def test_engine_follows_the_contract_at_zeros(dtype, base):
    got = call("kl.exact", p=P, q=Q, base=base, dtype=dtype)["kl"].to(torch.float64)
    wide = getattr(torch, dtype)
    expected = closed_form(torch.tensor(P, dtype=wide).double(), torch.tensor(Q, dtype=wide).double())
    expected = expected / {"e": 1.0, "2": math.log(2), "10": math.log(10)}[base]
    assert not torch.isnan(got).any()
    for i in INFINITE_ROWS:
        assert got[i].item() == math.inf
    tol = 1e-12 if dtype == "float64" else 1e-6
    for i in FINITE_ROWS:
        assert got[i].item() == pytest.approx(expected[i].item(), rel=tol, abs=tol)
    assert got[0].item() == 0.0    # every term is exactly 0: p = q where p > 0, and 0·log(0/0) = 0


def test_kl_div_and_the_naive_form_differ_from_the_contract_only_at_zeros():
    p, q = torch.tensor(P, dtype=torch.float64), torch.tensor(Q, dtype=torch.float64)
    engine = call("kl.exact", p=P, q=Q)["kl"]
    kl_div = F.kl_div(torch.log(q), p, reduction="none").sum(-1)
    naive = (p * torch.log(p / q)).sum(-1)
    # kl_div: nan where p = q = 0 (rows 0, 2, 4), the contract's value elsewhere
    assert torch.isnan(kl_div[[0, 2, 4]]).all()
    assert torch.allclose(kl_div[[1, 3, 5]], engine[[1, 3, 5]], rtol=1e-14, atol=0)
    # naive: nan wherever p has a zero (rows 0-4), the contract's value on the row without zeros; a zero
    # of q alone gives p·log(p/0) = +inf, which is the contract's value
    assert torch.isnan(naive[:5]).all()
    assert naive[5].item() == pytest.approx(engine[5].item(), rel=1e-14)
    alone = (p[3, :2] * torch.log(p[3, :2] / q[3, :2])).sum()
    assert alone.item() == math.inf


def test_gradients_stay_finite_on_the_finite_rows():
    p = torch.tensor([P[i] for i in FINITE_ROWS], dtype=torch.float64, requires_grad=True)
    q = torch.tensor([Q[i] for i in FINITE_ROWS], dtype=torch.float64, requires_grad=True)
    gp, gq = torch.autograd.grad(call("kl.exact", p=p, q=q)["kl"].sum(), (p, q))
    assert torch.isfinite(gp).all() and torch.isfinite(gq).all()
    # ∂/∂q_i = −p_i/q_i where p_i > 0, 0 where p_i = 0 (q_i = 0 included)
    pd, qd = p.detach(), q.detach()
    expected = torch.where(pd > 0, -pd / torch.where(pd > 0, qd, torch.ones_like(qd)), torch.zeros_like(qd))
    assert torch.allclose(gq, expected, rtol=1e-14, atol=0)
