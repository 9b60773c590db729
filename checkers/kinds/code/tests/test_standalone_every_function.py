"""Every registered engine function can be checked stand-alone through ``POST /api/v1/check/code``.

The walk is over ``reference.names()`` at test time, so a function added to the engine is covered the
moment it is registered: its inputs are chosen from its parameters' roles (``standalone_spec``), an
independent implementation of it (``tests/support/standalone_impls.py``, written from the formulas) is graded
``correct`` and the same implementation with every value negated ``incorrect``. A function registered
without an independent implementation fails here until one is written.

Detachment: where the engine's output is detached (every advantage estimator, as upstream computes them
under ``no_grad``) an implementation whose output still depends differentiably on an input is
``incorrect`` with note ``not_detached``; where the engine's output is differentiable, an implementation
that detaches it is caught by the gradient comparison (``gradient-mismatch``).
"""

from __future__ import annotations

import pytest

from checkers import reference
from checkers.kinds.code.cases import CaseBuilder
from checkers.kinds.code.checker import CodeChecker
from checkers.kinds.code.standalone import standalone_spec
import quiz_testing as testing
from standalone_impls import IMPLEMENTATIONS

CHECKER = CodeChecker()
NAMES = reference.names()
ADVANTAGES = [n for n in NAMES if n.startswith("advantages.")]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = testing.make_app(tmp_path_factory.mktemp("standalone"))
    yield app.test_client()
    from quizapp.storage.db import get_db
    get_db(app).dispose()


def _wrapped(name: str, transform: str) -> str:
    """The independent implementation of ``name`` with ``transform`` applied to what it returns; the
    wrapper keeps the implementation's signature (``functools.wraps``), so optional arguments still reach
    it by name."""
    fname = name.rsplit(".", 1)[-1]
    return (IMPLEMENTATIONS[name] + "\n\nimport functools\n_impl = " + fname + "\n\n\n"
            f"@functools.wraps(_impl)\ndef {fname}(**kw):\n    out = _impl(**kw)\n{transform}")


NEGATED = "    return -out\n"
# Adds zero times every input that requires grad: the values are unchanged, the output is in the graph.
LEAKING = ("    leak = sum((v * 0).sum() for v in kw.values() if isinstance(v, torch.Tensor) and v.requires_grad)\n"
           "    return out + leak\n")
DETACHED = "    return out.detach()\n"


def _check(client, function: str, source: str, **extra) -> dict:
    resp = client.post("/api/v1/check/code", json={"function": function, "source": source, **extra})
    assert resp.status_code == 200, (function, resp.get_json())
    return resp.get_json()


def test_every_registered_function_has_a_stand_alone_spec():
    refused = []
    for name in NAMES:
        try:
            spec = standalone_spec(name)
        except Exception as exc:  # noqa: BLE001 - the test reports every function refused, with why
            refused.append(f"{name}: {exc}")
            continue
        assert spec["args"], name
        assert set(spec["args"]) <= {p["name"] for p in reference.describe(name)["params"]}
    assert refused == []


def test_every_value_of_every_choice_parameter_is_checkable():
    """``args`` may pick any allowed value of a choice (a loss type, a variant, a convention, a mode): the
    engine computes the generated cases for each (edge cases it refuses are left out, never the check)."""
    refused, tried = [], 0
    for name in NAMES:
        for param in reference.describe(name)["params"]:
            if param["kind"] != "choice" or param["name"] == "dtype":
                continue
            for value in param["allowed"]:
                tried += 1
                try:
                    spec = standalone_spec(name, args={param["name"]: value})
                except Exception as exc:  # noqa: BLE001 - every refusal is listed
                    refused.append(f"{name} {param['name']}={value}: {exc}")
                    continue
                assert {"random-1", "random-2", "random-3"}.isdisjoint(spec["skip"]), (name, value)
    assert tried > 100 and refused == []


