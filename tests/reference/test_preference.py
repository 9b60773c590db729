"""dpo.*, cpo.loss, simpo.loss, orpo.loss, kto.loss, preference.bradley_terry and policy.optimal."""

import itertools
import math
import struct

import pytest
import torch

from checkers.reference import ReferenceInputError, call

D = torch.float64


def approx(x, expected, tol=1e-12):
    assert _num(x) == pytest.approx(_num(expected), abs=tol, rel=tol)


def _num(v):
    return float(v.detach()) if isinstance(v, torch.Tensor) else float(v)


def sig(x):
    return 1.0 / (1.0 + math.exp(-x))


def logsig(x):
    return -math.log1p(math.exp(-x))


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


# One pair: policy chosen −1, rejected −3, reference −2 and −2, β = 0.5.
# r_c = 1, r_r = −1, h = r_c − r_r = 2, βh = 1; βr_c = 0.5, βr_r = −0.5.
PAIR = dict(policy_chosen_logps=[-1.0], policy_rejected_logps=[-3.0], ref_chosen_logps=[-2.0],
            ref_rejected_logps=[-2.0], beta=0.5)


def dpo(**kw):
    args = dict(PAIR)
    args.update(kw)
    return call("dpo.loss", **args)


@pytest.mark.parametrize("loss_type, extra, expected", [
    ("sigmoid", {}, -logsig(1.0)),
    ("sigmoid", {"label_smoothing": 0.1}, -0.9 * logsig(1.0) - 0.1 * logsig(-1.0)),
    ("hinge", {"beta": 0.25}, 1 - 0.25 * 2),
    ("ipo", {}, (2 - 1 / (2 * 0.5)) ** 2),
    ("robust", {"label_smoothing": 0.1}, (-0.9 * logsig(1.0) + 0.1 * logsig(-1.0)) / (1 - 0.2)),
    ("exo_pair", {}, sig(1) * (logsig(1) - math.log(1 - 1e-3)) + sig(-1) * (logsig(-1) - math.log(1e-3))),
    ("exo_pair", {"label_smoothing": 0.2},
     sig(1) * (logsig(1) - math.log(0.8)) + sig(-1) * (logsig(-1) - math.log(0.2))),
    ("nca_pair", {}, -logsig(0.5) - 0.5 * logsig(-0.5) - 0.5 * logsig(0.5)),
    ("bco_pair", {}, -logsig(0.5) - logsig(0.5)),                 # δ = mean(0.5, −0.5) = 0
    ("bco_pair", {"bco_delta": 0.25}, -logsig(0.25) - logsig(0.75)),
    ("sppo_hard", {"beta": 1.0}, (1 - 0.5) ** 2 + (-1 + 0.5) ** 2),
    ("apo_zero", {}, (1 - sig(0.5)) + sig(-0.5)),
    ("apo_down", {}, sig(0.5) + 1 - sig(1.0)),
    ("discopop", {}, -logsig(1.0) * (1 - sig(1.0 / 0.05)) + math.exp(-1.0) * sig(1.0 / 0.05)),
    ("sft", {"nll_loss": 0.7}, 0.7),
])
def test_dpo_loss_types_by_hand(loss_type, extra, expected):
    out = dpo(loss_type=loss_type, **extra)
    approx(out["losses"][0], expected)
    approx(out["loss"], expected)


def test_dpo_rewards_margins_accuracies():
    pc = torch.tensor([-1.0, -4.0], dtype=D, requires_grad=True)
    out = call("dpo.loss", policy_chosen_logps=pc, policy_rejected_logps=[-3.0, -1.0],
               ref_chosen_logps=[-2.0, -2.0], ref_rejected_logps=[-2.0, -2.0], beta=0.5)
    assert out["chosen_rewards"].tolist() == [0.5, -1.0]
    assert out["rejected_rewards"].tolist() == [-0.5, 0.5]
    assert out["margins"].tolist() == [1.0, -1.5]
    assert out["accuracies"].tolist() == [1.0, 0.0]
    assert not out["chosen_rewards"].requires_grad   # TRL detaches the rewards
    assert out["loss"].requires_grad


