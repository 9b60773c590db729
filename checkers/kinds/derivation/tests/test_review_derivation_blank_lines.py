"""Review regression: a derivation sent as a list of lines may contain blank lines (spacing, trailing newline)."""

from checkers.kinds.derivation.standalone import check_derivation

V = {"x": {"positive": True}, "b": {"positive": True}}
START, GOAL = "b*log(x) + b*log(x)", "2*b*log(x)"


def test_blank_lines_in_a_list_are_skipped():
    # (an intermediate line: the start then the goal alone would show no step of its own)
    v = check_derivation(["b*log(x) + b*log(x)", "", "= (b + b)*log(x)", "= 2*b*log(x)", "   "], START, GOAL, V)
    assert v.status == "correct", v


def test_line_numbers_still_count_the_learner_lines():
    v = check_derivation(["b*log(x) + b*log(x)", "", "= 3*b*log(x)"], START, GOAL, V)
    assert v.status == "incorrect"
    assert v.details["first_error"] == 2
    assert "Line 3" in v.feedback["en"]


def test_only_blank_lines_is_invalid():
    v = check_derivation(["", "  "], START, GOAL, V)
    assert v.status == "invalid"
