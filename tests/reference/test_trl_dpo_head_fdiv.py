"""TRL head ``DPOTrainer._compute_loss``: nca_pair, bco_pair, sppo_hard, apo_down (second term) and
discopop take the f-divergence scores s(r) = forward_kl −e^{−r}, js log σ(r), … instead of the plain
log-ratios r; TRL v0.28 keeps r there. Expected values are hand arithmetic on r_c = 0, r_r = ln 2:
forward_kl gives s_c = −1, s_r = −1/2."""

import math

import pytest

from checkers.reference import call

LN2 = math.log(2.0)


def sig(x):
    return 1.0 / (1.0 + math.exp(-x))


def logsig(x):
    return -math.log1p(math.exp(-x))


def run(loss_type, version, f="forward_kl", beta=0.5, **kw):
    # r_c = π_c − π_ref,c = 0, r_r = π_r − π_ref,r = ln 2
    return float(call("dpo.loss", policy_chosen_logps=[-3.0], policy_rejected_logps=[-4.0 + LN2],
                      ref_chosen_logps=[-3.0], ref_rejected_logps=[-4.0], beta=beta, loss_type=loss_type,
                      trl_version=version, f_divergence=f, device="cpu", **kw)["loss"])


S_C, S_R = -1.0, -0.5  # −e^{−0}, −e^{−ln 2}


def test_sppo_hard_head_uses_scores():
    # (s_c − 1/(2β))² + (s_r + 1/(2β))² with β = 0.5: (−1 − 1)² + (−0.5 + 1)² = 4 + 0.25
    assert run("sppo_hard", "head") == pytest.approx(4.25, abs=1e-12)
    # v0.28: (0 − 1)² + (ln 2 + 1)²
    assert run("sppo_hard", "0.28") == pytest.approx(1.0 + (LN2 + 1.0) ** 2, abs=1e-12)


def test_nca_pair_head_uses_scores():
    b = 0.5
    expected = -logsig(b * S_C) - 0.5 * logsig(-b * S_C) - 0.5 * logsig(-b * S_R)
    assert run("nca_pair", "head") == pytest.approx(expected, abs=1e-12)


def test_bco_pair_head_uses_scores():
    b = 0.5  # head: δ = 0
    expected = -logsig(b * S_C) - logsig(-b * S_R)
    assert run("bco_pair", "head") == pytest.approx(expected, abs=1e-12)


def test_apo_down_head_second_term_uses_score_difference():
    b = 0.5  # σ(β r_c) + 1 − σ(β(s_c − s_r)), r_c = 0
    expected = sig(0.0) + 1.0 - sig(b * (S_C - S_R))
    assert run("apo_down", "head") == pytest.approx(expected, abs=1e-12)
    # v0.28: σ(0) + 1 − σ(β(0 − ln 2))
    assert run("apo_down", "0.28") == pytest.approx(0.5 + 1.0 - sig(-b * LN2), abs=1e-12)


def test_discopop_head_uses_score_difference():
    b, tau = 0.5, 0.05
    z = b * (S_C - S_R)  # −0.25
    m = sig(z / tau)
    expected = -logsig(z) * (1 - m) + math.exp(-z) * m
    assert run("discopop", "head", discopop_tau=tau) == pytest.approx(expected, abs=1e-12)


def test_js_divergence_head_sppo():
    b = 0.5  # s = log σ(r): s_c = −ln 2, s_r = log(2/3)
    s_c, s_r = -LN2, math.log(2.0 / 3.0)
    expected = (s_c - 1.0) ** 2 + (s_r + 1.0) ** 2
    assert run("sppo_hard", "head", f="js_divergence", beta=b) == pytest.approx(expected, abs=1e-12)


def test_reverse_kl_head_unchanged():
    # reverse_kl: s = r, so head equals v0.28 (bco_pair with an explicit δ = 0 under both)
    for lt in ("nca_pair", "sppo_hard", "apo_down", "discopop"):
        assert run(lt, "head", f="reverse_kl") == pytest.approx(run(lt, "0.28", f="reverse_kl"), abs=1e-12)
