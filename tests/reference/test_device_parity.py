"""Device handling of the reference engine.

One table of representative calls, at least one for every registered function: on CUDA each runs on
the CPU and on the GPU and the outputs must agree; on the CPU the same table checks that the ``device``
argument and ``QUIZ_DEVICE`` are honoured.
"""

from __future__ import annotations

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: parity of CPU and GPU results")


def _rand(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _probs(*shape: int, seed: int) -> torch.Tensor:
    return torch.softmax(_rand(*shape, seed=seed), -1)


def _mask(rows: int, cols: int, seed: int) -> torch.Tensor:
    m = (torch.rand(rows, cols, generator=torch.Generator().manual_seed(seed)) > 0.3).double()
    m[:, 0] = 1.0  # every row keeps at least one token
    return m


B, T, V = 8, 16, 5
LP, REF, OLD = _rand(B, T, seed=1) - 1.0, _rand(B, T, seed=2) - 1.0, _rand(B, T, seed=3) - 1.0
ADV, VALUES, REWARDS = _rand(B, T, seed=4), _rand(B, T, seed=5), _rand(B, T, seed=6)
MASK = _mask(B, T, seed=7)
SCORES = _rand(B, seed=8)
P, Q = _probs(B, V, seed=9), _probs(B, V, seed=10)
LOGITS, REF_LOGITS = _rand(2, 3, V, seed=11), _rand(2, 3, V, seed=12)
PAIR = {"policy_chosen_logps": _rand(B, seed=13) - 5.0, "policy_rejected_logps": _rand(B, seed=14) - 5.0}
REF_PAIR = {"ref_chosen_logps": _rand(B, seed=15) - 5.0, "ref_rejected_logps": _rand(B, seed=16) - 5.0}
AVG_PAIR = {"chosen_avg_logps": -torch.rand(B, generator=torch.Generator().manual_seed(17), dtype=torch.float64),
            "rejected_avg_logps": -torch.rand(B, generator=torch.Generator().manual_seed(18), dtype=torch.float64)}

CALLS: list[tuple[str, dict]] = [
    # kl.*
    *[("kl.penalty", {"log_prob": LP, "ref_log_prob": REF, "mode": mode}) for mode in ("k1", "k2", "k3", "abs")],
    ("kl.k1", {"log_prob": LP, "ref_log_prob": REF}),
    ("kl.k2", {"log_prob": LP, "ref_log_prob": REF}),
    ("kl.k3", {"log_prob": LP, "ref_log_prob": REF, "clamp": 10.0}),
    ("kl.masked_estimate", {"log_prob": LP, "ref_log_prob": REF, "mask": MASK, "estimator": "k3"}),
    ("kl.sequence", {"log_prob": LP, "ref_log_prob": REF, "mask": MASK}),
    ("kl.exact", {"p": P, "q": Q}),
    ("kl.full_vocab", {"logits": LOGITS, "ref_logits": REF_LOGITS}),
    ("kl.gaussian", {"mu_p": [0.0, 1.0], "sigma_p": [1.0, 2.0], "mu_q": [0.5, -1.0], "sigma_q": [1.5, 0.5]}),
    # divergence.*
    ("divergence.js", {"p": P, "q": Q}),
    ("divergence.chi2", {"p": P, "q": Q}),
    ("divergence.tv", {"p": P, "q": Q}),
    ("divergence.hellinger", {"p": P, "q": Q}),
    ("divergence.alpha", {"p": P, "q": Q, "alpha": 0.5}),
    ("divergence.cross_entropy", {"p": P, "q": Q, "base": "2"}),
    ("divergence.entropy", {"p": P}),
    # masked.*, loss.aggregate
    *[("masked.whiten", {"values": VALUES, "mask": MASK, "convention": conv}) for conv in ("verl", "trl", "openrlhf")],
    ("masked.mean", {"values": VALUES, "mask": MASK}),
    ("masked.sum", {"values": VALUES, "mask": MASK, "axis": 1}),
    ("masked.var", {"values": VALUES, "mask": MASK}),
    ("loss.aggregate", {"loss_mat": VALUES, "mask": MASK, "mode": "seq-mean-token-mean"}),
    # kl_controller.*
    ("kl_controller.fixed", {"kl_coef": 0.1}),
    ("kl_controller.adaptive", {"kl_coef": 0.1, "current_kl": 8.0, "target_kl": 6.0, "n_steps": 256,
                                "horizon": 10000}),
    # reward.*
    ("reward.terminal", {"scores": [1.0, 2.0], "log_prob": [[-1.0, -2.0], [-0.5, -0.1]],
                         "ref_log_prob": [[-1.1, -1.0], [-0.4, -0.3]], "mask": [[1, 0], [1, 1]], "kl_coef": 0.2,
                         "estimator": "k3"}),
    ("reward.kl_in_reward", {"token_level_scores": REWARDS, "old_log_prob": OLD, "ref_log_prob": REF,
                             "mask": MASK, "kl_coef": 0.05}),
    # advantages.*
    *[("advantages.gae", {"rewards": REWARDS, "values": VALUES, "mask": MASK, "gamma": 0.99, "lam": 0.95,
                          "convention": conv}) for conv in ("verl", "trl")],
    ("advantages.grpo", {"scores": _rand(12, seed=19), "group_size": 4}),
    ("advantages.rloo", {"scores": _rand(12, seed=20), "group_size": 4}),
    ("advantages.remax", {"token_level_rewards": REWARDS, "reward_baselines": SCORES, "mask": MASK}),
    ("advantages.reinforce_pp", {"token_level_rewards": REWARDS, "mask": MASK, "gamma": 0.99}),
    ("advantages.discounted_returns", {"rewards": REWARDS, "mask": MASK, "gamma": 0.9}),
    # verl's vectorised GRPO accumulates in float32, whose GPU sums run in another order: integer scores
    # keep every partial sum exact, so the two devices must still agree to the last bit.
    ("advantages.grpo", {"scores": [1.0, 0.0, 3.0, 2.0, 5.0, 5.0, 1.0, 0.0], "group_size": 4,
                         "implementation": "vectorized"}),
    ("advantages.grpo_passk", {"scores": _rand(12, seed=25), "group_size": 4}),
    ("advantages.reinforce_pp_baseline", {"token_level_rewards": REWARDS, "mask": MASK, "group_size": 4}),
    ("advantages.opo", {"token_level_rewards": REWARDS, "mask": MASK, "group_size": 4}),
    ("advantages.gpg", {"scores": _rand(12, seed=26), "index": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]}),
    *[("advantages.grpo_multi", {"rewards_per_func": _rand(12, 3, seed=27), "reward_weights": [1.0, 0.5, 2.0],
                                 "group_size": 4, "multi_objective_aggregation": agg})
      for agg in ("sum_then_normalize", "normalize_then_sum")],
    # ppo.*, trpo.*, grpo.loss
    ("ppo.ratio", {"log_prob": LP, "old_log_prob": OLD}),
    ("ppo.policy_loss", {"old_log_prob": OLD, "log_prob": LP, "advantages": ADV, "mask": MASK}),
    ("ppo.value_loss", {"vpreds": VALUES, "returns": REWARDS, "values": ADV, "mask": MASK}),
    ("ppo.entropy", {"logits": LOGITS}),
    ("trpo.surrogate", {"log_prob": LP, "old_log_prob": OLD, "advantages": ADV, "mask": MASK}),
    ("grpo.loss", {"log_prob": LP, "old_log_prob": OLD, "ref_log_prob": REF, "advantages": SCORES, "mask": MASK}),
    # dpo.*, cpo / simpo / orpo / kto
    ("dpo.loss", {**PAIR, **REF_PAIR}),
    ("dpo.loss", {"chosen_token_logps": LP, "rejected_token_logps": OLD, "chosen_mask": MASK,
                  "rejected_mask": _mask(B, T, seed=28), **REF_PAIR, "trl_version": "head", "ld_alpha": 0.5,
                  "use_weighting": True, "chosen_logits": _rand(B, T, V, seed=29),
                  "rejected_logits": _rand(B, T, V, seed=30)}),
    ("dpo.gradient", {**PAIR, **REF_PAIR, "beta": 0.2}),
    ("dpo.implicit_reward", {"log_prob": PAIR["policy_chosen_logps"], "ref_log_prob": REF_PAIR["ref_chosen_logps"]}),
    ("cpo.loss", {**PAIR}),
    ("simpo.loss", {**AVG_PAIR}),
    ("orpo.loss", {**AVG_PAIR}),
    ("kto.loss", {**PAIR, **REF_PAIR, "policy_kl_logps": _rand(B, seed=23) - 5.0,
                  "ref_kl_logps": _rand(B, seed=24) - 5.0}),
    # preference.*, policy.optimal
    ("preference.bradley_terry", {"reward_chosen": SCORES, "reward_rejected": _rand(B, seed=21)}),
    ("policy.optimal", {"ref_probs": P, "rewards": _rand(B, V, seed=22), "beta": 0.5}),
    # overopt.*, bon.kl
    ("overopt.gold_reward", {"kl": [0.5, 2.0], "alpha": 1.0, "beta": 0.2, "method": "rl"}),
    ("overopt.peak", {"alpha": 1.0, "beta": 0.2, "method": "bon"}),
    ("bon.kl", {"n": [1.0, 4.0, 16.0]}),
    # engine v3
    ("bon.pass_at_k", {"n": [10.0, 200.0, 5.0], "c": [3.0, 17.0, 0.0], "k": [5.0, 10.0, 1.0]}),
    ("reward_model.loss", {"chosen_rewards": SCORES, "rejected_rewards": _rand(B, seed=31), "margin": 0.5,
                           "center_rewards_coefficient": 0.01}),
    ("reward.overlong_penalty", {"response_length": [100.0, 3700.0, 4096.0], "max_resp_len": 4096,
                                 "overlong_buffer_len": 512}),
    ("advantages.gae", {"rewards": REWARDS, "values": VALUES, "mask": MASK, "gamma": 0.99,
                        "lam": torch.linspace(0.5, 0.99, B, dtype=torch.float64), "lam_critic": 1.0}),
    *[("entropy.covariance", {"log_prob": LP, "advantages": ADV, "mask": MASK, "centring": c})
      for c in ("clip_cov", "kl_cov")],
    *[("rollout.importance_weights", {"old_log_prob": OLD, "rollout_log_prob": LP, "mask": MASK,
                                      "rollout_is_level": level, "rollout_is_mode": "mask",
                                      "rollout_is_threshold": 2.0, "rollout_is_veto_threshold": 0.01})
      for level in ("token", "sequence", "geometric")],
    *[("ppo.policy_loss", {"old_log_prob": OLD, "log_prob": OLD + 0.2 * ADV, "advantages": ADV, "mask": MASK,
                           "loss_variant": variant, "clip_cov_ratio": 0.1, "clip_cov_lb": 0.2, "kl_cov_ratio": 0.1})
      for variant in ("clip_cov", "kl_cov")],
]

IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CALLS)]


def test_table_covers_every_registered_function():
    assert sorted({name for name, _ in CALLS}) == sorted(reference.names())


@needs_cuda
def test_cpu_gpu_parity():
    # One test over the whole table (one skip on CPU-only machines); the failure lists every call that differs.
    failures = []
    for case, (name, kwargs) in zip(IDS, CALLS):
        on_cpu = reference.call(name, **kwargs, device="cpu")
        on_gpu = reference.call(name, **kwargs, device="cuda")
        if on_cpu.keys() != on_gpu.keys():
            failures.append(f"{case}: outputs {sorted(on_cpu)} vs {sorted(on_gpu)}")
            continue
        for key, a in on_cpu.items():
            b = on_gpu[key]
            if b.device.type != "cuda":
                failures.append(f"{case}.{key}: result not on the GPU")
                continue
            try:
                torch.testing.assert_close(b.cpu(), a, rtol=1e-10, atol=1e-12, equal_nan=True)
            except AssertionError as exc:
                failures.append(f"{case}.{key}: {exc}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name,kwargs", CALLS, ids=IDS)
def test_device_argument_and_env_are_honoured(name, kwargs, monkeypatch):
    monkeypatch.delenv("QUIZ_DEVICE", raising=False)
    out = reference.call(name, **kwargs, device="cpu")
    assert out and all(t.device.type == "cpu" for t in out.values())
    monkeypatch.setenv("QUIZ_DEVICE", "cpu")
    out = reference.call(name, **kwargs)
    assert out and all(t.device.type == "cpu" for t in out.values())


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available: a cuda request is valid here")
@pytest.mark.parametrize("how", ["argument", "env"])
def test_unavailable_cuda_names_device(how, monkeypatch):
    name, kwargs = CALLS[0]
    if how == "argument":
        monkeypatch.delenv("QUIZ_DEVICE", raising=False)
        kwargs = {**kwargs, "device": "cuda"}
    else:
        monkeypatch.setenv("QUIZ_DEVICE", "cuda")
    with pytest.raises(ReferenceInputError) as err:
        reference.call(name, **kwargs)
    assert err.value.argument == "device"
