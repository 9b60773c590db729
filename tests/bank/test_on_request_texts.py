"""Hints and known-mistake feedback are texts a learner gets only on request (asking for a hint, making
that mistake), so no view renders them: the self-test fills each of them for every seed and language it
covers and names the broken one (``parts[0].hints[1].en``, ``parts[1].mistakes[0].feedback.zh``), and a
learner who makes a known mistake gets its feedback with the variant's numbers filled in."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import quiz_testing as testing
from checkers import grading
from checkers.bank import load_question_file, selftest
from checkers.bank.question_place import on_request_texts
from checkers.bank.report import question_report
from checkers.bank.variants import params_for
from checkers.params import resolve_value

BROKEN = "{{p:.2q}}"  # "q" is no format code: filling it raises in every variant
SEEDS = 4


def _question(mutate) -> dict:
    data = copy.deepcopy(testing.SAMPLE_QUESTION)
    data["id"] = "on-request-texts"
    mutate(data)
    return data


def _set(path: tuple, text: str):
    """A mutation writing ``text`` at ``path`` (keys and indices) of the question."""
    def mutate(d):
        node = d
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = text
    return mutate


CASES = [
    (("parts", 0, "hints", 1, "en"), "parts[0].hints[1].en", "a"),
    (("parts", 0, "hints", 0, "zh"), "parts[0].hints[0].zh", "a"),
    (("parts", 0, "mistakes", 0, "feedback", "zh"), "parts[0].mistakes[0].feedback.zh", "a"),
    (("parts", 1, "mistakes", 0, "feedback", "en"), "parts[1].mistakes[0].feedback.en", "b"),
]


@pytest.mark.parametrize(("path", "field", "part"), CASES, ids=[c[1] for c in CASES])
def test_a_broken_hint_or_feedback_fails_the_report_at_its_field(path, field, part):
    data = _question(_set(path, f"Here p = {BROKEN}."))
    report = question_report(data, SEEDS)
    assert not report["ok"]
    # one failure, at the text itself: the mistake still grades incorrect with its note (below)
    assert [(f["part"], f["check"], f["field"], f["seeds"]) for f in report["failures"]] == [
        (part, "view", field, list(range(SEEDS)))]
    assert field in report["failures"][0]["reason"] and ".2q" in report["failures"][0]["reason"]


def test_the_single_hint_is_rendered_too():
    data = _question(lambda d: d["parts"][0].update(hint={"en": "Last hint.", "zh": f"最后 {BROKEN}"}))
    failures = question_report(data, SEEDS)["failures"]
    assert [(f["part"], f["field"]) for f in failures] == [("a", "parts[0].hint.zh")]


def test_the_selftest_record_names_the_text_and_the_language():
    data = _question(_set(("parts", 1, "mistakes", 0, "feedback", "zh"), f"x {BROKEN}"))
    report = selftest(data, seeds=range(SEEDS))
    text = [f for f in report.failures if f["message"] == "text-fail"]
    assert len(text) == SEEDS and {f["seed"] for f in text} == set(range(SEEDS))
    assert {(f["part"], f["status"], f["args"]["field"], f["args"]["lang"], f["args"]["error"]) for f in text} == {
        ("b", "view", "parts[1].mistakes[0].feedback.zh", "zh", "SpecError")}


def test_a_placeholder_that_breaks_in_some_variants_is_reported_for_those():
    # ".2" (a precision without a type) formats a float but raises for an int: c is one or the other
    def mutate(d):
        d["params"]["c"] = {"choice": [1, 2.5]}
        d["parts"][0]["hints"][1]["en"] = "Compare with {{c:.2}}."
    data = _question(mutate)
    seeds = range(12)
    with_int = [s for s in seeds if isinstance(params_for(data, s)["c"], int)]
    assert 0 < len(with_int) < len(seeds)  # the check below sees both kinds of variant
    failures = question_report(data, len(seeds))["failures"]
    assert [(f["field"], f["seeds"]) for f in failures] == [("parts[0].hints[1].en", with_int)]


def test_every_on_request_text_is_listed_once_per_language():
    texts = list(on_request_texts(testing.SAMPLE_QUESTION))
    assert [(pid, field) for pid, field, _lang, _ in texts] == [
        ("a", "parts[0].hints[0].en"), ("a", "parts[0].hints[0].zh"),
        ("a", "parts[0].hints[1].en"), ("a", "parts[0].hints[1].zh"),
        ("a", "parts[0].mistakes[0].feedback.en"), ("a", "parts[0].mistakes[0].feedback.zh"),
        ("b", "parts[1].mistakes[0].feedback.en"), ("b", "parts[1].mistakes[0].feedback.zh")]
    assert all(field.endswith("." + lang) for _pid, field, lang, _ in texts)
    assert texts[2][3] == testing.SAMPLE_QUESTION["parts"][0]["hints"][1]["en"]


# --------------------------------------------------------------------------- what a learner gets


def test_a_known_mistake_gives_its_feedback_with_the_variants_numbers():
    def mutate(d):
        d["parts"][0]["mistakes"][0]["feedback"] = {"en": "That is p = {{p:.2f}}, not 2p.",
                                                    "zh": "这是 p = {{p:.3f}},不是 2p。"}
        d["parts"][1]["mistakes"][0]["feedback"] = {"en": "Not symmetric (p = {{p}}).", "zh": "不对称。"}
    data = _question(mutate)
    for seed in (0, 5):
        params = params_for(data, seed)
        p = params["p"]
        numeric = grading.grade(repr(p), data["parts"][0], params)  # the mistake "p" instead of 2p
        assert (numeric.status, numeric.note) == ("incorrect", "forgot-double")
        assert numeric.feedback == {"en": f"That is p = {p:.2f}, not 2p.", "zh": f"这是 p = {p:.3f},不是 2p。"}
        choice = grading.grade("yes", data["parts"][1], params)
        assert choice.note == "symmetric" and choice.feedback["en"] == f"Not symmetric (p = {p!r})."


def test_a_feedback_that_does_not_fill_still_gives_the_verdict():
    data = _question(_set(("parts", 0, "mistakes", 0, "feedback", "en"), f"That is p = {BROKEN}."))
    params = params_for(data, 1)
    verdict = grading.grade(repr(params["p"]), data["parts"][0], params)
    assert (verdict.status, verdict.note) == ("incorrect", "forgot-double")
    assert verdict.feedback == {"en": f"That is p = {BROKEN}.", "zh": "这是 p,不是 2p。"}


def test_the_banks_feedback_with_placeholders_reaches_learners_filled():
    path = Path(__file__).resolve().parents[2] / "questions" / "L3" / "v2-a-k3-variance-orders.yaml"
    data = load_question_file(path)
    graded = 0
    for part in data["parts"]:
        for m in part.get("mistakes") or []:
            if "{{" not in m["feedback"]["en"] or "call" not in m:
                continue
            params = params_for(data, 3)
            answer = resolve_value({k: v for k, v in m.items() if k not in ("note", "feedback")}, params)
            verdict = grading.grade(repr(float(answer)), part, params)
            assert verdict.note == m["note"]
            assert all("{{" not in verdict.feedback[lang] for lang in ("en", "zh"))
            assert f"= {params['p3']}$" in verdict.feedback["en"]
            graded += 1
    assert graded >= 1
