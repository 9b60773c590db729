"""Symbolic checks over HTTP: p50/p99 of ``POST /api/v1/check/symbolic`` against ``quizapp serve`` (gunicorn,
the production command) on loopback, one client sending one request after another (a script that prints
figures, not a test).

The corpus is the equivalence table (``tests/fixtures/equivalence_table.yaml``: 252 expected/answer pairs,
the rows whose outcome is ``undecided`` left out, since they run to the checker's time budget by design).

* **first**: the first check answered after the "serving on" line (the sandbox pool of the worker that takes
  it may not be running yet).
* **warm**: every pair once, ``--settle`` seconds after the first check and after a warm-up of a few checks
  on *other* expressions in every worker, so the processes are warm but no pair was seen before (the
  parser's and the equivalence test's caches miss).
* **repeat**: the same pairs again (what a class typing the same answer gets: the caches of the grader
  process that checked a pair before hit; each worker has its own grader processes).
* **same**: one warm-up check sent as many times: the server's own cost per check, with no sympy work left.

Each request goes on a new connection (``Connection: close``), so gunicorn spreads them over its workers;
``--workers`` defaults to the server's own default (one per core). The 1-minute load average is printed
before and after, since the machine may be shared.

    python benchmarks/bench_symbolic_http.py
    python benchmarks/bench_symbolic_http.py --workers 1 --passes 2
    python benchmarks/bench_symbolic_http.py --slowest 10   # which pairs make the tail
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from _live import ROOT, call, free_port, pct, start

sys.path.insert(0, str(ROOT / "tests" / "support"))  # the service test helpers
import quiz_testing as testing

#: Checks sent before measuring, repeated so that each worker (and its sandbox pool) gets some: their
#: expressions are not in the corpus, so they warm processes, not the corpus's cache entries.
WARM_UP = [
    {"expected": "a*b + c", "answer": "b*a + c", "variables": {"a": {}, "b": {}, "c": {}}},
    {"expected": "exp(t) - t - 1", "answer": "e^t - 1 - t", "variables": {"t": {}}},
    {"expected": "log(u/v)", "answer": "log u - log v", "variables": {"u": {"positive": True},
                                                                       "v": {"positive": True}}},
]


def corpus() -> list[dict]:
    rows = yaml.safe_load((ROOT / "tests/fixtures/equivalence_table.yaml").read_text(encoding="utf-8"))["rows"]
    bodies = []
    for r in rows:
        if r["outcome"] == "undecided":
            continue
        body = {"expected": str(r["expected"]), "answer": str(r["answer"]), "variables": r["variables"] or {}}
        for key in ("mode", "constants", "decimals"):
            if key in r:
                body[key] = r[key]
        bodies.append(body)
    return bodies


def timed(url: str, body: dict) -> float:
    t0 = time.perf_counter()
    status, _ = call("POST", url, body)
    elapsed = time.perf_counter() - t0
    if status not in (200, 422):  # 422: a pair the endpoint refuses (e.g. a complex domain), answered as such
        raise SystemExit(f"check answered {status}: {body}")
    return elapsed


def line(label: str, xs: list[float]) -> str:
    return (f"{label:8s} n={len(xs):4d}  p50={pct(xs, .5) * 1e3:7.1f} ms  p90={pct(xs, .9) * 1e3:7.1f} ms  "
            f"p99={pct(xs, .99) * 1e3:7.1f} ms  max={max(xs) * 1e3:7.1f} ms  mean={statistics.fmean(xs) * 1e3:6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=0, help="gunicorn workers (0: the server's default)")
    ap.add_argument("--passes", type=int, default=1, help="passes over the corpus for 'warm' (the first "
                                                          "pass's pairs are new; later ones are repeats too)")
    ap.add_argument("--warm-up", type=int, default=40, help="warm-up checks before measuring")
    ap.add_argument("--settle", type=float, default=6.0,
                    help="seconds between the first check and the warm-up (the server's start is over: the "
                         "first workers were replaced by warm ones, whose grader pools run)")
    ap.add_argument("--slowest", type=int, default=0, help="also list this many slowest 'warm' pairs")
    args = ap.parse_args()
    bodies = corpus()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-symbolic-") as d:
        tmp = Path(d)
        bank = testing.write_bank(tmp / "bank", testing.sample_question())
        port = free_port()
        cmd = ["-m", "quizapp.cli", "serve", "--port", str(port), "--bank", str(bank)]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        log = Path(os.environ.get("BENCH_LOG") or tmp / "serve.log")
        proc = start(cmd, {"DATABASE_URL": f"sqlite:///{tmp / 'symbolic.sqlite3'}", "SECRET_KEY": "symbolic",
                           "QUIZ_LOG_JSON": "0"}, log)
        url = f"http://127.0.0.1:{port}/api/v1/check/symbolic"
        try:
            first = timed(url, WARM_UP[0])
            time.sleep(args.settle)  # the start is over: warm workers and their grader pools run
            for i in range(args.warm_up):
                timed(url, WARM_UP[i % len(WARM_UP)])
            warm = [timed(url, b) for _ in range(args.passes) for b in bodies]
            repeat = [timed(url, b) for b in bodies]
            same = [timed(url, WARM_UP[1]) for _ in range(len(bodies))]
        finally:
            testing.stop_process(proc, timeout=60)
    print(f"cores: {os.cpu_count()}; load average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}; "
          f"workers: {args.workers or 'default'}")
    print(f"first    {first * 1e3:.1f} ms (the first check after the server said it listens)")
    print(line("warm", warm))
    print(line("repeat", repeat))
    print(line("same", same))
    print("target (issue 33): warm p99 <= 50 ms")
    warm_bodies = [b for _ in range(args.passes) for b in bodies]
    for t, b in sorted(zip(warm, warm_bodies), key=lambda tb: -tb[0])[:args.slowest]:
        print(f"  {t * 1e3:7.1f} ms  {b['expected']}  |  {b['answer']}")


if __name__ == "__main__":
    main()
