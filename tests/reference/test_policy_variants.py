"""Policy-loss variants (contract §5): verl GSPO/SAPO/CISPO/GPG/geo_mean, OpenRLHF GSPO, TRL HEAD
luspo/cispo/sapo, against slow per-element loops written from the upstream formulas, hand-computed
cases, autograd of the slow loops, central finite differences (float64) and the HTTP face.
"""

import math
import random

import numpy as np
import pytest
import torch

from checkers.reference import ReferenceInputError, call

D = torch.float64
EPS8 = 1e-8


# --- inputs --------------------------------------------------------------------------------------------

def _batch(seed, B=3, T=4, scale=0.3):
    """Random log-probs near each other (ratios around 1, some clipped), a hole and a short row."""
    rng = random.Random(seed)
    old = [[rng.uniform(-2.0, -0.2) for _ in range(T)] for _ in range(B)]
    lp = [[o + rng.uniform(-scale, scale) for o in row] for row in old]
    adv = [[rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 1.5)] * T for _ in range(B)]
    mask = [[1.0] * T for _ in range(B)]
    mask[1][T - 1] = 0.0
    mask[2][1] = 0.0
    return old, lp, adv, mask


def _leaf(x):
    return torch.tensor(x, dtype=D, requires_grad=True)


def _f(x):
    return float(x.detach()) if isinstance(x, torch.Tensor) else float(x)


def _close(a, b, tol=1e-12):
    a, b = _f(a), _f(b)
    if math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, rel=tol, abs=tol)


# --- slow references: one Python loop per element, from the upstream formulas ------------------------

def _clamp(x, lo=None, hi=None):
    return torch.clamp(x, min=lo, max=hi)


def slow_verl_gspo(old, lp, adv, mask, lo=0.2, hi=0.2):
    """verl compute_policy_loss_gspo with the straight-through sequence ratio, token by token."""
    B, T = len(mask), len(mask[0])
    row_losses, n_clip, n_tok, kl = [], 0.0, 0.0, 0.0
    for i in range(B):
        n = sum(mask[i])
        log_s = sum((lp[i][t] - old[i][t]) * mask[i][t] for t in range(T)) / max(n, 1.0)
        acc = 0.0
        for t in range(T):
            x = _clamp(lp[i][t] - lp[i][t].detach() + log_s.detach(), hi=10.0)
            s = torch.exp(x)
            l1 = -adv[i][t] * s
            l2 = -adv[i][t] * _clamp(s, 1 - lo, 1 + hi)
            acc = acc + torch.maximum(l1, l2) * mask[i][t]
            if mask[i][t]:
                n_tok += 1
                n_clip += float(l2 > l1)
                kl += -_f(lp[i][t] - old[i][t])
        if n > 0:
            row_losses.append(acc / (n + EPS8))
    loss = sum(row_losses) / len(row_losses) if row_losses else float("nan")
    return loss, n_clip / (n_tok + EPS8), kl / (n_tok + EPS8)


def slow_verl_sapo(old, lp, adv, mask, tau_pos=1.0, tau_neg=1.05):
    B, T = len(mask), len(mask[0])
    row_losses, kl, n_tok = [], 0.0, 0.0
    for i in range(B):
        n, acc = sum(mask[i]), 0.0
        for t in range(T):
            r = torch.exp(_clamp(lp[i][t] - old[i][t], -20.0, 20.0))
            tau = tau_pos if adv[i][t] > 0 else tau_neg
            gate = torch.sigmoid(tau * (r - 1.0)) * (4.0 / tau)
            acc = acc + (-gate * adv[i][t]) * mask[i][t]
            if mask[i][t]:
                n_tok += 1
                kl += -_f(_clamp(lp[i][t] - old[i][t], -20.0, 20.0))
        if n > 0:
            row_losses.append(acc / (n + EPS8))
    return sum(row_losses) / len(row_losses), kl / (n_tok + EPS8)


def slow_verl_cispo(old, lp, adv, mask, lo=0.2, hi=0.2):
    """token-mean aggregation (the call's default loss_agg_mode)."""
    B, T = len(mask), len(mask[0])
    total, n_tok, n_clip = 0.0, 0.0, 0.0
    for i in range(B):
        for t in range(T):
            r = torch.exp(_clamp(lp[i][t] - old[i][t], -20.0, 20.0))
            w = _clamp(r, 1 - lo, 1 + hi)
            total = total + (-w.detach() * adv[i][t] * lp[i][t]) * mask[i][t]
            if mask[i][t]:
                n_tok += 1
                n_clip += float(_f(r) != _f(w))
    return total / n_tok, n_clip / (n_tok + EPS8)


