"""dpo.loss with per-token inputs (TRL head ``DPOTrainer._compute_loss``): LD-DPO length desensitisation
and WPO weighting, against a slow per-pair reference written here from the formulas, hand cases,
autograd of that reference and finite differences (float64)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from checkers import reference
from checkers.reference import ReferenceInputError


def call(**kw):
    return reference.call("dpo.loss", device="cpu", **kw)


def _rand(*shape, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _mask(rows, cols, seed, holes=False):
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(1, cols + 1, (rows,), generator=g)
    m = (torch.arange(cols).unsqueeze(0) < lens.unsqueeze(1)).double()
    if holes:  # a completion that is not one contiguous block (prompt tokens inside, say)
        m[:, 0] = 0.0
    return m


def _slow_ld(tok, mask, shared_len, alpha):
    """Per row: walk the tokens, count completion tokens seen so far, weight 1 up to shared_len, α after."""
    out = []
    for row, mrow, ls in zip(tok, mask, shared_len):
        total, seen = 0.0 * row[0], 0
        for x, m in zip(row, mrow):
            if m:
                seen += 1
                total = total + (x if seen <= ls else alpha * x)
        out.append(total)
    return torch.stack(out)


def _slow_loss(ct, rt, cm, rm, ref_c, ref_r, beta, alpha=None, log_den_c=None, log_den_r=None):
    lc, lr = cm.sum(1), rm.sum(1)
    if alpha is None:
        pc = torch.stack([sum((x for x, m in zip(r, mr) if m), 0.0 * r[0]) for r, mr in zip(ct, cm)])
        pr = torch.stack([sum((x for x, m in zip(r, mr) if m), 0.0 * r[0]) for r, mr in zip(rt, rm)])
    else:
        shared = [int(min(a, b)) for a, b in zip(lc.tolist(), lr.tolist())]
        pc, pr = _slow_ld(ct, cm, shared, alpha), _slow_ld(rt, rm, shared, alpha)
    losses = -F.logsigmoid(beta * ((pc - ref_c) - (pr - ref_r)))
    if log_den_c is not None:
        def w(tok, mask, den):
            vals = []
            for row, mrow, drow in zip(tok.detach(), mask, den):
                n = int(mrow.sum().item())
                s = sum(((x - d) for x, m, d in zip(row, mrow, drow) if m), torch.tensor(0.0, dtype=torch.float64))
                vals.append(torch.exp(s / max(n, 1)))
            return torch.stack(vals)
        losses = losses * w(ct, cm, log_den_c) * w(rt, rm, log_den_r)
    return losses, pc, pr


B, T, V = 5, 7, 4
CT, RT = _rand(B, T, seed=1) - 1.0, _rand(B, T, seed=2) - 1.0
CM, RM = _mask(B, T, seed=3), _mask(B, T, seed=4)
REF_C, REF_R = _rand(B, seed=5) - 4.0, _rand(B, seed=6) - 4.0


def test_plain_per_token_sums_equal_the_summed_api():
    tok = call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=CM, rejected_mask=RM,
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R)
    seq = call(policy_chosen_logps=(CT * CM).sum(1), policy_rejected_logps=(RT * RM).sum(1),
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R)
    for key in ("losses", "loss", "chosen_rewards", "rejected_rewards"):
        assert torch.allclose(tok[key], seq[key], rtol=1e-14, atol=0), key
    assert "chosen_weights" not in tok


def test_masked_positions_are_dropped_even_if_nan():
    ct = CT.clone()
    ct[CM == 0] = math.nan
    out = call(chosen_token_logps=ct, rejected_token_logps=RT, chosen_mask=CM, rejected_mask=RM,
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R)
    assert torch.isfinite(out["losses"]).all()


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("holes", [False, True])
def test_ld_dpo_matches_slow_reference(alpha, holes):
    cm, rm = _mask(B, T, seed=3, holes=holes), _mask(B, T, seed=4, holes=holes)
    out = call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=cm, rejected_mask=rm,
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", ld_alpha=alpha, beta=0.2)
    want, pc, pr = _slow_loss(CT, RT, cm, rm, REF_C, REF_R, 0.2, alpha)
    assert torch.allclose(out["chosen_logps"], pc, rtol=1e-13, atol=1e-14)
    assert torch.allclose(out["rejected_logps"], pr, rtol=1e-13, atol=1e-14)
    assert torch.allclose(out["losses"], want, rtol=1e-13, atol=1e-14)
    if alpha == 1.0:  # α = 1 is plain DPO
        plain = call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=cm, rejected_mask=rm,
                     ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", beta=0.2)
        assert torch.allclose(out["losses"], plain["losses"], rtol=1e-14)


def test_ld_dpo_hand_case_and_per_token_reference():
    # chosen 3 tokens, rejected 2: shared length 2, the chosen's third token counts with α = 0.5.
    ct, cm = [[-1.0, -2.0, -0.5, 0.0]], [[1, 1, 1, 0]]
    rt, rm = [[-1.5, -2.0, 0.0, 0.0]], [[1, 1, 0, 0]]
    ref_ct, ref_rt = [[-1.0, -1.0, -1.0, -9.0]], [[-2.0, -1.0, -7.0, -9.0]]
    out = call(chosen_token_logps=ct, rejected_token_logps=rt, chosen_mask=cm, rejected_mask=rm,
               ref_chosen_token_logps=ref_ct, ref_rejected_token_logps=ref_rt, trl_version="head", ld_alpha=0.5)
    assert out["chosen_logps"].tolist() == [-3.25]
    assert out["rejected_logps"].tolist() == [-3.5]
    # reference with the same split: chosen −1 −1 + 0.5·(−1) = −2.5, rejected −3
    h = (-3.25 + 2.5) - (-3.5 + 3.0)
    assert out["loss"].item() == pytest.approx(-math.log(1 / (1 + math.exp(-0.1 * h))), rel=1e-14)


def test_wpo_matches_slow_reference_from_logits():
    logits_c, logits_r = _rand(B, T, V, seed=7), _rand(B, T, V, seed=8)
    out = call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=CM, rejected_mask=RM,
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", use_weighting=True,
               chosen_logits=logits_c, rejected_logits=logits_r)
    den_c = torch.log((torch.softmax(logits_c, -1) ** 2).sum(-1))  # log Σ p², the direct way
    den_r = torch.log((torch.softmax(logits_r, -1) ** 2).sum(-1))
    want, _, _ = _slow_loss(CT, RT, CM, RM, REF_C, REF_R, 0.1, None, den_c, den_r)
    assert torch.allclose(out["losses"], want, rtol=1e-12, atol=1e-15)
    by_denom = call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=CM, rejected_mask=RM,
                    ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", use_weighting=True,
                    chosen_log_denom=den_c, rejected_log_denom=den_r)
    assert torch.allclose(by_denom["losses"], out["losses"], rtol=1e-12)
    assert torch.allclose(out["chosen_weights"] * out["rejected_weights"],
                          want / call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=CM,
                                      rejected_mask=RM, ref_chosen_logps=REF_C, ref_rejected_logps=REF_R,
                                      trl_version="head")["losses"], rtol=1e-12)


def test_wpo_hand_case_and_weights_every_loss_type():
    # one token each, log p = −1 (chosen) and −2 (rejected), log Σ p² = −1.5 and −0.5: w_c = e^{0.5}, w_r = e^{−1.5}
    kw = dict(chosen_token_logps=[[-1.0]], rejected_token_logps=[[-2.0]], chosen_mask=[[1]], rejected_mask=[[1]],
              ref_chosen_logps=[-1.2], ref_rejected_logps=[-1.8], trl_version="head")
    w = math.exp(0.5) * math.exp(-1.5)
    for lt in ("sigmoid", "hinge", "ipo", "apo_zero"):
        plain = call(loss_type=lt, **kw)["losses"].item()
        weighted = call(loss_type=lt, use_weighting=True, chosen_log_denom=[[-1.5]], rejected_log_denom=[[-0.5]],
                        **kw)
        assert weighted["losses"].item() == pytest.approx(plain * w, rel=1e-14), lt
    mixed = call(loss_type=["sigmoid", "hinge"], loss_weights=[1.0, 0.5], use_weighting=True,
                 chosen_log_denom=[[-1.5]], rejected_log_denom=[[-0.5]], **kw)
    assert mixed["losses_hinge"].item() == pytest.approx(call(loss_type="hinge", **kw)["losses"].item() * w, rel=1e-14)


def test_ipo_divides_by_the_mask_lengths():
    out = call(chosen_token_logps=CT, rejected_token_logps=RT, chosen_mask=CM, rejected_mask=RM,
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", loss_type="ipo")
    lc, lr = CM.sum(1), RM.sum(1)
    h = ((CT * CM).sum(1) - REF_C) / lc - ((RT * RM).sum(1) - REF_R) / lr
    assert torch.allclose(out["losses"], (h - 1 / (2 * 0.1)) ** 2, rtol=1e-13)


def _grad_setup():
    ct = CT.clone().requires_grad_()
    rt = RT.clone().requires_grad_()
    return ct, rt


@pytest.mark.parametrize("alpha, weighting", [(None, True), (0.4, False), (0.4, True)])
def test_gradients_match_autograd_of_slow_reference_and_finite_differences(alpha, weighting):
    den_c, den_r = _rand(B, T, seed=9) - 1.0, _rand(B, T, seed=10) - 1.0
    extra = dict(use_weighting=True, chosen_log_denom=den_c, rejected_log_denom=den_r) if weighting else {}

    def engine(ct, rt):
        return call(chosen_token_logps=ct, rejected_token_logps=rt, chosen_mask=CM, rejected_mask=RM,
                    ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", ld_alpha=alpha,
                    beta=0.3, **extra)["loss"]

    ct, rt = _grad_setup()
    g_engine = torch.autograd.grad(engine(ct, rt), (ct, rt))
    ct2, rt2 = _grad_setup()
    slow, _, _ = _slow_loss(ct2, rt2, CM, RM, REF_C, REF_R, 0.3, alpha,
                            den_c if weighting else None, den_r if weighting else None)
    g_slow = torch.autograd.grad(slow.mean(), (ct2, rt2))
    for a, b in zip(g_engine, g_slow):
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-15)
    assert (g_engine[0][CM == 0] == 0).all()  # masked-out tokens get no gradient
    # Central finite differences on counted and uncounted positions. With WPO the weights move with the
    # log-probs but are detached (as TRL), so the gradient is not the loss's derivative: that case is
    # checked against the slow reference above only.
    if not weighting:
        h = 1e-6
        for (i, t) in [(0, 0), (1, 2), (3, 1), (4, T - 1)]:
            plus, minus = CT.clone(), CT.clone()
            plus[i, t] += h
            minus[i, t] -= h
            fd = (engine(plus, RT) - engine(minus, RT)).item() / (2 * h)
            assert fd == pytest.approx(g_engine[0][i, t].item(), rel=1e-6, abs=1e-9)


def test_wpo_weights_are_detached():
    ct, rt = _grad_setup()
    out = call(chosen_token_logps=ct, rejected_token_logps=rt, chosen_mask=CM, rejected_mask=RM,
               ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head", use_weighting=True,
               chosen_log_denom=torch.zeros(B, T, dtype=torch.float64),
               rejected_log_denom=torch.zeros(B, T, dtype=torch.float64))
    assert out["losses"].requires_grad and not out["chosen_weights"].requires_grad
    # d loss/d chosen token = w·(d plain loss/d token): the weight is a constant of the gradient
    (g,) = torch.autograd.grad(out["losses"].sum(), ct)
    plain = call(chosen_token_logps=ct, rejected_token_logps=rt, chosen_mask=CM, rejected_mask=RM,
                 ref_chosen_logps=REF_C, ref_rejected_logps=REF_R, trl_version="head")
    (g0,) = torch.autograd.grad(plain["losses"].sum(), ct)
    w = (out["chosen_weights"] * out["rejected_weights"]).unsqueeze(1)
    assert torch.allclose(g, g0 * w, rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("kw, field", [
    ({"ld_alpha": 0.5}, "trl_version"),                       # v0.28 computed LD differently
    ({"ld_alpha": 1.5, "trl_version": "head"}, "ld_alpha"),
    ({"use_weighting": True, "trl_version": "head"}, "chosen_logits"),
    ({"use_weighting": True, "trl_version": "head", "loss_type": "aot", "chosen_log_denom": [[0.0]],
      "rejected_log_denom": [[0.0]]}, "use_weighting"),
    ({"chosen_lengths": [1.0]}, "chosen_lengths"),
    ({"policy_chosen_logps": [-1.0]}, "policy_chosen_logps"),
])
def test_input_errors_name_the_field(kw, field):
    base = dict(chosen_token_logps=[[-1.0]], rejected_token_logps=[[-2.0]], chosen_mask=[[1]], rejected_mask=[[1]],
                ref_chosen_logps=[-1.0], ref_rejected_logps=[-1.0])
    with pytest.raises(ReferenceInputError) as err:
        call(**{**base, **kw})
    assert err.value.argument == field


def test_token_inputs_without_masks_or_reference_are_refused():
    with pytest.raises(ReferenceInputError) as err:
        call(chosen_token_logps=[[-1.0]], rejected_token_logps=[[-2.0]], ref_chosen_logps=[-1.0],
             ref_rejected_logps=[-1.0])
    assert err.value.argument == "chosen_mask"
    with pytest.raises(ReferenceInputError) as err:
        call(chosen_token_logps=[[-1.0]], rejected_token_logps=[[-2.0]], chosen_mask=[[1]], rejected_mask=[[1]])
    assert err.value.argument == "ref_chosen_logps"
    with pytest.raises(ReferenceInputError) as err:  # the summed API still needs all four
        call(policy_chosen_logps=[-1.0], policy_rejected_logps=[-2.0], ref_chosen_logps=[-1.0])
    assert err.value.argument == "ref_rejected_logps"


def test_over_http(client):
    args = dict(chosen_token_logps=[[-1.0, -2.0, -0.5]], rejected_token_logps=[[-1.5, -2.0, 0.0]],
                chosen_mask=[[1, 1, 1]], rejected_mask=[[1, 1, 0]], ref_chosen_logps=[-3.0],
                ref_rejected_logps=[-3.0], trl_version="head", ld_alpha=0.5, use_weighting=True,
                chosen_log_denom=[[-1.0, -1.0, -1.0]], rejected_log_denom=[[-0.5, -0.5, -0.5]])
    resp = client.post("/api/v1/reference/dpo.loss", json=args)
    assert resp.status_code == 200, resp.get_json()
    outputs = resp.get_json()["outputs"]
    want = reference.call("dpo.loss", **args)
    assert outputs["loss"] == pytest.approx(want["loss"].item(), rel=1e-14)
    assert outputs["chosen_logps"] == [-3.25]
    ok = client.post("/api/v1/verify/dpo.loss", json={"args": args, "claimed": {"loss": want["loss"].item()}})
    assert ok.get_json()["match"] is True
    bad = client.post("/api/v1/verify/dpo.loss", json={"args": args, "claimed": {"loss": want["loss"].item() * 1.01}})
    assert bad.get_json()["match"] is False
    err = client.post("/api/v1/reference/dpo.loss", json={**args, "ld_alpha": 2.0})
    assert err.status_code == 422 and err.get_json()["error"]["field"] == "ld_alpha"
