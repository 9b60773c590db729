"""rollout.importance_weights (engine v3, verl mismatch_helper at 4424616d): weights, rejection mask and
metrics against a slow per-element loop written from the contract, hand values, edge cases, HTTP."""

import itertools
import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError

CPU = {"device": "cpu"}
EPS = 1e-8


def call(**kw):
    return reference.call("rollout.importance_weights", **kw, **CPU)


def f32_log(x):
    """log(threshold) as upstream forms it: torch.log of a float32 tensor."""
    return float(torch.log(torch.tensor(x, dtype=torch.float32)))


def slow(old, roll, m, level, mode, upper, lower, veto):
    """Per-element loops over Python floats."""
    B, T = len(old), len(old[0])
    lower = 1 / upper if lower is None else lower
    lr = [[old[b][t] - roll[b][t] for t in range(T)] for b in range(B)]
    cnt = [sum(m[b]) for b in range(B)]
    total = sum(cnt)

    def mm(x):  # verl masked mean over the batch
        return sum(x[b][t] for b in range(B) for t in range(T) if m[b][t]) / (total + EPS)

    def bound(x):
        return math.exp(min(max(x, -20.0), 20.0))

    if level == "token":
        ell = None
        w = [[bound(lr[b][t]) for t in range(T)] for b in range(B)]
    else:
        ell = []
        for b in range(B):
            s = sum(lr[b][t] for t in range(T) if m[b][t])
            ell.append(s if level == "sequence" else s / (cnt[b] + EPS))
        w = [[bound(ell[b])] * T for b in range(B)]
    cat = [[bool(m[b][t]) and veto is not None and lr[b][t] < f32_log(veto) for t in range(T)] for b in range(B)]
    vetoed = [any(row) for row in cat]
    out = {"rollout_is_veto_fraction": sum(vetoed) / B,
           "rollout_is_catastrophic_token_fraction": mm([[float(c) for c in row] for row in cat]),
           "rollout_is_mean": mm(w)}
    counted = [w[b][t] for b in range(B) for t in range(T) if m[b][t]]
    if level == "token":
        out["rollout_is_max"], out["rollout_is_min"] = max(counted), min(counted)
        out["rollout_is_ratio_fraction_high"] = mm([[float(x > upper) for x in row] for row in w])
        out["rollout_is_ratio_fraction_low"] = mm([[float(x < lower) for x in row] for row in w])
    else:
        out["rollout_is_max"] = math.exp(min(max(ell), 20.0))
        out["rollout_is_min"] = math.exp(min(ell))
        hi = [float(e > f32_log(upper)) for e in ell]
        lo = [float(e < f32_log(lower)) for e in ell]
        if level == "sequence":
            out["rollout_is_ratio_fraction_high"], out["rollout_is_ratio_fraction_low"] = sum(hi) / B, sum(lo) / B
        else:
            out["rollout_is_ratio_fraction_high"] = mm([[hi[b]] * T for b in range(B)])
            out["rollout_is_ratio_fraction_low"] = mm([[lo[b]] * T for b in range(B)])
    wc = [[min(max(x, lower), upper) for x in row] for row in w]
    mean_c = mm(wc)
    out["rollout_is_std"] = math.sqrt(max(mm([[x * x for x in row] for row in wc]) - mean_c ** 2, 0.0)) \
        if total > 1 else 0.0
    out["rollout_is_eff_sample_size"] = 1 / mm([[(x / (mean_c + EPS)) ** 2 for x in row] for row in wc])
    seq = [sum(w[b][t] for t in range(T) if m[b][t]) / (cnt[b] + EPS) for b in range(B)]
    mean_s = sum(seq) / B
    out.update({"rollout_is_seq_mean": mean_s,
                "rollout_is_seq_std": math.sqrt(sum((s - mean_s) ** 2 for s in seq) / (B - 1)) if B > 1 else 0.0,
                "rollout_is_seq_max": max(seq), "rollout_is_seq_min": min(seq),
                "rollout_is_seq_max_deviation": max(abs(s - 1) for s in seq),
                "rollout_is_seq_fraction_high": sum(s > upper for s in seq) / B,
                "rollout_is_seq_fraction_low": sum(s < lower for s in seq) / B})
    if mode == "truncate":
        weights = [[min(x, upper) for x in row] for row in w]
        mask_out = [[float(x) for x in row] for row in m]
    else:
        keep = [[float(lower <= x <= upper) for x in row] for row in w]
        weights = w
        mask_out = [[m[b][t] * keep[b][t] for t in range(T)] for b in range(B)]
        out["rollout_is_masked_fraction"] = mm([[1 - k for k in row] for row in keep])
        if level == "token":
            out["rollout_is_seq_masked_fraction"] = sum(
                any(m[b][t] and not keep[b][t] for t in range(T)) for b in range(B)) / B
        else:
            out["rollout_is_seq_masked_fraction"] = sum(1 - keep[b][0] for b in range(B)) / B
    out["modified_response_mask"] = [[0.0 if vetoed[b] else mask_out[b][t] for t in range(T)] for b in range(B)]
    out["rollout_is_weights"] = [[weights[b][t] * m[b][t] for t in range(T)] for b in range(B)]
    lpt = [sum(old[b][t] for t in range(T) if m[b][t]) / (cnt[b] + EPS) for b in range(B)]
    lpr = [sum(roll[b][t] for t in range(T) if m[b][t]) / (cnt[b] + EPS) for b in range(B)]
    diff = [lpr[b] - lpt[b] for b in range(B)]
    out.update({"mismatch_kl": mm([[roll[b][t] - old[b][t] for t in range(T)] for b in range(B)]),
                "mismatch_k3_kl": mm([[math.exp(x) - x - 1 for x in row] for row in lr]),
                "mismatch_training_ppl": sum(math.exp(-x) for x in lpt) / B,
                "mismatch_training_log_ppl": sum(-x for x in lpt) / B,
                "mismatch_rollout_ppl": sum(math.exp(-x) for x in lpr) / B,
                "mismatch_rollout_log_ppl": sum(-x for x in lpr) / B,
                "mismatch_log_ppl_diff": sum(diff) / B, "mismatch_log_ppl_abs_diff": sum(map(abs, diff)) / B,
                "mismatch_log_ppl_diff_max": max(diff), "mismatch_log_ppl_diff_min": min(diff),
                "mismatch_ppl_ratio": sum(math.exp(d) for d in diff) / B})
    return out


