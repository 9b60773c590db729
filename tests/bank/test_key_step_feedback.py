"""A derivation key step's ``feedback`` (shown to a learner who leaves that step out) is filled with the
variant's parameters like a known mistake's feedback; one whose placeholders do not fill is shown as
written (the learner keeps the verdict), and the self-test fails naming the text,
``parts[i].key_steps[j].feedback.<lang>``."""

from __future__ import annotations

import copy

import quiz_testing as testing
from checkers import grading
from checkers.bank import selftest
from checkers.bank.question_place import on_request_texts
from checkers.bank.report import question_report
from checkers.bank.variants import params_for

BROKEN = "{{p:.2q}}"  # "q" is no format code: filling it raises in every variant
SEEDS = 3
FIELD = "parts[2].key_steps[0].feedback.en"
#: A chain valid step by step to the goal (a difference of squares) that skips the expanded square (the key step).
SKIPS_THE_KEY_STEP = ["(x + 1)^2 - x^2", "(x + 1 - x)*(x + 1 + x)", "2*x + 1"]


def _question(feedback_en: str) -> dict:
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = "key-step-feedback"
    data["parts"].append({
        "id": "c", "kind": "derivation",
        "prompt": {"en": "Show that $(x+1)^2 - x^2 = 2x + 1$.", "zh": "证明 $(x+1)^2 - x^2 = 2x + 1$。"},
        "variables": {"x": {"real": True}},
        "start": "(x + 1)^2 - x^2", "goal": "2*x + 1",
        "reference": ["(x + 1)^2 - x^2", "x^2 + 2*x + 1 - x^2", "2*x + 1"],
        "key_steps": [{"expr": "x^2 + 2*x + 1",
                       "feedback": {"en": feedback_en, "zh": "把平方展开(p = {{p:.3f}})"}}],
    })
    return data


def test_the_key_steps_feedback_is_an_on_request_text():
    texts = [(pid, field) for pid, field, _lang, _ in on_request_texts(_question("expand"))]
    assert texts[-2:] == [("c", FIELD), ("c", "parts[2].key_steps[0].feedback.zh")]


def test_a_missing_key_step_is_named_with_the_variants_numbers():
    data = _question("expand the square (p = {{p:.2f}})")
    assert question_report(data, SEEDS)["ok"]  # the question is sound: only the learner's answer is at fault
    for seed in (0, 4):
        params = params_for(data, seed)
        p = params["p"]
        verdict = grading.grade(SKIPS_THE_KEY_STEP, data["parts"][2], params)
        assert (verdict.status, verdict.note) == ("incorrect", "missing_key_steps")
        assert f"expand the square (p = {p:.2f})" in verdict.feedback["en"]
        assert f"把平方展开(p = {p:.3f})" in verdict.feedback["zh"]
        assert "{{" not in verdict.feedback["en"] + verdict.feedback["zh"]
        assert verdict.details["missing_milestones"][0]["feedback"] == {
            "en": f"expand the square (p = {p:.2f})", "zh": f"把平方展开(p = {p:.3f})"}


def test_a_broken_placeholder_still_gives_the_verdict_and_fails_the_selftest_at_its_field():
    data = _question(f"expand the square (p = {BROKEN})")
    params = params_for(data, 1)
    verdict = grading.grade(SKIPS_THE_KEY_STEP, data["parts"][2], params)
    assert (verdict.status, verdict.note) == ("incorrect", "missing_key_steps")
    assert f"expand the square (p = {BROKEN})" in verdict.feedback["en"]  # shown as written
    assert f"把平方展开(p = {params['p']:.3f})" in verdict.feedback["zh"]  # the other language still fills

    report = question_report(data, SEEDS)
    assert not report["ok"]
    assert [(f["part"], f["check"], f["field"], f["seeds"]) for f in report["failures"]] == [
        ("c", "view", FIELD, list(range(SEEDS)))]
    records = [f for f in selftest(data, seeds=range(SEEDS)).failures if f["message"] == "text-fail"]
    assert {(f["part"], f["args"]["field"], f["args"]["lang"]) for f in records} == {("c", FIELD, "en")}
    assert {f["seed"] for f in records} == set(range(SEEDS))
