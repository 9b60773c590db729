"""Start-up benchmark of ``quizapp serve`` (gunicorn, app preloaded in the master): how long until users get
answers, after a launch and after a worker dies (a script that prints figures, not a test).

Each round migrates a fresh SQLite file and loads its bank with ``quizapp load-bank`` first (off the clock:
validating a new question that draws its values from the reference engine imports torch), so that the
launch is the usual restart of a server whose bank has not changed. The bank holds the service tests'
sample question and a question whose expected value comes from the reference engine (``kl.k3``).

* **Launch**: from starting ``quizapp serve`` (migrations checked, bank checked, app built in the master) to
  its "serving on" line and to the first 200 of ``GET /api/v1/questions/<id>``; then the request's own
  time of the first graded submit (201) of the engine question in the first worker.
* **Worker restart**: one worker gets SIGKILL; the master forks a replacement from its preloaded app.
  Measured with ``--workers 1`` so that the next answer can only come from the replacement, whose pid is
  read from gunicorn's log (the first worker is itself replaced by a warm one once the master has imported
  the engine: "workers booted before the kill" is then 2). The kill comes ``--settle`` seconds after the
  first 200 (the master has had time to import the engine in the background; ``--settle 0`` kills at
  once, and the replacement then waits for that import). Timed from the kill: the replacement's first 200 of a question page; then
  the request's own time of its first graded submit of the engine question (an engine imported lazily in
  the worker cost a learner 1.3-1.8 s there) and of the sample question.

Every figure is the median and the maximum over ``--rounds``; the 1-minute load average is printed, since
the machine may be shared.

    python benchmarks/bench_start.py --rounds 3
    python benchmarks/bench_start.py --rounds 1 --bank questions
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _live import ROOT, call, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
import quiz_testing as testing

QID = testing.SAMPLE_QUESTION["id"]
ANSWER = {"variant": 0, "answers": {"a": "1.0", "b": "yes"}}
ENGINE_QID = "bench-start-engine-k3"
ENGINE_ANSWER = {"variant": 0, "answers": {"k": "0.1"}}  # graded against the engine's value; any number is a 201


def engine_question() -> dict:
    """A question whose expected value is the engine's ``kl.k3`` of one token, so grading it needs torch."""
    return testing.sample_question(
        id=ENGINE_QID,
        title={"en": "k3 of one token", "zh": "单个 token 的 k3"},
        prompt={"en": "One token: $\\log\\pi = {{lp}}$, $\\log\\pi_{ref} = -1.5$.",
                "zh": "一个 token:$\\log\\pi = {{lp}}$,$\\log\\pi_{ref} = -1.5$。"},
        params={"lp": {"uniform": [-1.2, -0.8], "round": 2},
                "k": {"call": "kl.k3", "args": {"log_prob": [["{{lp}}"]], "ref_log_prob": [[-1.5]]},
                      "output": "kl", "index": [0, 0]}},
        parts=[{"id": "k", "kind": "numeric", "prompt": {"en": "What is k3?", "zh": "k3 是多少?"},
                "expected": {"expr": "k"}, "tolerance": {"rtol": 0.001, "atol": 1e-06}}],
        solution={"key_points": {"en": ["k3 = exp(d) - d - 1."], "zh": ["k3 = exp(d) - d - 1。"]},
                  "pitfalls": {"en": ["The sign of d."], "zh": ["d 的符号。"]},
                  "worked": {"en": "$k_3 = {{k}}$", "zh": "$k_3 = {{k}}$"}},
    )


def workers(log: Path) -> list[int]:
    """gunicorn's workers in start order, from its "Booting worker with pid: N" lines (the master may have
    other children: the bank load's grader pool)."""
    return [int(m) for m in re.findall(r"Booting worker with pid: (\d+)", log.read_text())]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def until(predicate, limit: float = 60.0, step: float = 0.005):
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise SystemExit(f"timed out waiting for the server ({predicate})")


