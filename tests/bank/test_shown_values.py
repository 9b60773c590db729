"""Expected values in self-test reports read as a person reads them (checkers/bank/shown.py), never as
Python's repr: float noise dropped, lists as [a, b], a formula by its text, no value as a dash."""

from __future__ import annotations

import copy

import pytest

import quiz_testing as testing

from checkers.bank.selftest import selftest
from checkers.bank.shown import NO_VALUE, shown_value


@pytest.mark.parametrize("value, shown", [
    (0.482 - 0.5, "-0.018"),                      # -0.018000000000000016 in float64
    (0.1 + 0.2, "0.3"),
    (3.0, "3"),
    (1e-20, "1e-20"),
    ([[0.12000000000000005, 0.4], [1.0, -0.06999999999999994]], "[[0.12, 0.4], [1, -0.07]]"),
    ({"text": "1 - exp(Delta)", "latex": "1 - e^{\\Delta}", "mathml": "<mrow/>"}, "1 - exp(Delta)"),
    ({"start": "f(x)", "goal": "x", "reference": ["x"]}, "f(x) \u2192 x"),
    (None, NO_VALUE),
    (True, "true"),
])
def test_shown_value(value, shown):
    assert shown_value(value) == shown


def test_selftest_names_the_expected_value_without_float_noise():
    q = copy.deepcopy(testing.SAMPLE_QUESTION)
    q["params"] = {}
    q["prompt"] = {"en": "No parameters.", "zh": "没有参数。"}
    q["solution"]["worked"] = {"en": "Done.", "zh": "完成。"}
    # a known mistake that is the correct answer: reported with the expected value it was compared with
    q["parts"][0] = {"id": "a", "kind": "array", "prompt": {"en": "Values.", "zh": "数值。"},
                     "expected": {"value": [0.12000000000000005, -0.06999999999999994]},
                     "mistakes": [{"answer": "[0.12, -0.07]", "note": "same", "feedback": {"en": "Same.", "zh": "同。"}}]}
    report = selftest(q, seeds=range(1))
    texts = [str(f.get("expected")) for f in report.failures if f.get("expected") is not None]
    assert texts == ["incorrect (expected value [0.12, -0.07])"], report.failures
