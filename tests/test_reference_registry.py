"""The registry as a whole: every engine function of the interface is registered with its parameters,
defaults and outputs, described and callable by name, and docs/reference.md is generated from it."""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

from checkers import reference

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference.md"

# The engine's public interface, which question files and outside callers rely on: for each function,
# the parameters it must accept, the defaults it must keep and the outputs it must return. Functions
# may gain parameters and outputs (and new functions may be registered); none of these may disappear.
CONTRACT = {
    "kl.exact": (("p", "q"), {"base": "e"},
        ("kl",)),
    "kl.gaussian": (("mu_p", "sigma_p", "mu_q", "sigma_q"), {},
        ("kl",)),
    "kl.full_vocab": (("logits", "log_probs", "ref_logits", "ref_log_probs", "mask"), {},
        ("kl",)),
    "divergence.entropy": (("p", "base"), {},
        ("entropy",)),
    "divergence.cross_entropy": (("p", "q", "base"), {},
        ("cross_entropy",)),
    "divergence.js": (("p", "q", "base"), {},
        ("js",)),
    "divergence.tv": (("p", "q"), {},
        ("tv",)),
    "divergence.hellinger": (("p", "q"), {},
        ("hellinger_sq",)),
    "divergence.chi2": (("p", "q"), {},
        ("chi2",)),
    "divergence.alpha": (("p", "q", "alpha"), {},
        ("alpha_div",)),
    "kl.k1": (("log_prob", "ref_log_prob"), {"clamp": None},
        ("kl",)),
    "kl.k2": (("log_prob", "ref_log_prob"), {"clamp": None},
        ("kl",)),
    "kl.k3": (("log_prob", "ref_log_prob"), {"clamp": None},
        ("kl",)),
    "kl.penalty": (("log_prob", "ref_log_prob", "convention"), {"mode": "kl"},
        ("kl",)),
    "kl.masked_estimate": (("log_prob", "ref_log_prob", "mask", "estimator"), {},
        ("kl", "per_token")),
    "kl.sequence": (("log_prob", "ref_log_prob", "mask"), {},
        ("kl",)),
    "masked.mean": (("values", "mask", "convention"), {"axis": None},
        ("mean",)),
    "masked.sum": (("values", "mask"), {"axis": None},
        ("sum",)),
    "masked.var": (("values", "mask", "convention"), {"unbiased": True},
        ("var",)),
    "masked.whiten": (("values", "mask", "convention"), {"shift_mean": True},
        ("whitened",)),
    "loss.aggregate": (("loss_mat", "mask", "mode"), {"dp_size": 1, "batch_num_tokens": None, "global_batch_size": None, "loss_scale_factor": None},
        ("loss",)),
    "kl_controller.fixed": (("kl_coef",), {},
        ("kl_coef",)),
    "kl_controller.adaptive": (("kl_coef", "current_kl", "target_kl", "n_steps", "horizon"), {"min_coef": None, "max_coef": None},
        ("kl_coef", "proportional_error")),
    "reward.kl_in_reward": (("token_level_scores", "old_log_prob", "ref_log_prob", "mask", "kl_coef", "convention"), {"mode": "kl"},
        ("token_level_rewards", "kl", "current_kl")),
    "reward.terminal": (("scores", "log_prob", "ref_log_prob", "kl", "mask", "kl_coef", "convention"), {"estimator": "k1", "mask_kl": True, "score_position": "last", "reward_clip_range": None},
        ("rewards",)),
    "advantages.gae": (("rewards", "values", "mask", "convention"), {"gamma": 1.0, "lam": 1.0, "whiten": False, "whiten_rewards": False},
        ("advantages", "returns")),
    "advantages.discounted_returns": (("rewards", "mask", "gamma", "convention"), {},
        ("returns",)),
    "advantages.grpo": (("scores", "token_level_rewards", "mask", "index", "group_size", "implementation", "epsilon", "convention"), {"scale": "group", "unbiased": True},
        ("advantages", "token_advantages")),
    "advantages.rloo": (("scores", "token_level_rewards", "mask", "index", "group_size", "convention"), {"normalize": False, "singleton": None},
        ("advantages", "token_advantages")),
    "advantages.reinforce_pp": (("token_level_rewards", "mask", "gamma"), {},
        ("returns", "advantages")),
    "advantages.remax": (("token_level_rewards", "reward_baselines", "mask"), {},
        ("returns", "advantages")),
    "ppo.ratio": (("log_prob", "old_log_prob"), {},
        ("ratio",)),
    "ppo.policy_loss": (("old_log_prob", "log_prob", "advantages", "mask", "convention"), {"loss_variant": "vanilla", "clip_ratio": 0.2, "clip_ratio_low": None, "clip_ratio_high": None, "clip_ratio_c": 3.0, "loss_agg_mode": "token-mean", "clamp_log_ratio": 20.0, "ratio_threshold": None, "dp_size": 1, "batch_num_tokens": None, "global_batch_size": None, "loss_scale_factor": None},
        ("pg_loss", "pg_clipfrac", "ppo_kl", "pg_clipfrac_lower", "per_token_loss", "approx_kl")),
    "ppo.value_loss": (("vpreds", "returns", "values", "mask", "convention"), {"cliprange_value": 0.5, "loss_agg_mode": "token-mean", "ratio": None, "ratio_threshold": None},
        ("vf_loss", "vf_clipfrac", "per_token_loss")),
    "ppo.entropy": (("logits", "mask", "loss_agg_mode"), {},
        ("entropy", "entropy_loss")),
    "trpo.surrogate": (("log_prob", "old_log_prob", "advantages", "mask"), {},
        ("per_token", "surrogate")),
    "grpo.loss": (("log_prob", "advantages", "mask"), {"old_log_prob": None, "ref_log_prob": None, "epsilon": 0.2, "epsilon_high": None, "beta": 0.04, "loss_type": "grpo", "max_completion_length": None, "num_items_in_batch": None, "delta": None, "importance_sampling_level": "token", "use_bias_correction_kl": False},
        ("loss", "kl", "clip_ratio_low", "clip_ratio_high", "clip_ratio_region")),
    "dpo.loss": (("policy_chosen_logps", "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps"), {"beta": 0.1, "loss_type": "sigmoid", "label_smoothing": 0.0, "trl_version": "0.28", "reference_free": False, "chosen_lengths": None, "rejected_lengths": None, "bco_delta": None, "nll_loss": None, "loss_weights": None, "f_divergence": "reverse_kl", "f_alpha": 0.5, "discopop_tau": 0.05},
        ("losses", "loss", "chosen_rewards", "rejected_rewards", "margins", "accuracies")),
    "dpo.gradient": (("policy_chosen_logps", "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps"), {"beta": 0.1, "loss_type": "sigmoid", "label_smoothing": 0.0, "trl_version": "0.28", "reference_free": False, "chosen_lengths": None, "rejected_lengths": None, "bco_delta": None, "nll_loss": None, "loss_weights": None, "f_divergence": "reverse_kl", "f_alpha": 0.5, "discopop_tau": 0.05},
        ("grad_chosen", "grad_rejected", "weight")),
    "dpo.implicit_reward": (("log_prob", "ref_log_prob", "beta"), {},
        ("reward",)),
    "cpo.loss": (("policy_chosen_logps", "policy_rejected_logps"), {"beta": 0.1, "loss_type": "sigmoid", "gamma": 0.5, "label_smoothing": 0.0, "alpha": 0.0},
        ("losses", "loss", "chosen_rewards", "rejected_rewards")),
    "simpo.loss": (("chosen_avg_logps", "rejected_avg_logps"), {"beta": 2.0, "gamma": 0.5, "label_smoothing": 0.0},
        ("loss",)),
    "orpo.loss": (("chosen_avg_logps", "rejected_avg_logps"), {"beta": 0.1, "log1mexp": "stable"},
        ("losses", "or_loss", "log_odds_ratio", "log_odds_chosen", "chosen_rewards", "rejected_rewards")),
    "kto.loss": (("policy_chosen_logps", "policy_rejected_logps", "policy_kl_logps", "ref_chosen_logps", "ref_rejected_logps", "ref_kl_logps"), {"beta": 0.1, "desirable_weight": 1.0, "undesirable_weight": 1.0, "loss_type": "kto", "calculate_kl": True},
        ("losses", "loss", "chosen_rewards", "rejected_rewards", "kl")),
    "preference.bradley_terry": (("reward_chosen", "reward_rejected"), {},
        ("prob",)),
    "policy.optimal": (("ref_probs", "rewards", "beta"), {},
        ("probs", "log_partition")),
    "overopt.gold_reward": (("kl", "d", "alpha", "beta", "method"), {},
        ("reward",)),
    "overopt.peak": (("alpha", "beta", "method"), {},
        ("d", "kl", "reward")),
    "bon.kl": (("n",), {},
        ("kl",)),
    # Engine v2: outcome advantages as verl computes them (verl's ε = 1e-6) and TRL's multi-reward GRPO.
    "advantages.grpo_passk": (("scores", "token_level_rewards", "mask", "index", "group_size"),
        {"epsilon": 1e-6, "norm_adv_by_std_in_grpo": True}, ("advantages",)),
    "advantages.reinforce_pp_baseline": (("scores", "token_level_rewards", "mask", "index", "group_size"),
        {"epsilon": 1e-6}, ("advantages", "returns")),
    "advantages.opo": (("scores", "token_level_rewards", "mask", "index", "group_size"),
        {"epsilon": 1e-6}, ("advantages",)),
    "advantages.gpg": (("scores", "token_level_rewards", "mask", "index", "group_size"),
        {"epsilon": 1e-6, "f_norm": 1.0, "alpha": 1.0}, ("advantages",)),
    "advantages.grpo_multi": (("rewards_per_func", "reward_weights", "index", "group_size"),
        {"multi_objective_aggregation": "sum_then_normalize", "scale_rewards": "group"}, ("advantages",)),
}