def slow_verl_gpg(lp, adv, mask):
    B, T = len(mask), len(mask[0])
    total = sum(-lp[i][t] * adv[i][t] * mask[i][t] for i in range(B) for t in range(T))
    return total / sum(map(sum, mask))


def slow_verl_geo_mean(old, lp, adv, mask, lo=0.2, hi=0.2):
    B, T = len(mask), len(mask[0])
    losses, ratios = [], []
    for i in range(B):
        n = sum(mask[i])
        log_sum, a_sum = 0.0, 0.0
        for t in range(T):
            d = lp[i][t] - old[i][t]
            a = adv[i][t]
            # the clip is on the log-ratio, and only in the direction that helps the advantage's sign
            if a > 0:
                d = torch.minimum(d, torch.full_like(d, hi))
            elif a < 0:
                d = torch.maximum(d, torch.full_like(d, -lo))
            else:
                d = d * 0.0
            log_sum = log_sum + d * mask[i][t]
            a_sum += a * mask[i][t]
        ratio = torch.exp(log_sum / (n + EPS8)) if isinstance(log_sum, torch.Tensor) else math.exp(0.0)
        ratios.append(ratio)
        losses.append(-(a_sum / (n + EPS8)) * ratio)
    return sum(losses) / B, ratios


def slow_openrlhf_gspo(old, lp, adv, mask, lo=0.2, hi=0.2, dual_clip=None):
    B, T = len(mask), len(mask[0])
    seq_losses = []
    for i in range(B):
        n = sum(mask[i])
        s = torch.exp(sum((lp[i][t] - old[i][t]) * mask[i][t] for t in range(T)) / max(n, 1.0))
        acc = 0.0
        for t in range(T):
            if not mask[i][t]:
                continue
            a = adv[i][t]
            inner = torch.minimum(s * a, _clamp(s, 1 - lo, 1 + hi) * a)
            if dual_clip is not None and a < 0:
                inner = torch.maximum(inner, torch.full_like(inner, dual_clip * a))
            acc = acc - inner
        if n > 0:
            seq_losses.append(acc / (n + EPS8))
    return sum(seq_losses) / len(seq_losses)


def _trl_w(old, lp, mask, i, t, level):
    T = len(mask[0])
    if level == "token":
        return torch.exp(lp[i][t] - old[i][t])
    n = max(sum(mask[i]), 1.0)
    return torch.exp(sum((lp[i][k] - old[i][k]) * mask[i][k] for k in range(T)) / n)


def slow_trl(loss_type, old, lp, adv, mask, eps=0.2, eps_high=None, level="sequence", tau_pos=1.0, tau_neg=1.05):
    """TRL HEAD _compute_loss with beta = 0; adv is one value per row."""
    B, T = len(mask), len(mask[0])
    eps_high = eps if eps_high is None else eps_high
    if loss_type == "luspo":
        total = 0.0
        for i in range(B):
            n = sum(mask[i])
            if level == "sequence":
                w = _trl_w(old, lp, mask, i, 0, level)
                L = -torch.minimum(w * adv[i], _clamp(w, 1 - eps, 1 + eps_high) * adv[i])
                total = total + L * n
            else:  # every position, masked ones too, as upstream's (B, T) mean
                for t in range(T):
                    w = _trl_w(old, lp, mask, i, t, level)
                    L = -torch.minimum(w * adv[i], _clamp(w, 1 - eps, 1 + eps_high) * adv[i])
                    total = total + L * n / T
        return total / B
    if loss_type == "cispo":
        total, n_all = 0.0, sum(map(sum, mask))
        for i in range(B):
            for t in range(T):
                w = _trl_w(old, lp, mask, i, t, level)
                total = total + (-_clamp(w, hi=eps_high).detach() * adv[i] * lp[i][t]) * mask[i][t]
        return total / max(n_all, 1.0)
    # sapo: the temperatures are float32 values upstream (torch.where on Python floats)
    rows = []
    for i in range(B):
        tau = float(np.float32(tau_pos if adv[i] > 0 else tau_neg))
        acc = 0.0
        for t in range(T):
            w = _trl_w(old, lp, mask, i, t, level)
            acc = acc + (-(torch.sigmoid(tau * (w - 1)) * 4 / tau) * adv[i]) * mask[i][t]
        rows.append(acc / max(sum(mask[i]), 1.0))
    return sum(rows) / B


