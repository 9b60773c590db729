"""Code exercises: end-to-end grading latency and the sandbox's resident memory (figures, never asserted).

    .venv/bin/python benchmarks/bench_code.py [--n 40] [--concurrency 8]

1. A correct k3 submission graded through the ``code`` kind (cases built, engine values computed, one
   sealed child forked, numbers compared): p50/p95/max over ``--n`` runs, with the verdict cache off so
   every run pays the sandbox. The first run (the template starting and importing torch) is shown apart.
2. The bare fork of a sealed child that returns at once, the floor under every submission.
3. ``--concurrency`` submissions at once from threads: wall time and per-submission latency.
4. Page requests while code is graded: a live service (waitress, in process) answers GETs of the question
   list while ``--concurrency`` clients post code checks; p50/p99 of those GETs, and of the same GETs with
   no code load, in the same run.
5. Resident memory (RSS) of the template process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from checkers import coderun  # noqa: E402
from checkers.bank import load_question_file  # noqa: E402
from checkers.kinds import get_checker  # noqa: E402
from checkers.kinds.code import checker as code_checker  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def page_latency_under_code_load(source: str, concurrency: int, gets: int = 200) -> None:
    import json
    import tempfile
    import threading
    import urllib.request

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
    import quiz_testing as testing

    def get(url: str) -> float:
        t = time.perf_counter()
        with urllib.request.urlopen(url, timeout=60) as r:
            r.read()
        return time.perf_counter() - t

    def post_check(base: str) -> None:
        body = json.dumps({"function": "kl.k3", "source": source}).encode()
        req = urllib.request.Request(f"{base}/api/v1/check/code", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=120) as r:
            r.read()

    with tempfile.TemporaryDirectory() as tmp:
        app = testing.make_app(Path(tmp))
        testing.load_sample(app)
        with testing.serve_in_thread(app, threads=concurrency + 4) as base:
            list_url = f"{base}/api/v1/questions"
            get(list_url)
            quiet = [get(list_url) for _ in range(gets)]
            stop = threading.Event()

            def hammer() -> None:
                while not stop.is_set():
                    post_check(base)

            workers = [threading.Thread(target=hammer, daemon=True) for _ in range(concurrency)]
            for w in workers:
                w.start()
            loaded = [get(list_url) for _ in range(gets)]
            stop.set()
            for w in workers:
                w.join(120)
    print(f"GET /api/v1/questions, quiet: p50 {pct(quiet, 50) * 1000:.1f} ms, p99 {pct(quiet, 99) * 1000:.1f} ms; "
          f"while {concurrency} clients post code checks: p50 {pct(loaded, 50) * 1000:.1f} ms, "
          f"p99 {pct(loaded, 99) * 1000:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    q = load_question_file(ROOT / "questions/L1/code-k3-per-token.yaml")
    part = q["parts"][0]
    ck = get_checker("code")

    def grade_once() -> float:
        code_checker._grade_cached.cache_clear()
        t = time.perf_counter()
        v = ck.grade(part["solution"], part, {})
        assert v.status == "correct", v
        return time.perf_counter() - t

    first = grade_once()
    runs = [grade_once() for _ in range(args.n)]
    print(f"first submission (template start): {first * 1000:.0f} ms")
    print(f"correct k3, end to end, n={args.n}: p50 {pct(runs, 50) * 1000:.1f} ms, "
          f"p95 {pct(runs, 95) * 1000:.1f} ms, max {max(runs) * 1000:.1f} ms")

    bare = []
    for _ in range(args.n):
        t = time.perf_counter()
        coderun.run("def f(x):\n    return x", "f", [])
        bare.append(time.perf_counter() - t)
    print(f"bare sealed child, no cases: p50 {pct(bare, 50) * 1000:.1f} ms")

    with ThreadPoolExecutor(args.concurrency) as pool:
        t = time.perf_counter()
        lat = list(pool.map(lambda _: grade_once(), range(args.concurrency * 3)))
        wall = time.perf_counter() - t
    print(f"{args.concurrency} concurrent: {len(lat)} submissions in {wall:.2f} s, "
          f"p50 {statistics.median(lat) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms")

    page_latency_under_code_load(part["solution"], args.concurrency)

    pid = coderun.runner._TEMPLATE.proc.pid
    rss = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
    print(f"template process {rss.split(':')[1].strip()} resident")
    coderun.shutdown()


if __name__ == "__main__":
    main()
