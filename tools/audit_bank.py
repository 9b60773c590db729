"""Independent audit of the bank's numbers: re-derive every covered part from its variant's parameters.

For each (question id, part id) in :data:`AUDITS` there is a plain-Python (``math`` only) computation of
what the part's prompt asks for, written from the formula in the prompt and the cited source, without
reading the question's own ``expected:`` spec. The audit draws the variant's parameters
(``checkers.bank.params_for``), resolves the bank's expected answer (``checkers.grading.expected``) and
compares the two, over ``--seeds`` variants. It prints one row per part and a list of disagreements, and
exits 0 (it reports; the test ``tests/bank/test_audit_bank.py`` asserts there are none).

Parts not in :data:`AUDITS` (and every non-numeric part) are listed as "not covered".

    python tools/audit_bank.py [--seeds 20] [--rtol 1e-5]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

P = Mapping[str, Any]

# --- formulas, each from its paper or framework (see the question files' sources) -------------------

ln = math.log


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def kl(p: Iterable[float], q: Iterable[float], base: float = math.e) -> float:
    """KL(p‖q) = Σ p ln(p/q), terms with p = 0 dropped."""
    return sum(a * ln(a / b) for a, b in zip(p, q) if a > 0) / ln(base)


def k1(lp: float, lr: float) -> float:
    return lp - lr  # ln π/π_ref at a sample from π


def k2(lp: float, lr: float) -> float:
    return (lp - lr) ** 2 / 2


def k3(lp: float, lr: float) -> float:
    d = lr - lp  # Δ = ln π_ref/π
    return math.exp(d) - d - 1


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def std_unbiased(xs: list[float]) -> float:
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def grpo(scores: list[float], g: int, scale: bool = True, eps: float = 1e-6) -> list[float]:
    """verl compute_grpo_outcome_advantage: (s − mean)/(std_unbiased + ε) per group of g."""
    out = []
    for i in range(0, len(scores), g):
        grp = scores[i:i + g]
        m, s = mean(grp), std_unbiased(grp)
        out += [(x - m) / (s + eps) if scale else x - m for x in grp]
    return out


def rloo(scores: list[float], g: int) -> list[float]:
    """RLOO: each score minus the mean of the other g − 1 in its group."""
    out = []
    for i in range(0, len(scores), g):
        grp = scores[i:i + g]
        out += [x - (sum(grp) - x) / (g - 1) for x in grp]
    return out


def gae_row(r: list[float], v: list[float], m: list[int], gamma: float, lam: float,
            convention: str) -> tuple[list[float], list[float]]:
    """One row of GAE. verl skips m = 0 steps (next value and advantage carried over the hole);
    openrlhf multiplies r and V by m and runs the plain recursion. Returns (advantages, returns)."""
    n = len(r)
    adv = [0.0] * n
    if convention == "verl":
        nextv, last = 0.0, 0.0
        for t in reversed(range(n)):
            delta = r[t] + gamma * nextv - v[t]
            cand = delta + gamma * lam * last
            if m[t]:
                nextv, last = v[t], cand
            adv[t] = last
        return adv, [a + b for a, b in zip(adv, v)]
    r = [a * b for a, b in zip(r, m)]
    v = [a * b for a, b in zip(v, m)]
    last = 0.0
    for t in reversed(range(n)):
        nextv = v[t + 1] if t + 1 < n else 0.0
        last = r[t] + gamma * nextv - v[t] + gamma * lam * last
        adv[t] = last
    return adv, [a + b for a, b in zip(adv, v)]


def returns_verl(r: list[float], m: list[int], gamma: float) -> list[float]:
    """verl REINFORCE++ returns: G_t = r_t + γ·carry, then carry = m_t·G_t (reset at a mask zero)."""
    out, carry = [0.0] * len(r), 0.0
    for t in reversed(range(len(r))):
        out[t] = r[t] + gamma * carry
        carry = out[t] * m[t]
    return out


def ppo_token(lr: float, adv: float, eps: float, c: float | None = None) -> float:
    """verl compute_policy_loss_vanilla, one token with old log-prob 0: max(−A r, −A clip(r)),
    then for A < 0 the dual clip min(·, −A c)."""
    ratio = math.exp(lr)
    loss = max(-adv * ratio, -adv * min(max(ratio, 1 - eps), 1 + eps))
    if c is not None and adv < 0:
        loss = min(loss, -adv * c)
    return loss


def value_loss(vp: list[float], ret: list[float], old: list[float], c: float) -> tuple[list[float], float, float]:
    """verl compute_value_loss: ½ max((v − R)², (v_clip − R)²), token-mean; clipfrac = share where the
    clipped branch is strictly larger."""
    per, clipped = [], 0
    for v, R, o in zip(vp, ret, old):
        vc = o + min(max(v - o, -c), c)
        a, b = (v - R) ** 2, (vc - R) ** 2
        per.append(0.5 * max(a, b))
        clipped += b > a
    return per, mean(per), clipped / len(per)


def dpo_margin(pc: float, pr: float, rc: float, rr: float, beta: float) -> float:
    return beta * ((pc - rc) - (pr - rr))


def adaptive(beta: float, kl_now: float, target: float, n: float, horizon: float) -> tuple[float, float]:
    """Ziegler et al. 2019 adaptive controller (verl AdaptiveKLController): e = clip(KL/target − 1, ±0.2),
    β ← β(1 + e·n/H). Returns (e, new β)."""
    e = min(max(kl_now / target - 1, -0.2), 0.2)
    return e, beta * (1 + e * n / horizon)


def alpha_div(p: list[float], q: list[float], a: float) -> float:
    return (1 - sum(x ** a * y ** (1 - a) for x, y in zip(p, q))) / (a * (1 - a))


def bon_kl(n: float) -> float:
    return math.log(n) - (n - 1) / n


def optimal(ref: list[float], r: list[float], beta: float) -> tuple[list[float], float]:
    w = [a * math.exp(b / beta) for a, b in zip(ref, r)]
    z = sum(w)
    return [x / z for x in w], math.log(z)


def _two(p: P, a: str, b: str) -> list[float]:
    return [p[a], p[b]]


def _flat(x: Any) -> list[float]:
    return [float(v) for row in x for v in row] if x and isinstance(x[0], list) else [float(v) for v in x]


def _masked_mean_2d(vals: list[list[float]], mask: list[list[int]]) -> float:
    num = sum(v * m for rv, rm in zip(vals, mask) for v, m in zip(rv, rm))
    return num / sum(m for rm in mask for m in rm)


# --- the audits: (question id, part id) -> computation from the variant's parameters ---------------


def _kl3(p: P, a: str, b: str, base: float = math.e) -> Callable[[P], float]:
    return lambda p_: kl([p_[f"{a}{i}"] for i in (1, 2, 3)], [p_[f"{b}{i}"] for i in (1, 2, 3)], base)


AUDITS: dict[tuple[str, str], Callable[[P], Any]] = {
    # KL basics
    ("q01-kl-definition-properties", "forward"): lambda p: kl(_two(p, "a", "ma"), _two(p, "b", "mb")),
    ("q01-kl-definition-properties", "reverse"): lambda p: kl(_two(p, "b", "mb"), _two(p, "a", "ma")),
    ("kl-coins-nats-bits", "pq_nats"): lambda p: kl(_two(p, "p", "mp"), _two(p, "q", "mq")),
    ("kl-coins-nats-bits", "pq_bits"): lambda p: kl(_two(p, "p", "mp"), _two(p, "q", "mq"), 2),
    ("kl-coins-nats-bits", "qp_bits"): lambda p: kl(_two(p, "q", "mq"), _two(p, "p", "mp"), 2),
    ("q07-forward-vs-reverse-kl", "reverse"): _kl3({}, "t", "r"),
    ("q07-forward-vs-reverse-kl", "forward"): _kl3({}, "r", "t"),
    ("q11-k3-unbiased-derivation", "numeric"):
        lambda p: sum(p[f"p{i}"] * k3(ln(p[f"p{i}"]), ln(p[f"q{i}"])) for i in (1, 2, 3)),
    ("q24-forward-reverse-kl", "reverse"):
        lambda p: kl([p[f"p{i}"] for i in range(1, 5)], [p[f"r{i}"] for i in range(1, 5)]),
    ("q24-forward-reverse-kl", "forward"):
        lambda p: kl([p[f"r{i}"] for i in range(1, 5)], [p[f"p{i}"] for i in range(1, 5)]),
    ("q20-sequence-vs-token-kl", "chain"):
        lambda p: kl([p[f"j{i}"] for i in range(1, 5)], [p[f"k{i}"] for i in range(1, 5)]),
    ("kl-next-token-both-directions", "reverse"): lambda p: kl(p["new"], p["old"]),
    ("kl-next-token-both-directions", "forward"): lambda p: kl(p["old"], p["new"]),
    ("kl-weather-cross-entropy", "entropy"): lambda p: -sum(x * math.log2(x) for x in p["P"] if x > 0),
    ("kl-weather-cross-entropy", "cross_entropy"): lambda p: -sum(x * math.log2(y) for x, y in zip(p["P"], p["Q"])),
    ("kl-weather-cross-entropy", "kl"): lambda p: kl(p["P"], p["Q"], 2),
    ("kl-gaussian-shift", "equal_var"): lambda p: p["mu"] ** 2 / 2,
    ("kl-gaussian-shift", "wide_ref"): lambda p: ln(p["s"]) + (1 + p["mu"] ** 2) / (2 * p["s"] ** 2) - 0.5,
    ("q02-why-kl-penalty", "hacked"): lambda p: p["rh"] - p["beta"] * ln(1 / p["rho"]),
    # estimators
    ("kl-estimators-per-token", "k1"): lambda p: [k1(a, b) for a, b in zip(p["lp"], p["lr"])],
    ("kl-estimators-per-token", "k2"): lambda p: [k2(a, b) for a, b in zip(p["lp"], p["lr"])],
    ("kl-estimators-per-token", "k3"): lambda p: [k3(a, b) for a, b in zip(p["lp"], p["lr"])],
    ("q03-k1-estimator-negative", "per_token"): lambda p: [k1(p[f"a{i}"], p[f"c{i}"]) for i in (1, 2, 3)],
    ("q03-k1-estimator-negative", "mean"): lambda p: mean([k1(p[f"a{i}"], p[f"c{i}"]) for i in (1, 2, 3)]),
    ("q04-k3-estimator", "value"): lambda p: k3(p["lp"], p["lr"]),
    ("q12-k3-from-f", "value"): lambda p: k3(p["lp"], p["rlp"]),
    ("q05-kl-placement", "in_loss"): lambda p: p["beta"] * mean([k3(p[f"a{i}"], p[f"c{i}"]) for i in (1, 2, 3)]),
    ("q05-kl-placement", "in_reward"): lambda p: p["s"] - p["beta"] * k1(p["a3"], p["c3"]),
    ("q10-grpo-why-k3", "mean_k1"): lambda p: mean([k1(p[f"a{i}"], p[f"c{i}"]) for i in range(1, 5)]),
    ("q10-grpo-why-k3", "mean_k3"): lambda p: mean([k3(p[f"a{i}"], p[f"c{i}"]) for i in range(1, 5)]),
    ("kl-masked-mean-batch", "k3_mean"): lambda p: _masked_mean_2d(
        [[k3(a, b) for a, b in zip(ra, rb)] for ra, rb in zip(p["lp"], p["lr"])], p["m"]),
    ("kl-masked-mean-batch", "k1_sum"): lambda p: [
        sum(k1(a, b) * m for a, b, m in zip(ra, rb, rm)) for ra, rb, rm in zip(p["lp"], p["lr"], p["m"])],
    ("q21-k3-nonneg-unbiased-loss", "gradcoef"): lambda p: 1 - math.exp(p["rlp"] - p["lp"]),
    # divergences
    ("divergence-js-hellinger-chi2", "hellinger"):
        lambda p: 0.5 * sum((math.sqrt(a) - math.sqrt(b)) ** 2 for a, b in zip(p["p"], p["q"])),
    ("divergence-js-hellinger-chi2", "chi2"): lambda p: sum((a - b) ** 2 / b for a, b in zip(p["p"], p["q"])),
    ("divergence-js-hellinger-chi2", "kl_bound"):
        lambda p: ln(1 + sum((a - b) ** 2 / b for a, b in zip(p["p"], p["q"]))),
    ("divergence-js-hellinger-chi2", "js"): lambda p: 0.5 * kl(p["p"], [(a + b) / 2 for a, b in zip(p["p"], p["q"])])
        + 0.5 * kl(p["q"], [(a + b) / 2 for a, b in zip(p["p"], p["q"])]),
    ("divergence-tv-pinsker", "tv"): lambda p: 0.5 * sum(abs(a - b) for a, b in zip(p["p"], p["q"])),
    ("divergence-tv-pinsker", "kl"): lambda p: kl(p["p"], p["q"]),
    ("divergence-tv-pinsker", "bound"): lambda p: math.sqrt(kl(p["p"], p["q"]) / 2),
    ("q25-next-gen-kl", "half"): lambda p: alpha_div(_three(p, "p"), _three(p, "q"), 0.5),
    ("q25-next-gen-kl", "limit"): lambda p: alpha_div(_three(p, "p"), _three(p, "q"), 0.999),
    # best-of-n and over-optimisation (Gao et al. 2023)
    ("bon-kl", "kl_nats"): lambda p: bon_kl(p["n"]),
    ("bon-kl", "d"): lambda p: math.sqrt(bon_kl(p["n"])),
    ("q09-reward-overoptimization", "early"):
        lambda p: math.sqrt(p["kl1"]) * (p["al"] - p["be"] * math.sqrt(p["kl1"])),
    ("q09-reward-overoptimization", "late"):
        lambda p: math.sqrt(p["kl2"]) * (p["al"] - p["be"] * math.sqrt(p["kl2"])),
    ("q23-overoptimisation-peak", "dpeak"): lambda p: p["alpha"] / (2 * p["beta"]),
    ("q23-overoptimisation-peak", "klpeak"): lambda p: (p["alpha"] / (2 * p["beta"])) ** 2,
    ("q23-overoptimisation-peak", "rpeak"): lambda p: p["alpha"] ** 2 / (4 * p["beta"]),
    ("q23-overoptimisation-peak", "bon"): lambda p: bon_kl(p["n"]),
    ("q23-overoptimisation-peak", "rlpeak"): lambda p: math.exp(p["arl"] / p["brl"] - 1),
    # optimal policy
    ("optimal-policy-small-vocab", "probs"): lambda p: optimal(p["ref"], p["r"], p["beta"])[0],
    ("optimal-policy-small-vocab", "log_z"): lambda p: optimal(p["ref"], p["r"], p["beta"])[1],
    ("q13-optimal-policy", "vocab"): lambda p: optimal(p["ref"], p["rw"], p["beta"])[0],
    # adaptive KL controller
    ("q17-adaptive-beta", "err"): lambda p: adaptive(p["beta"], p["kl"], p["target"], p["n"], p["horizon"])[0],
    ("q17-adaptive-beta", "newbeta"): lambda p: adaptive(p["beta"], p["kl"], p["target"], p["n"], p["horizon"])[1],
    ("adaptive-beta-two-steps", "step1"): lambda p: adaptive(p["b0"], p["kl1"], p["target"], p["n"], p["H"])[1],
    ("adaptive-beta-two-steps", "step2"): lambda p: adaptive(p["b1"], p["kl2"], p["target"], p["n"], p["H"])[1],
    # advantages
    ("comp-grpo-advantages", "grpo"): lambda p: grpo(p["s"], 4),
    ("comp-grpo-advantages", "drgrpo"): lambda p: grpo(p["s"], 4, scale=False),
    ("comp-grpo-rloo", "adv"): lambda p: rloo(p["s"], 4),
    ("q18-grpo-binary-beta", "adv"): lambda p: grpo(p["s"], 6),
    ("q18-grpo-binary-beta", "allsame"): lambda p: p["pc"] ** 6 + (1 - p["pc"]) ** 6,
    ("comp-gae-single-row", "adv"): lambda p: [gae_row([0, 0, 0, p["s"]], _four_v(p), [1, 1, 1, 1],
                                                       p["gamma"], p["lam"], "verl")[0]],
    ("comp-gae-single-row", "ret"): lambda p: [gae_row([0, 0, 0, p["s"]], _four_v(p), [1, 1, 1, 1],
                                                       p["gamma"], p["lam"], "verl")[1]],
    ("comp-gae-holes-verl-trl", "verl"): lambda p: [gae_row([0, 0, 0, p["s"]], _four_v(p), [1, 1, 0, 1],
                                                            p["gamma"], p["lam"], "verl")[0]],
    ("comp-gae-holes-verl-trl", "openrlhf"): lambda p: [gae_row([0, 0, 0, p["s"]], _four_v(p), [1, 1, 0, 1],
                                                                p["gamma"], p["lam"], "openrlhf")[0]],
    ("comp-gae-discounted-returns", "returns"): lambda p: [returns_verl(
        [p[f"r{i}"] for i in range(1, 6)], [1, 1, 0, 1, 1], p["gamma"])],
    # PPO
    ("comp-ppo-clip-cases", "high"): lambda p: ppo_token(p["lr1"], p["a1"], p["eps"]),
    ("comp-ppo-clip-cases", "lowpos"): lambda p: ppo_token(p["lr2"], p["a2"], p["eps"]),
    ("comp-ppo-clip-cases", "lowneg"): lambda p: ppo_token(p["lr3"], p["a3"], p["eps"]),
    ("comp-ppo-batch-dual-clip", "dual"): lambda p: ppo_token(p["lrd"], p["ad"], p["eps"], p["c"]),
    ("comp-ppo-trpo-surrogate", "ratio"): lambda p: [[math.exp(a - b) for a, b in zip(ra, rb)]
                                                     for ra, rb in zip(p["new"], p["old"])],
    ("comp-ppo-value-loss", "per_token"): lambda p: [value_loss(*_vl(p))[0]],
    ("comp-ppo-value-loss", "vf_loss"): lambda p: value_loss(*_vl(p))[1],
    ("comp-ppo-value-loss", "clipfrac"): lambda p: value_loss(*_vl(p))[2],
    # DPO family
    ("q08-dpo-implicit-reward-kl", "chosen_reward"): lambda p: p["beta"] * (p["pw"] - p["rw"]),
    ("q08-dpo-implicit-reward-kl", "margin"): lambda p: dpo_margin(p["pw"], p["pl"], p["rw"], p["rl"], p["beta"]),
    ("q14-dpo-loss-derivation", "value"):
        lambda p: -ln(sigmoid(dpo_margin(p["pc"], p["pr"], p["rc"], p["rr"], p["beta"]))),
    ("q15-dpo-gradient", "weight"):
        lambda p: sigmoid(-dpo_margin(p["pc"], p["pr"], p["rc"], p["rr"], p["beta"])),
    ("q15-dpo-gradient", "grad"):
        lambda p: -p["beta"] * sigmoid(-dpo_margin(p["pc"], p["pr"], p["rc"], p["rr"], p["beta"])),
    ("comp-dpo-loss-rewards", "chosen"): lambda p: [p["beta"] * (a - b) for a, b in zip(p["pc"], p["rc"])],
    ("comp-dpo-loss-rewards", "loss"): lambda p: mean([-ln(sigmoid(dpo_margin(a, b, c, d, p["beta"])))
                                                       for a, b, c, d in zip(p["pc"], p["pr"], p["rc"], p["rr"])]),
    ("comp-dpo-loss-rewards", "acc"): lambda p: mean([float(dpo_margin(a, b, c, d, 1.0) > 0)
                                                      for a, b, c, d in zip(p["pc"], p["pr"], p["rc"], p["rr"])]),
    ("comp-dpo-preference-family", "bt"): lambda p: sigmoid(p["rwc"] - p["rwr"]),
    ("comp-dpo-preference-family", "ipo"):
        lambda p: ((p["ac"] - p["bc"]) - (p["ar"] - p["br"]) - 1 / (2 * p["beta"])) ** 2,
    ("comp-dpo-preference-family", "orpo"): lambda p: _log_odds(p["ac"]) - _log_odds(p["ar"]),
    ("q19-simpo-no-reference", "loss"): lambda p: -ln(sigmoid(p["beta"] * (p["aw"] - p["al"]) - p["gamma"])),
}


def _three(p: P, name: str) -> list[float]:
    return [p[f"{name}{i}"] for i in (1, 2, 3)]


def _four_v(p: P) -> list[float]:
    return [p[f"v{i}"] for i in (1, 2, 3, 4)]


def _vl(p: P) -> tuple[list[float], list[float], list[float], float]:
    return _three(p, "p"), _three(p, "r"), _three(p, "v"), p["cv"]


def _log_odds(avg_logp: float) -> float:
    """ORPO: log odds(y) = ln(P/(1 − P)) with P = exp(average log-prob)."""
    return avg_logp - math.log1p(-math.exp(avg_logp))


# --- running ---------------------------------------------------------------------------------------


def _numbers(x: Any) -> list[float]:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return [float(x)]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _numbers(item)]
    raise TypeError(f"not a number or list: {x!r}")


def agree(ours: Any, bank: Any, rtol: float, atol: float) -> bool:
    a, b = _numbers(ours), _numbers(bank)
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=rtol, abs_tol=atol) for x, y in zip(a, b))


def audit(seeds: Iterable[int] = range(20), rtol: float = 1e-5, atol: float = 1e-9,
          root: Path = ROOT / "questions") -> dict[str, Any]:
    """Audit every question file under ``root``; returns rows, disagreements and the uncovered parts."""
    from checkers import grading
    from checkers.bank import load_question_file
    from checkers.bank.variants import params_for

    seeds = list(seeds)
    rows, disagreements, uncovered = [], [], []
    for path in sorted(root.rglob("*.yaml")):
        q = load_question_file(path)
        for part in q["parts"]:
            if part["kind"] not in ("numeric", "array"):
                continue
            key = (q["id"], part["id"])
            fn = AUDITS.get(key)
            if fn is None:
                uncovered.append(key)
                continue
            bad = []
            for seed in seeds:
                params = params_for(q, seed)
                try:
                    ours = fn(params)
                    bank = grading.expected(part, params)
                    ok = agree(ours, bank, rtol, atol)
                except Exception as exc:  # a broken audit or part is a finding, not a crash
                    ours, bank, ok = f"{type(exc).__name__}: {exc}", None, False
                if not ok:
                    bad.append(seed)
                    disagreements.append({"question": q["id"], "part": part["id"], "seed": seed,
                                          "audit": ours, "bank": bank})
            rows.append({"question": q["id"], "part": part["id"], "seeds": len(seeds), "failing": bad})
    return {"rows": rows, "disagreements": disagreements, "uncovered": uncovered}


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 70 else text[:67] + "..."


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rtol", type=float, default=1e-5)
    args = ap.parse_args(argv)
    result = audit(range(args.seeds), rtol=args.rtol)
    width = max((len(f"{r['question']}/{r['part']}") for r in result["rows"]), default=10)
    print(f"{'question/part'.ljust(width)}  seeds  status")
    for r in result["rows"]:
        status = "agree" if not r["failing"] else f"DISAGREE on seeds {r['failing']}"
        print(f"{(r['question'] + '/' + r['part']).ljust(width)}  {r['seeds']:5d}  {status}")
    covered = len(result["rows"])
    total = covered + len(result["uncovered"])
    print(f"\ncovered {covered} of {total} numeric/array parts; {len(result['disagreements'])} disagreement(s)")
    for d in result["disagreements"][:50]:
        print(f"  {d['question']}/{d['part']} seed {d['seed']}: audit {_short(d['audit'])} bank {_short(d['bank'])}")
    if result["uncovered"]:
        print("not covered: " + ", ".join(f"{a}/{b}" for a, b in result["uncovered"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