# --- engine helpers ------------------------------------------------------------------------------------

def _ppo(variant, old, lp, adv, mask, **kw):
    return call("ppo.policy_loss", old_log_prob=old, log_prob=lp, advantages=adv, mask=mask, loss_variant=variant,
                **kw)


def _grad(out, x):
    (g,) = torch.autograd.grad(out, x, allow_unused=False)
    return g


def _fd(fn, x0, h=1e-6):
    """Central differences of the scalar ``fn`` at the nested list ``x0``."""
    base = np.array(x0, dtype=np.float64)
    g = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        up, dn = base.copy(), base.copy()
        up[idx] += h
        dn[idx] -= h
        g[idx] = (fn(up.tolist()) - fn(dn.tolist())) / (2 * h)
    return g


SEEDS = [0, 1, 2, 3]


# --- verl: values and metrics against the slow loops -------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_verl_gspo_matches_slow_loop_and_gradient(seed):
    old, lp0, adv, mask = _batch(seed)
    lp, lp_s = _leaf(lp0), _leaf(lp0)
    out = _ppo("gspo", old, lp, adv, mask)
    loss, clipfrac, kl = slow_verl_gspo(old, lp_s, adv, mask)
    _close(out["pg_loss"], loss)
    _close(out["pg_clipfrac"], clipfrac)
    _close(out["ppo_kl"], kl)
    assert _f(out["pg_clipfrac_lower"]) == 0.0
    assert torch.allclose(_grad(out["pg_loss"], lp), _grad(loss, lp_s), rtol=1e-12, atol=1e-14)


def _varying_adv(adv, seed):
    """Per-token advantages that differ within a row, same sign (the straight-through gradient differs
    from the true sequence gradient only when a row's token advantages differ)."""
    rng = random.Random(seed + 50)
    return [[a * rng.uniform(0.5, 1.5) for a in row] for row in adv]


@pytest.mark.parametrize("seed", SEEDS)
def test_verl_gspo_straight_through_gradient(seed):
    # The value depends on lp only through s_i: finite differences see the true derivative
    # ∂/∂lp_t = −Ā_i·s_i/(n_i·rows) (Ā_i the row's mean advantage); verl's detach trick gives token t its own
    # −A_t·s_i/(n_i·rows) instead. Masked tokens get 0 either way.
    old, lp0, adv, mask = _batch(seed, scale=0.05)  # no clipping: every token carries a gradient
    adv = _varying_adv(adv, seed)
    lp = _leaf(lp0)
    out = _ppo("gspo", old, lp, adv, mask)
    assert _f(out["pg_clipfrac"]) == 0.0
    g = _grad(out["pg_loss"], lp).cpu().numpy()
    m, a = np.array(mask), np.array(adv)
    n = m.sum(axis=1, keepdims=True)
    s = out["seq_ratio"].detach().cpu().numpy()[:, None]
    assert np.allclose(g, -a * s * m / (n + EPS8) / len(mask), rtol=1e-12, atol=1e-15)
    a_bar = (a * m).sum(axis=1, keepdims=True) / n
    fd = _fd(lambda x: _f(_ppo("gspo", old, x, adv, mask)["pg_loss"]), lp0)
    assert np.allclose(fd, -a_bar * s * m / n / len(mask), rtol=1e-6, atol=1e-9)
    assert not np.allclose(g, fd, rtol=1e-3, atol=1e-6)


def test_verl_gspo_hand_case_and_log_clamp():
    # One row, two tokens, log-ratios 0.3 and 0.1: log s = 0.2, s = e^0.2 ≈ 1.2214 > 1.2, A = 1:
    # L = max(−s, −1.2) = −1.2 per token, clipfrac 1. With A = −1: L = max(s, 1.2) = s.
    old, lp = [[-1.0, -1.0]], [[-0.7, -0.9]]
    out = _ppo("gspo", old, lp, [[1.0, 1.0]], [[1.0, 1.0]])
    _close(out["pg_loss"], -1.2 * 2 / (2 + EPS8))
    _close(out["pg_clipfrac"], 2 / (2 + EPS8))
    _close(out["seq_ratio"][0], math.exp(0.2))
    out = _ppo("gspo", old, lp, [[-1.0, -1.0]], [[1.0, 1.0]])
    _close(out["pg_loss"], math.exp(0.2) * 2 / (2 + EPS8))
    # log s = 11 is clamped at 10 before exp (A < 0 keeps the unclipped term)
    out = _ppo("gspo", [[0.0]], [[-11.0 + 22.0]], [[-1.0]], [[1.0]])
    _close(out["pg_loss"], math.exp(10.0) / (1 + EPS8))


