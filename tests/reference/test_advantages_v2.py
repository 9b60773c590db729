"""Engine v2 advantages: verl vectorised GRPO, pass@k, REINFORCE++-baseline, OPO, GPG and TRL's
multi-reward GRPO (sum then normalise, GDPO), each against a slow per-group loop written here from the
formula, hand-computed cases and the edge cases (groups of one, zero variance, masked-out rows)."""

from __future__ import annotations

import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError


def call(name, **kw):
    return reference.call(name, device="cpu", **kw)


def _groups(index):
    out: dict = {}
    for i, g in enumerate(index):
        out.setdefault(g, []).append(i)
    return out


def _mean(xs):
    return sum(xs) / len(xs)


def _std(xs):  # unbiased
    m = _mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _rand(*shape, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


# --- verl vectorised GRPO ------------------------------------------------------------------------

def _slow_vectorized_grpo(scores, index, eps=1e-6, norm=True):
    """group_mean_std in float32, one value at a time: Σs, Σs² in float32, floor the variance at ε."""
    f32 = lambda x: torch.tensor(x, dtype=torch.float32)  # noqa: E731
    out = [0.0] * len(scores)
    for g, rows in _groups(index).items():
        c = f32(float(len(rows)))
        s1, s2 = f32(0.0), f32(0.0)
        for i in rows:
            v = f32(scores[i])
            s1, s2 = s1 + v, s2 + v * v
        if len(rows) == 1:
            mean, std = f32(0.0), f32(1.0)
        else:
            mean = s1 / c
            var = (s2 - s1 * s1 / c) / (c - 1)
            std = torch.sqrt(torch.clamp(var, min=eps))
        for i in rows:
            diff = scores[i] - float(mean)
            out[i] = diff / (float(std + eps)) if norm else diff
    return out


def test_vectorized_grpo_matches_float32_loop_and_default_loop_differs():
    scores = (_rand(24, seed=1) * 3).tolist()
    index = [i % 5 for i in range(23)] + [7]  # unequal groups and one group of one
    got = call("advantages.grpo", scores=scores, index=index, implementation="vectorized")["advantages"]
    want = _slow_vectorized_grpo(scores, index)
    assert got.tolist() == pytest.approx(want, rel=1e-12, abs=1e-12)
    loop = call("advantages.grpo", scores=scores, index=index)["advantages"]
    # float32 statistics: close to the float64 loop version, but not equal to it.
    assert torch.allclose(got, loop, rtol=1e-5, atol=1e-5)
    assert not torch.equal(got, loop)
    # one member: mean 0, std 1, and std + ε is a float32 sum, so the divisor is float32(1 + 1e-6)
    divisor = float(torch.tensor(1.0, dtype=torch.float32) + 1e-6)
    assert divisor != 1 + 1e-6
    assert got[-1].item() == scores[-1] / divisor


def test_vectorized_grpo_variance_floor_on_equal_scores():
    # Equal scores: the loop version divides 0 by ε; the vectorised one floors the variance at ε, so
    # a tiny float32 residue is divided by √ε + ε instead of ε.
    got = call("advantages.grpo", scores=[0.5, 0.5, 0.5, 1.0, 3.0], group_size=None, index=[0, 0, 0, 1, 1],
               implementation="vectorized", epsilon=0.01)["advantages"]
    assert got[:3].tolist() == [0.0, 0.0, 0.0]
    # group {1, 3}: var 2, std √2 (floor inactive): (1 − 2)/(√2 + 0.01)
    assert got[3].item() == pytest.approx(-1 / (math.sqrt(2) + 0.01), rel=1e-6)
    tiny = call("advantages.grpo", scores=[1.0, 1.0 + 1e-9], group_size=2, implementation="vectorized",
                epsilon=1e-6)["advantages"]
    # float32 loses the 1e-9 difference in the mean; the floored std is √1e-6 + 1e-6.
    assert tiny[1].item() == pytest.approx(1e-9 / (1e-3 + 1e-6), rel=1e-3)


def test_vectorized_grpo_float32_dtype_and_no_std():
    out = call("advantages.grpo", scores=[1.0, 2.0, 4.0, 0.0], group_size=2, implementation="vectorized",
               dtype="float32")["advantages"]
    assert out.dtype == torch.float32
    assert out.tolist() == pytest.approx([-0.5 / (math.sqrt(0.5) + 1e-6), 0.5 / (math.sqrt(0.5) + 1e-6)] * 1
                                         + [2 / (math.sqrt(8) + 1e-6), -2 / (math.sqrt(8) + 1e-6)], rel=1e-6)
    none = call("advantages.grpo", scores=[1.0, 2.0, 4.0, 0.0], group_size=2, implementation="vectorized",
                norm_by_std=False)["advantages"]
    assert none.tolist() == [-0.5, 0.5, 2.0, -2.0]


def test_vectorized_grpo_token_rewards_and_mask():
    r = [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]]
    m = [[1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 1, 1]]
    out = call("advantages.grpo", token_level_rewards=r, mask=m, group_size=2, implementation="vectorized")
    a = 1 / (math.sqrt(0.5) + 1e-6) * 0.5
    assert out["advantages"].tolist() == pytest.approx([a, -a, -a, a], rel=1e-6)
    assert out["token_advantages"][1].tolist() == pytest.approx([-a, 0.0, 0.0], rel=1e-6)


