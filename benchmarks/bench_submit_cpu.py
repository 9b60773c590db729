"""Benchmark: where a submit's CPU goes in a live ``quizapp serve`` worker under C clients (a script, not a
test; the figures in ``docs/deploy.md``'s throughput section).

Starts ``quizapp serve`` (one worker by default, a temporary SQLite database, the sample question) in a
process that first wraps the functions of each phase of a submit -- gunicorn's handling of the connection,
Flask's request around the view, the view, grading, storing, the group commit's steps, the response -- so
that each adds the CPU its thread spends inside it (``time.thread_time``: work on a core, not waiting for the
interpreter, a lock or the disk) to a per-process account. Once the server has settled (``_live.settle``), C
client threads send R numeric + choice submits each on fresh connections; then the server is stopped and each
worker's account is printed per request, with the CPU of the whole worker (all its threads, from /proc) and
its context switches per request. Nested phases are included in their parents' figures. Run by hand, e.g.
    python benchmarks/bench_submit_cpu.py --clients 64 --requests 60
"""

from __future__ import annotations

import sys

import argparse
import atexit
import collections
import functools
import json
import os
import runpy
import tempfile
import time
from pathlib import Path

#: (module, attribute path, label) of each phase: a function looked up on the module (or a class on it).
PHASES = [
    ("quizapp.serving.worker", "DrainingThreadWorker.handle", "connection (parse, app, answer)"),
    ("quizapp.serving.worker", "DrainingThreadWorker.accept", "accept (event loop)"),
    ("gunicorn.workers.gthread", "ThreadWorker.finish_request", "finish (event loop)"),
    ("flask", "Flask.wsgi_app", "Flask request"),
    ("flask", "Flask.preprocess_request", "before-request hooks"),
    ("flask", "Flask.dispatch_request", "view"),
    ("flask", "Flask.process_response", "after-request hooks"),
    ("flask", "Flask.do_teardown_appcontext", "teardown"),
    ("quizapp.learners", "_set_cookie", "learner cookie"),
    ("quizapp.api.questions", "json_body", "request body"),
    ("quizapp.api.questions", "ok", "response body"),
    ("quizapp.services.attempts", "prepare_attempt", "prepare (grade, read, build)"),
    ("quizapp.services.attempts", "grade_answers", "grading"),
    ("quizapp.services.attempts", "_plan_review", "review card"),
    ("quizapp.services.attempts", "store_attempt", "store (wait excluded)"),
    ("quizapp.storage.group_commit", "_bind_rows", "rows bound"),
    ("quizapp.storage.group_commit", "_write_queue", "group commit (its writer)"),
    ("quizapp.storage.group_commit", "_commit_together", "statements + commit"),
    ("quizapp.storage.group_commit", "_sync_to_disk", "fsync"),
]


def _wrap(owner, name: str, label: str, acc: dict, calls: collections.Counter) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def timed(*args, **kwargs):
        start = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            acc[label] += time.thread_time() - start
            calls[label] += 1

    setattr(owner, name, timed)


def serve_with_accounting(argv: list[str]) -> None:
    """The server process: wrap :data:`PHASES`, then run ``quizapp`` with ``argv``; each process that served
    requests writes its account to ``$QUIZ_BENCH_ACCOUNTS/<pid>.json`` when it exits."""
    import importlib

    acc: dict[str, float] = collections.defaultdict(float)
    calls: collections.Counter = collections.Counter()
    for module, path, label in PHASES:
        owner = importlib.import_module(module)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        _wrap(owner, name, label, acc, calls)

    def write() -> None:
        if calls[PHASES[0][2]]:
            out = Path(os.environ["QUIZ_BENCH_ACCOUNTS"]) / f"{os.getpid()}.json"
            out.write_text(json.dumps({"cpu": acc, "calls": calls}))

    atexit.register(write)  # a worker runs its exit handlers as it leaves (quizapp.serving.worker)
    sys.argv = ["quizapp", *argv]
    runpy.run_module("quizapp.cli", run_name="__main__")


def _worker_stats(pid: int) -> tuple[float, int]:
    """CPU seconds and context switches of every thread of ``pid`` so far."""
    cpu, switches = 0.0, 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for line in (task / "status").read_text().splitlines():
                if "ctxt_switches:" in line:  # voluntary and involuntary
                    switches += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            continue
    return cpu, switches


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--requests", type=int, default=60, help="submits per client")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
    import quiz_testing as testing
    from _live import call, free_port, hammer, settle, start
    from bench_load import machine, stop

    qid = testing.SAMPLE_QUESTION["id"]
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="bench-submit-cpu-") as d:
        tmp = Path(d)
        accounts = tmp / "accounts"
        accounts.mkdir()
        bank = testing.write_bank(tmp / "bank", testing.sample_question())
        port = free_port()
        proc = start([__file__, "--serve-with-accounting", "serve", "--port", str(port), "--workers",
                      str(args.workers), "--bank", str(bank)],
                     {"DATABASE_URL": f"sqlite:///{tmp / 'quiz.sqlite3'}", "SECRET_KEY": "bench",
                      "QUIZ_LOG_JSON": "0", "QUIZ_BENCH_ACCOUNTS": str(accounts)}, tmp / "service.log")
        url = f"http://127.0.0.1:{port}/api/v1/questions/{qid}/attempts"
        try:
            print(f"(settled {settle(proc):.1f} s after it answered)")
            for j in range(10 * args.workers):
                call("POST", url, {"answers": {"a": "1.0", "b": "yes"}, "variant": j})
            workers = sorted(testing.child_pids(proc.pid))
            before = {w: _worker_stats(w) for w in workers}
            rps, _lat, errors = hammer(args.clients, args.requests, lambda i, k: call(
                "POST", url, {"answers": {"a": "1.0", "b": "yes"}, "variant": i * 1000 + k})[0])
            after = {w: _worker_stats(w) for w in workers}
        finally:
            stop(proc)
        n = args.clients * args.requests
        cpu = sum(after[w][0] - before[w][0] for w in workers)
        switches = sum(after[w][1] - before[w][1] for w in workers)
        print(f"{args.clients} clients x {args.requests} submits, {args.workers} worker(s): {rps:.1f} submits/s, "
              f"errors {errors}; workers' CPU {1000 * cpu / n:.2f} ms and {switches / n:.1f} context switches "
              f"per submit ({cpu * rps / n:.2f} cores)")
        for path in sorted(accounts.glob("*.json")):
            data = json.loads(path.read_text())
            served = data["calls"].get(PHASES[0][2], 0)
            if served < n / (2 * args.workers):
                continue  # a cold worker of the start, retired before the run (quizapp.serving.warm)
            print(f"\nworker {path.stem}: {served} requests; thread CPU per request (calls per request)")
            for _module, _path, label in PHASES:
                if label in data["cpu"]:
                    print(f"  {label:<34} {1000 * data['cpu'][label] / served:7.3f} ms  "
                          f"({data['calls'][label] / served:.2f})")
    print(f"\nmachine after the run: {machine()}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve-with-accounting":
        serve_with_accounting(sys.argv[2:])
    else:
        main()