def test_verl_gspo_ignores_loss_agg_mode_and_skips_empty_rows():
    old, lp0, adv, mask = _batch(5)
    mask[0] = [0.0] * 4
    a = _ppo("gspo", old, lp0, adv, mask)
    b = _ppo("gspo", old, lp0, adv, mask, loss_agg_mode="token-mean")
    c = _ppo("gspo", old, lp0, adv, mask, loss_agg_mode="seq-mean-token-sum")
    _close(a["pg_loss"], b["pg_loss"])
    _close(a["pg_loss"], c["pg_loss"])
    _close(a["pg_loss"], slow_verl_gspo(old, _leaf(lp0), adv, mask)[0])
    _close(a["seq_ratio"][0], 1.0)  # an empty row has mean log-ratio 0/1


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("taus", [(1.0, 1.05), (0.5, 2.0)])
def test_verl_sapo_matches_slow_loop_and_finite_differences(seed, taus):
    old, lp0, adv, mask = _batch(seed)
    lp, lp_s = _leaf(lp0), _leaf(lp0)
    out = _ppo("sapo", old, lp, adv, mask, tau_pos=taus[0], tau_neg=taus[1])
    loss, kl = slow_verl_sapo(old, lp_s, adv, mask, *taus)
    _close(out["pg_loss"], loss)
    _close(out["ppo_kl"], kl)
    assert _f(out["pg_clipfrac"]) == 0.0 and _f(out["pg_clipfrac_lower"]) == 0.0
    g = _grad(out["pg_loss"], lp)
    assert torch.allclose(g, _grad(loss, lp_s), rtol=1e-12, atol=1e-14)
    fd = _fd(lambda x: _f(_ppo("sapo", old, x, adv, mask, tau_pos=taus[0], tau_neg=taus[1])["pg_loss"]), lp0)
    assert np.allclose(g.cpu().numpy(), fd, rtol=1e-6, atol=1e-9)


def test_verl_sapo_on_policy_gate_by_hand():
    # r = 1: f = σ(0)·4/τ = 2/τ, so L = −2A/τ and ∂L/∂lp = −A·f'(1) = −A·(τ/4)·(4/τ) = −A.
    lp = _leaf([[-1.0, -1.0]])
    out = _ppo("sapo", [[-1.0, -1.0]], lp, [[1.0, 1.0]], [[1.0, 1.0]], tau_pos=0.8)
    _close(out["pg_loss"], -2 / 0.8 * 2 / (2 + EPS8))
    assert torch.allclose(_grad(out["pg_loss"], lp), torch.tensor([[-0.5, -0.5]], dtype=D) * 2 / (2 + EPS8))


@pytest.mark.parametrize("seed", SEEDS)
def test_verl_cispo_matches_slow_loop_and_keeps_clipped_gradients(seed):
    old, lp0, adv, mask = _batch(seed)
    lp, lp_s = _leaf(lp0), _leaf(lp0)
    out = _ppo("cispo", old, lp, adv, mask)
    loss, clipfrac = slow_verl_cispo(old, lp_s, adv, mask)
    _close(out["pg_loss"], loss)
    _close(out["pg_clipfrac"], clipfrac)
    g = _grad(out["pg_loss"], lp)
    assert torch.allclose(g, _grad(loss, lp_s), rtol=1e-12, atol=1e-14)
    # ∂L/∂lp = −clip(r)·A / N on every counted token, clipped or not (unlike PPO, which zeroes them)
    r = np.exp(np.clip(np.array(lp0) - np.array(old), -20, 20))
    expected = -np.clip(r, 0.8, 1.2) * np.array(adv) * np.array(mask) / np.array(mask).sum()
    assert np.allclose(g.cpu().numpy(), expected, rtol=1e-12, atol=1e-15)
    assert clipfrac > 0  # the batch does exercise the clip