# Choice arguments whose allowed values the interface names (more may be added, none removed).
ALLOWED = {
    ("ppo.policy_loss", "loss_variant"): {"vanilla", "gspo", "sapo", "cispo", "gpg", "geo_mean"},
    ("grpo.loss", "loss_type"): {"grpo", "bnpo", "dr_grpo", "dapo", "luspo", "cispo", "sapo"},
    ("advantages.grpo", "implementation"): {"loop", "vectorized"},
    ("advantages.grpo_multi", "multi_objective_aggregation"): {"sum_then_normalize", "normalize_then_sum"},
    ("kl.exact", "base"): {"e", "2", "10"},
    ("kl.masked_estimate", "estimator"): {"k1", "k2", "k3"},
    ("overopt.peak", "method"): {"bon", "rl"},
    ("orpo.loss", "log1mexp"): {"stable", "naive"},
}


# Engine v2 (the interface's additions): each row must have a documented example, executed by tests/docs
# against a live server. A row is the function and the arguments that select it; an argument left out
# of an example counts with its default, and GIVEN means "given, any value".
class _Given:
    """A marker with a fixed text: the test ids below show it, and xdist workers must all collect the same ids."""

    def __repr__(self) -> str:
        return "GIVEN"


GIVEN = _Given()
V2_ROWS = [
    ("ppo.policy_loss", {"loss_variant": "gspo", "convention": "verl"}),
    ("ppo.policy_loss", {"loss_variant": "sapo"}),
    ("ppo.policy_loss", {"loss_variant": "cispo"}),
    ("ppo.policy_loss", {"loss_variant": "gpg"}),
    ("ppo.policy_loss", {"loss_variant": "geo_mean"}),
    ("ppo.policy_loss", {"loss_variant": "gspo", "convention": "openrlhf"}),
    ("grpo.loss", {"loss_type": "luspo"}),
    ("grpo.loss", {"loss_type": "cispo"}),
    ("grpo.loss", {"loss_type": "sapo"}),
    ("advantages.grpo", {"implementation": "vectorized"}),
    ("advantages.grpo_passk", {}),
    ("advantages.reinforce_pp_baseline", {}),
    ("advantages.opo", {}),
    ("advantages.gpg", {}),
    ("advantages.grpo_multi", {"multi_objective_aggregation": "sum_then_normalize"}),
    ("advantages.grpo_multi", {"multi_objective_aggregation": "normalize_then_sum"}),
    ("dpo.loss", {"ld_alpha": GIVEN, "chosen_token_logps": GIVEN, "trl_version": "head"}),
    ("dpo.loss", {"use_weighting": True, "chosen_token_logps": GIVEN, "trl_version": "head"}),
]