@pytest.mark.parametrize("kw, field", [({"convention": "trl"}, "implementation"),
                                       ({"unbiased": False}, "unbiased"),
                                       ({"scale": "batch"}, "scale")])
def test_vectorized_grpo_refuses_what_verl_does_not_have(kw, field):
    with pytest.raises(ReferenceInputError) as err:
        call("advantages.grpo", scores=[1.0, 2.0], group_size=2, implementation="vectorized", **kw)
    assert err.value.argument == field


# --- pass@k --------------------------------------------------------------------------------------

def _slow_passk(scores, index, eps=1e-6, norm=True):
    out = [0.0] * len(scores)
    for rows in _groups(index).values():
        vals = [scores[i] for i in rows]
        best = max(range(len(rows)), key=lambda j: (vals[j], -j))
        second = max(v for j, v in enumerate(vals) if j != best)
        gap = vals[best] - second
        out[rows[best]] = gap / (_std(vals) + eps) if norm else gap
    return out


def test_passk_matches_loop():
    scores = _rand(20, seed=2).tolist()
    index = [f"p{i % 4}" for i in range(20)]
    got = call("advantages.grpo_passk", scores=scores, index=index)["advantages"]
    assert got.tolist() == pytest.approx(_slow_passk(scores, index), rel=1e-12, abs=1e-15)
    assert int((got != 0).sum()) == 4  # one non-zero advantage per group
    raw = call("advantages.grpo_passk", scores=scores, index=index, norm_adv_by_std_in_grpo=False)["advantages"]
    assert raw.tolist() == pytest.approx(_slow_passk(scores, index, norm=False), rel=1e-12)


def test_passk_hand_case_ties_and_mask():
    # group [0, 1, 0.5, 1]: tie at the top, gap 0; group [3, 1, 2, 2]: best 3, runner-up 2, std √(2/3).
    r = [[0.0, 1.0], [0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.0, 2.0], [1.0, 0.0], [2.0, 0.0], [2.0, 0.0]]
    m = [[1, 1]] * 7 + [[1, 0]]
    out = call("advantages.grpo_passk", token_level_rewards=r, mask=m, group_size=4)
    want = [0.0] * 8
    want[4] = 1 / (math.sqrt(2 / 3) + 1e-6)
    assert out["advantages"].tolist() == pytest.approx(want, rel=1e-12)
    assert out["token_advantages"][4].tolist() == pytest.approx([want[4]] * 2, rel=1e-12)


def test_passk_needs_two_per_group():
    with pytest.raises(ReferenceInputError) as err:
        call("advantages.grpo_passk", scores=[1.0, 2.0, 3.0], index=[0, 0, 1])
    assert err.value.argument == "index" and "at least 2" in str(err.value)


# --- REINFORCE++-baseline ------------------------------------------------------------------------

