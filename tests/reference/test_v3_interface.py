"""The engine v3 interface: names, defaults and outputs the contract fixes, and a documented example of
each addition (docs/reference.md shows every registered example with the engine's answer)."""

import pytest

from checkers import reference

V3 = {
    "bon.pass_at_k": ({"n": None, "c": None, "k": None}, {"pass_at_k"}),
    "reward_model.loss": ({"margin": None, "center_rewards_coefficient": None}, {"loss", "accuracy", "margin"}),
    "reward.overlong_penalty": ({"overlong_penalty_factor": 1.0}, {"overlong_reward", "overlong"}),
    "entropy.covariance": ({"centring": "clip_cov"}, {"per_token", "covariance"}),
    "rollout.importance_weights": ({"rollout_is_level": "token", "rollout_is_mode": "truncate",
                                    "rollout_is_threshold": None, "rollout_is_threshold_lower": None,
                                    "rollout_is_veto_threshold": None},
                                   {"rollout_is_weights", "modified_response_mask", "rollout_is_mean",
                                    "rollout_is_eff_sample_size", "rollout_is_seq_max_deviation",
                                    "rollout_is_veto_fraction", "rollout_is_masked_fraction", "mismatch_kl",
                                    "mismatch_k3_kl", "mismatch_log_ppl_diff", "mismatch_ppl_ratio"}),
    "advantages.gae": ({"lam": 1.0, "lam_critic": None}, {"advantages", "returns"}),
    "ppo.policy_loss": ({"seed": 0, "rollout_is_weights": None, "clip_cov_ratio": 0.0002, "clip_cov_lb": 1.0,
                         "clip_cov_ub": 5.0, "kl_cov_ratio": 0.0002, "ppo_kl_coef": 1.0},
                        {"pg_loss", "pg_clipfrac", "ppo_kl", "per_token_loss"}),
}
# (function, arguments that select the row): each must have a documented example
ROWS = [("bon.pass_at_k", {}), ("reward_model.loss", {"margin": "given"}), ("reward.overlong_penalty", {}),
        ("entropy.covariance", {"centring": "clip_cov"}), ("entropy.covariance", {"centring": "kl_cov"}),
        ("rollout.importance_weights", {"rollout_is_mode": "truncate"}),
        ("rollout.importance_weights", {"rollout_is_mode": "mask", "rollout_is_veto_threshold": "given"}),
        ("advantages.gae", {"lam_critic": "given"}), ("ppo.policy_loss", {"loss_variant": "clip_cov"}),
        ("ppo.policy_loss", {"loss_variant": "kl_cov"})]


@pytest.mark.parametrize("name", sorted(V3))
def test_v3_function_defaults_and_outputs(name):
    defaults, outputs = V3[name]
    d = reference.describe(name)
    params = {p["name"]: p for p in d["params"]}
    for arg, value in defaults.items():
        assert arg in params, arg
        if value is None and params[arg]["required"]:
            continue  # a required argument (n, c, k)
        assert params[arg].get("default") == value, arg
    assert outputs <= set(d["outputs"])


def test_v3_choices():
    allowed = {p["name"]: set(p.get("allowed", ())) for p in reference.describe("ppo.policy_loss")["params"]}
    assert {"clip_cov", "kl_cov"} <= allowed["loss_variant"]
    ris = {p["name"]: set(p.get("allowed", ())) for p in reference.describe("rollout.importance_weights")["params"]}
    assert ris["rollout_is_level"] == {"token", "sequence", "geometric"}
    assert ris["rollout_is_mode"] == {"truncate", "mask"}


@pytest.mark.parametrize("name,row", ROWS, ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in r.items())}" for n, r in ROWS])
def test_every_v3_row_has_a_documented_example_that_runs(name, row):
    defaults = {p["name"]: p.get("default") for p in reference.describe(name)["params"]}
    matching = [ex for ex in reference.get(name).examples
                if all((ex.args.get(k) is not None) if v == "given" else ({**defaults, **ex.args}.get(k) == v)
                       for k, v in row.items())]
    assert matching, f"no example of {name} with {row}"
    for ex in matching:
        assert reference.call(name, **ex.args, device="cpu")
