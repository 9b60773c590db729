"""Every code exercise in the bank grades its own solution ``correct`` and each of its buggy versions
``incorrect`` with the note it declares, using the code checker directly (hidden cases, sealed child).

The feedback of a failing submission names the first failing case and quotes the expected and the received
value, which are the engine's value and the learner's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from checkers.bank import load_bank_files
from checkers.kinds.code.checker import CodeChecker

QUESTIONS = Path(__file__).resolve().parents[4] / "questions"
CHECKER = CodeChecker()


def _code_parts() -> list[tuple[str, dict]]:
    parts = []
    for _, question in load_bank_files(QUESTIONS):
        for part in question["parts"]:
            if part["kind"] == "code":
                parts.append((f"{question['id']}/{part['id']}", part))
    return parts


CODE_PARTS = _code_parts()
BUGGY = [(pid, i, part) for pid, part in CODE_PARTS for i in range(len(part.get("buggy") or []))]


def _grade(source: str, part: dict):
    return CHECKER.grade(CHECKER.parse(source, part), part, {})


def _part(qid: str) -> dict:
    return next(part for pid, part in CODE_PARTS if pid.startswith(qid + "/"))


def test_the_bank_holds_the_code_exercises():
    ids = {pid.split("/")[0] for pid, _ in CODE_PARTS}
    assert {"code-k3-per-token", "code-k1-per-token", "code-k2-per-token", "code-masked-mean", "code-kl-in-reward",
            "code-gae-verl", "code-gae-trl", "code-grpo-advantages", "code-rloo-advantages",
            "code-ppo-policy-loss", "code-ppo-value-loss", "code-dpo-sigmoid-loss", "code-ipo-loss",
            "code-k3-loss-gradient"} <= ids
    for pid, part in CODE_PARTS:
        assert len(part.get("buggy") or []) >= 3, pid


@pytest.mark.parametrize("pid, part", CODE_PARTS, ids=[pid for pid, _ in CODE_PARTS])
def test_the_solution_is_correct(pid, part):
    verdict = _grade(part["solution"], part)
    assert verdict.status == "correct", (pid, verdict.note, verdict.feedback)
    assert verdict.score == 1.0 and all(row["ok"] for row in verdict.details["cases"])


@pytest.mark.parametrize("pid, index, part", BUGGY, ids=[f"{pid}#{i}" for pid, i, _ in BUGGY])
def test_each_buggy_version_is_incorrect_with_its_note(pid, index, part):
    buggy = part["buggy"][index]
    verdict = _grade(buggy["source"], part)
    assert verdict.status == "incorrect", (pid, index, verdict.note, verdict.feedback)
    assert verdict.note == buggy["note"], (pid, index, verdict.feedback)
    assert verdict.feedback["en"] and verdict.feedback["zh"]


def test_first_failure_names_the_case_and_quotes_expected_and_received():
    part = _part("code-k1-per-token")
    swapped = next(b["source"] for b in part["buggy"] if b["note"] == "ratio-upside-down")
    verdict = _grade(swapped, part)
    first = verdict.details["first_failure"]
    assert first["id"] == "random-1" and not first["ok"]
    cmp = first["outputs"]["kl"]
    # the learner returned the negated log-ratio, so received = -expected at the first differing element
    assert cmp["got_value"] == pytest.approx(-cmp["expected_value"]) and cmp["expected_value"] != 0
    index = "".join(f"[{i}]" for i in cmp["first_mismatch"])
    en = verdict.feedback["en"]
    assert en.startswith(f"Case “{first['label']['en']}” fails:")
    assert f"kl{index} is {cmp['got_value']}, expected {cmp['expected_value']}" in en
    assert f"用例“{first['label']['zh']}”未通过" in verdict.feedback["zh"]
    # a small case quotes its inputs, so the learner can reproduce it
    assert set(first["inputs"]) == {"log_prob", "ref_log_prob"}


def test_an_edge_case_failure_is_reported_on_that_case():
    part = _part("code-grpo-advantages")
    no_lone_branch = next(b["source"] for b in part["buggy"] if b["note"] == "convention-openrlhf")
    verdict = _grade(no_lone_branch, part)
    first = verdict.details["first_failure"]
    # the random cases have full groups and pass; the one-member group is where this version breaks
    assert first["id"] == "group-of-one"
    assert [row["ok"] for row in verdict.details["cases"]][:-1] == [True] * (len(verdict.details["cases"]) - 1)
    assert "a group with a single member" in verdict.feedback["en"]
    assert "openrlhf" in verdict.feedback["en"] and "verl" in verdict.feedback["en"]
    cmp = first["outputs"]["advantages"]
    assert cmp["got_value"] == "nan" and isinstance(cmp["expected_value"], float)
