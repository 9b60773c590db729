"""ppo.policy_loss with loss_variant clip_cov / kl_cov (engine v3, verl b178a3cd): slow per-token loops,
the seeded randperm choice, autograd against finite differences, the contract's edge cases and HTTP."""

import math

import pytest
import torch

from checkers import reference
from checkers.reference import ReferenceInputError
from checkers.reference.cov_losses import seeded_choice

CPU = {"device": "cpu"}
EPS = 1e-8


def ppo(**kw):
    return reference.call("ppo.policy_loss", **kw, **CPU)


def batch(seed, B=5, T=8):
    g = torch.Generator().manual_seed(seed)
    old = -3 * torch.rand(B, T, generator=g, dtype=torch.float64)
    lp = old + 0.3 * torch.randn(B, T, generator=g, dtype=torch.float64)
    adv = (2 * torch.randn(B, 1, generator=g, dtype=torch.float64)).expand(B, T).contiguous()
    m = (torch.rand(B, T, generator=g) > 0.2).double()
    m[0, 0] = 1
    return old, lp, adv, m


def global_randperm(n, seed):
    """What upstream draws: torch.randperm(n) from the global CPU generator after torch.manual_seed(seed)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return torch.randperm(n)


def slow_clip_cov(old, lp, adv, m, seed, ratio_c, lb, ub, eps=0.2):
    B, T = len(m), len(m[0])
    cells = [(b, t) for b in range(B) for t in range(T) if m[b][t]]
    n = len(cells)
    mean_a = sum(adv[b][t] for b, t in cells) / (n + EPS)
    mean_lp = sum(lp[b][t] for b, t in cells) / (n + EPS)
    per = [[0.0] * T for _ in range(B)]
    candidates = []
    for b in range(B):
        for t in range(T):
            r = math.exp(lp[b][t] - old[b][t])
            l1 = -adv[b][t] * r
            l2 = -adv[b][t] * min(max(r, 1 - eps), 1 + eps)
            per[b][t] = max(l1, l2)
            cov = (adv[b][t] - mean_a) * (lp[b][t] - mean_lp)
            if m[b][t] and not l2 > l1 and lb < cov < ub:
                candidates.append((b, t))
    removed = set()
    if candidates:
        clip_num = max(int(ratio_c * n), 1)
        perm = global_randperm(len(candidates), seed).tolist()
        removed = {candidates[i] for i in perm[:clip_num]}
    for b, t in removed:
        per[b][t] = 0.0
    loss = sum(per[b][t] for b, t in cells) / n
    kl = sum(old[b][t] - lp[b][t] for b, t in cells) / (n + EPS)
    return per, loss, len(removed) / (n + EPS), kl, removed


def slow_kl_cov(old, lp, adv, m, ratio_k, coef):
    B, T = len(m), len(m[0])
    cells = [(b, t) for b in range(B) for t in range(T) if m[b][t]]
    n = len(cells)
    mean_a = sum(adv[b][t] for b, t in cells) / n
    mean_lp = sum(lp[b][t] for b, t in cells) / n
    covs = sorted(((adv[b][t] - mean_a) * (lp[b][t] - mean_lp), (b, t)) for b, t in cells)
    k = max(1, int(n * ratio_k))
    chosen = {cell for _, cell in covs[-k:]}
    per = [[-adv[b][t] * math.exp(lp[b][t] - old[b][t]) + (coef * abs(lp[b][t] - old[b][t]) if (b, t) in chosen
            else 0.0) for t in range(T)] for b in range(B)]
    loss = sum(per[b][t] for b, t in cells) / n
    kl = sum(abs(lp[b][t] - old[b][t]) for b, t in cells) / (n + EPS)
    return per, loss, kl, chosen


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ratio_c", [0.05, 0.3, 1.0])
def test_clip_cov_matches_slow_loop(seed, ratio_c):
    old, lp, adv, m = batch(seed)
    out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="clip_cov", seed=seed,
              clip_cov_ratio=ratio_c, clip_cov_lb=0.3, clip_cov_ub=4.0)
    per, loss, frac, kl, removed = slow_clip_cov(old.tolist(), lp.tolist(), adv.tolist(), m.tolist(), seed, ratio_c,
                                                 0.3, 4.0)
    assert set(out) == {"pg_loss", "pg_clipfrac", "ppo_kl", "per_token_loss"}
    assert torch.allclose(out["per_token_loss"], torch.tensor(per, dtype=torch.float64), rtol=1e-13, atol=1e-15)
    assert out["pg_loss"].item() == pytest.approx(loss, rel=1e-12, abs=1e-15)
    assert out["pg_clipfrac"].item() == pytest.approx(frac, rel=1e-12)
    assert out["ppo_kl"].item() == pytest.approx(kl, rel=1e-12, abs=1e-15)
    assert removed, "the batch should give the covariance rule something to remove"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ratio_k,coef", [(0.05, 1.0), (0.25, 0.3), (1.0, 2.0)])
def test_kl_cov_matches_slow_loop(seed, ratio_k, coef):
    old, lp, adv, m = batch(seed + 10)
    adv = adv + 0.01 * torch.arange(adv.numel(), dtype=torch.float64).reshape(adv.shape)  # no tied covariances
    out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="kl_cov", kl_cov_ratio=ratio_k,
              ppo_kl_coef=coef)
    per, loss, kl, _ = slow_kl_cov(old.tolist(), lp.tolist(), adv.tolist(), m.tolist(), ratio_k, coef)
    assert set(out) == {"pg_loss", "ppo_kl", "per_token_loss"}
    assert torch.allclose(out["per_token_loss"], torch.tensor(per, dtype=torch.float64), rtol=1e-13, atol=1e-15)
    assert out["pg_loss"].item() == pytest.approx(loss, rel=1e-12, abs=1e-15)
    assert out["ppo_kl"].item() == pytest.approx(kl, rel=1e-12)


@pytest.mark.parametrize("n,count,seed", [(1, 1, 0), (7, 3, 0), (50, 10, 42), (1000, 5, 123456789), (300, 400, 7)])
def test_seeded_choice_is_the_global_generators_randperm(n, count, seed):
    assert torch.equal(seeded_choice(n, count, seed), global_randperm(n, seed)[:count])


def test_clip_cov_leaves_the_global_random_state_alone():
    old, lp, adv, m = batch(1)
    before = torch.random.get_rng_state()
    ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="clip_cov", seed=3, clip_cov_lb=0.3)
    assert torch.equal(before, torch.random.get_rng_state())


def test_seed_changes_which_tokens_are_removed():
    old, lp, adv, m = batch(2)
    picks = set()
    for seed in range(8):
        out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="clip_cov", seed=seed,
                  clip_cov_ratio=0.05, clip_cov_lb=0.3)
        picks.add(tuple((out["per_token_loss"] == 0).nonzero().flatten().tolist()))
    assert len(picks) > 1


@pytest.mark.parametrize("variant", ["clip_cov", "kl_cov"])
def test_gradients_match_finite_differences(variant):
    old, lp, adv, m = batch(3, B=3, T=5)
    lp = lp.clone().requires_grad_(True)
    kw = {"clip_cov_ratio": 0.3, "clip_cov_lb": 0.3} if variant == "clip_cov" else {"kl_cov_ratio": 0.3}
    for mode in ("token-mean", "seq-mean-token-mean"):
        assert torch.autograd.gradcheck(
            lambda x: ppo(old_log_prob=old, log_prob=x, advantages=adv, mask=m, loss_variant=variant,
                          loss_agg_mode=mode, **kw)["pg_loss"], (lp,))


def test_removed_tokens_carry_no_gradient():
    old, lp, adv, m = batch(4)
    lp = lp.clone().requires_grad_(True)
    out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="clip_cov", clip_cov_ratio=0.3,
              clip_cov_lb=0.3)
    (grad,) = torch.autograd.grad(out["pg_loss"], lp)
    removed = (out["per_token_loss"] == 0) & (m > 0)
    assert removed.any() and (grad[removed] == 0).all()


def test_no_candidates_is_the_unclamped_clipped_loss():
    old, lp, adv, m = batch(5)
    cov = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="clip_cov", clip_cov_lb=100.0,
              clip_cov_ub=200.0)
    vanilla = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, clip_ratio_c=None, clamp_log_ratio=None)
    assert cov["pg_clipfrac"].item() == 0.0
    assert torch.equal(cov["per_token_loss"], vanilla["per_token_loss"])
    assert cov["pg_loss"].item() == pytest.approx(vanilla["pg_loss"].item(), rel=1e-15)


def test_clipped_tokens_are_never_removed_and_the_window_is_open():
    old, lp, adv, m = batch(6)
    everything = dict(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="clip_cov",
                      clip_cov_ratio=1.0, clip_cov_lb="-inf", clip_cov_ub="inf")
    out = ppo(**everything)
    ratio = torch.exp(lp - old)
    clipped = (-adv * ratio.clamp(0.8, 1.2) > -adv * ratio) & (m > 0)
    assert clipped.any()
    removed = (out["per_token_loss"] == 0) & (m > 0)
    assert torch.equal(removed, (m > 0) & ~clipped)
    # a token whose covariance equals clip_cov_lb is outside the open window; one ulp lower it is inside
    cov = reference.call("entropy.covariance", log_prob=lp, advantages=adv, mask=m, **CPU)["per_token"]
    b, t = ((m > 0) & ~clipped).nonzero()[0].tolist()
    at = ppo(**{**everything, "clip_cov_lb": cov[b, t].item(), "clip_cov_ub": cov[b, t].item() + 1.0})
    below = ppo(**{**everything, "clip_cov_lb": math.nextafter(cov[b, t].item(), -math.inf),
                   "clip_cov_ub": cov[b, t].item() + 1.0})
    assert at["per_token_loss"][b, t] != 0 and below["per_token_loss"][b, t] == 0


def test_no_log_ratio_clamp_and_no_dual_clip():
    old, lp, adv, m = batch(7, B=2, T=4)
    lp[1, 1] = old[1, 1] + 25.0
    adv[1] = -1.0
    for variant in ("clip_cov", "kl_cov"):
        a = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant=variant, clip_cov_lb=50.0,
                kl_cov_ratio=0.01)
        b = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant=variant, clip_cov_lb=50.0,
                kl_cov_ratio=0.01, clamp_log_ratio=None, clip_ratio_c=None)
        assert torch.equal(a["per_token_loss"], b["per_token_loss"])
        # −A·ρ with ρ = e^25, neither the ±20 clamp nor the dual clip's 3·|A| bound applied
        assert a["per_token_loss"][1, 1].item() >= math.exp(25.0) * (1 - 1e-12)


def test_kl_cov_ratio_one_penalises_every_valid_token():
    old, lp, adv, m = batch(8)
    out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="kl_cov", kl_cov_ratio=1.0,
              ppo_kl_coef=0.5)
    base = -adv * torch.exp(lp - old)
    expected = torch.where(m > 0, base + 0.5 * (lp - old).abs(), base)
    assert torch.allclose(out["per_token_loss"], expected, rtol=1e-14, atol=0)


def test_kl_cov_with_no_valid_token_selects_nothing():
    old, lp, adv, _ = batch(9, B=2, T=3)
    out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=torch.zeros(2, 3), loss_variant="kl_cov")
    assert torch.equal(out["per_token_loss"], -adv * torch.exp(lp - old))


@pytest.mark.parametrize("variant", ["clip_cov", "kl_cov"])
def test_rollout_is_weights_multiply_after_the_selection(variant):
    old, lp, adv, m = batch(11)
    w = 0.5 + torch.rand(old.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    kw = dict(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant=variant, clip_cov_lb=0.3,
              clip_cov_ratio=0.2, kl_cov_ratio=0.2)
    plain = ppo(**kw)
    weighted = ppo(**kw, rollout_is_weights=w)
    assert torch.allclose(weighted["per_token_loss"], plain["per_token_loss"] * w, rtol=1e-15, atol=0)
    n = m.sum()
    assert weighted["pg_loss"].item() == pytest.approx(((plain["per_token_loss"] * w * m).sum() / n).item(), rel=1e-13)
    assert weighted["ppo_kl"].item() == plain["ppo_kl"].item()
    if variant == "clip_cov":
        assert weighted["pg_clipfrac"].item() == plain["pg_clipfrac"].item()


def test_global_batch_arguments_reach_the_aggregation():
    old, lp, adv, m = batch(12)
    out = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant="kl_cov", dp_size=4,
              batch_num_tokens=100.0)
    assert out["pg_loss"].item() == pytest.approx(((out["per_token_loss"] * m).sum() / 100.0 * 4).item(), rel=1e-14)


def test_float32():
    old, lp, adv, m = batch(13)
    for variant in ("clip_cov", "kl_cov"):
        f32 = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant=variant, dtype="float32",
                  clip_cov_lb=100.0)
        f64 = ppo(old_log_prob=old, log_prob=lp, advantages=adv, mask=m, loss_variant=variant, clip_cov_lb=100.0)
        assert f32["pg_loss"].dtype == torch.float32
        assert f32["pg_loss"].item() == pytest.approx(f64["pg_loss"].item(), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("kw,argument", [
    ({"loss_variant": "clip_cov", "clip_cov_ratio": 0.0}, "clip_cov_ratio"),
    ({"loss_variant": "clip_cov", "clip_cov_ratio": -0.1}, "clip_cov_ratio"),
    ({"loss_variant": "kl_cov", "kl_cov_ratio": 0.0}, "kl_cov_ratio"),
    ({"loss_variant": "kl_cov", "kl_cov_ratio": 1.5}, "kl_cov_ratio"),
    ({"loss_variant": "kl_cov", "ppo_kl_coef": "inf"}, "ppo_kl_coef"),
    ({"loss_variant": "clip_cov", "clip_cov_lb": "nan"}, "clip_cov_lb"),
    ({"loss_variant": "clip_cov", "seed": -1}, "seed"),
    ({"loss_variant": "clip_cov", "rollout_is_weights": [[1.0]]}, "rollout_is_weights"),
    ({"loss_variant": "vanilla", "rollout_is_weights": [[1.0, 1.0], [1.0, 1.0]]}, "rollout_is_weights"),
    ({"loss_variant": "kl_cov", "convention": "trl"}, "convention"),
    ({"loss_variant": "clip_cov", "ratio_threshold": 2.0}, "ratio_threshold"),
])
def test_input_errors(kw, argument):
    args = {"old_log_prob": [[-1.0, -2.0], [-0.5, -1.0]], "log_prob": [[-1.1, -1.9], [-0.4, -1.2]],
            "advantages": [[1.0, 1.0], [-1.0, -1.0]], "mask": [[1, 1], [1, 1]], **kw}
    with pytest.raises(ReferenceInputError) as err:
        ppo(**args)
    assert err.value.argument == argument


def test_http(client):
    args = {"old_log_prob": [[-1.0, -2.0, -0.5]], "log_prob": [[-1.0, -2.0, -0.5]], "advantages": [[1.0, 1.0, 1.0]],
            "mask": [[1, 1, 1]], "loss_variant": "kl_cov", "kl_cov_ratio": 0.5}
    resp = client.post("/api/v1/reference/ppo.policy_loss", json=args)
    assert resp.status_code == 200, resp.get_json()
    outs = resp.get_json()["outputs"]
    # on-policy: ρ = 1 and |δ| = 0, so L = −A = −1 everywhere
    assert outs == {"pg_loss": -1.0, "ppo_kl": 0.0, "per_token_loss": [[-1.0, -1.0, -1.0]]}
    clip = {**args, "loss_variant": "clip_cov"}
    v = client.post("/api/v1/verify/ppo.policy_loss", json={"args": clip, "claimed": {"pg_loss": -1.0,
                                                                                       "pg_clipfrac": 0.0}})
    assert v.get_json()["match"] is True   # centred products are all < 1: nothing removed
    bad = client.post("/api/v1/reference/ppo.policy_loss", json={**args, "kl_cov_ratio": 2})
    assert bad.status_code == 422 and bad.get_json()["error"]["field"] == "kl_cov_ratio"
