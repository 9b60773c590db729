"""bon.pass_at_k (engine v3): human-eval's estimator against an exact binomial ratio and a slow loop."""

import math
from fractions import Fraction

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError
from checkers.reference import passk

CPU = {"device": "cpu"}


def call(**kw):
    return reference.call("bon.pass_at_k", **kw, **CPU)["pass_at_k"]


def exact(n: int, c: int, k: int) -> float:
    """1 − C(n−c, k)/C(n, k) in exact rational arithmetic (math.comb is 0 when k > n − c)."""
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def slow_loop(n: int, c: int, k: int) -> float:
    """The estimator written out factor by factor in Python floats."""
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


CASES = [(n, c, k) for n in (1, 2, 5, 16, 40) for c in range(0, n + 1, max(1, n // 5)) for k in (1, 2, 3, 5, n)
         if k <= n]


def test_matches_exact_binomial_ratio_and_slow_loop():
    n, c, k = (torch.tensor([x[i] for x in CASES], dtype=torch.float64) for i in range(3))
    got = call(n=n, c=c, k=k).tolist()
    for (ni, ci, ki), g in zip(CASES, got):
        assert g == pytest.approx(exact(ni, ci, ki), rel=1e-12, abs=1e-15), (ni, ci, ki)
        assert g == pytest.approx(slow_loop(ni, ci, ki), rel=1e-12, abs=1e-15), (ni, ci, ki)


def test_hand_values():
    # n=10, c=1, k=5: 1 − C(9,5)/C(10,5) = 1 − 126/252 = 1/2; n=4, c=2, k=2: 1 − 1/6 = 5/6; pass@1 = c/n
    assert call(n=[10, 4, 8], c=[1, 2, 3], k=[5, 2, 1]).tolist() == pytest.approx([0.5, 5 / 6, 3 / 8], rel=1e-14)


def test_edge_cases_of_the_contract():
    # k = 0 -> 0; c = 0 -> 0 (empty product); n − c < k -> 1 (also k > n with c = 0, as upstream)
    out = call(n=[5, 5, 5, 5, 3, 0], c=[2, 0, 4, 5, 0, 0], k=[0, 3, 2, 1, 4, 1]).tolist()
    assert out == [0.0, 0.0, 1.0, 1.0, 1.0, 1.0]


def test_broadcasting():
    out = call(n=20, c=[[0], [5], [20]], k=[1, 4])
    assert out.shape == (3, 2)
    for i, c in enumerate((0, 5, 20)):
        for j, k in enumerate((1, 4)):
            assert out[i, j].item() == pytest.approx(exact(20, c, k), rel=1e-12, abs=1e-15)


def test_long_products_are_sliced_without_changing_the_result(monkeypatch):
    n = torch.tensor([3000.0, 2500.0, 40.0], dtype=torch.float64)
    c = torch.tensor([2000.0, 10.0, 39.0], dtype=torch.float64)
    k = torch.tensor([3.0, 7.0, 1.0], dtype=torch.float64)
    whole = call(n=n, c=c, k=k)
    monkeypatch.setattr(passk, "_TABLE_BUDGET", 2500)  # one row per slice
    sliced = call(n=n, c=c, k=k)
    assert torch.equal(whole, sliced)
    assert whole.tolist() == pytest.approx([slow_loop(3000, 2000, 3), slow_loop(2500, 10, 7), slow_loop(40, 39, 1)],
                                           rel=1e-12)


def test_float32_dtype():
    n, c, k = [10, 100, 7], [3, 17, 0], [5, 10, 2]
    f32 = call(n=n, c=c, k=k, dtype="float32")
    assert f32.dtype == torch.float32
    expected = [exact(*x) for x in zip(n, c, k)]
    assert f32.tolist() == pytest.approx(expected, rel=1e-6, abs=1e-7)
    assert call(n=n, c=c, k=k).dtype == torch.float64


def test_result_is_not_in_the_graph():
    n = torch.tensor([10.0], dtype=torch.float64, requires_grad=True)
    assert not call(n=n, c=[2], k=[3]).requires_grad


@pytest.mark.parametrize("kw,argument", [
    ({"n": [3], "c": [4], "k": [1]}, "c"),
    ({"n": [3], "c": [-1], "k": [1]}, "c"),
    ({"n": [-3], "c": [0], "k": [1]}, "n"),
    ({"n": [3], "c": [1], "k": [-1]}, "k"),
    ({"n": [3.5], "c": [1], "k": [1]}, "n"),
    ({"n": [3], "c": [1], "k": [0.5]}, "k"),
    ({"n": [3], "c": ["nan"], "k": [1]}, "c"),
    ({"n": [3, 4], "c": [1, 1, 1], "k": [1]}, "c"),
    ({"n": [3], "c": [1]}, "k"),
])
def test_input_errors_name_the_argument(kw, argument):
    with pytest.raises(ReferenceInputError) as err:
        reference.call("bon.pass_at_k", **kw, **CPU)
    assert err.value.argument == argument


def test_http_call_verify_and_error(client):
    resp = client.post("/api/v1/reference/bon.pass_at_k", json={"n": [10], "c": [1], "k": [5]})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["outputs"]["pass_at_k"] == pytest.approx([0.5])
    ok = client.post("/api/v1/verify/bon.pass_at_k",
                     json={"args": {"n": [4], "c": [2], "k": [2]}, "claimed": {"pass_at_k": [5 / 6]}}).get_json()
    assert ok["match"] is True
    bad = client.post("/api/v1/reference/bon.pass_at_k", json={"n": [2], "c": [3], "k": [1]})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "c"
    listed = {f["name"] for f in client.get("/api/v1/reference").get_json()["functions"]}
    assert "bon.pass_at_k" in listed