def _slow_rpp_baseline(scores, index, mask):
    a = list(scores)
    for rows in _groups(index).values():
        mean = 0.0 if len(rows) == 1 else _mean([scores[i] for i in rows])
        for i in rows:
            a[i] = scores[i] - mean
    vals = [a[i] for i, row in enumerate(mask) for mt in row if mt]
    n = len(vals)
    mu = sum(vals) / (n + 1e-8)
    var = sum((v - mu) ** 2 for v in vals) / (n + 1e-8) * n / (n - 1)
    return [[mt * (a[i] * mt - mu) / math.sqrt(var + 1e-8) for mt in row] for i, row in enumerate(mask)]


def test_reinforce_pp_baseline_matches_loop():
    torch.manual_seed(0)
    mask = (torch.rand(10, 6, generator=torch.Generator().manual_seed(3)) > 0.4).double()
    mask[:, 0] = 1
    rewards = _rand(10, 6, seed=4)
    index = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3]
    out = call("advantages.reinforce_pp_baseline", token_level_rewards=rewards, mask=mask, index=index)
    want = _slow_rpp_baseline(rewards.sum(-1).tolist(), index, mask.tolist())
    for got_row, want_row in zip(out["advantages"].tolist(), want):
        assert got_row == pytest.approx(want_row, rel=1e-10, abs=1e-12)
    assert torch.equal(out["returns"], out["advantages"])
    assert (out["advantages"][mask == 0] == 0).all()


def test_reinforce_pp_baseline_needs_mask_and_two_tokens():
    with pytest.raises(ReferenceInputError) as err:
        call("advantages.reinforce_pp_baseline", scores=[1.0, 2.0], group_size=2)
    assert err.value.argument == "mask"
    with pytest.raises(ReferenceInputError):
        call("advantages.reinforce_pp_baseline", scores=[1.0, 2.0], mask=[[1, 0], [0, 0]], group_size=2)


# --- OPO -----------------------------------------------------------------------------------------