@pytest.mark.parametrize("name", NAMES)
def test_an_independent_implementation_passes_and_its_negation_fails(client, name):
    assert name in IMPLEMENTATIONS, f"write an independent implementation of {name} (tests/support/standalone_impls.py)"
    good = _check(client, name, IMPLEMENTATIONS[name])
    assert good["status"] == "correct", (name, good["note"], good["feedback"])
    assert good["function"] == name and good["name"] == name.rsplit(".", 1)[-1]
    ids = [case["id"] for case in good["details"]["cases"]]
    assert {"random-1", "random-2", "random-3", "float32"} <= set(ids), ids
    flipped = _check(client, name, _wrapped(name, NEGATED))
    assert flipped["status"] == "incorrect", (name, flipped["feedback"])


@pytest.mark.parametrize("name", ADVANTAGES)
def test_every_advantage_estimator_grades_a_leaking_output_not_detached(name):
    spec = standalone_spec(name)
    assert spec["gradients"], f"{name}: the check must give an input that requires grad"
    verdict = CHECKER.grade(_wrapped(name, LEAKING), spec, {})
    assert verdict.status == "incorrect" and verdict.note == "not_detached", (name, verdict.feedback)
    assert verdict.details["first_failure"]["id"] == "gradient"
    assert "torch.no_grad()" in verdict.feedback["en"] and "torch.no_grad()" in verdict.feedback["zh"]


def _engine_keeps_the_graph(name: str) -> bool:
    spec = standalone_spec(name)
    if not spec["gradients"]:
        return False
    builder = CaseBuilder(spec)
    case = next(c for c in builder.hidden() if c.grad)
    return builder.reference_full(case, spec["outputs"]).attached[spec["outputs"][0]]


DIFFERENTIABLE = [n for n in NAMES if n in IMPLEMENTATIONS and _engine_keeps_the_graph(n)]


def test_the_advantage_estimators_are_detached_and_the_losses_are_not():
    assert not set(ADVANTAGES) & set(DIFFERENTIABLE)
    assert {"kl.k3", "dpo.loss", "ppo.policy_loss", "grpo.loss", "masked.mean", "kto.loss"} <= set(DIFFERENTIABLE)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_a_detached_output_of_a_differentiable_function_fails_on_its_gradients(name):
    verdict = CHECKER.grade(_wrapped(name, DETACHED), standalone_spec(name), {})
    assert verdict.status == "incorrect" and verdict.note == "gradient-mismatch", (name, verdict.feedback)


LEAKING_GAE = """import torch


def gae(rewards, values, mask):
    # verl's recurrence, but computed in the graph: the advantages carry a gradient back to the critic
    B, T = rewards.shape
    adv = torch.zeros_like(rewards)
    next_v = torch.zeros(B, dtype=rewards.dtype)
    last = torch.zeros(B, dtype=rewards.dtype)
    for t in reversed(range(T)):
        m = mask[:, t]
        a = rewards[:, t] + next_v - values[:, t] + last
        next_v = m * values[:, t] + (1 - m) * next_v
        last = m * a + (1 - m) * last
        adv[:, t] = last
    return adv
"""


def test_a_leaking_gae_is_graded_not_detached_in_both_languages(client):
    body = _check(client, "advantages.gae", LEAKING_GAE)
    assert body["status"] == "incorrect" and body["note"] == "not_detached", body["feedback"]
    first = body["details"]["first_failure"]
    assert first["id"] == "gradient" and first["not_detached"] == ["advantages"]
    assert all(cmp["match"] for cmp in first["outputs"].values())      # the values themselves are right
    assert [c["ok"] for c in body["details"]["cases"][:-1]] == [True] * (len(body["details"]["cases"]) - 1)
    zh = _check(client, "advantages.gae", LEAKING_GAE, lang="zh")
    assert zh["note"] == "not_detached" and "torch.no_grad()" in zh["feedback"] and zh["feedback"] != body["feedback"]
    detach = "    rewards, values = rewards.detach(), values.detach()\n"
    detached = LEAKING_GAE.replace("    B, T = rewards.shape\n", detach + "    B, T = rewards.shape\n")
    fixed = _check(client, "advantages.gae", detached)
    assert fixed["status"] == "correct", fixed["feedback"]