CONVENTIONS = ["verl", "trl", "openrlhf"]


def test_every_interface_function_is_registered():
    assert len(CONTRACT) == 54
    assert set(CONTRACT) <= set(reference.names())


@pytest.mark.parametrize("name,arg", sorted(ALLOWED))
def test_interface_choices_are_allowed(name, arg):
    params = {p["name"]: p for p in reference.describe(name)["params"]}
    assert ALLOWED[(name, arg)] <= set(params[arg]["allowed"])


@pytest.mark.parametrize("name", sorted(CONTRACT))
def test_interface_parameters_defaults_and_outputs(name):
    must_accept, defaults, outputs = CONTRACT[name]
    d = reference.describe(name)
    params = {p["name"]: p for p in d["params"]}
    assert set(must_accept) | set(defaults) <= set(params), "a parameter of the interface is missing"
    for arg, value in defaults.items():
        assert not params[arg]["required"], arg
        assert params[arg].get("default") == value, arg
        assert type(params[arg].get("default")) is type(value), arg
    assert set(outputs) <= set(d["outputs"])
    if "convention" in params:
        assert params["convention"]["default"] == "verl"
        assert params["convention"]["allowed"] == CONVENTIONS


def _generator():
    spec = importlib.util.spec_from_file_location("gen_reference_doc", ROOT / "scripts" / "gen_reference_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reference_page_is_current():
    """docs/reference.md is what the generator writes from the registry now (regenerate after a change:
    ``python scripts/gen_reference_doc.py``)."""
    assert PAGE.read_text(encoding="utf-8") == _generator().current_text(), \
        "docs/reference.md is stale: run scripts/gen_reference_doc.py"


def test_reference_page_lists_every_function_with_its_parameters():
    page = PAGE.read_text(encoding="utf-8")
    sections = page.split("\n### `")[1:]
    by_name = {s.split("`", 1)[0]: s for s in sections}
    assert sorted(by_name) == sorted(reference.names())
    for name, section in by_name.items():
        d = reference.describe(name)
        first_line = d["doc"].strip().splitlines()[0]
        assert first_line in section
        for p in d["params"]:
            assert f"| `{p['name']}` | {p['kind']} |" in section, (name, p["name"])
        assert "Outputs: " + ", ".join(f"`{o}`" for o in d["outputs"]) + "." in section
    gae = by_name["advantages.gae"]
    assert "| `gamma` | float |  | `1.0` |" in gae
    assert "| `rewards` | tensor | `(B, T)` | **required** |" in gae
    assert '| `convention` | choice |  | `"verl"` | `"verl"`, `"trl"`, `"openrlhf"` |' in gae


def test_generator_includes_whatever_is_registered():
    """A function registered later (by a new family module) appears in the page without editing the
    generator: render takes the registry's descriptions as they are."""
    extra = {"name": "zz.new_function", "doc": "A new function.\n\nx ↦ 2x (made up for this test).",
             "params": [{"name": "x", "kind": "tensor", "required": True, "shape": "(B,)"},
                        {"name": "scale", "kind": "float", "required": False, "default": 2.0}],
             "outputs": ["y"]}
    text = _generator().render([reference.describe("kl.k1"), extra])
    assert "## Functions (2)" in text
    assert "[`zz.new_function`](#zznew_function)" in text
    assert "### `zz.new_function`" in text and "x ↦ 2x" in text
    assert "| `x` | tensor | `(B,)` | **required** |" in text
    assert "| `scale` | float |  | `2.0` |" in text
    assert "Outputs: `y`." in text


def _selects(name: str, args: dict, row: dict) -> bool:
    defaults = {p["name"]: p.get("default") for p in reference.describe(name)["params"]}
    effective = {**defaults, **args}
    return all(effective.get(k) is not None if v is GIVEN else effective.get(k) == v for k, v in row.items())


@pytest.mark.parametrize("name", reference.names())
def test_every_function_has_a_documented_example_that_runs(name):
    examples = reference.get(name).examples
    assert examples, f"{name} has no example: add examples= to its register(...)"
    declared = set(reference.describe(name)["outputs"])
    for ex in examples:
        outputs = reference.call(name, **ex.args)
        assert outputs and set(outputs) <= declared, (name, ex.args)


@pytest.mark.parametrize("name,row", V2_ROWS, ids=[f"{n}-{'-'.join(map(str, r.values()))}" for n, r in V2_ROWS])
def test_every_v2_row_has_an_example(name, row):
    assert any(_selects(name, dict(ex.args), row) for ex in reference.get(name).examples), \
        f"no example of {name} with {row}"


def test_a_row_is_selected_by_its_arguments_and_defaults():
    assert _selects("ppo.policy_loss", {"loss_variant": "gspo"}, {"loss_variant": "gspo", "convention": "verl"})
    assert not _selects("ppo.policy_loss", {"loss_variant": "gspo", "convention": "openrlhf"},
                        {"loss_variant": "gspo", "convention": "verl"})
    assert _selects("advantages.grpo_multi", {}, {"multi_objective_aggregation": "sum_then_normalize"})
    assert not _selects("dpo.loss", {"trl_version": "head"}, {"ld_alpha": GIVEN, "trl_version": "head"})


def test_reference_page_shows_every_example_with_the_engines_answer():
    """Each example is a curl request in a block the docs test compares at the digits shown, followed by
    the answer: the engine's outputs for its arguments, rounded (the page is also checked to be current)."""
    gen = _generator()
    page = PAGE.read_text(encoding="utf-8")
    sections = {s.split("`", 1)[0]: s for s in page.split("\n### `")[1:]}
    for name in reference.names():
        blocks = sections[name].split(gen.ROUNDED_MARKER + "\n```bash\n")[1:]
        assert len(blocks) == len(reference.get(name).examples), name
        for block, ex in zip(blocks, reference.get(name).examples):
            assert block.startswith(f"curl -s -X POST $B/reference/{name} "), name
            shown = block.split("# -> ", 1)[1].split("\n```", 1)[0].replace("\n#     ", "")
            assert json.loads(shown) == {"function": name, "outputs": gen.run_example(name, dict(ex.args))}


def test_shown_numbers_are_rounded_to_the_digits_the_docs_test_compares_at():
    gen = _generator()
    assert gen.shown_number(1 / 3) == 0.333333
    assert gen.shown_number(-2.0000051) == -2.00001
    assert gen.shown_number(65659969.137) == 65660000.0
    assert gen.shown_number(3e-17) == 0.0  # rounding noise of an exact zero
    assert gen.shown_number(float("nan")) == "nan" and gen.shown_number(float("-inf")) == "-inf"
    assert gen.shown_value([[1 / 3, 2], [0.5]]) == [[0.333333, 2], [0.5]]
    assert f"numbers to {gen.SHOWN_DIGITS} significant digits" in gen.ROUNDED_MARKER


def test_an_example_must_name_declared_parameters():
    from checkers.reference.registry import Param, register
    with pytest.raises(TypeError, match="undeclared parameters"):
        register("zz.bad_example", params=[Param("x", "tensor")], outputs=["y"], examples=[{"x": [1.0], "z": 2}])
    assert "zz.bad_example" not in reference.names()


@pytest.mark.parametrize("name", reference.names())
def test_describe_gives_doc_schema_and_outputs(name):
    d = reference.describe(name)
    assert d["name"] == name
    assert len(d["doc"]) > 40, "docstring should give the formula and its source"
    assert d["outputs"]
    param_names = [p["name"] for p in d["params"]]
    assert len(param_names) == len(set(param_names))
    assert {"dtype", "device"} <= set(param_names)
    for p in d["params"]:
        assert p["kind"] in ("tensor", "float", "int", "bool", "str", "choice", "labels", "tensor_or_float", "list")


def test_unknown_function_names_itself():
    with pytest.raises(reference.UnknownFunction) as err:
        reference.call("no.such_function")
    assert "no.such_function" in str(err.value)


def test_extra_argument_is_named():
    with pytest.raises(reference.ReferenceInputError) as err:
        reference.call("kl.k1", log_prob=[0.0], ref_log_prob=[0.0], bogus=1)
    assert err.value.argument == "bogus"


def test_missing_argument_is_named():
    with pytest.raises(reference.ReferenceInputError) as err:
        reference.call("kl.k1", log_prob=[0.0])
    assert err.value.argument == "ref_log_prob"


def test_lists_become_float64_and_float32_is_honoured():
    out64 = reference.call("kl.k1", log_prob=[-1.0, -2.0], ref_log_prob=[-1.5, -1.0])["kl"]
    assert out64.dtype == torch.float64
    assert out64.tolist() == [0.5, -1.0]
    out32 = reference.call("kl.k1", log_prob=[-1.0], ref_log_prob=[-1.5], dtype="float32")["kl"]
    assert out32.dtype == torch.float32


def test_nonfinite_strings_are_decoded():
    out = reference.call("kl.k1", log_prob=["-inf", -1.0], ref_log_prob=[-1.0, "nan"])["kl"]
    assert out[0].item() == float("-inf") and torch.isnan(out[1])


def test_gradients_flow_to_the_callers_tensor():
    lp = torch.tensor([-1.0, -0.5], dtype=torch.float64, requires_grad=True)
    out = reference.call("kl.k2", log_prob=lp, ref_log_prob=[-1.5, -0.5])["kl"].sum()
    (grad,) = torch.autograd.grad(out, lp)
    # d/dlp of ½(lp − ref)² is (lp − ref): 0.5 and 0.
    assert grad.tolist() == [0.5, 0.0]


def test_unknown_device_is_an_input_error():
    with pytest.raises(reference.ReferenceInputError) as err:
        reference.call("kl.k1", log_prob=[0.0], ref_log_prob=[0.0], device="tpu:7")
    assert err.value.argument == "device"
