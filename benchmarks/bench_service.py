"""Benchmark: the live service on loopback under concurrent clients (a script, not a test).

Starts the real app (migrated SQLite in a temporary folder, the whole bank loaded) with waitress on a free
port of 127.0.0.1, then runs C client threads for a bounded number of requests each, mixing what learners
do: list questions, open a question, preview an answer, submit an attempt (numeric, symbolic and
derivation parts). Prints throughput and p50/p95/p99 latency per request kind, and the number of non-2xx
answers (which should be 0). Traffic only ever goes to 127.0.0.1, and every loop is bounded.

Run: python benchmarks/bench_service.py [--clients 8] [--rounds 25]
"""

from __future__ import annotations

import sys

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
import quiz_testing as testing

QUESTION = "q04-k3-estimator"
ANSWERS = {"formula": "exp(Delta) - Delta - 1", "value": "0.05", "properties": ["a", "b", "c"]}


def request(method: str, url: str, body: dict | None = None) -> int:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def client(base: str, rounds: int, seed: int, timings: dict, failures: list, lock: threading.Lock) -> None:
    api = f"{base}/api/v1"
    steps = [
        ("list", "GET", f"{api}/questions", None),
        ("question", "GET", f"{api}/questions/{QUESTION}?variant={seed}", None),
        ("validate", "POST", f"{api}/questions/{QUESTION}/validate",
         {"variant": seed, "part": "formula", "answer": "e^Delta - Delta - 1"}),
        ("attempt", "POST", f"{api}/questions/{QUESTION}/attempts", {"variant": seed, "answers": ANSWERS}),
        ("page", "GET", f"{base}/questions/{QUESTION}?variant={seed}", None),
    ]
    for _ in range(rounds):
        for kind, method, url, body in steps:
            t0 = time.perf_counter()
            status = request(method, url, body)
            dt = time.perf_counter() - t0
            with lock:
                timings[kind].append(dt)
                if status >= 300:
                    failures.append((kind, status))


def load_bank(app, root: Path) -> None:
    """The same loader `quizapp load-bank` uses."""
    from quizapp.storage.db import get_db
    from quizapp.services.questions import load_bank_dir

    with app.app_context():
        session = get_db(app).Session()
        try:
            load_bank_dir(session, root)
        finally:
            session.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=25, help="request cycles per client")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        app = testing.make_app(Path(tmp))
        load_bank(app, Path(__file__).resolve().parents[1] / "questions")
        with testing.serve_in_thread(app, threads=args.threads) as base:
            request("POST", f"{base}/api/v1/questions/{QUESTION}/attempts", {"variant": 0, "answers": ANSWERS})
            timings: dict[str, list[float]] = defaultdict(list)
            failures: list = []
            lock = threading.Lock()
            workers = [threading.Thread(target=client, args=(base, args.rounds, i, timings, failures, lock))
                       for i in range(args.clients)]
            t0 = time.perf_counter()
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            wall = time.perf_counter() - t0

    total = sum(len(v) for v in timings.values())
    print(f"{args.clients} clients x {args.rounds} rounds, waitress threads {args.threads}: "
          f"{total} requests in {wall:.1f} s = {total / wall:.0f} req/s; non-2xx: {len(failures)}")
    for kind, values in timings.items():
        print(f"  {kind:9s} n={len(values):4d}  p50={pct(values, .5) * 1e3:7.1f} ms  "
              f"p95={pct(values, .95) * 1e3:7.1f} ms  p99={pct(values, .99) * 1e3:7.1f} ms  "
              f"mean={statistics.fmean(values) * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