def test_opo_hand_case_and_loop():
    # lengths 2, 1, 3; scores 1, 0, 1 -> baseline (2 + 0 + 3)/6 = 5/6
    out = call("advantages.opo", scores=[1.0, 0.0, 1.0, 4.0], mask=[[1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 0]],
               index=["a", "a", "a", "b"])
    assert out["advantages"].tolist() == pytest.approx([1 / 6, -5 / 6, 1 / 6, 4.0], rel=1e-14)
    assert out["baseline"].tolist() == pytest.approx([5 / 6] * 3 + [0.0], rel=1e-14)
    assert out["token_advantages"][0].tolist() == pytest.approx([1 / 6, 1 / 6, 0.0], rel=1e-14)

    mask = (torch.rand(12, 5, generator=torch.Generator().manual_seed(5)) > 0.5).double()
    mask[:, 0] = 1
    scores = _rand(12, seed=6).tolist()
    index = [i // 3 for i in range(12)]
    got = call("advantages.opo", scores=scores, mask=mask, index=index)["advantages"].tolist()
    lens = mask.sum(-1).tolist()
    want = []
    for i in range(12):
        rows = _groups(index)[index[i]]
        b = sum(lens[j] * scores[j] for j in rows) / sum(lens[j] for j in rows)
        want.append(scores[i] - b)
    assert got == pytest.approx(want, rel=1e-12)


def test_opo_all_empty_group_is_nan_as_upstream():
    out = call("advantages.opo", scores=[1.0, 2.0], mask=[[0, 0], [0, 0]], group_size=2)["advantages"]
    assert torch.isnan(out).all()


# --- GPG -----------------------------------------------------------------------------------------

def test_gpg_hand_case_float32_alpha():
    # B = 7 rows, 3 non-zero scores: α = 7/3 rounded to float32.
    scores = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    index = [0, 0, 0, 1, 1, 1, 2]
    out = call("advantages.gpg", scores=scores, index=index)
    alpha = float(torch.tensor(7.0, dtype=torch.float32) / torch.tensor(3.0, dtype=torch.float32))
    assert alpha != 7 / 3
    assert out["alpha"].item() == alpha
    want = [alpha * (1 - 2 / 3), alpha * (0 - 2 / 3), alpha * (1 - 2 / 3),
            alpha * (-1 / 3), alpha * (-1 / 3), alpha * (2 / 3), 0.0]  # group of one: mean 0, score 0
    assert out["advantages"].tolist() == pytest.approx(want, rel=1e-15, abs=1e-15)
    # the alpha argument is overwritten upstream; f_norm divides
    same = call("advantages.gpg", scores=scores, index=index, alpha=5.0, f_norm=2.0)["advantages"]
    assert same.tolist() == pytest.approx([w / 2 for w in want], rel=1e-15, abs=1e-15)


def test_gpg_all_zero_scores():
    out = call("advantages.gpg", scores=[0.0, 0.0, 0.0, 0.0], group_size=2)
    assert out["alpha"].item() == 4.0  # m clamped to 1
    assert out["advantages"].tolist() == [0.0] * 4


# --- TRL multi-reward GRPO -----------------------------------------------------------------------

def _nanmean(xs):
    v = [x for x in xs if not math.isnan(x)]
    return sum(v) / len(v) if v else math.nan


def _nanstd(xs):
    v = [x for x in xs if not math.isnan(x)]
    return _std(v) if len(v) > 1 else math.nan


def _slow_multi(R, w, G, agg, scale="group"):
    B, K = len(R), len(R[0])
    unscorable = [all(math.isnan(x) for x in row) for row in R]
    groups = [list(range(s, s + G)) for s in range(0, B, G)]
    if agg == "sum_then_normalize":
        r = [math.nan if unscorable[i] else sum(w[k] * R[i][k] for k in range(K) if not math.isnan(R[i][k]))
             for i in range(B)]
        adv = [0.0] * B
        for rows in groups:
            vals = [r[i] for i in rows]
            mean = _nanmean(vals)
            std = (_nanstd(vals) if G > 1 else 0.0) if scale != "batch" else _nanstd(r)
            for i in rows:
                adv[i] = r[i] - mean if scale == "none" else (r[i] - mean) / (std + 1e-4)
    else:
        norm = [[math.nan] * K for _ in range(B)]
        for rows in groups:
            for k in range(K):
                vals = [R[i][k] for i in rows]
                mean, std = _nanmean(vals), (_nanstd(vals) if G > 1 else 0.0)
                for i in rows:
                    norm[i][k] = (R[i][k] - mean) / (std + 1e-4)
        r = [math.nan if unscorable[i] else sum(w[k] * norm[i][k] for k in range(K) if not math.isnan(norm[i][k]))
             for i in range(B)]
        mean, std = _nanmean(r), _nanstd(r)
        adv = [(x - mean) / (std + 1e-4) for x in r]
    return [0.0 if math.isnan(a) else a for a in adv], r


@pytest.mark.parametrize("agg", ["sum_then_normalize", "normalize_then_sum"])
@pytest.mark.parametrize("scale", ["group", "batch", "none"])
def test_grpo_multi_matches_loop_with_nans(agg, scale):
    R = _rand(12, 3, seed=7)
    R[1, 0] = math.nan          # one reward function returned None for this row
    R[5, :] = math.nan          # unscorable row
    w = [1.0, 0.5, 2.0]
    out = call("advantages.grpo_multi", rewards_per_func=R, reward_weights=w, group_size=4,
               multi_objective_aggregation=agg, scale_rewards=scale)
    want_adv, want_r = _slow_multi(R.tolist(), w, 4, agg, scale)
    assert out["advantages"].tolist() == pytest.approx(want_adv, rel=1e-10, abs=1e-12)
    assert out["rewards"].tolist() == pytest.approx(want_r, rel=1e-10, abs=1e-12, nan_ok=True)
    assert out["advantages"][5].item() == 0.0 and math.isnan(out["rewards"][5].item())


def test_grpo_multi_one_reward_is_trl_grpo():
    s = _rand(12, seed=8)
    multi = call("advantages.grpo_multi", rewards_per_func=s.unsqueeze(1), group_size=4)["advantages"]
    single = call("advantages.grpo", scores=s, group_size=4, convention="trl")["advantages"]
    assert torch.allclose(multi, single, rtol=1e-13, atol=1e-15)


def test_gdpo_hand_case_differs_from_summed():
    # Two binary rewards, one group of 4. Summed: (1,1)=2, (1,0)=1, (0,1)=1, (0,0)=0.
    R = [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    summed = call("advantages.grpo_multi", rewards_per_func=R, group_size=4)["advantages"].tolist()
    s = _std([2, 1, 1, 0])
    assert summed == pytest.approx([1 / (s + 1e-4), 0.0, 0.0, -1 / (s + 1e-4)], rel=1e-12)
    gdpo = call("advantages.grpo_multi", rewards_per_func=R, group_size=4,
                multi_objective_aggregation="normalize_then_sum")
    z = 0.5 / (_std([1, 1, 0, 0]) + 1e-4)
    r = [2 * z, 0.0, 0.0, -2 * z]
    assert gdpo["rewards"].tolist() == pytest.approx(r, rel=1e-12)
    assert gdpo["advantages"].tolist() == pytest.approx([x / (_std(r) + 1e-4) for x in r], rel=1e-12)


def test_grpo_multi_groups_of_one_and_index_labels():
    R = [[1.0, 2.0], [3.0, 0.0]]
    out = call("advantages.grpo_multi", rewards_per_func=R, group_size=1)["advantages"]
    assert out.tolist() == [0.0, 0.0]
    by_label = call("advantages.grpo_multi", rewards_per_func=_rand(6, 2, seed=9), index=["x", "y", "x", "y", "x", "y"])
    by_block = call("advantages.grpo_multi", rewards_per_func=_rand(6, 2, seed=9)[[0, 2, 4, 1, 3, 5]], group_size=3)
    assert torch.allclose(by_label["advantages"][[0, 2, 4, 1, 3, 5]], by_block["advantages"], rtol=1e-14)


def test_grpo_multi_bad_weights_named():
    with pytest.raises(ReferenceInputError) as err:
        call("advantages.grpo_multi", rewards_per_func=[[1.0, 2.0]], reward_weights=[1.0], group_size=1)
    assert err.value.argument == "reward_weights"


def test_outputs_are_detached():
    s = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64, requires_grad=True)
    for name, kw in [("advantages.grpo_passk", {}), ("advantages.gpg", {}),
                     ("advantages.opo", {"mask": [[1.0]] * 4}), ("advantages.grpo", {"implementation": "vectorized"})]:
        out = call(name, scores=s, group_size=2, **kw)
        assert not out["advantages"].requires_grad, name


# --- over HTTP -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("advantages.grpo_passk", {"scores": [1.0, 0.0, 2.0, 2.0], "group_size": 2}),
    ("advantages.reinforce_pp_baseline", {"scores": [1.0, 0.0], "mask": [[1, 1], [1, 0]], "group_size": 2}),
    ("advantages.opo", {"scores": [1.0, 0.0], "mask": [[1, 1], [1, 0]], "index": ["q", "q"]}),
    ("advantages.gpg", {"scores": [1.0, 0.0, 0.0], "index": [0, 0, 1]}),
    ("advantages.grpo_multi", {"rewards_per_func": [[1.0, 0.0], [0.0, 0.0]], "group_size": 2,
                               "multi_objective_aggregation": "normalize_then_sum"}),
    ("advantages.grpo", {"scores": [1.0, 3.0], "group_size": 2, "implementation": "vectorized"}),
])
def test_reachable_over_http(client, name, args):
    resp = client.post(f"/api/v1/reference/{name}", json=args)
    assert resp.status_code == 200, resp.get_json()
    got = torch.tensor(resp.get_json()["outputs"]["advantages"], dtype=torch.float64)
    expected = reference.call(name, **args)["advantages"].cpu()    # the engine may run on CUDA
    assert torch.allclose(got, expected, rtol=1e-12, atol=0)
    want = expected.tolist()
    ok = client.post(f"/api/v1/verify/{name}", json={"args": args, "claimed": {"advantages": want}}).get_json()
    assert ok["match"] is True
    wrong = (expected + 0.5).tolist()
    bad = client.post(f"/api/v1/verify/{name}", json={"args": args, "claimed": {"advantages": wrong}}).get_json()
    assert bad["match"] is False


def test_http_errors_name_the_field(client):
    resp = client.post("/api/v1/reference/advantages.grpo_passk", json={"scores": [1.0, 2.0, 3.0], "index": [0, 0, 1]})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "index"
    resp = client.post("/api/v1/reference/advantages.grpo_multi",
                       json={"rewards_per_func": [[1.0]], "group_size": 1, "multi_objective_aggregation": "x"})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "multi_objective_aggregation"
