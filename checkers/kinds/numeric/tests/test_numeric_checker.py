"""The numeric kind through the grading facade: tolerance, known mistakes, non-finite values, sigfigs, spec checks."""

import math

import pytest

from checkers import grading
from checkers.kinds import get_kind
from checkers.verdict import SpecError

from kind_examples import assert_examples_grade_as_declared

FB = {"en": "you forgot the 1/2", "zh": "漏掉了 1/2"}
NUM = {"kind": "numeric", "expected": {"expr": "ln(2)/2"}, "tolerance": {"rtol": 1e-4, "atol": 1e-9},
       "mistakes": [{"expr": "ln(2)", "note": "missing-half", "feedback": FB}]}



@pytest.mark.parametrize("raw,status,note", [
    ("0.34657", "correct", None), ("ln(2)/2", "correct", None), (0.3465736, "correct", None),
    ("0.69315", "incorrect", "missing-half"), ("0.35", "incorrect", "insufficient_precision"),
    ("-0.34657", "incorrect", "wrong-sign"), ("0.5", "incorrect", "bits-vs-nats"),
    ("3.4657", "incorrect", "power-of-ten"), ("0.9", "incorrect", None), ("nan", "incorrect", "nonfinite"),
    ("inf", "incorrect", "nonfinite"), ("ln(", "invalid", "parse_error"), ("", "invalid", "parse_error"),
    (True, "invalid", "parse_error"),
])
def test_numeric(raw, status, note):
    v = grading.grade(raw, NUM, {})
    assert (v.status, v.note) == (status, note), v.feedback
    assert set(v.feedback) == {"en", "zh"} and v.feedback["en"] and v.feedback["zh"]


def test_numeric_nan_inf_rules():
    spec = {"kind": "numeric", "expected": {"value": float("nan")}}
    assert grading.grade("nan", spec, {}).status == "correct"
    assert grading.grade("1e308", spec, {}).status == "incorrect"
    spec = {"kind": "numeric", "expected": {"value": float("inf")}}
    assert grading.grade("inf", spec, {}).status == "correct"
    assert grading.grade("∞", spec, {}).status == "correct"
    assert grading.grade("-inf", spec, {}).status == "incorrect"
    assert grading.grade("1e300", spec, {}).status == "incorrect"


def test_numeric_sigfigs_and_params():
    spec = {"kind": "numeric", "expected": {"expr": "2*p"}, "sigfigs": 3}
    assert grading.grade("1.23", spec, {"p": 0.6149}).status == "correct"
    assert grading.grade("1.24", spec, {"p": 0.6149}).status == "incorrect"
    assert grading.grade("1.2", spec, {"p": 0.6149}).note == "insufficient_precision"


def test_numeric_bits_for_nats_without_an_authored_rule():
    v = grading.grade(str(1 / math.log(2)), {"kind": "numeric", "expected": 1.0}, {})
    assert v.note == "bits-vs-nats" and "bits" in v.feedback["en"]


def test_numeric_spec_validation():
    with pytest.raises(SpecError):
        get_kind("numeric").validate_spec({"kind": "numeric"})
    with pytest.raises(SpecError):
        get_kind("numeric").validate_spec({"kind": "numeric", "expected": 1, "mistakes": [{"value": 2, "note": "Bad Id",
                                                                                              "feedback": FB}]})
    get_kind("numeric").validate_spec(NUM)


def test_examples_grade_as_declared():
    assert_examples_grade_as_declared(NUM)