def test_verl_cispo_vs_vanilla_on_a_clipped_token_by_hand():
    # r = e^0.5 ≈ 1.6487, A = 2: vanilla PPO loss −1.2·2 with zero gradient; CISPO −1.2·2·lp, gradient −2.4.
    lp_v, lp_c = _leaf([[-0.5]]), _leaf([[-0.5]])
    v = _ppo("vanilla", [[-1.0]], lp_v, [[2.0]], [[1.0]])
    c = _ppo("cispo", [[-1.0]], lp_c, [[2.0]], [[1.0]])
    _close(v["pg_loss"], -2.4)
    _close(c["pg_loss"], -1.2 * 2.0 * -0.5)
    assert _f(_grad(v["pg_loss"], lp_v)[0, 0]) == 0.0
    _close(_grad(c["pg_loss"], lp_c)[0, 0], -2.4)


@pytest.mark.parametrize("mode", ["token-mean", "seq-mean-token-sum"])
def test_verl_gpg_matches_slow_loop(mode):
    old, lp0, adv, mask = _batch(7)
    lp = _leaf(lp0)
    out = _ppo("gpg", old, lp, adv, mask, loss_agg_mode=mode)
    assert set(out) == {"pg_loss", "per_token_loss"}
    if mode == "token-mean":
        _close(out["pg_loss"], slow_verl_gpg(_leaf(lp0), adv, mask))
    else:  # per row Σ then mean over rows with a counted token
        rows = [sum(-lp0[i][t] * adv[i][t] * mask[i][t] for t in range(4)) for i in range(3)]
        _close(out["pg_loss"], sum(rows) / 3)
    g = _grad(out["pg_loss"], lp).cpu().numpy()
    fd = _fd(lambda x: _f(_ppo("gpg", old, x, adv, mask, loss_agg_mode=mode)["pg_loss"]), lp0)
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_verl_geo_mean_matches_slow_loop_and_finite_differences(seed):
    old, lp0, adv, mask = _batch(seed, scale=0.5)
    lp, lp_s = _leaf(lp0), _leaf(lp0)
    out = _ppo("geo_mean", old, lp, adv, mask, clip_ratio=0.2)
    loss, ratios = slow_verl_geo_mean(old, lp_s, adv, mask)
    _close(out["pg_loss"], loss)
    for got, exp in zip(out["seq_ratio"], ratios):
        _close(got, exp)
    g = _grad(out["pg_loss"], lp)
    assert torch.allclose(g, _grad(loss, lp_s), rtol=1e-12, atol=1e-14)
    fd = _fd(lambda x: _f(_ppo("geo_mean", old, x, adv, mask)["pg_loss"]), lp0)
    assert np.allclose(g.cpu().numpy(), fd, rtol=1e-6, atol=1e-9)
    # clip fractions: |δ| beyond the bound on its side, split by the advantage's sign
    d = np.array(lp0) - np.array(old)
    clipped = (d < -0.2) | (d > 0.2)
    m, a = np.array(mask), np.array(adv)
    _close(out["pg_clipfrac"], (clipped * (a > 0) * m).sum() / (m.sum() + EPS8))
    _close(out["pg_clipfrac_lower"], (clipped * (a < 0) * m).sum() / (m.sum() + EPS8))


def test_verl_geo_mean_hand_case_and_empty_row():
    # Row 0: δ = (0.5, −0.1), A = 1 → clip only upward: (0.2, −0.1), ρ = e^{0.05}; row 1 fully masked: loss 0,
    # still counted in the plain mean over 2 rows.
    out = _ppo("geo_mean", [[0.0, 0.0], [0.0, 0.0]], [[0.5, -0.1], [0.3, 0.3]], [[1.0, 1.0], [1.0, 1.0]],
               [[1.0, 1.0], [0.0, 0.0]])
    ratio = math.exp(0.1 / (2 + EPS8))
    _close(out["pg_loss"], (-(2 / (2 + EPS8)) * ratio + 0.0) / 2)
    _close(out["seq_ratio"][1], 1.0)
    _close(out["pg_clipfrac"], 1 / (2 + EPS8))


# --- OpenRLHF GSPO --------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dual", [None, 3.0])
def test_openrlhf_gspo_matches_slow_loop_and_true_gradient(seed, dual):
    old, lp0, adv, mask = _batch(seed)
    lp, lp_s = _leaf(lp0), _leaf(lp0)
    out = _ppo("gspo", old, lp, adv, mask, convention="openrlhf", clip_ratio_c=dual)
    loss = slow_openrlhf_gspo(old, lp_s, adv, mask, dual_clip=dual)
    _close(out["pg_loss"], loss)
    assert "pg_clipfrac_lower" not in out and "approx_kl" not in out
    g = _grad(out["pg_loss"], lp)
    assert torch.allclose(g, _grad(loss, lp_s), rtol=1e-12, atol=1e-14)
    fd = _fd(lambda x: _f(_ppo("gspo", old, x, adv, mask, convention="openrlhf", clip_ratio_c=dual)["pg_loss"]),
             lp0)
    assert np.allclose(g.cpu().numpy(), fd, rtol=1e-6, atol=1e-9)  # no straight-through: the true derivative
    m = np.array(mask)
    _close(out["ppo_kl"], (-(np.array(lp0) - np.array(old)) * m).sum() / m.sum())