def submit(base: str, qid: str, answer: dict) -> float:
    """Seconds one graded submit takes (its own request, from sending to the 201)."""
    t0 = time.perf_counter()
    status, _ = call("POST", f"{base}/api/v1/questions/{qid}/attempts", answer)
    assert status == 201, status
    return time.perf_counter() - t0


def one_round(tmp: Path, index: int, bank_path: str | None, settle: float) -> dict[str, float]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bank = tmp / f"bank{index}"
    if bank_path:
        # A real bank (curated tags) would refuse the test sample: the first 200 is then its question list.
        shutil.copytree(bank_path, bank)
        page = f"{base}/api/v1/questions"
    else:
        testing.write_bank(bank, testing.sample_question(), engine_question())
        page = f"{base}/api/v1/questions/{QID}"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / f'start{index}.sqlite3'}", "SECRET_KEY": "start",
           "QUIZ_LOG_JSON": "0", "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false", "PYTHONPATH": str(ROOT)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    for command in (["db-upgrade"], ["load-bank", "--path", str(bank)]):  # off the clock (module docstring)
        subprocess.run([sys.executable, "-m", "quizapp.cli", *command], env=env, cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    log_path = tmp / f"serve{index}.log"
    log = open(log_path, "w")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "quizapp.cli", "serve", "--port", str(port), "--workers", "1",
                             "--bank", str(bank)], env=env, stdout=subprocess.PIPE, stderr=log, text=True, cwd=ROOT)
    figures: dict[str, float] = {}
    try:
        for line in proc.stdout:
            if line.startswith("serving on http://"):
                figures["launch: serving on line"] = time.perf_counter() - t0
                break
        else:
            raise SystemExit(f"server exited; see {log.name}")
        until(lambda: call("GET", page, timeout=5)[0] == 200)
        figures["launch: first 200"] = time.perf_counter() - t0
        if not bank_path:
            figures["launch: then first engine submit (201)"] = submit(base, ENGINE_QID, ENGINE_ANSWER)
            submit(base, QID, ANSWER)

        time.sleep(settle)
        booted = workers(log_path)  # the first worker, and the warm one that replaced it once the master was warm
        old = booted[-1]
        figures["workers booted before the kill"] = len(booted)
        t1 = time.perf_counter()
        os.kill(old, signal.SIGKILL)
        (new,) = until(lambda: workers(log_path)[len(booted):] or None)
        figures["kill -9: replacement forked"] = time.perf_counter() - t1
        until(lambda: call("GET", page, timeout=5)[0] == 200)
        figures["kill -9: first 200 of replacement"] = time.perf_counter() - t1
        if not bank_path:
            figures["kill -9: then first engine submit (201)"] = submit(base, ENGINE_QID, ENGINE_ANSWER)
            figures["kill -9: then first sample submit (201)"] = submit(base, QID, ANSWER)
        assert workers(log_path) == [*booted, new] and alive(new) and not any(map(alive, booted)), \
            "the answers must come from the replacement"
    except BaseException:
        print(log_path.read_text()[-3000:], file=sys.stderr)  # the server's side of the failure
        raise
    finally:
        testing.stop_process(proc, timeout=60)
        log.close()
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bank", default=None,
                    help="also load this question folder (e.g. questions/: the launch then includes its load)")
    ap.add_argument("--settle", type=float, default=3.0,
                    help="seconds between the first 200 and the kill (the module docstring)")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    rounds = []
    with tempfile.TemporaryDirectory(prefix="bench-start-") as d:
        for i in range(args.rounds):
            rounds.append(one_round(Path(d), i, args.bank, args.settle))
    print(f"cores: {os.cpu_count()}; load average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    print(f"settle before the kill: {args.settle:g} s")
    print(f"{'figure':40s} {'median s':>9s} {'max s':>8s}  (over {args.rounds} rounds)")
    for name in rounds[0]:
        values = [r[name] for r in rounds]
        print(f"{name:40s} {statistics.median(values):9.3f} {max(values):8.3f}")


if __name__ == "__main__":
    main()
