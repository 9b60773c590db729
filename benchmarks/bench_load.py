"""Benchmark: each endpoint of ``quizapp serve`` against bare Flask endpoints on the same server stack
(gunicorn gthread, same workers and threads) in the same run, at 32 and 64 clients; printed as ratios.

In each round, for each worker count (1, then ``--workers``): the bare app (``bare_app.py``: a constant JSON body, and the
body inserted into SQLite with ``synchronous=FULL`` and ``NORMAL``) and the service (a temporary SQLite
database, the sample question loaded, ``RATELIMIT_ENABLED=false``; measured once it has settled, its
master's warm-up and swap to warm workers done: ``_live.settle``) are served in turn, and C client threads
send R requests each to: the question list, one question, a numeric submit, a mix in which one client in
four reads question pages while the others submit, and submits from all C while one more client reads pages
one after another (the page target's case; that reader is a process of its own, so its latencies do not
include waiting for the interpreter of the process whose C threads drive the submits). Bare and service,
one worker and N, take turns for ``--rounds`` rounds (the machine's speed drifts over minutes: each ratio
compares runs made within a minute or two of each other). Prints req/s, p50/p99 and errors per endpoint and
round, then the median over the rounds of

* submit / bare insert (targets: >= 0.5 with one worker, >= 0.7 with ``--workers``), list / bare JSON,
* N workers / 1 worker for the submit, each round's N-worker rate over the same round's one-worker rate
  (target >= 1.6 on two cores),
* bare insert FULL / NORMAL (the cost of acknowledging only what is on disk),
* p99 of the question page while C clients submit, over the pages of every round (target <= 100 ms), and
  in the mix.

The machine (CPUs, model) and its load average before and after are printed with the figures: other
processes on the same cores move every rate, the bare app's too. Traffic only goes to 127.0.0.1; every loop
is bounded. Run by hand, e.g.
    python benchmarks/bench_load.py --clients 32 64 --requests 20 --workers 2 --rounds 3
"""

from __future__ import annotations

import sys

import argparse
import itertools
import multiprocessing
import os
import statistics
import time
import tempfile
from pathlib import Path

from _live import call, free_port, hammer, pct, read_pages, settle, start

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
import quiz_testing as testing
from quizapp.config import DEFAULT_THREADS

QID = testing.SAMPLE_QUESTION["id"]
#: The targets of submit / bare insert (FULL): with one worker, and with several (issue 33).
ONE_WORKER_TARGET, MORE_WORKERS_TARGET = 0.5, 0.7


def _target(workers: int) -> float:
    return ONE_WORKER_TARGET if workers == 1 else MORE_WORKERS_TARGET