def test_openrlhf_and_verl_gspo_agree_on_value_not_on_gradient():
    old, lp0, adv, mask = _batch(11, scale=0.05)
    adv = _varying_adv(adv, 11)
    lv, lo = _leaf(lp0), _leaf(lp0)
    v = _ppo("gspo", old, lv, adv, mask)
    o = _ppo("gspo", old, lo, adv, mask, convention="openrlhf", clip_ratio_c=None)
    _close(v["pg_loss"], o["pg_loss"], tol=1e-7)  # the 1e-8 in verl's row mean is the only difference
    gv, go = _grad(v["pg_loss"], lv).cpu().numpy(), _grad(o["pg_loss"], lo).cpu().numpy()
    m = np.array(mask)
    # per row the two gradients have the same total (the sequence-level derivative) but a different split
    assert np.allclose(gv.sum(axis=1), go.sum(axis=1), rtol=1e-6)
    assert not np.allclose(gv, go, rtol=1e-3)
    assert np.all(go[m == 0] == 0.0) and np.all(gv[m == 0] == 0.0)


def test_openrlhf_gspo_empty_mask_and_global_batch():
    out = _ppo("gspo", [[0.0, 0.0]], [[0.1, 0.2]], [[1.0, 1.0]], [[0.0, 0.0]], convention="openrlhf")
    assert math.isnan(_f(out["pg_loss"])) and math.isnan(_f(out["ppo_kl"]))
    old, lp0, adv, mask = _batch(3)
    a = _ppo("gspo", old, lp0, adv, mask, convention="openrlhf", clip_ratio_c=None)
    b = _ppo("gspo", old, lp0, adv, mask, convention="openrlhf", clip_ratio_c=None, global_batch_size=6.0,
             dp_size=2)
    _close(b["pg_loss"], _f(a["pg_loss"]) * 3 / 6 * 2)


# --- edge cases and errors (verl) ----------------------------------------------------------------------

def test_all_zero_mask_per_variant():
    args = dict(old_log_prob=[[0.0, 0.0]], log_prob=[[0.1, -0.2]], advantages=[[1.0, 1.0]], mask=[[0.0, 0.0]])
    for variant in ("gspo", "sapo", "cispo", "gpg"):
        out = call("ppo.policy_loss", loss_variant=variant, **args)
        assert math.isnan(_f(out["pg_loss"])), variant  # 0/0 in verl's agg_loss
        if "ppo_kl" in out:
            assert _f(out["ppo_kl"]) == 0.0
    geo = call("ppo.policy_loss", loss_variant="geo_mean", **args)
    assert _f(geo["pg_loss"]) == 0.0


def test_float32_keeps_dtype():
    old, lp0, adv, mask = _batch(2)
    for variant in ("gspo", "sapo", "cispo", "gpg", "geo_mean"):
        out = _ppo(variant, old, lp0, adv, mask, dtype="float32")
        assert out["pg_loss"].dtype == torch.float32, variant
        _close(out["pg_loss"], _ppo(variant, old, lp0, adv, mask)["pg_loss"], tol=1e-5)


@pytest.mark.parametrize("kwargs, field", [
    (dict(loss_variant="sapo", convention="openrlhf"), "convention"),
    (dict(loss_variant="gspo", convention="trl"), "convention"),
    (dict(loss_variant="cispo", ratio_threshold=2.0), "ratio_threshold"),
    (dict(loss_variant="sapo", tau_pos=0.0), "tau_pos"),
    (dict(loss_variant="sapo", tau_neg=-1.0), "tau_neg"),
    (dict(loss_variant="bypass_mode"), "loss_variant"),  # a verl variant the engine does not implement
])
def test_variant_input_errors(kwargs, field):
    with pytest.raises(ReferenceInputError) as exc:
        call("ppo.policy_loss", old_log_prob=[[0.0]], log_prob=[[0.0]], advantages=[[1.0]], mask=[[1.0]], **kwargs)
    assert exc.value.argument == field


# --- TRL HEAD grpo.loss types -------------------------------------------------------------------------