def batch(seed, B=5, T=6):
    g = torch.Generator().manual_seed(seed)
    old = -2 * torch.rand(B, T, generator=g, dtype=torch.float64)
    roll = old + 0.6 * torch.randn(B, T, generator=g, dtype=torch.float64)
    m = (torch.rand(B, T, generator=g) > 0.3).double()
    m[0, 0] = 1
    if seed % 3 == 1:
        m[2] = 0                      # a fully masked row
    if seed % 3 == 2:
        roll[1, 1] = old[1, 1] + 25   # past the ±20 safety bound
        m[1, 1] = 1
    return old, roll, m


CASES = list(itertools.product([0, 1, 2], ["token", "sequence", "geometric"], ["truncate", "mask"],
                               [(2.0, None, None), (1.5, 0.6, 0.4)]))


@pytest.mark.parametrize("seed,level,mode,thresholds", CASES)
def test_matches_slow_loop(seed, level, mode, thresholds):
    upper, lower, veto = thresholds
    old, roll, m = batch(seed)
    out = call(old_log_prob=old, rollout_log_prob=roll, mask=m, rollout_is_level=level, rollout_is_mode=mode,
               rollout_is_threshold=upper, rollout_is_threshold_lower=lower, rollout_is_veto_threshold=veto)
    expected = slow(old.tolist(), roll.tolist(), m.tolist(), level, mode, upper, lower, veto)
    assert set(out) == set(expected)
    for key, value in expected.items():
        got = out[key]
        assert not got.requires_grad
        if isinstance(value, list):
            assert torch.allclose(got, torch.tensor(value, dtype=torch.float64), rtol=1e-12, atol=1e-300), key
        else:
            assert got.item() == pytest.approx(value, rel=1e-10, abs=1e-12), key


def test_hand_values_token_truncate():
    # log r = old − rollout = [ln 3, 0, −ln 4]; upper 2: weights [2, 1, 0.25]; the mask is untouched
    out = call(old_log_prob=[[math.log(3), 0.0, -math.log(4)]], rollout_log_prob=[[0.0, 0.0, 0.0]],
               mask=[[1, 1, 1]], rollout_is_threshold=2.0)
    assert out["rollout_is_weights"].tolist()[0] == pytest.approx([2.0, 1.0, 0.25])
    assert out["modified_response_mask"].tolist() == [[1.0, 1.0, 1.0]]
    assert out["rollout_is_max"].item() == pytest.approx(3.0)                    # before truncation
    assert out["rollout_is_ratio_fraction_high"].item() == pytest.approx(1 / 3)
    assert out["rollout_is_ratio_fraction_low"].item() == pytest.approx(1 / 3)   # 0.25 < 1/2


def test_mask_mode_and_veto_edit_the_mask_not_the_weights():
    old = [[math.log(3), 0.0], [0.0, -math.log(10)]]
    zero = [[0.0, 0.0], [0.0, 0.0]]
    out = call(old_log_prob=old, rollout_log_prob=zero, mask=[[1, 1], [1, 1]], rollout_is_mode="mask",
               rollout_is_threshold=2.0, rollout_is_veto_threshold=0.2)
    # token 0 (ratio 3) leaves [1/2, 2]: masked; row 1 holds ratio 0.1 < 0.2: vetoed; weights keep 3 and 0.1
    assert out["modified_response_mask"].tolist() == [[0.0, 1.0], [0.0, 0.0]]
    assert out["rollout_is_weights"].tolist()[0] == pytest.approx([3.0, 1.0])
    assert out["rollout_is_weights"].tolist()[1] == pytest.approx([1.0, 0.1])
    assert out["rollout_is_veto_fraction"].item() == 0.5
    assert out["rollout_is_catastrophic_token_fraction"].item() == pytest.approx(0.25)
    assert out["rollout_is_masked_fraction"].item() == pytest.approx(0.5)        # ratios 3 and 0.1
    assert out["rollout_is_seq_masked_fraction"].item() == 1.0


