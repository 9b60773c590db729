"""The verify endpoint and the code kind compare a pair of arrays the same way: one verdict and the same
error measures (checkers.tensor_compare), whether the claim arrives as the endpoint's nested JSON list or
as the sealed child's flat reply, for NaN, infinities, shape mismatches, empty and 0-d tensors, float32
references and values at the tolerance's edge."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers.kinds.code.judge import compare_reply
from checkers.tensor_compare import default_tolerance
from quizapp.api.reference import compare as verify_compare

MEASURES = ("match", "mismatches", "first_mismatch", "max_abs_err", "max_rel_err", "expected_shape", "shape",
            "reason", "expected_value", "got_value")


def _json(x: float) -> float | str:
    return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def _nested(t: torch.Tensor):
    """The claim as the verify endpoint receives it: nested lists, non-finite numbers as strings."""
    if t.dim() == 0:
        return _json(float(t))
    return [_nested(row) for row in t]


def _reply(t: torch.Tensor) -> dict:
    """The claim as the sealed child sends it back: shape and row-major data."""
    return {"shape": list(t.shape), "data": [_json(x) for x in t.reshape(-1).tolist()]}


def _both(expected: torch.Tensor, claim: torch.Tensor) -> tuple[dict, dict]:
    dtype = "float32" if expected.dtype == torch.float32 else "float64"
    api = verify_compare(expected, _nested(claim), "claimed.out", None, None)
    assert (api["rtol"], api["atol"]) == default_tolerance(dtype)    # the same default for the same dtype
    return api, compare_reply(expected, _reply(claim), dtype)


def _t(values, dtype=torch.float64) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype)


NAN, INF = math.nan, math.inf
EDGE = 3.0 + 1e-8 + 1e-6 * 3.0           # the float64 band's edge around 3 (within rounding)
CASES = {
    "equal": (_t([[1.0, -2.0], [0.5, 0.0]]), _t([[1.0, -2.0], [0.5, 0.0]])),
    "one-off": (_t([[1.0, -2.0], [0.5, 0.0]]), _t([[1.0, -2.0], [0.5, 1e-3]])),
    "nan-both": (_t([NAN, 1.0]), _t([NAN, 1.0])),
    "nan-claimed": (_t([2.0, 1.0]), _t([NAN, 1.0])),
    "nan-expected": (_t([NAN, 1.0]), _t([0.0, 1.0])),
    "inf-same": (_t([INF, -INF]), _t([INF, -INF])),
    "inf-flipped": (_t([INF, -INF]), _t([-INF, -INF])),
    "inf-vs-huge": (_t([1e308]), _t([INF])),
    "shape": (_t([[1.0, 2.0]]), _t([1.0, 2.0])),
    "scalar-vs-list": (_t(2.0), _t([2.0])),
    "scalar-off": (_t(2.0), _t(2.5)),
    "empty": (_t([]), _t([])),
    "float32-rounding": (_t([1 / 3, 2 / 3], torch.float32), _t([1 / 3, 2 / 3])),
    "float32-off": (_t([1 / 3, 2 / 3], torch.float32), _t([1 / 3, 2 / 3 * (1 + 1e-3)])),
    "zero-expected": (_t([0.0, 1.0]), _t([1e-9, 1.0])),
    "edge-in": (_t([3.0]), _t([EDGE * (1 - 1e-15)])),
    "edge-out": (_t([3.0]), _t([math.nextafter(EDGE, INF) * (1 + 1e-15)])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_pair_one_report(name):
    api, code = _both(*CASES[name])
    assert {k: api.get(k) for k in MEASURES} == {k: code.get(k) for k in MEASURES}


def test_the_reports_say_what_the_pair_is():
    # the shared verdicts themselves, so that agreeing on a wrong answer would not pass
    verdicts = {name: _both(*pair)[1]["match"] for name, pair in CASES.items()}
    assert {n for n, ok in verdicts.items() if ok} == {"equal", "nan-both", "inf-same", "empty",
                                                       "float32-rounding", "zero-expected", "edge-in"}
    _, shape = _both(*CASES["shape"])
    assert (shape["reason"], shape["mismatches"], shape["max_abs_err"]) == ("shape", 2, None)
    _, nan = _both(*CASES["nan-claimed"])
    assert (nan["first_mismatch"], nan["expected_value"], nan["got_value"], nan["max_abs_err"]) == \
        ([0], 2.0, "nan", "inf")
    _, zero = _both(*CASES["zero-expected"])
    assert zero["max_rel_err"] == "inf" and zero["max_abs_err"] == pytest.approx(1e-9)


FINITE = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
VALUE = st.one_of(FINITE, st.sampled_from([NAN, INF, -INF, 0.0]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(VALUE, VALUE, st.sampled_from([None, 0.0, 1e-9, 1e-6, 1e-3])), min_size=1, max_size=8),
       st.sampled_from([torch.float64, torch.float32]))
def test_random_pairs_give_one_report(pairs, dtype):
    expected = torch.tensor([b for b, _, _ in pairs], dtype=torch.float64).to(dtype)
    claim = torch.tensor([a if nudge is None or not math.isfinite(b) else b * (1 + nudge) for b, a, nudge in pairs],
                         dtype=torch.float64)
    api, code = _both(expected, claim)
    assert {k: api.get(k) for k in MEASURES} == {k: code.get(k) for k in MEASURES}


def test_the_endpoint_uses_the_float32_default_for_a_float32_output(client):
    args = {"log_prob": [[-1.0, -2.0]], "ref_log_prob": [[-1.5, -1.0]], "dtype": "float32"}
    near = [[0.5 * (1 + 2e-5), -1.0]]                # inside rtol 1e-4, outside rtol 1e-6
    loose = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": near}}).get_json()
    assert loose["match"] is True and loose["outputs"]["kl"]["rtol"] == 1e-4
    strict = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": near}, "rtol": 1e-6,
                                                        "atol": 1e-8}).get_json()
    assert strict["match"] is False and strict["outputs"]["kl"]["first_mismatch"] == [0, 0]
    assert strict["outputs"]["kl"]["message"] == "1 element(s) differ beyond rtol=1e-06, atol=1e-08"
