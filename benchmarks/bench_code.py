"""Code checks: the bare sealed child beside the end-to-end check, alone and under load (figures, never asserted).

    .venv/bin/python benchmarks/bench_code.py [--n 40] [--concurrency 8] [--gets 200]

One run prints, each beside its target (issue 30):

1. **bare sealed child**: ``coderun.run`` of a correct k3 on the stand-alone check's cases, payload built
   once (a fork from the warm template, the cases run, JSON numbers read back), and of an empty payload (the
   floor: fork, seal, exit);
2. **end to end, alone**: ``POST /api/v1/check/code`` with a correct k3 to a live service (waitress, in
   process): request parsing, the stand-alone spec, cases and engine values, the sealed child, the
   comparison, the JSON reply. Every request's source differs by a comment, so the verdict cache never
   answers. Target p50 <= 100 ms;
3. **end to end, 8 at once**: ``--concurrency`` clients post such checks back to back, while one client
   reads the question list (``GET /api/v1/questions``): the checks' p50 (target <= 300 ms) and the page
   reads' p50/p99 (target p99 <= 100 ms), with the same reads on the idle service for comparison;
4. resident memory of the template process.

The service runs with its defaults (``GRADING_SLOTS`` checks graded at once per process; the others wait
for a slot), on this machine's CPUs.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))   # the service test helpers (live server)

from checkers import coderun  # noqa: E402
from checkers.kinds.code.cases import CaseBuilder  # noqa: E402
from checkers.kinds.code.grade import payload_case  # noqa: E402
from checkers.kinds.code.standalone import standalone_spec  # noqa: E402

K3 = ("import torch\n\n\ndef k3(log_prob, ref_log_prob):\n"
      "    x = ref_log_prob - log_prob\n    return torch.exp(x) - x - 1\n")
_serial = itertools.count()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def ms(x: float) -> str:
    return f"{x * 1000:.1f} ms"


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bare_child(n: int) -> tuple[list[float], list[float]]:
    """coderun.run alone: the k3 check's cases (payload built once) and an empty payload."""
    spec = standalone_spec("kl.k3")
    builder = CaseBuilder(spec)
    cases = builder.hidden()
    refs = [builder.reference_full(c, spec["outputs"]) for c in cases]
    payload = [payload_case(builder, c, spec["outputs"], r) for c, r in zip(cases, refs)]
    outcome = coderun.run(K3, "k3", payload)
    assert len(outcome.cases) == len(cases) and outcome.fatal is None, outcome
    with_cases = [timed(lambda: coderun.run(K3, "k3", payload)) for _ in range(n)]
    empty = [timed(lambda: coderun.run("def f(x):\n    return x", "f", [])) for _ in range(n)]
    return with_cases, empty


def post_check(base: str) -> None:
    source = K3 + f"# submission {next(_serial)}\n"      # a new source: the verdict cache never answers
    body = json.dumps({"function": "kl.k3", "source": source}).encode()
    req = urllib.request.Request(f"{base}/api/v1/check/code", data=body,
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=120) as r:
        answer = json.loads(r.read())
    assert answer["status"] == "correct", answer


def get_page(url: str) -> None:
    with urllib.request.urlopen(url, timeout=60) as r:
        r.read()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=40, help="checks timed alone (and bare children)")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--gets", type=int, default=200, help="page reads timed, idle and under load")
    args = ap.parse_args()
    os.environ.setdefault("QUIZ_DEVICE", "cpu")
    import quiz_testing as testing

    print(f"CPUs available: {len(os.sched_getaffinity(0))}; engine on {os.environ['QUIZ_DEVICE']}")
    first = timed(lambda: coderun.run("def f(x):\n    return x", "f", []))
    print(f"template start (first child, torch imported once): {ms(first)}")
    with_cases, empty = bare_child(args.n)

    with tempfile.TemporaryDirectory() as tmp:
        app = testing.make_app(Path(tmp))
        testing.load_sample(app)
        slots = app.config.get("GRADING_SLOTS")
        with testing.serve_in_thread(app, threads=args.concurrency + 4) as base:
            list_url = f"{base}/api/v1/questions"
            post_check(base)                                 # warm: this process's template, torch, engine
            alone = [timed(lambda: post_check(base)) for _ in range(args.n)]
            get_page(list_url)
            idle = [timed(lambda: get_page(list_url)) for _ in range(args.gets)]

            stop = threading.Event()
            loaded_checks: list[float] = []
            lock = threading.Lock()

            def hammer() -> None:
                while not stop.is_set():
                    dt = timed(lambda: post_check(base))
                    with lock:
                        loaded_checks.append(dt)

            workers = [threading.Thread(target=hammer, daemon=True) for _ in range(args.concurrency)]
            for w in workers:
                w.start()
            time.sleep(1.0)                                  # every client has a check in flight
            loaded_pages = [timed(lambda: get_page(list_url)) for _ in range(args.gets)]
            stop.set()
            for w in workers:
                w.join(120)

    print()
    print(f"{'':38} {'p50':>10} {'p95':>10} {'max':>10}   target")
    print(f"{'bare sealed child, k3 cases':38} {ms(pct(with_cases, 50)):>10} {ms(pct(with_cases, 95)):>10} "
          f"{ms(max(with_cases)):>10}")
    print(f"{'bare sealed child, no cases':38} {ms(pct(empty, 50)):>10} {ms(pct(empty, 95)):>10} "
          f"{ms(max(empty)):>10}")
    print(f"{'end to end, correct k3, alone':38} {ms(pct(alone, 50)):>10} {ms(pct(alone, 95)):>10} "
          f"{ms(max(alone)):>10}   p50 <= 100 ms")
    print(f"{f'end to end, {args.concurrency} at once':38} {ms(pct(loaded_checks, 50)):>10} "
          f"{ms(pct(loaded_checks, 95)):>10} {ms(max(loaded_checks)):>10}   p50 <= 300 ms "
          f"({len(loaded_checks)} checks; GRADING_SLOTS={slots})")
    print(f"{'GET /api/v1/questions, idle':38} {ms(pct(idle, 50)):>10} {ms(pct(idle, 95)):>10} "
          f"{ms(max(idle)):>10}   p99 {ms(pct(idle, 99))}")
    print(f"{'GET /api/v1/questions, under checks':38} {ms(pct(loaded_pages, 50)):>10} "
          f"{ms(pct(loaded_pages, 95)):>10} {ms(max(loaded_pages)):>10}   p99 {ms(pct(loaded_pages, 99))} "
          f"(target <= 100 ms)")
    pid = coderun.runner._TEMPLATE.proc.pid
    rss = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
    print(f"template process {rss.split(':')[1].strip()} resident")
    coderun.shutdown()


if __name__ == "__main__":
    main()