def test_dpo_accuracy_is_strict():
    out = call("dpo.loss", policy_chosen_logps=[-1.0], policy_rejected_logps=[-1.0],
               ref_chosen_logps=[-1.0], ref_rejected_logps=[-1.0])
    assert out["accuracies"].tolist() == [0.0]


def test_aot_sorts_across_the_batch():
    # π_c − π_r = [2, 0], π_ref,c − π_ref,r = [0, 3]; sorted difference [0 − 0, 2 − 3] = [0, −1]; β = 1
    args = dict(policy_chosen_logps=[0.0, -1.0], policy_rejected_logps=[-2.0, -1.0],
                ref_chosen_logps=[-1.0, -1.0], ref_rejected_logps=[-1.0, -4.0], beta=1.0)
    out = call("dpo.loss", loss_type="aot", **args)
    approx(out["losses"][0], -logsig(0.0))
    approx(out["losses"][1], -logsig(-1.0))
    # aot_unpaired: r_c = [1, 0] -> [0, 1]; r_r = [−1, 3] -> [−1, 3]; difference [1, −2]
    out = call("dpo.loss", loss_type="aot_unpaired", **args)
    approx(out["losses"][0], -logsig(1.0))
    approx(out["losses"][1], -logsig(-2.0))


# --- version switches -----------------------------------------------------------------------------------

def test_head_sigmoid_ignores_label_smoothing():
    approx(dpo(label_smoothing=0.1, trl_version="head")["loss"], -logsig(1.0))
    assert float(dpo(label_smoothing=0.1)["loss"]) != pytest.approx(-logsig(1.0))


def test_head_exo_pair_uses_epsilon_as_given():
    assert math.isinf(float(dpo(loss_type="exo_pair", trl_version="head")["loss"]))
    approx(dpo(loss_type="exo_pair", trl_version="head", label_smoothing=0.2)["loss"],
           dpo(loss_type="exo_pair", label_smoothing=0.2)["loss"])


def test_bco_default_delta_is_float32_batch_mean_in_v028_and_zero_in_head():
    # β r_c = [0.3, 0.1], β r_r = [0, −0.2]: mean 0.05, which float32 rounds
    args = dict(policy_chosen_logps=[2.0, 0.0], policy_rejected_logps=[0.0, -2.0],
                ref_chosen_logps=[-1.0, -1.0], ref_rejected_logps=[0.0, 0.0], beta=0.1, loss_type="bco_pair")
    delta = f32(0.05)
    assert delta != 0.05
    out = call("dpo.loss", **args)
    exp0 = -logsig(0.3 - delta) - logsig(-(0.0 - delta))
    approx(out["losses"][0], exp0, tol=1e-15)
    assert abs(float(out["losses"][0]) - (-logsig(0.3 - 0.05) - logsig(0.05))) > 1e-12
    head = call("dpo.loss", trl_version="head", **args)
    approx(head["losses"][1], -logsig(0.1) - logsig(0.2))


def test_bco_default_delta_is_detached():
    pc = torch.tensor([2.0, 0.0], dtype=D, requires_grad=True)
    base = dict(policy_rejected_logps=[0.0, -2.0], ref_chosen_logps=[-1.0, -1.0],
                ref_rejected_logps=[0.0, 0.0], beta=0.1, loss_type="bco_pair")
    (g_default,) = torch.autograd.grad(call("dpo.loss", policy_chosen_logps=pc, **base)["loss"], pc)
    (g_fixed,) = torch.autograd.grad(
        call("dpo.loss", policy_chosen_logps=pc, bco_delta=f32(0.05), **base)["loss"], pc)
    assert torch.allclose(g_default, g_fixed, rtol=0, atol=1e-15)


