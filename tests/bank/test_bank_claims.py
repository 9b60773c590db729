"""Claims the bank's text makes hold in every variant, attributions name the right framework, and
prompts do not give away what a part asks for."""

from __future__ import annotations

import math
from pathlib import Path

from checkers import grading
from checkers.bank import load_question_file
from checkers.bank.variants import params_for, part_hints, public_view
from checkers.reference import call

ROOT = Path(__file__).resolve().parents[2] / "questions"


def _q(rel: str) -> dict:
    return load_question_file(ROOT / rel)


def _text(view: dict, lang: str) -> str:
    """What the learner can read before answering: prompts, input help and every on-demand hint."""
    q = _by_id(view["id"])
    params = params_for(q, view["variant"])
    hints = {p["id"]: " ".join(part_hints(p, lang, params)) for p in q["parts"]}
    parts = [view["prompt"]] + [(p["prompt"] or "") + " " + (p.get("placeholder") or "") + " " + hints[p["id"]]
                                for p in view["parts"]]
    return " ".join(parts)


def _by_id(qid: str) -> dict:
    return load_question_file(next(ROOT.rglob(f"{qid}.yaml")))


def test_q2_the_hack_never_pays_over_20_seeds():
    # The story: with the KL penalty, collapsing onto the hacked answer scores below the reference policy.
    q = _q("L1/q02-why-kl-penalty.yaml")
    part = next(p for p in q["parts"] if p["id"] == "hacked")
    for seed in range(20):
        prm = params_for(q, seed)
        kl_collapse = call("kl.exact", p=[1.0, 0.0], q=[prm["rho"], 1 - prm["rho"]])["kl"]
        j_hack = grading.expected(part, prm)
        assert math.isclose(j_hack, prm["rh"] - prm["beta"] * float(kl_collapse), rel_tol=1e-9)
        j_ref = (1 - prm["rho"]) * prm["rn"] + prm["rho"] * prm["rh"]  # no KL cost at the reference
        assert prm["rh"] > prm["rn"], seed  # the reward model does prefer the hack
        assert j_hack < j_ref, seed


def test_mask_reset_of_returns_is_credited_to_verl_not_trl():
    q = _q("L1/comp-gae-discounted-returns.yaml")
    for lang in ("en", "zh"):
        assert "TRL" not in _text(public_view(q, 0, lang), lang)
    assert any(s.get("repo") == "volcengine/verl" for s in q["sources"])


def test_gae_holes_question_names_openrlhf_and_verl_whitening():
    q = _q("L3/comp-gae-holes-verl-trl.yaml")
    view = public_view(q, 0, "en")
    text = _text(view, "en")
    assert "TRL" not in text and "OpenRLHF" in text
    assert "whiten" in text  # verl whitens with counted-token statistics after the recursion
    conventions = {p["id"]: p["expected"]["args"]["convention"] for p in q["parts"] if p["kind"] == "array"}
    assert conventions == {"verl": "verl", "openrlhf": "openrlhf"}
    repos = {s["repo"] for s in q["sources"] if "repo" in s}
    assert repos == {"volcengine/verl", "OpenRLHF/OpenRLHF"}


def test_ipo_is_not_called_bounded_and_is_sourced():
    q = _q("L3/q25-next-gen-kl.yaml")
    text = str(q).lower()
    assert "bounded squared" not in text and "有界的平方" not in text
    assert any("IPO" in s["claim"] and "paper" in s for s in q["sources"])


def test_simpo_claims_have_a_paper_source():
    q = _q("L2/q19-simpo-no-reference.yaml")
    assert all("SimPO" in s["paper"] and s["section"] for s in q["sources"])


def test_q4_neither_prompt_nor_hint_states_k3():
    q = _q("L1/q04-k3-estimator.yaml")
    for lang in ("en", "zh"):
        text = _text(public_view(q, 0, lang), lang).replace(" ", "")
        assert "e^x-x-1" not in text and "exp(Delta)-" not in text and "e^\\Delta-\\Delta" not in text


def test_q25_limit_is_asked_not_told():
    q = _q("L3/q25-next-gen-kl.yaml")
    view = public_view(q, 0, "en")
    assert "\\alpha\\to1" not in view["prompt"].replace(" ", "")
    limit = next(p for p in view["parts"] if p["id"] == "limit")
    assert "familiar" not in limit["prompt"] and "KL" not in limit["prompt"]
    assert any(p["id"] == "limitname" and p["kind"] == "choice" for p in view["parts"])


def test_q23_bon_part_does_not_state_the_formula_and_peaks_are_realistic():
    q = _q("L3/q23-overoptimisation-peak.yaml")
    view = public_view(q, 0, "en")
    bon = next(p for p in view["parts"] if p["id"] == "bon")
    assert "ln n" not in bon["prompt"] and "\\ln" not in bon["prompt"]
    parts = {p["id"]: p for p in q["parts"]}
    for seed in range(20):
        prm = params_for(q, seed)
        kl_bon = grading.expected(parts["klpeak"], prm)
        d_rl = grading.expected(parts["rlpeak"], prm)
        # best-of-n cannot reach more than about 10 nats in practice; the RL peak stays within tens of nats
        assert 1.0 <= kl_bon <= 10.0, (seed, kl_bon)
        assert 2.0 <= d_rl <= 8.0 and d_rl ** 2 <= 64, (seed, d_rl)


def test_q11_prompt_does_not_state_the_expectation():
    q = _q("L2/q11-k3-unbiased-derivation.yaml")
    for lang in ("en", "zh"):
        prompt = public_view(q, 0, lang)["prompt"]
        assert "exactly the KL" not in prompt and "恰好等于 KL" not in prompt
