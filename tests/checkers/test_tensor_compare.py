"""checkers.tensor_compare: the tolerance rule and the error measures, checked against a plain-Python
element loop written from the module's stated definitions (and the scalar rule of the numeric and array
kinds), on special values, at the tolerance boundary, and on random arrays; the array kind, which applies
them without torch, reports the same numbers."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import checkers.kinds  # noqa: F401  (registers the kinds)
from checkers import limits
from checkers.kinds._common import num_close
from checkers.kinds.base import get_kind
from checkers.tensor_compare import Comparison, compare, default_tolerance

NAN, INF = math.nan, math.inf
SPECIAL = [0.0, -0.0, 1.0, -1.0, 1e-9, -3.5, 1e300, NAN, INF, -INF]


def _slow(expected: list[float], got: list[float], rtol: float, atol: float) -> dict:
    """The measures of the module docstring, one element at a time, on flat lists of the same length."""
    bad, abs_errs, rel_errs = [], [], []
    for a, b in zip(got, expected):
        both_nan = math.isnan(a) and math.isnan(b)
        identical = both_nan or a == b
        within = identical or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= atol + rtol * abs(b))
        bad.append(not within)
        e = 0.0 if identical else abs(a - b)
        e = INF if math.isnan(e) else e
        if e == 0:
            r = 0.0
        elif b == 0 or not math.isfinite(b):
            r = INF
        else:
            r = e / abs(b)
        abs_errs.append(e)
        rel_errs.append(r)
    first = bad.index(True) if any(bad) else None
    return {"mismatches": sum(bad), "first": first, "max_abs_err": max(abs_errs, default=0.0),
            "max_rel_err": max(rel_errs, default=0.0)}


def _t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def _same_float(x: float | None, y: float | None) -> bool:
    return x == y or (x is not None and y is not None and math.isnan(x) and math.isnan(y))


@pytest.mark.parametrize("a", SPECIAL)
@pytest.mark.parametrize("b", SPECIAL)
def test_the_rule_is_the_scalar_rule_of_the_numeric_and_array_kinds(a, b):
    got = compare(torch.tensor([b], dtype=torch.float64), torch.tensor([a], dtype=torch.float64), 1e-6, 1e-8)
    assert got.match == num_close(a, b, 1e-6, 1e-8)
    slow = _slow([b], [a], 1e-6, 1e-8)
    assert got.mismatches == slow["mismatches"]
    assert _same_float(got.max_abs_err, slow["max_abs_err"]) and _same_float(got.max_rel_err, slow["max_rel_err"])


def test_nan_matches_only_nan_and_an_infinity_only_itself():
    exp = torch.tensor([NAN, INF, -INF, NAN, INF], dtype=torch.float64)
    assert compare(exp, torch.tensor([NAN, INF, -INF, NAN, INF], dtype=torch.float64), 0.0, 0.0).match
    cmp = compare(exp, torch.tensor([NAN, INF, INF, 0.0, 1e308], dtype=torch.float64), 1.0, 1.0)
    assert (cmp.mismatches, cmp.first_mismatch) == (3, [2])
    assert cmp.expected_value == -INF and cmp.got_value == INF
    assert cmp.max_abs_err == INF and cmp.max_rel_err == INF
    assert cmp.to_json()["expected_value"] == "-inf" and cmp.to_json()["max_abs_err"] == "inf"


def test_the_tolerance_boundary_is_inclusive_and_measured_on_the_reference():
    rtol, atol = 2.0 ** -10, 2.0 ** -20            # binary fractions: the band's edge is exact
    b = 3.0
    edge = b + atol + rtol * abs(b)
    assert compare(_t(b), _t(edge), rtol, atol).match
    beyond = math.nextafter(edge, INF)
    cmp = compare(_t(b), _t(beyond), rtol, atol)
    assert not cmp.match and cmp.first_mismatch == [0]
    # the band is rtol * |b| around the reference b, not around the claim: swapping the two changes it
    one, near = _t(1.0), _t(1.9)
    assert not compare(one, near, 0.5, 0.0).match         # 0.9 > 0.5 * 1
    assert compare(near, one, 0.5, 0.0).match             # 0.9 <= 0.5 * 1.9


def test_shapes_are_never_broadcast():
    cmp = compare(torch.zeros(2, 3), torch.zeros(3, 2), 1.0, 1.0)
    assert cmp == Comparison(False, 6, [2, 3], [3, 2], reason="shape")
    scalar = compare(torch.tensor(2.0), torch.tensor([2.0]), 1.0, 1.0)
    assert (scalar.match, scalar.reason, scalar.max_abs_err) == (False, "shape", None)
    assert scalar.sentence(1.0, 1.0) == "shape mismatch: claimed [1], expected []"


def test_empty_tensors_match_with_zero_errors_and_a_missing_claim_is_no_tensor():
    empty = compare(torch.zeros(0, 4), torch.zeros(0, 4), 0.0, 0.0)
    assert (empty.match, empty.mismatches, empty.max_abs_err, empty.max_rel_err) == (True, 0, 0.0, 0.0)
    missing = compare(torch.ones(2, 2), None, 1.0, 1.0)
    assert (missing.match, missing.mismatches, missing.reason, missing.shape) == (False, 4, "not_a_tensor", None)


def test_a_zero_dimensional_mismatch_is_at_the_empty_index():
    cmp = compare(torch.tensor(2.0, dtype=torch.float64), torch.tensor(2.5, dtype=torch.float64), 0.0, 0.1)
    assert cmp.first_mismatch == [] and cmp.max_abs_err == 0.5 and cmp.max_rel_err == 0.25


def test_float32_and_float64_compare_in_float64_and_float32_gets_the_looser_default():
    third32 = torch.tensor([1.0 / 3.0], dtype=torch.float32)
    third64 = torch.tensor([1.0 / 3.0], dtype=torch.float64)
    gap = abs(float(third32) - 1.0 / 3.0)          # float32 rounding of 1/3, about 1e-8
    assert 0 < gap < 2e-8
    assert default_tolerance(torch.float32) == (limits.TENSOR_RTOL_FLOAT32, limits.TENSOR_ATOL_FLOAT32)
    assert default_tolerance("float64") == (limits.TENSOR_RTOL, limits.TENSOR_ATOL)
    cmp = compare(third64, third32, 0.0, 0.0)        # the float32 value converts exactly: the gap is seen
    assert not cmp.match and cmp.max_abs_err == gap
    assert compare(third64, third32, *default_tolerance(torch.float32)).match
    assert compare(third32, third64, *default_tolerance(torch.float32)).match


def test_a_reference_on_another_device_or_with_gradients_is_compared_on_the_cpu():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert compare(x * 2, torch.tensor([2.0, 4.0]), 0.0, 0.0).match


VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                   st.sampled_from(SPECIAL), st.floats(min_value=-2, max_value=2))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(VALUES, VALUES, st.sampled_from([None, 0.0, 1e-12, 1e-7, 1e-3])), max_size=12),
       st.sampled_from([(1e-6, 1e-8), (1e-4, 1e-6), (0.0, 0.0), (0.5, 0.0)]))
def test_random_pairs_match_the_element_loop(pairs, tol):
    rtol, atol = tol
    expected = [b for b, _, _ in pairs]
    # a claim is either any value or the reference nudged by a small amount (near the band's edge)
    got = [a if nudge is None or not math.isfinite(b) else b * (1 + nudge) for b, a, nudge in pairs]
    cmp = compare(torch.tensor(expected, dtype=torch.float64), torch.tensor(got, dtype=torch.float64), rtol, atol)
    slow = _slow(expected, got, rtol, atol)
    assert cmp.match == (slow["mismatches"] == 0)
    assert cmp.mismatches == slow["mismatches"]
    assert cmp.first_mismatch == (None if slow["first"] is None else [slow["first"]])
    assert cmp.max_abs_err == slow["max_abs_err"] and cmp.max_rel_err == slow["max_rel_err"]
    assert cmp.mismatches == sum(not num_close(a, b, rtol, atol) for a, b in zip(got, expected))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(VALUES, VALUES, st.sampled_from([None, 0.0, 1e-12, 1e-7, 1e-3])), min_size=1,
                max_size=12),
       st.sampled_from([(1e-6, 1e-8), (1e-4, 1e-6), (0.0, 0.0)]))
def test_the_array_kind_reports_the_same_measures_without_torch(pairs, tol):
    rtol, atol = tol
    expected = [b for b, _, _ in pairs]
    got = [a if nudge is None or not math.isfinite(b) else b * (1 + nudge) for b, a, nudge in pairs]
    spec = {"kind": "array", "expected": {"value": expected}, "tolerance": {"rtol": rtol, "atol": atol}}
    details = get_kind("array").grade(got, spec, {}).details
    cmp = compare(_t(*expected), _t(*got), rtol, atol)
    assert (details["mismatches"], details["first_mismatch"]) == (cmp.mismatches, cmp.first_mismatch)
    assert (details["max_abs_err"], details["max_rel_err"]) == (cmp.max_abs_err, cmp.max_rel_err)
