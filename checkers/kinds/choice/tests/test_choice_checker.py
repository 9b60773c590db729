"""The choice kind through the grading facade: single and multiple answers, feedback counts, unknown options."""

from checkers import grading

from kind_examples import assert_examples_grade_as_declared

FB = {"en": "you forgot the 1/2", "zh": "漏掉了 1/2"}
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


def test_examples_grade_as_declared():
    assert_examples_grade_as_declared(CH)
