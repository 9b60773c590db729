import math
from pathlib import Path

import pytest

from checkers import grading
from checkers.kinds import get_kind, kind_names
from checkers.verdict import SpecError

FB = {"en": "you forgot the 1/2", "zh": "漏掉了 1/2"}
NUM = {"kind": "numeric", "expected": {"expr": "ln(2)/2"}, "tolerance": {"rtol": 1e-4, "atol": 1e-9},
       "mistakes": [{"expr": "ln(2)", "note": "missing-half", "feedback": FB}]}


def test_all_kinds_registered():
    """Every kind folder of checkers/kinds registers its kind under the folder's name (a new folder needs
    no edit here)."""
    kinds_dir = Path(__file__).resolve().parents[2] / "checkers" / "kinds"
    folders = {p.parent.name for p in kinds_dir.glob("*/partial.html")}
    assert len(folders) >= 7 and kind_names() == sorted(folders)
    assert all(get_kind(name).folder.name == name for name in kind_names())


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


CH = {"kind": "choice", "options": [{"id": i, "text": {"en": i, "zh": i}} for i in "abcd"], "correct": ["a", "c"],
      "multiple": True, "mistakes": [{"answer": ["a"], "note": "only-a", "feedback": FB}]}


def test_choice_multiple_is_order_insensitive():
    assert grading.grade(["c", "a"], CH, {}).status == "correct"
    assert grading.grade("a, c", CH, {}).status == "correct"
    assert grading.grade(["a", "b", "c"], CH, {}).status == "incorrect"
    assert grading.grade(["a"], CH, {}).note == "only-a"


def test_choice_multiple_feedback_counts_wrong_and_missed_options():
    # correct = {a, c}; {a, b, d}: b and d are wrong picks, c is missed
    fb = grading.grade(["a", "b", "d"], CH, {}).feedback
    assert "2 of your selected options are not correct" in fb["en"] and "missed 1 correct option" in fb["en"]
    assert "2 个不正确" in fb["zh"] and "漏选了 1 个" in fb["zh"]
    only_missed = grading.grade(["c"], CH, {}).feedback["en"]
    assert "missed 1" in only_missed and "not correct" not in only_missed


def test_choice_unknown_option_is_invalid_and_named():
    v = grading.grade(["a", "zz"], CH, {})
    assert v.status == "invalid" and "zz" in v.feedback["en"]


def test_choice_single():
    spec = {**CH, "correct": "b", "multiple": False, "mistakes": []}
    assert grading.grade("b", spec, {}).status == "correct"
    assert grading.grade("a", spec, {}).status == "incorrect"
    assert grading.grade(["a", "b"], spec, {}).status == "invalid"


def test_freetext_is_self_assessed():
    v = grading.grade("KL is asymmetric because...", {"kind": "freetext", "weight": 0}, {})
    assert (v.status, v.note, v.score) == ("undecided", "self_assessed", 0.0)
    with pytest.raises(SpecError):
        get_kind("freetext").validate_spec({"kind": "freetext", "weight": 1})


@pytest.mark.parametrize("spec", [NUM, ARR, CH])
def test_examples_grade_as_declared(spec):
    checker = get_kind(spec["kind"])
    ex = checker.examples(spec, {})
    for raw in ex.correct:
        assert grading.grade(raw, spec, {}).status == "correct", raw
    for raw, note in ex.incorrect:
        v = grading.grade(raw, spec, {})
        assert v.status == "incorrect" and v.note == note, (raw, v.note)
    for raw in ex.invalid:
        assert grading.grade(raw, spec, {}).status == "invalid", raw


def test_validate_preview():
    r = grading.validate("ln(2)/2", NUM)
    assert r["valid"] and "0.346574" in r["interpreted_as"]["text"]
    r = grading.validate("ln(", NUM)
    assert not r["valid"] and r["error"]["message"]
    r = grading.validate("beta log r", {"kind": "symbolic", "expected": "beta*log(r)",
                                        "variables": {"beta": {"positive": True}, "r": {"positive": True}}})
    assert r["valid"] and r["interpreted_as"]["latex"] and r["interpreted_as"]["mathml"]
