"""Constant answers fail the self-test unless declared; ``sources`` entries are schema-validated."""

from __future__ import annotations

import copy

import pytest

from checkers.bank import BankError, selftest, validate_question
from checkers.bank.selftest import check_constant

from tests.bank.test_schema import FILE, minimal


def _constant_question() -> dict:
    q = minimal()
    # 2p - 2p + 3 is 3 in every variant: nothing to compute.
    q["parts"][0]["expected"] = {"expr": "2*p - 2*p + 3"}
    return q


def test_a_constant_numeric_part_fails_with_every_seed_listed():
    report = selftest(_constant_question(), seeds=range(4))
    assert not report.ok and report.status == "failed"
    constant = [f for f in report.failures if f["status"] == "constant"]
    assert len(constant) == 1
    assert constant[0]["part"] == "a" and constant[0]["seeds"] == [0, 1, 2, 3]
    assert "constant: true" in constant[0]["reason"]
    assert report.failing_seeds == [0, 1, 2, 3]
    assert report.to_dict()["status"] == "failed"


def test_a_varying_part_passes_and_one_seed_cannot_be_judged_constant():
    report = selftest(minimal(), seeds=range(4))
    assert report.ok and report.status == "ok" and report.failing_seeds == []
    assert selftest(_constant_question(), seeds=[0]).ok  # one variant says nothing about variation


def test_declared_constant_passes():
    q = _constant_question()
    q["parts"][0]["constant"] = True
    q["parts"][0]["constant_reason"] = {"en": "The point is that it never changes.", "zh": "要点是它从不变化。"}
    validate_question(q, FILE)
    assert selftest(q, seeds=range(4)).ok


def test_check_constant_compares_arrays_elementwise():
    part = {"id": "x", "kind": "array"}
    assert check_constant(part, {0: [1.0, 2.0], 1: [1.0, 2.0]})["seeds"] == [0, 1]
    assert check_constant(part, {0: [1.0, 2.0], 1: [1.0, 2.5]}) is None
    assert check_constant({"id": "c", "kind": "choice"}, {0: "a", 1: "a"}) is None


def test_tiny_values_that_differ_are_not_constant():
    part = {"id": "w", "kind": "numeric"}
    assert check_constant(part, {0: 0.9 ** 1999, 1: 0.95 ** 999, 2: 0.9 ** 499}) is None  # 1e-92 .. 1e-23
    assert check_constant(part, {0: 0.9 ** 1999, 1: 0.9 ** 1999})["seeds"] == [0, 1]  # one tiny value
    assert check_constant(part, {0: 0.0, 1: 0.0, 2: -0.0})["seeds"] == [0, 1, 2]


@pytest.mark.parametrize("change, field", [
    ({"constant": True}, "parts[0].constant_reason"),
    ({"constant": "yes", "constant_reason": {"en": "r", "zh": "r"}}, "parts[0].constant"),
    ({"constant_reason": {"en": "r", "zh": "r"}}, "parts[0].constant_reason"),
    ({"constant": True, "constant_reason": {"en": "r"}}, "parts[0].constant_reason.zh"),
])
def test_constant_keys_are_validated(change, field):
    q = minimal()
    q["parts"][0].update(change)
    with pytest.raises(BankError) as info:
        validate_question(q, FILE)
    assert info.value.field == field


def test_constant_is_refused_on_a_choice_part():
    q = minimal()
    q["parts"].append({"id": "b", "kind": "choice", "prompt": {"en": "?", "zh": "?"},
                       "options": [{"id": "a", "text": {"en": "A", "zh": "甲"}},
                                   {"id": "b", "text": {"en": "B", "zh": "乙"}}],
                       "correct": "a", "constant": True})
    with pytest.raises(BankError) as info:
        validate_question(q, FILE)
    assert info.value.field == "parts[1].constant"


PAPER = {"claim": "the loss", "paper": "Some paper (2024)", "section": "§3"}
CODE = {"claim": "the code", "repo": "volcengine/verl", "file": "verl/trainer/ppo/core_algos.py",
        "function": "compute_gae_advantage_return"}


def test_sources_accept_papers_and_framework_files_at_top_and_per_part():
    q = minimal()
    q["sources"] = [PAPER, CODE]
    q["parts"][0]["sources"] = [CODE]
    validate_question(q, FILE)


@pytest.mark.parametrize("entry, field", [
    ({"paper": "P", "section": "§1"}, "sources[0].claim"),
    ({"claim": "c", "paper": "P"}, "sources[0].section"),
    ({"claim": "c", "repo": "a/b", "file": "f.py"}, "sources[0].function"),
    ({"claim": "c", "section": "§1"}, "sources[0]"),
    ({"claim": "c", "paper": "P", "section": "§1", "file": "f.py"}, "sources[0]"),
    ({"claim": "c", "repo": "not a repo", "file": "f.py", "function": "g"}, "sources[0].repo"),
    ({"claim": "c", "paper": "P", "section": "§1", "url": "x"}, "sources[0].url"),
])
def test_bad_sources_name_the_field(entry, field):
    q = minimal()
    q["sources"] = [copy.deepcopy(entry)]
    with pytest.raises(BankError) as info:
        validate_question(q, FILE)
    assert info.value.field == field


def test_sources_must_be_a_non_empty_list():
    q = minimal()
    q["sources"] = []
    with pytest.raises(BankError) as info:
        validate_question(q, FILE)
    assert info.value.field == "sources"
