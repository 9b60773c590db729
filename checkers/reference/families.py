"""Imports every family module so that its functions register themselves."""

import importlib

FAMILY_MODULES = (
    "divergences",   # kl.exact, kl.gaussian, kl.full_vocab, divergence.*
    "estimators",    # kl.k1/k2/k3, kl.penalty, kl.masked_estimate, kl.sequence
    "masked",        # masked.*, loss.aggregate
    "shaping",       # kl_controller.*, reward.*
    "advantages",    # advantages.gae, discounted_returns, reinforce_pp, remax
    "group_advantages",  # advantages.grpo, advantages.rloo
    "advantages_v2", # advantages.grpo_passk, reinforce_pp_baseline, opo, gpg, grpo_multi
    "policy",        # ppo.*, trpo.*
    "grpo_loss",     # grpo.loss
    "preference",    # dpo.*, cpo/simpo/orpo/kto, preference.bradley_terry, policy.optimal
    "overopt",       # overopt.*, bon.kl
    "passk",         # bon.pass_at_k (engine v3)
    "reward_model",  # reward_model.loss (engine v3)
    "overlong",      # reward.overlong_penalty (engine v3)
    "entropy_cov",   # entropy.covariance (engine v3)
    "rollout_is",    # rollout.importance_weights (engine v3)
)

for _module in FAMILY_MODULES:
    importlib.import_module(f"{__package__}.{_module}")