def test_lengths_divide_scores_for_ipo_and_sigmoid_norm():
    # ℓ_c = 2, ℓ_r = 4: h_ℓ = 1/2 − (−1)/4 = 0.75
    lengths = dict(chosen_lengths=[2.0], rejected_lengths=[4.0])
    for version in ("0.28", "head"):
        approx(dpo(loss_type="ipo", trl_version=version, **lengths)["loss"], (0.75 - 1.0) ** 2)
    approx(dpo(loss_type="sigmoid_norm", **lengths)["loss"], -logsig(0.5 * 0.75))
    approx(dpo(loss_type="sigmoid_norm", label_smoothing=0.1, **lengths)["loss"],
           -0.9 * logsig(0.375) - 0.1 * logsig(-0.375))
    approx(dpo(loss_type="sigmoid_norm", label_smoothing=0.1, trl_version="head", **lengths)["loss"],
           -logsig(0.375))
    # lengths do not touch the plain sigmoid loss
    approx(dpo(**lengths)["loss"], -logsig(1.0))


def test_reference_free_changes_only_h():
    # ref −2 / −1: r_c = 1, r_r = −2 (h = 3); reference-free h = π_c − π_r = 2
    args = dict(PAIR, ref_rejected_logps=[-1.0], reference_free=True)
    out = call("dpo.loss", **args)
    approx(out["loss"], -logsig(0.5 * 2))
    assert out["rejected_rewards"].tolist() == [-1.0]           # rewards keep the reference
    apo = call("dpo.loss", loss_type="apo_zero", **args)
    approx(apo["loss"], (1 - sig(0.5)) + sig(-1.0))               # apo uses r, not h


# r_c = 1 and r_r = −2 (reference rejected −1), so that no score is symmetric between the two
@pytest.mark.parametrize("kind, extra, h", [
    ("forward_kl", {}, -math.exp(-1.0) + math.exp(2.0)),
    ("js_divergence", {}, logsig(1.0) - logsig(-2.0)),
    # α = 0.5: s(r) = e^{−r/2}/(−1/2); TRL v0.28 with a = 1 − α: (e^{−a r_r} − e^{−a r_c})/a
    ("alpha_divergence", {"f_alpha": 0.5}, (math.exp(1.0) - math.exp(-0.5)) / 0.5),
    ("alpha_divergence", {"f_alpha": 1.0 + 1e-8}, 3.0),          # the limit is reverse KL
])
def test_f_divergence_scores(kind, extra, h):
    approx(dpo(f_divergence=kind, ref_rejected_logps=[-1.0], **extra)["loss"], -logsig(0.5 * h))


def test_list_of_loss_types_with_weights():
    out = dpo(loss_type=["sigmoid", "sft"], loss_weights=[1.0, 0.5], nll_loss=0.7)
    approx(out["losses_sigmoid"][0], -logsig(1.0))
    approx(out["losses_sft"][0], 0.7)
    approx(out["loss"], -logsig(1.0) + 0.5 * 0.7)
    assert "losses_sigmoid" not in dpo()


# --- gradients --------------------------------------------------------------------------------------------

def test_sigmoid_gradient_weight_matches_autograd():
    g = torch.Generator().manual_seed(0)
    pc = (-torch.rand(6, generator=g, dtype=D) * 5).requires_grad_()
    pr = (-torch.rand(6, generator=g, dtype=D) * 5).requires_grad_()
    rc, rr = -torch.rand(6, generator=g, dtype=D) * 5, -torch.rand(6, generator=g, dtype=D) * 5
    beta = 0.3
    args = dict(policy_chosen_logps=pc, policy_rejected_logps=pr, ref_chosen_logps=rc, ref_rejected_logps=rr,
                beta=beta)
    gc, gr = torch.autograd.grad(call("dpo.loss", **args)["loss"], (pc, pr))
    weight = torch.sigmoid(beta * ((pr - rr) - (pc - rc))).detach()
    # ∂/∂π_c of −log σ(βh)/B = −β σ(−βh)/B
    assert torch.allclose(gc, -beta * weight / 6, rtol=1e-12, atol=0)
    assert torch.allclose(gr, beta * weight / 6, rtol=1e-12, atol=0)
    out = call("dpo.gradient", **args)
    # .cpu(): the engine may run on CUDA (contract §1) while these inputs live on the CPU
    assert torch.allclose(out["weight"].cpu(), weight, rtol=1e-12, atol=0)
    assert torch.allclose(out["grad_chosen"].cpu(), gc, rtol=1e-12, atol=0)
    assert torch.allclose(out["grad_rejected"].cpu(), gr, rtol=1e-12, atol=0)


