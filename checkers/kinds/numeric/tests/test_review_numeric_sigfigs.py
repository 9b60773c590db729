"""Review regression: sigfigs grading of values exactly halfway between two roundings."""

import pytest

from checkers import grading


@pytest.mark.parametrize("expected,sig,answer", [
    (0.125, 2, "0.13"), (0.125, 2, "0.12"), (1.15, 2, "1.2"), (0.335, 2, "0.34"), (2.675, 3, "2.68"),
])
def test_halfway_rounding_is_correct(expected, sig, answer):
    v = grading.grade(answer, {"kind": "numeric", "expected": expected, "sigfigs": sig}, {})
    assert v.status == "correct", v


@pytest.mark.parametrize("expected,sig,answer", [(0.125, 2, "0.14"), (0.125, 2, "0.11"), (2.675, 3, "2.69")])
def test_one_unit_off_is_still_incorrect(expected, sig, answer):
    v = grading.grade(answer, {"kind": "numeric", "expected": expected, "sigfigs": sig}, {})
    assert v.status == "incorrect"