def _trl_batch(seed):
    old, lp, _, mask = _batch(seed, scale=0.4)
    rng = random.Random(seed + 100)
    adv = [rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 1.5) for _ in mask]
    return old, lp, adv, mask


def _grpo(loss_type, old, lp, adv, mask, **kw):
    kw.setdefault("beta", 0.0)
    return call("grpo.loss", log_prob=lp, old_log_prob=old, advantages=adv, mask=mask, loss_type=loss_type, **kw)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("loss_type, level, kw", [
    ("luspo", "sequence", {}), ("luspo", "token", {}), ("luspo", "sequence", {"epsilon_high": 0.28}),
    ("cispo", "token", {"epsilon_high": 1.1}), ("cispo", "sequence", {"epsilon_high": 1.05}),
    ("cispo", "token", {}),
    ("sapo", "token", {}), ("sapo", "sequence", {"sapo_temperature_pos": 0.7, "sapo_temperature_neg": 1.3}),
])
def test_trl_types_match_slow_loop(seed, loss_type, level, kw):
    old, lp0, adv, mask = _trl_batch(seed)
    lp, lp_s = _leaf(lp0), _leaf(lp0)
    out = _grpo(loss_type, old, lp, adv, mask, importance_sampling_level=level, **kw)
    slow_kw = dict(eps_high=kw.get("epsilon_high"), tau_pos=kw.get("sapo_temperature_pos", 1.0),
                   tau_neg=kw.get("sapo_temperature_neg", 1.05))
    loss = slow_trl(loss_type, old, lp_s, adv, mask, level=level, **slow_kw)
    _close(out["loss"], loss)
    g = _grad(out["loss"], lp)
    assert torch.allclose(g, _grad(loss, lp_s), rtol=1e-12, atol=1e-14)
    if loss_type != "cispo":  # cispo detaches its weight, so its value's derivative is not its gradient
        fd = _fd(lambda x: _f(_grpo(loss_type, old, x, adv, mask, importance_sampling_level=level, **kw)["loss"]),
                 lp0)
        assert np.allclose(g.cpu().numpy(), fd, rtol=1e-6, atol=1e-9)


def test_trl_sapo_uses_float32_temperatures():
    # tau_neg = 1.05 is 1.0499999523 in float32: the float64 result matches that, not the exact 1.05.
    old, lp0, _, mask = _trl_batch(4)
    adv = [-1.0, -0.5, -0.8]
    out = _f(_grpo("sapo", old, lp0, adv, mask)["loss"])
    _close(out, slow_trl("sapo", old, _leaf(lp0), adv, mask, level="token"))
    exact = 0.0
    for i, row in enumerate(mask):
        acc = sum(-1 / (1 + math.exp(-1.05 * (math.exp(lp0[i][t] - old[i][t]) - 1))) * 4 / 1.05 * adv[i] * row[t]
                  for t in range(4))
        exact += acc / sum(row) / 3
    assert abs(out - exact) > 1e-9
    # verl's SAPO keeps the exact temperature in the advantages' dtype
    verl = _f(_ppo("sapo", old, lp0, [[a] * 4 for a in adv], mask)["pg_loss"])
    _close(verl, slow_verl_sapo(old, _leaf(lp0), [[a] * 4 for a in adv], mask)[0])


def test_trl_cispo_gradient_and_metric_by_hand():
    # Token level, w = (e^0.5, e^−0.2) with A = 2, ε_high = 1.5: sg weights (1.5, e^−0.2);
    # loss = Σ −w·A·lp / 2, ∂/∂lp = −w·A/2; cispo_clip_ratio = 1/2 (w > 1.5 with A > 0).
    lp = _leaf([[-0.5, -1.2]])
    out = _grpo("cispo", [[-1.0, -1.0]], lp, [2.0], [[1.0, 1.0]], epsilon_high=1.5)
    w = [1.5, math.exp(-0.2)]
    _close(out["loss"], (-w[0] * 2 * -0.5 - w[1] * 2 * -1.2) / 2)
    assert torch.allclose(_grad(out["loss"], lp), torch.tensor([[-w[0], -w[1]]], dtype=D))
    _close(out["cispo_clip_ratio"], 0.5)
    assert "clip_ratio_low" not in out


