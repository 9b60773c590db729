"""The array kind through the grading facade: JSON text, shapes, mismatch details, known mistakes, invalid answers."""

import pytest

from checkers import grading

from kind_examples import assert_examples_grade_as_declared

FB = {"en": "you forgot the 1/2", "zh": "漏掉了 1/2"}
ARR = {"kind": "array", "expected": {"value": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]},
       "mistakes": [{"value": [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "note": "doubled", "feedback": FB}]}


def test_array_correct_and_json_text():
    assert grading.grade([[1, 2, 3], [4, 5, 6]], ARR, {}).status == "correct"
    assert grading.grade("[[1, 2, 3], [4, 5, 6.0000000001]]", ARR, {}).status == "correct"


def test_array_shape_mismatch():
    v = grading.grade([[1, 4], [2, 5], [3, 6]], ARR, {})
    assert v.status == "incorrect" and v.note == "shape_mismatch"
    assert v.details["shape"] == [3, 2] and v.details["expected_shape"] == [2, 3]


def test_array_mismatch_details():
    v = grading.grade([[1, 2, 3], [4, 5.5, 7]], ARR, {})
    assert v.status == "incorrect"
    assert v.details["mismatches"] == 2 and v.details["first_mismatch"] == [1, 1]
    assert v.details["max_abs_err"] == pytest.approx(1.0)
    assert "[1][1]" in v.feedback["en"]


def test_array_known_mistake_and_nan_strings():
    assert grading.grade([[2, 4, 6], [8, 10, 12]], ARR, {}).note == "doubled"
    spec = {"kind": "array", "expected": {"value": [1.0, float("nan"), float("inf")]}}
    assert grading.grade([1, "nan", "inf"], spec, {}).status == "correct"
    v = grading.grade([1, 0, "inf"], spec, {})
    assert v.status == "incorrect" and v.details["first_mismatch"] == [1]


def test_array_invalid():
    assert grading.grade("[[1, 2], [3]]", ARR, {}).status == "invalid"
    assert grading.grade("[1, 2", ARR, {}).status == "invalid"
    v = grading.grade([1, "abc("], ARR, {})
    assert v.status == "invalid" and "answer[1]" in v.feedback["en"]


def test_examples_grade_as_declared():
    assert_examples_grade_as_declared(ARR)
