"""Start-up benchmark of ``quizapp serve`` (gunicorn, app preloaded in the master): how long until users get
answers, after a launch and after a worker dies (a script that prints figures, not a test).

* **Launch**: from starting ``quizapp serve`` (migrations, bank load, app built in the master) to its
  "serving on" line, and to the first 200 of ``GET /api/v1/questions/<id>``.
* **Worker restart**: one worker gets SIGKILL; the master forks a replacement from its preloaded app.
  Measured with ``--workers 1`` so that the next 200 can only come from the replacement, whose pid is
  read from the master's children: kill -9 to the replacement's first 200 of a question page, and to its
  first graded numeric submit (201), which is where a lazily imported maths parser would cost a user.

Every figure is the median and the maximum over ``--rounds``; the 1-minute load average is printed, since
the machine may be shared.

    python benchmarks/bench_start.py --rounds 5
"""

from __future__ import annotations

import argparse
import os
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


def children(pid: int) -> set[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return {int(x) for x in out.split()}


def until(predicate, limit: float = 60.0, step: float = 0.005):
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise SystemExit("timed out waiting for the server")


def one_round(tmp: Path, index: int) -> dict[str, float]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bank = testing.write_bank(tmp / f"bank{index}", testing.sample_question())
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / f'start{index}.sqlite3'}", "SECRET_KEY": "start",
           "QUIZ_LOG_JSON": "0", "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false", "PYTHONPATH": str(ROOT)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    log = open(tmp / f"serve{index}.log", "w")
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
        until(lambda: call("GET", f"{base}/api/v1/questions/{QID}", timeout=5)[0] == 200)
        figures["launch: first 200"] = time.perf_counter() - t0
        assert call("POST", f"{base}/api/v1/questions/{QID}/attempts", ANSWER)[0] == 201

        (old,) = until(lambda: children(proc.pid) if len(children(proc.pid)) == 1 else None)
        t1 = time.perf_counter()
        os.kill(old, signal.SIGKILL)
        new = until(lambda: (children(proc.pid) - {old}) or None)
        figures["kill -9: replacement forked"] = time.perf_counter() - t1
        until(lambda: call("GET", f"{base}/api/v1/questions/{QID}", timeout=5)[0] == 200)
        figures["kill -9: first 200 of replacement"] = time.perf_counter() - t1
        status, _ = call("POST", f"{base}/api/v1/questions/{QID}/attempts", ANSWER)
        assert status == 201, status
        figures["kill -9: first graded submit (201)"] = time.perf_counter() - t1
        assert children(proc.pid) == new, "the answer must come from the replacement"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    rounds = []
    with tempfile.TemporaryDirectory(prefix="bench-start-") as d:
        for i in range(args.rounds):
            rounds.append(one_round(Path(d), i))
    print(f"cores: {os.cpu_count()}; load average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    print(f"{'figure':40s} {'median s':>9s} {'max s':>8s}  (over {args.rounds} rounds)")
    for name in rounds[0]:
        values = [r[name] for r in rounds]
        print(f"{name:40s} {statistics.median(values):9.3f} {max(values):8.3f}")


if __name__ == "__main__":
    main()