def test_trl_luspo_weights_by_length_by_hand():
    # Sequence level, on-policy (w = 1): L_i = −A_i; loss = mean_i |y_i|·L_i = (−3·1 − 1·(−2))/2 = −0.5.
    lp = [[-1.0, -1.0, -1.0], [-0.5, -0.5, -0.5]]
    out = _grpo("luspo", lp, lp, [1.0, -2.0], [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]],
                importance_sampling_level="sequence")
    _close(out["loss"], -0.5)
    grpo = _grpo("grpo", lp, lp, [1.0, -2.0], [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]],
                 importance_sampling_level="sequence")
    _close(grpo["loss"], 0.5)  # the per-row mean without the length weights


def test_trl_types_with_kl_and_empty_mask():
    old, lp0, adv, mask = _trl_batch(6)
    ref = [[x - 0.1 for x in row] for row in lp0]
    for t in ("luspo", "cispo", "sapo"):
        with_kl = _grpo(t, old, lp0, adv, mask, ref_log_prob=ref, beta=0.1)
        assert "kl" in with_kl and _f(with_kl["kl"]) > 0
        zero = call("grpo.loss", log_prob=[[0.1, 0.2]], old_log_prob=[[0.0, 0.0]], advantages=[1.0],
                    mask=[[0.0, 0.0]], beta=0.0, loss_type=t)
        assert _f(zero["loss"]) == 0.0, t  # every TRL normaliser clamps its count at 1
    # kl adds β·k3 into each type's own normalisation: sapo averages per row like grpo
    base = _f(_grpo("sapo", old, lp0, adv, mask)["loss"])
    k3 = [[math.exp(r - x) - (r - x) - 1 for r, x in zip(rr, xr)] for rr, xr in zip(ref, lp0)]
    kl_term = sum(sum(k * m for k, m in zip(kr, mr)) / sum(mr) for kr, mr in zip(k3, mask)) / 3
    _close(_grpo("sapo", old, lp0, adv, mask, ref_log_prob=ref, beta=0.1)["loss"], base + 0.1 * kl_term)


def test_trl_temperature_errors():
    for name in ("sapo_temperature_pos", "sapo_temperature_neg"):
        with pytest.raises(ReferenceInputError) as exc:
            call("grpo.loss", log_prob=[[0.0]], advantages=[1.0], mask=[[1.0]], beta=0.0, loss_type="sapo",
                 **{name: 0.0})
        assert exc.value.argument == name


# --- HTTP ------------------------------------------------------------------------------------------------

def test_variants_over_http(client):
    old, lp0, adv, mask = _batch(1)
    args = dict(old_log_prob=old, log_prob=lp0, advantages=adv, mask=mask, loss_variant="gspo")
    resp = client.post("/api/v1/reference/ppo.policy_loss", json=args)
    assert resp.status_code == 200, resp.get_json()
    expected = _f(slow_verl_gspo(old, _leaf(lp0), adv, mask)[0])
    assert resp.get_json()["outputs"]["pg_loss"] == pytest.approx(expected, rel=1e-12)
    ok = client.post("/api/v1/verify/ppo.policy_loss",
                     json={"args": args, "claimed": {"pg_loss": expected}}).get_json()
    assert ok["match"] is True
    wrong = _f(_ppo("vanilla", old, lp0, adv, mask)["pg_loss"])
    bad = client.post("/api/v1/verify/ppo.policy_loss", json={"args": args, "claimed": {"pg_loss": wrong}}).get_json()
    assert bad["match"] is False

    t_old, t_lp, t_adv, t_mask = _trl_batch(2)
    gargs = dict(log_prob=t_lp, old_log_prob=t_old, advantages=t_adv, mask=t_mask, beta=0.0, loss_type="cispo",
                 epsilon_high=5.0)
    expected = _f(slow_trl("cispo", t_old, _leaf(t_lp), t_adv, t_mask, eps_high=5.0, level="token"))
    body = client.post("/api/v1/verify/grpo.loss", json={"args": gargs, "claimed": {"loss": expected}}).get_json()
    assert body["match"] is True

    err = client.post("/api/v1/reference/ppo.policy_loss", json={**args, "loss_variant": "sapo",
                                                                 "convention": "trl"})
    assert err.status_code == 422 and err.get_json()["error"]["field"] == "convention"
    listing = client.get("/api/v1/reference").get_json()["functions"]
    ppo = next(f for f in listing if f["name"] == "ppo.policy_loss")
    variant = next(p for p in ppo["params"] if p["name"] == "loss_variant")
    assert set(variant["allowed"]) == {"vanilla", "gspo", "sapo", "cispo", "gpg", "geo_mean", "clip_cov", "kl_cov"}