def test_gradient_of_ipo_by_hand_and_without_grad_inputs():
    # ipo: d/dπ_c (h − 1/(2β))² = 2(h − 1/(2β)) = 2(2 − 1) = 2; d/dπ_r = −2
    out = call("dpo.gradient", loss_type="ipo", **PAIR)
    approx(out["grad_chosen"][0], 2.0)
    approx(out["grad_rejected"][0], -2.0)
    assert "weight" not in out


# --- CPO / SimPO --------------------------------------------------------------------------------------------

CPO = dict(policy_chosen_logps=[-1.0], policy_rejected_logps=[-3.0], beta=0.5)   # z = 2, βz = 1


@pytest.mark.parametrize("loss_type, extra, expected", [
    ("sigmoid", {}, -logsig(1.0)),
    ("sigmoid", {"label_smoothing": 0.25}, -0.75 * logsig(1.0) - 0.25 * logsig(-1.0)),
    ("simpo", {"gamma": 0.5}, -logsig(1.0 - 0.5)),
    ("hinge", {}, 0.0),
    ("ipo", {}, (2 - 1.0) ** 2),
])
def test_cpo_by_hand(loss_type, extra, expected):
    out = call("cpo.loss", loss_type=loss_type, **CPO, **extra)
    approx(out["loss"], expected)
    assert out["chosen_rewards"].tolist() == [-0.5]


def test_alphapo_maps_log_probs():
    # u = (1 − e^{−α log p})/α with α = 0.5: u_c = 2(1 − e^{0.5}), u_r = 2(1 − e^{1.5})
    u_c, u_r = 2 * (1 - math.exp(0.5)), 2 * (1 - math.exp(1.5))
    out = call("cpo.loss", alpha=0.5, **CPO)
    approx(out["loss"], -logsig(0.5 * (u_c - u_r)))
    approx(out["chosen_rewards"][0], 0.5 * u_c)


def test_simpo_is_cpo_simpo_on_average_logps():
    out = call("simpo.loss", chosen_avg_logps=[-0.4], rejected_avg_logps=[-0.9])
    approx(out["loss"], -logsig(2.0 * 0.5 - 0.5))
    ref = call("cpo.loss", policy_chosen_logps=[-0.4], policy_rejected_logps=[-0.9], beta=2.0, loss_type="simpo")
    approx(out["loss"], ref["loss"])


# --- ORPO ------------------------------------------------------------------------------------------------

def test_orpo_by_hand():
    # p_c = 1/2 -> odds 1, log-odds 0; p_r = 1/4 -> odds 1/3, log-odds −ln 3; log OR = ln 3
    out = call("orpo.loss", chosen_avg_logps=[math.log(0.5)], rejected_avg_logps=[math.log(0.25)], beta=0.1)
    approx(out["log_odds_ratio"][0], math.log(3.0))
    approx(out["log_odds_chosen"][0], 0.0)
    approx(out["losses"][0], 0.1 * math.log(0.75))      # log σ(ln 3) = log(3/4)
    approx(out["or_loss"], -math.log(0.75))
    approx(out["chosen_rewards"][0], 0.1 * math.log(0.5))


def test_orpo_naive_log1mexp_breaks_near_zero():
    # x = −1e-20: e^x rounds to 1 so log1p(−e^x) = −inf; log(−expm1(x)) = log(1e-20)
    args = dict(chosen_avg_logps=[-1e-20], rejected_avg_logps=[math.log(0.5)])
    stable = call("orpo.loss", **args)
    naive = call("orpo.loss", log1mexp="naive", **args)
    approx(stable["log_odds_chosen"][0], -1e-20 - math.log(1e-20))
    assert math.isinf(float(naive["log_odds_chosen"][0]))


