"""Start-up benchmark of ``quizapp serve`` (gunicorn, app preloaded in the master): how long until users get
answers, after a launch and after a worker dies (a script that prints figures, not a test).

* **Launch**: from starting ``quizapp serve`` (migrations, bank load, app built in the master) to its
  "serving on" line, and to the first 200 of ``GET /api/v1/questions/<id>`` (of ``GET /api/v1/questions`` with ``--bank``).
* **Worker restart**: one worker gets SIGKILL; the master forks a replacement from its preloaded app.
  Measured with ``--workers 1`` so that the next 200 can only come from the replacement, whose pid is
  read from gunicorn's log: kill -9 to the replacement's first 200 of a question page, and to its
  first graded numeric submit (201), which is where a lazily imported maths parser would cost a user.

Every figure is the median and the maximum over ``--rounds``; the 1-minute load average is printed, since
the machine may be shared.

    python benchmarks/bench_start.py --rounds 5
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


def one_round(tmp: Path, index: int, bank_path: str | None) -> dict[str, float]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bank = tmp / f"bank{index}"
    if bank_path:
        # A real bank (curated tags) would refuse the test sample: the first 200 is then its question list.
        shutil.copytree(bank_path, bank)
        page = f"{base}/api/v1/questions"
    else:
        testing.write_bank(bank, testing.sample_question())
        page = f"{base}/api/v1/questions/{QID}"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / f'start{index}.sqlite3'}", "SECRET_KEY": "start",
           "QUIZ_LOG_JSON": "0", "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false", "PYTHONPATH": str(ROOT)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
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
            assert call("POST", f"{base}/api/v1/questions/{QID}/attempts", ANSWER)[0] == 201

        (old,) = workers(log_path)
        t1 = time.perf_counter()
        os.kill(old, signal.SIGKILL)
        (new,) = until(lambda: workers(log_path)[1:] or None)
        figures["kill -9: replacement forked"] = time.perf_counter() - t1
        until(lambda: call("GET", page, timeout=5)[0] == 200)
        figures["kill -9: first 200 of replacement"] = time.perf_counter() - t1
        if not bank_path:
            status, _ = call("POST", f"{base}/api/v1/questions/{QID}/attempts", ANSWER)
            assert status == 201, status
            figures["kill -9: first graded submit (201)"] = time.perf_counter() - t1
        assert workers(log_path) == [old, new] and alive(new), "the answers must come from the replacement"
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
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    rounds = []
    with tempfile.TemporaryDirectory(prefix="bench-start-") as d:
        for i in range(args.rounds):
            rounds.append(one_round(Path(d), i, args.bank))
    print(f"cores: {os.cpu_count()}; load average (1 min) before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    print(f"{'figure':40s} {'median s':>9s} {'max s':>8s}  (over {args.rounds} rounds)")
    for name in rounds[0]:
        values = [r[name] for r in rounds]
        print(f"{name:40s} {statistics.median(values):9.3f} {max(values):8.3f}")


if __name__ == "__main__":
    main()
