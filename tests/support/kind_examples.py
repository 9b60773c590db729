"""One check the kinds' own tests share: a part's declared examples grade as the kind declares them."""

from __future__ import annotations

from typing import Any, Mapping

from checkers import grading
from checkers.kinds import get_kind


def assert_examples_grade_as_declared(spec: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> None:
    """Every correct example grades correct, every incorrect one incorrect with its note, every invalid one
    invalid, through the whole grading path (:func:`checkers.grading.grade`)."""
    params = params or {}
    examples = get_kind(spec["kind"]).examples(spec, params)
    for raw in examples.correct:
        assert grading.grade(raw, spec, params).status == "correct", raw
    for raw, note in examples.incorrect:
        verdict = grading.grade(raw, spec, params)
        assert verdict.status == "incorrect" and verdict.note == note, (raw, verdict.note)
    for raw in examples.invalid:
        assert grading.grade(raw, spec, params).status == "invalid", raw
