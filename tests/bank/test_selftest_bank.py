"""The bank self-test over EVERY question file in questions/, 20 seeds each: the report publishing the file
would give (checkers.bank.report), so a file that passes here can be published."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from checkers.bank import load_question_file, selftest
from checkers.bank.report import DEFAULT_SEEDS, format_report, question_report

ROOT = Path(__file__).resolve().parents[2] / "questions"
FILES = sorted(ROOT.rglob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_question_selftest(path: Path):
    report = question_report(load_question_file(path), DEFAULT_SEEDS, path)
    assert report["ok"], format_report(report)
    assert report["seeds"] == 20 and report["checks"] > 20


def test_bank_size():
    assert len(FILES) >= 20


def _q01():
    return load_question_file(ROOT / "L1" / "q01-kl-definition-properties.yaml")


def test_selftest_catches_a_mistake_equal_to_the_answer():
    q = _q01()
    part = q["parts"][0]
    part["mistakes"].append({"call": "kl.exact", "args": part["expected"]["args"], "output": "kl",
                             "note": "same-as-answer", "feedback": {"en": "x", "zh": "x"}})
    report = selftest(q, seeds=range(3))
    assert not report.ok
    assert {f["part"] for f in report.failures} == {"forward"}
    assert any("same-as-answer" in f["reason"] for f in report.failures)
    assert {f["seed"] for f in report.failures} == {0, 1, 2}


def test_selftest_catches_a_wrong_expected_value():
    q = _q01()
    q["parts"][1]["expected"] = {"expr": "a*2"}  # now a mistake may coincide or the answer is off
    q["parts"][1]["mistakes"] = [{"expr": "a*2", "note": "dup", "feedback": {"en": "x", "zh": "y"}}]
    report = selftest(q, seeds=range(2))
    assert not report.ok and all(f["part"] == "reverse" for f in report.failures)


def test_selftest_reports_engine_failures_without_raising():
    q = _q01()
    q = copy.deepcopy(q)
    q["params"]["boom"] = {"call": "kl.exact", "args": {"p": [0.5, 0.5], "q": [0.5]}}
    report = selftest(q, seeds=range(2))
    assert not report.ok
    assert all(f["part"] is None and "parameters" in f["reason"] for f in report.failures)