def test_orpo_stable_gradient_is_finite():
    x = torch.tensor([-0.3, -2.0], dtype=D, requires_grad=True)
    out = call("orpo.loss", chosen_avg_logps=x, rejected_avg_logps=[-1.0, -1.0])
    (g,) = torch.autograd.grad(out["or_loss"], x)
    assert torch.isfinite(g).all()


# --- KTO -------------------------------------------------------------------------------------------------

# r_c = 0.5, r_r = −0.5, KL pairs: π − π_ref = 0.4 and 0.2 -> z = 0.3; β = 1, λ_D = 2, λ_U = 1
KTO = dict(policy_chosen_logps=[-1.0], ref_chosen_logps=[-1.5], policy_rejected_logps=[-2.0],
           ref_rejected_logps=[-1.5], policy_kl_logps=[-1.0, -2.0], ref_kl_logps=[-1.4, -2.2],
           beta=1.0, desirable_weight=2.0)


def test_kto_by_hand():
    out = call("kto.loss", **KTO)
    approx(out["kl"], 0.3)
    exp = [2 * (1 - sig(0.5 - 0.3)), 1 - sig(0.3 + 0.5)]
    approx(out["losses"][0], exp[0])
    approx(out["losses"][1], exp[1])
    approx(out["loss"], sum(exp) / 2)
    assert not out["kl"].requires_grad


def test_kto_without_kl_and_apo_zero_unpaired():
    out = call("kto.loss", **dict(KTO, calculate_kl=False))
    approx(out["kl"], 0.0)
    approx(out["losses"][0], 2 * (1 - sig(0.5)))
    out = call("kto.loss", **dict(KTO, loss_type="apo_zero_unpaired"))
    approx(out["kl"], 0.3)                             # still reported
    approx(out["losses"][0], 2 * (1 - sig(0.5)))       # z not used
    approx(out["losses"][1], sig(-0.5))


def test_kto_kl_is_clamped_at_zero_and_unpaired_sides_may_be_empty():
    out = call("kto.loss", **dict(KTO, ref_kl_logps=[-0.5, -1.5]))   # mean(−0.5, −0.5) < 0
    approx(out["kl"], 0.0)
    out = call("kto.loss", **dict(KTO, policy_rejected_logps=[], ref_rejected_logps=[]))
    assert out["losses"].shape == (1,)


# --- Bradley-Terry and the optimal policy ---------------------------------------------------------------

def test_bradley_terry():
    out = call("preference.bradley_terry", reward_chosen=[2.0, 0.0], reward_rejected=[1.0, 0.0])
    approx(out["prob"][0], math.exp(2) / (math.exp(2) + math.exp(1)))
    approx(out["prob"][1], 0.5)


def test_optimal_policy_by_hand():
    ref, r, beta = [0.5, 0.25, 0.25], [1.0, 0.0, 2.0], 0.5
    z = 0.5 * math.exp(2) + 0.25 + 0.25 * math.exp(4)
    out = call("policy.optimal", ref_probs=ref, rewards=r, beta=beta)
    approx(out["log_partition"], math.log(z))
    for k, (p, w) in enumerate(zip(ref, [math.exp(2), 1.0, math.exp(4)])):
        approx(out["probs"][k], p * w / z)
    approx(out["probs"].sum(), 1.0)


def test_optimal_policy_maximises_regularised_reward_on_a_grid():
    ref, r, beta = [0.5, 0.25, 0.25], [1.0, 0.0, 2.0], 0.5

    def objective(pi):
        kl = sum(p * math.log(p / q) for p, q in zip(pi, ref) if p > 0)
        return sum(p * x for p, x in zip(pi, r)) - beta * kl

    star = call("policy.optimal", ref_probs=ref, rewards=r, beta=beta)
    best = objective(star["probs"].tolist())
    approx(best, beta * float(star["log_partition"]), tol=1e-10)   # max = β log Z
    n = 50
    for i, j in itertools.product(range(n + 1), repeat=2):
        if i + j <= n:
            pi = [i / n, j / n, (n - i - j) / n]
            assert objective(pi) <= best + 1e-12


