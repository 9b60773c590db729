"""The freetext kind: self-assessed, never machine graded."""

import pytest

from checkers import grading
from checkers.kinds import get_kind
from checkers.verdict import SpecError


def test_freetext_is_self_assessed():
    v = grading.grade("KL is asymmetric because...", {"kind": "freetext", "weight": 0}, {})
    assert (v.status, v.note, v.score) == ("undecided", "self_assessed", 0.0)
    with pytest.raises(SpecError):
        get_kind("freetext").validate_spec({"kind": "freetext", "weight": 1})
