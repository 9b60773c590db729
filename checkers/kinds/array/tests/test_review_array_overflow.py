"""Review regression: a JSON array answer with a decimal beyond float range is refused, not read as inf."""

from checkers import grading


def test_overflowing_literal_is_invalid_not_infinity():
    spec = {"kind": "array", "expected": {"value": ["inf", 2.0]}}
    assert grading.grade("[1e400, 2]", spec, {}).status == "invalid"
    assert grading.grade('["inf", 2]', spec, {}).status == "correct"
    assert grading.grade("[0.1, 2.5e-3]", {"kind": "array", "expected": {"value": [0.1, 0.0025]}}, {}).status \
        == "correct"
