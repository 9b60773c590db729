#!/usr/bin/env python3
"""Latency of checkers.grading.grade over a mixed corpus (a script, not a test).

Cold: the first pass in a fresh process (includes starting the sandbox pool and sympy's first-use
costs). Warm: later passes with the equivalence cache cleared before each answer, so "warm" means
warm processes, not cached answers. A third line per kind shows cache hits (the same answer again).

    python benchmarks/bench_checkers.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml  # noqa: E402

from checkers import equivalence, grading, sandbox  # noqa: E402

FB = {"en": "x", "zh": "x"}
PQ = {"p": {"domain": "probability"}, "q": {"domain": "probability"}}
F = {"f": {"args": ["x"], "expr": "exp(x) - x - 1"}}
DPO = {"pi_star": {"positive": True}, "pi_ref": {"positive": True}, "r": {"real": True},
       "beta": {"positive": True}, "Z": {"positive": True}}
GAO = {"d": {"positive": True}, "alpha": {"positive": True}, "beta": {"positive": True}}


def corpus() -> list[tuple[str, object, dict]]:
    items: list[tuple[str, object, dict]] = []
    rows = yaml.safe_load((Path(__file__).resolve().parent.parent / "tests/fixtures/equivalence_table.yaml")
                          .read_text(encoding="utf-8"))["rows"]
    for r in rows:
        spec = {"kind": "symbolic", "expected": r["expected"], "variables": r["variables"],
                "mode": r.get("mode", "equivalent")}
        items.append(("symbolic", r["answer"], spec))
    num = {"kind": "numeric", "expected": {"expr": "ln(2)/2"}, "tolerance": {"rtol": 1e-4},
           "mistakes": [{"expr": "ln(2)", "note": "missing-half", "feedback": FB}]}
    for a in ["0.34657", "ln(2)/2", "0.69315", "0.35", "-0.34657", "0.5", "nan", "0.5*log(0.8/0.7)", "1e-3", "abc("] * 4:
        items.append(("numeric", a, num))
    arr = {"kind": "array", "expected": {"value": [[0.1 * i + j for i in range(8)] for j in range(8)]}}
    good = [[0.1 * i + j for i in range(8)] for j in range(8)]
    bad = [row[:] for row in good]
    bad[3][4] += 1
    for a in [good, bad, good[:4], "[[1, 2], [3]]"] * 5:
        items.append(("array", a, arr))
    ch = {"kind": "choice", "options": [{"id": i, "text": FB} for i in "abcd"], "correct": ["a", "c"], "multiple": True}
    for a in [["a", "c"], ["c", "a"], ["b"], "a,c", ["zz"]] * 4:
        items.append(("choice", a, ch))
    ders = [
        (["f(log(q/p))", "= exp(log(q/p)) - log(q/p) - 1", "= q/p - log(q/p) - 1"],
         {"start": "f(log(q/p))", "goal": "q/p - log(q/p) - 1", "variables": PQ, "functions": F}),
        (["f(log(q/p))", "= q/p + log(q/p) - 1"],
         {"start": "f(log(q/p))", "goal": "q/p - log(q/p) - 1", "variables": PQ, "functions": F}),
        (["pi_star = pi_ref exp(r/beta)/Z", "log(pi_star/pi_ref) = r/beta - log Z", "r = beta log(pi_star/pi_ref) + beta log Z"],
         {"start": "pi_star = pi_ref*exp(r/beta)/Z", "goal": "r = beta*log(pi_star/pi_ref) + beta*log(Z)", "variables": DPO}),
        (["d(alpha - beta d)", "= alpha d - beta d^2", "alpha - 2 beta d = 0", "d = alpha/(2 beta)"],
         {"start": "d*(alpha - beta*d)", "goal": "d = alpha/(2*beta)", "variables": GAO}),
        # equation form: a correct chain, the generated wrong example, an identity line, a broken step
        (["alpha - 2 beta d = 0", "2 beta d = alpha", "d = alpha/(2 beta)"],
         {"start": "alpha - 2*beta*d = 0", "goal": "d = alpha/(2*beta)", "variables": GAO}),
        (["alpha - 2*beta*d = 0", "= 0"],
         {"start": "alpha - 2*beta*d = 0", "goal": "d = alpha/(2*beta)", "variables": GAO}),
        (["alpha - 2*beta*d = 0", "0 = 0", "d = alpha/(2*beta)"],
         {"start": "alpha - 2*beta*d = 0", "goal": "d = alpha/(2*beta)", "variables": GAO}),
        (["pi_star = pi_ref exp(r/beta)/Z", "log(pi_star/pi_ref) = log(exp(r/beta)/Z)", "= r/beta + log Z"],
         {"start": "pi_star = pi_ref*exp(r/beta)/Z", "goal": "r = beta*log(pi_star/pi_ref) + beta*log(Z)", "variables": DPO}),
    ]
    for lines, spec in ders * 3:
        items.append(("derivation", lines, {"kind": "derivation", **spec}))
    hostile = ["9^9^9^9", "2^(10^10)", "(" * 5000 + "x" + ")" * 5000, "x" * 100_000, "__import__('os')",
               "exp(exp(exp(exp(exp(exp(x))))))^1000", "\x00x", "x\u202e+1"]
    for h in hostile:
        items.append(("hostile", h, {"kind": "symbolic", "expected": "x", "variables": {"x": {}}}))
    return items


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def run_pass(items, clear_cache: bool) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for kind, raw, spec in items:
        if clear_cache:
            equivalence.clear_cache()
            # the workers have their own caches: clear them too, off the clock
            if kind in ("symbolic", "derivation", "hostile") and not sandbox.is_inprocess():
                for _ in range(sandbox.get_pool().size):
                    sandbox.run(equivalence.clear_cache, timeout=5)
        t0 = time.perf_counter()
        grading.grade(raw, spec, {})
        out.setdefault(kind, []).append(time.perf_counter() - t0)
    return out


def report(label: str, res: dict[str, list[float]]) -> None:
    for kind, xs in res.items():
        print(f"{label:<6} {kind:<11} n={len(xs):<4} p50={pct(xs, .5) * 1e3:8.2f} ms  p95={pct(xs, .95) * 1e3:8.2f} ms  "
              f"p99={pct(xs, .99) * 1e3:8.2f} ms  max={max(xs) * 1e3:8.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--inprocess", action="store_true", help="grade in this process (no sandbox)")
    args = ap.parse_args()
    sandbox.set_inprocess(args.inprocess)
    items = corpus()
    print(f"corpus: {len(items)} answers; sandbox: {'in-process' if args.inprocess else 'worker pool'}")
    report("cold", run_pass(items, clear_cache=False))
    warm: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for k, v in run_pass(items, clear_cache=True).items():
            warm.setdefault(k, []).extend(v)
    report("warm", warm)
    report("cached", run_pass(items, clear_cache=False))
    sandbox.shutdown()
    sym, num = warm.get("symbolic", [0.0]), warm.get("numeric", [0.0])
    worst = max(max(xs) for xs in warm.values())
    ok = pct(sym, .5) <= 5e-3 and pct(sym, .99) <= 50e-3 and max(num) <= 1e-3 and worst <= 1.0
    print(f"targets (warm): symbolic p50 <= 5 ms, p99 <= 50 ms; numeric <= 1 ms; any answer <= 1 s "
          f"(grading.DEFAULT_TIMEOUT = {grading.DEFAULT_TIMEOUT:g} s): {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