def machine() -> str:
    """The CPUs, their model and the load average now: what the figures of one run depend on."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "?") if Path("/proc/cpuinfo").exists() else "?"
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
    return f"{os.cpu_count()} CPUs ({model}), load average {load}"


def line(name: str, rps: float, lat: list[float], errors: int) -> dict:
    print(f"  {name:<34} {rps:8.1f} req/s  p50 {pct(lat, .5) * 1000:7.1f} ms  p99 {pct(lat, .99) * 1000:7.1f} ms"
          f"  errors {errors}")
    return {"rps": rps, "p50": pct(lat, .5), "p99": pct(lat, .99), "errors": errors}


def stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except Exception:  # noqa: BLE001
        proc.kill()
        proc.wait()


_runs = itertools.count()


def _fresh(tmp: Path, name: str) -> Path:
    """A database file of its own for each run: every round starts from the same empty tables (a file kept
    across rounds grew by every round's rows, and the rounds measured different databases)."""
    return tmp / f"{name}-{next(_runs)}.sqlite3"


def bench_bare(tmp: Path, workers: int, threads: int, clients: int, n: int, sync: str) -> dict:
    port = free_port()
    proc = start(["benchmarks/bare_app.py", str(port), str(workers), str(threads)],
                 {"BARE_DB": str(_fresh(tmp, f"bare-{sync}")), "BARE_SYNC": sync}, tmp / "bare.log")
    base = f"http://127.0.0.1:{port}"
    try:
        out = {"json": line(f"bare GET json ({sync})", *hammer(clients, n, lambda i, k: call("GET", base + "/bare/json")[0])),
               "insert": line(f"bare POST insert ({sync})", *hammer(
                   clients, n, lambda i, k: call("POST", base + "/bare/insert", {"i": i, "k": k})[0]))}
    finally:
        stop(proc)
    return out


def bench_service(tmp: Path, workers: int, threads: int, clients: int, n: int) -> dict:
    port = free_port()
    bank = testing.write_bank(tmp / "bank", testing.sample_question())
    db = _fresh(tmp, f"service-{workers}-{clients}")
    proc = start(["-m", "quizapp.cli", "serve", "--port", str(port), "--workers", str(workers), "--threads",
                  str(threads), "--bank", str(bank)],
                 {"DATABASE_URL": f"sqlite:///{db}", "SECRET_KEY": "bench", "QUIZ_LOG_JSON": "0"},
                 tmp / "service.log")
    base = f"http://127.0.0.1:{port}"
    body = {"answers": {"a": "1.0", "b": "yes"}}
    try:
        # Steady state is measured: the master's warm-up and its swap to warm workers are over (settle),
        # and every worker has compiled its templates and filled its caches on its first requests of each
        # kind (a few of each, so that each worker gets some); cold start is bench_start.py.
        print(f"  (service settled {settle(proc):.1f} s after it answered)")
        for _ in range(4 * workers):
            call("GET", base + "/api/v1/questions")
            call("GET", f"{base}/questions/{QID}")
            call("POST", f"{base}/api/v1/questions/{QID}/attempts", {**body, "variant": 0})
        out = {
            "list": line("GET /api/v1/questions", *hammer(clients, n, lambda i, k: call("GET", base + "/api/v1/questions")[0])),
            "one": line(f"GET /api/v1/questions/{QID}", *hammer(
                clients, n, lambda i, k: call("GET", f"{base}/api/v1/questions/{QID}")[0])),
            "submit": line("POST attempts (numeric + choice)", *hammer(clients, n, lambda i, k: call(
                "POST", f"{base}/api/v1/questions/{QID}/attempts", {**body, "variant": i * 1000 + k})[0])),
        }
        # Page GETs by one client in four while the others submit.
        page_lat: list[float] = []

        def mixed(i: int, k: int):
            if i % 4 == 0:
                t0 = time.perf_counter()
                status = call("GET", f"{base}/questions/{QID}")[0]
                page_lat.append(time.perf_counter() - t0)
                return status
            return call("POST", f"{base}/api/v1/questions/{QID}/attempts", {**body, "variant": k})[0]

        rps, lat, errors = hammer(clients, n, mixed)
        line("mixed: submits + page GETs", rps, lat, errors)
        out["mixed_lat"] = page_lat
        print(f"  page GET p99, one client in four reading pages: {pct(page_lat, .99) * 1000:.1f} ms")
        # The target's case: every client submits, and a learner opens pages one after another meanwhile.
        ctx = multiprocessing.get_context("spawn")
        ready, submitting_done = ctx.Event(), ctx.Event()
        pipe_in, pipe_out = ctx.Pipe(duplex=False)
        probe = ctx.Process(target=read_pages, args=(f"{base}/questions/{QID}", ready, submitting_done, pipe_out),
                            daemon=True)
        probe.start()
        ready.wait(60)
        try:
            rps, lat, errors = hammer(clients, n, lambda i, k: call(
                "POST", f"{base}/api/v1/questions/{QID}/attempts", {**body, "variant": i * 1000 + k})[0])
        finally:
            submitting_done.set()
            probe_lat = pipe_in.recv() if pipe_in.poll(60) else []
            probe.join(60)
        line(f"submits, {clients} clients, + 1 reading", rps, lat, errors)
        out["page_lat"] = probe_lat
        print(f"  page GET p99 while {clients} clients submit: {pct(probe_lat, .99) * 1000:.1f} ms of "
              f"{len(probe_lat)} (target <= 100 ms)")
    finally:
        stop(proc)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--requests", type=int, default=20, help="requests per client per endpoint")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="per worker (default: quizapp serve's)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="bare and service, one worker and N, measured in turn this many times; the summary takes the median ratio")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="bench-load-") as d:
        tmp = Path(d)
        for clients in args.clients:
            counts = sorted({1, args.workers})
            ratios = {w: {"submit": [], "list": [], "full": []} for w in counts}
            page_lat: dict[int, list[float]] = {w: [] for w in counts}
            mixed_lat: dict[int, list[float]] = {w: [] for w in counts}
            submit: dict[int, list[float]] = {w: [] for w in counts}
            for rnd in range(1, args.rounds + 1):
                for workers in counts:
                    # Bare and service, one worker and N, in turn, round after round: the speed of a shared
                    # machine drifts over minutes, and each ratio compares runs made close to each other.
                    print(f"\n== {clients} clients, {workers} worker(s) x {args.threads} threads, round {rnd} ==")
                    bare = bench_bare(tmp, workers, args.threads, clients, args.requests, "FULL")
                    normal = bench_bare(tmp, workers, args.threads, clients, args.requests, "NORMAL")
                    svc = bench_service(tmp, workers, args.threads, clients, args.requests)
                    ratios[workers]["submit"].append(svc["submit"]["rps"] / bare["insert"]["rps"])
                    ratios[workers]["list"].append(svc["list"]["rps"] / bare["json"]["rps"])
                    ratios[workers]["full"].append(bare["insert"]["rps"] / normal["insert"]["rps"])
                    submit[workers].append(svc["submit"]["rps"])
                    page_lat[workers] += svc["page_lat"]
                    mixed_lat[workers] += svc["mixed_lat"]
            for workers in counts:
                r = ratios[workers]
                print(f"\n-- {clients} clients, {workers} worker(s), {args.rounds} round(s): median (each round) --")
                print(f"  submit / bare insert        {_median(r['submit']):.2f}x  ({_each(r['submit'])}) "
                      f"(target >= {_target(workers)})")
                print(f"  list / bare json            {_median(r['list']):.2f}x  ({_each(r['list'])})")
                print(f"  bare insert FULL / NORMAL   {_median(r['full']):.2f}x  ({_each(r['full'])})")
                print(f"  page GET p99 while {clients} clients submit, all rounds: "
                      f"{pct(page_lat[workers], .99) * 1000:.1f} ms of {len(page_lat[workers])} (target <= 100 ms)")
                print(f"  page GET p99 with one client in four reading pages, all rounds: "
                      f"{pct(mixed_lat[workers], .99) * 1000:.1f} ms of {len(mixed_lat[workers])}")
            if args.workers > 1:
                scaling = [n / one for n, one in zip(submit[args.workers], submit[1])]
                print(f"  submit {args.workers} workers / 1 worker, round by round: {_median(scaling):.2f}x "
                      f"({_each(scaling)}; medians of the rounds: "
                      f"{_median(submit[args.workers]) / _median(submit[1]):.2f}x) (target >= 1.6 on two cores)")
            print(f"\n== submit / bare insert at {clients} clients, median of {args.rounds} round(s) ==")
            for workers in counts:
                ratio = _median(ratios[workers]["submit"])
                verdict = "met" if ratio >= _target(workers) else "NOT met"
                print(f"  {workers} worker(s): {ratio:.2f}x  (target >= {_target(workers)}: {verdict})")
    print(f"\nmachine after the run: {machine()}")


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _each(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    main()