IPO = """import torch


def loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta):
    h = (policy_chosen_logps - ref_chosen_logps) - (policy_rejected_logps - ref_rejected_logps)
    return (h - 1 / (2 * beta)) ** 2
"""


def test_args_fix_hyperparameters_and_reach_a_signature_that_names_them(client):
    body = _check(client, "dpo.loss", IPO, args={"beta": 0.3, "loss_type": "ipo"})
    assert body["status"] == "correct", body["feedback"]
    assert body["fixed"] == {"beta": 0.3, "loss_type": "ipo"}
    assert body["args"] == ["policy_chosen_logps", "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps"]
    # beta reaches the function because its signature names it: a hard-coded 0.3 is wrong under 0.2
    hard = IPO.replace(", beta):", "):\n    beta = 0.3")
    assert _check(client, "dpo.loss", hard, args={"beta": 0.3, "loss_type": "ipo"})["status"] == "correct"
    assert _check(client, "dpo.loss", hard, args={"beta": 0.2, "loss_type": "ipo"})["status"] == "incorrect"
    # and the sigmoid loss is not the IPO loss
    assert _check(client, "dpo.loss", IMPLEMENTATIONS["dpo.loss"],
                  args={"loss_type": "ipo"})["status"] == "incorrect"


def test_a_required_scalar_is_drawn_per_case_and_passed_to_the_learner(client):
    body = _check(client, "divergence.alpha", IMPLEMENTATIONS["divergence.alpha"])
    assert body["status"] == "correct" and body["args"] == ["p", "q", "alpha"]
    assert "def alpha(p, q, alpha):" in body["starter"] and "alpha: float (varies from case to case)" in body["starter"]
    # a hard-coded alpha is right for at most one of the drawn values
    hard = IMPLEMENTATIONS["divergence.alpha"].replace("def alpha(p, q, alpha):",
                                                       "def alpha(p, q, alpha):\n    alpha = 0.5")
    assert _check(client, "divergence.alpha", hard)["status"] == "incorrect"
    fixed = _check(client, "divergence.alpha", hard, args={"alpha": 0.5})
    assert fixed["status"] == "correct" and fixed["fixed"] == {"alpha": 0.5}


def test_name_chooses_the_function_the_source_defines(client):
    source = IMPLEMENTATIONS["kl.k3"].replace("def k3(", "def my_k3(")
    assert _check(client, "kl.k3", source)["note"] == "missing_function"
    body = _check(client, "kl.k3", source, name="my_k3")
    assert body["status"] == "correct" and body["name"] == "my_k3"


TIS = """import torch


def importance_weights(old_log_prob, rollout_log_prob, mask, rollout_is_threshold):
    with torch.no_grad():
        w = torch.exp(torch.clamp(old_log_prob - rollout_log_prob, -20, 20))
        return torch.clamp(w, max=rollout_is_threshold) * mask
"""


def test_the_default_output_is_the_first_the_engine_returns_with_these_args(client):
    # without a threshold the rollout weights are disabled: the response mask is what is graded
    plain = _check(client, "rollout.importance_weights", IMPLEMENTATIONS["rollout.importance_weights"])
    assert plain["status"] == "correct" and plain["outputs"] == ["modified_response_mask"]
    body = _check(client, "rollout.importance_weights", TIS, args={"rollout_is_threshold": 2.0})
    assert body["status"] == "correct" and body["outputs"] == ["rollout_is_weights"], body["feedback"]
    assert _check(client, "rollout.importance_weights", TIS, args={"rollout_is_threshold": 2.0,
                                                                   "rollout_is_mode": "mask"})["status"] == "incorrect"
    resp = client.post("/api/v1/check/code", json={"function": "rollout.importance_weights", "source": TIS,
                                                   "outputs": ["rollout_is_weights"]})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "outputs[0]"