def test_sequence_level_and_safety_bound():
    # a row's log-ratios sum to 30: the weight is e^20, its max metric e^20, its min e^{min ℓ} unbounded
    out = call(old_log_prob=[[15.0, 15.0], [-0.5, 0.0]], rollout_log_prob=[[0.0, 0.0], [0.0, 0.0]],
               mask=[[1, 1], [1, 0]], rollout_is_level="sequence", rollout_is_threshold=2.0)
    assert out["rollout_is_weights"].tolist()[0] == pytest.approx([2.0, 2.0])    # truncated e^20
    assert out["rollout_is_max"].item() == pytest.approx(math.exp(20.0))
    assert out["rollout_is_min"].item() == pytest.approx(math.exp(-0.5))
    assert out["rollout_is_ratio_fraction_high"].item() == 0.5                  # share of rows


def test_disabled_without_threshold():
    out = call(old_log_prob=[[0.0, -1.0]], rollout_log_prob=[[-1.0, -1.0]], mask=[[1, 0]])
    assert set(out) == {"modified_response_mask"} and out["modified_response_mask"].tolist() == [[1.0, 0.0]]


def test_outputs_detached_and_float32():
    old = torch.tensor([[-0.5, -1.0]], dtype=torch.float64, requires_grad=True)
    out = call(old_log_prob=old, rollout_log_prob=[[-0.7, -0.9]], mask=[[1, 1]], rollout_is_threshold=2.0)
    assert not any(v.requires_grad for v in out.values())
    f32 = call(old_log_prob=[[-0.5, -1.0]], rollout_log_prob=[[-0.7, -0.9]], mask=[[1, 1]], rollout_is_threshold=2.0,
               dtype="float32")
    assert f32["rollout_is_weights"].dtype == torch.float32
    assert f32["rollout_is_weights"].tolist()[0] == pytest.approx([math.exp(0.2), math.exp(-0.1)], rel=1e-6)


def test_log_thresholds_are_float32_whatever_the_default_dtype():
    # one row's log-ratio lies between log(2) in float64 (0.69314718056) and in float32 (0.69314718246):
    # upstream's torch.log(torch.tensor(2.0)) is the float32 value, so that row is not above the threshold
    ell = 0.6931471815
    args = dict(old_log_prob=[[ell, 0.0], [0.0, 0.0]], rollout_log_prob=[[0.0, 0.0], [0.0, 0.0]],
                mask=[[1, 0], [1, 1]], rollout_is_level="sequence", rollout_is_threshold=2.0)
    base = call(**args)
    assert base["rollout_is_ratio_fraction_high"].item() == 0.0
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        again = call(**args)
    finally:
        torch.set_default_dtype(previous)
    assert all(torch.equal(base[k], again[k]) for k in base)


@pytest.mark.parametrize("kw,argument", [
    ({"rollout_is_threshold": 0.0}, "rollout_is_threshold"),
    ({"rollout_is_threshold": "inf"}, "rollout_is_threshold"),
    ({"rollout_is_threshold_lower": -1.0}, "rollout_is_threshold_lower"),
    ({"rollout_is_veto_threshold": 0.0}, "rollout_is_veto_threshold"),
    ({"mask": [[0, 0]]}, "mask"),
    ({"mask": [[1, 2]]}, "mask"),
    ({"rollout_log_prob": [[0.0]]}, "rollout_log_prob"),
    ({"rollout_is_level": "row"}, "rollout_is_level"),
    ({"rollout_is_mode": "clip"}, "rollout_is_mode"),
])
def test_input_errors(kw, argument):
    args = {"old_log_prob": [[0.0, -1.0]], "rollout_log_prob": [[-1.0, -1.0]], "mask": [[1, 1]],
            "rollout_is_threshold": 2.0, **kw}
    with pytest.raises(ReferenceInputError) as err:
        call(**args)
    assert err.value.argument == argument


def test_http(client):
    args = {"old_log_prob": [[math.log(3), 0.0]], "rollout_log_prob": [[0.0, 0.0]], "mask": [[1, 1]],
            "rollout_is_threshold": 2.0}
    resp = client.post("/api/v1/reference/rollout.importance_weights", json=args)
    assert resp.status_code == 200, resp.get_json()
    outs = resp.get_json()["outputs"]
    assert outs["rollout_is_weights"][0] == pytest.approx([2.0, 1.0])
    v = client.post("/api/v1/verify/rollout.importance_weights",
                    json={"args": args, "claimed": {"rollout_is_weights": [[2.0, 1.0]],
                                                    "modified_response_mask": [[1, 1]]}}).get_json()
    assert v["match"] is True
    bad = client.post("/api/v1/reference/rollout.importance_weights", json={**args, "rollout_is_threshold": -1})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "rollout_is_threshold"
