"""The reference engine over HTTP (docs/reference.md, "Calling it")."""

import pytest


def _error(resp, status, field="__any__"):
    assert resp.status_code == status, resp.get_data(as_text=True)
    err = resp.get_json()["error"]
    assert {"code", "message", "field"} <= set(err)
    if field != "__any__":
        assert err["field"] == field, err
    return err


def test_list_functions(client):
    body = client.get("/api/v1/reference").get_json()
    names = [f["name"] for f in body["functions"]]
    assert "kl.k1" in names and names == sorted(names)
    k1 = next(f for f in body["functions"] if f["name"] == "kl.k1")
    assert {"name", "doc", "params", "outputs"} <= set(k1) and k1["outputs"] == ["kl"]


def test_call(client):
    resp = client.post("/api/v1/reference/kl.k1", json={"log_prob": [[-1.0, -2.0]], "ref_log_prob": [[-1.5, -1.0]]})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["function"] == "kl.k1"
    assert body["outputs"]["kl"][0] == pytest.approx([0.5, -1.0])


def test_nonfinite_both_ways(client):
    resp = client.post("/api/v1/reference/kl.k1", json={"log_prob": [["nan", "inf", 0.0]],
                                                       "ref_log_prob": [[0.0, 0.0, "-inf"]]})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["outputs"]["kl"] == [["nan", "inf", "inf"]]
    assert "NaN" not in resp.get_data(as_text=True)


def test_call_errors(client):
    e = _error(client.post("/api/v1/reference/no.such", json={}), 404)
    assert e["code"] == "unknown_function" and "kl.k1" in e["names"]
    _error(client.post("/api/v1/reference/kl.k1", json={"log_prob": [[1.0]]}), 422, "ref_log_prob")
    _error(client.post("/api/v1/reference/kl.k1", json={"log_prob": [[1.0]], "ref_log_prob": [[1.0]], "bogus": 1}),
           422, "bogus")
    _error(client.post("/api/v1/reference/kl.k1", json={"log_prob": [["x"]], "ref_log_prob": [[1.0]]}),
           422, "log_prob")
    _error(client.post("/api/v1/reference/kl.k1", data="{", content_type="application/json"), 400)
    _error(client.post("/api/v1/reference/kl.k1", data="{}", content_type="text/plain"), 415)


def test_million_elements_is_413(client):
    big = "[" + ",".join(["0"] * 1_000_001) + "]"
    resp = client.post("/api/v1/reference/kl.k1", data='{"log_prob": ' + big + ', "ref_log_prob": [0]}',
                       content_type="application/json")
    err = _error(resp, 413)
    assert err["code"] == "too_many_elements"


def test_verify_match_and_mismatch(client):
    args = {"log_prob": [[-1.0, -2.0]], "ref_log_prob": [[-1.5, -1.0]]}
    ok = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [[0.5, -1.0]]}}).get_json()
    assert ok["match"] is True and ok["function"] == "kl.k1"
    assert ok["outputs"]["kl"]["mismatches"] == 0 and ok["outputs"]["kl"]["first_mismatch"] is None
    bad = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [[0.5, -0.9]]},
                                                   "rtol": 0, "atol": 1e-6}).get_json()
    out = bad["outputs"]["kl"]
    assert bad["match"] is False and out["mismatches"] == 1 and out["first_mismatch"] == [0, 1]
    assert out["max_abs_err"] == pytest.approx(0.1)
    assert set(out) >= {"match", "max_abs_err", "max_rel_err", "mismatches", "first_mismatch", "expected", "claimed"}


def test_verify_shape_and_nonfinite(client):
    args = {"log_prob": [[0.0, "inf"]], "ref_log_prob": [[0.0, 0.0]]}
    same = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [[0.0, "inf"]]}}).get_json()
    assert same["match"] is True
    shape = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [0.0, "inf"]}}).get_json()
    assert shape["match"] is False and "shape" in shape["outputs"]["kl"]["reason"]
    nan = client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [["nan", "inf"]]}}).get_json()
    assert nan["match"] is False and nan["outputs"]["kl"]["max_abs_err"] == "inf"


def test_verify_errors(client):
    args = {"log_prob": [[0.0]], "ref_log_prob": [[0.0]]}
    _error(client.post("/api/v1/verify/nope", json={"args": args, "claimed": {"kl": 0}}), 404)
    _error(client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"zz": 0}}), 422, "claimed.zz")
    _error(client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {}}), 422, "claimed")
    _error(client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [["a"]]}}), 422, "claimed.kl")
    _error(client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [[1], [1, 2]]}}), 422,
           "claimed.kl")
    _error(client.post("/api/v1/verify/kl.k1", json={"args": {"log_prob": [[0.0]]}, "claimed": {"kl": [[0]]}}),
           422, "args.ref_log_prob")
    _error(client.post("/api/v1/verify/kl.k1", json={"args": args, "claimed": {"kl": [[0]]}, "rtol": -1}), 422, "rtol")
    _error(client.post("/api/v1/verify/kl.k1", json={"args": [], "claimed": {"kl": [[0]]}}), 422, "args")