def test_optimal_policy_is_stable_for_large_rewards_and_zero_support():
    out = call("policy.optimal", ref_probs=[0.5, 0.5], rewards=[1000.0, 0.0], beta=0.01)
    approx(out["log_partition"], 1000.0 / 0.01 + math.log(0.5))
    approx(out["probs"][0], 1.0)
    r = torch.tensor([5.0, 1.0, 2.0], dtype=D, requires_grad=True)
    out = call("policy.optimal", ref_probs=[0.0, 0.5, 0.5], rewards=r, beta=1.0)
    assert out["probs"][0].item() == 0.0
    (g,) = torch.autograd.grad(out["log_partition"], r)
    # ∂ log Z/∂r_k = π*_k/β: no gradient (and no nan) where π_ref = 0
    assert torch.allclose(g, out["probs"].detach().cpu(), rtol=1e-12, atol=0)


# --- validation --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, kwargs, argument", [
    ("dpo.loss", dict(PAIR, loss_type="kto_pair"), "loss_type"),
    ("dpo.loss", dict(PAIR, beta=-0.1), "beta"),
    ("dpo.loss", dict(PAIR, policy_rejected_logps=[-1.0, -2.0]), "policy_rejected_logps"),
    ("dpo.loss", dict(PAIR, loss_type="sigmoid_norm"), "chosen_lengths"),
    ("dpo.loss", dict(PAIR, chosen_lengths=[2.0]), "rejected_lengths"),
    ("dpo.loss", dict(PAIR, loss_type="sft"), "nll_loss"),
    ("dpo.loss", dict(PAIR, loss_type=["sigmoid", "ipo"], loss_weights=[1.0]), "loss_weights"),
    ("dpo.loss", dict(PAIR, loss_type="robust", label_smoothing=0.5), "label_smoothing"),
    ("dpo.loss", dict(PAIR, f_divergence="tv"), "f_divergence"),
    ("dpo.gradient", dict(PAIR, beta=0.0), "beta"),
    ("dpo.loss", dict(policy_chosen_logps=[], policy_rejected_logps=[], ref_chosen_logps=[],
                      ref_rejected_logps=[]), "policy_chosen_logps"),
    ("dpo.implicit_reward", dict(log_prob=[1.0, 2.0], ref_log_prob=[1.0], beta=0.1), "ref_log_prob"),
    ("cpo.loss", dict(CPO, loss_type="orpo"), "loss_type"),
    ("simpo.loss", dict(chosen_avg_logps=[-1.0], rejected_avg_logps=[-1.0], beta=-2.0), "beta"),
    ("orpo.loss", dict(chosen_avg_logps=[0.1], rejected_avg_logps=[-1.0]), "chosen_avg_logps"),
    ("kto.loss", dict(KTO, policy_kl_logps=None), "policy_kl_logps"),
    ("kto.loss", dict(KTO, ref_chosen_logps=[-1.0, -1.0]), "ref_chosen_logps"),
    ("preference.bradley_terry", dict(reward_chosen=[1.0], reward_rejected=[1.0, 2.0]), "reward_rejected"),
    ("policy.optimal", dict(ref_probs=[0.5, 0.6], rewards=[0.0, 0.0], beta=1.0), "ref_probs"),
    ("policy.optimal", dict(ref_probs=[0.5, 0.5], rewards=[0.0, 0.0], beta=0.0), "beta"),
])
def test_rejects_malformed_input(name, kwargs, argument):
    with pytest.raises(ReferenceInputError) as err:
        call(name, **kwargs)
    assert err.value.argument == argument


def test_implicit_reward():
    out = call("dpo.implicit_reward", log_prob=[-1.0, -2.0], ref_log_prob=[-1.5, -1.0], beta=0.2)
    approx(out["reward"][0], 0.2 * 0.5)
    approx(out["reward"][1], 0.2 * -1.0)
