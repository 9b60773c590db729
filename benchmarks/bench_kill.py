"""Fault benchmark: kill -9 of a worker and of the master of ``quizapp serve`` while C clients submit
attempts, then restart; every attempt answered 201 must be in the database, which must pass
``PRAGMA integrity_check`` (a script that prints figures, not a test).

Each round: C client threads submit continuously (each keeps the ids it got with 201); after a short
while one worker gets SIGKILL (gunicorn starts another), a little later the master and its workers get
SIGKILL, the server is started again on the same SQLite file and the clients go on until the round's
requests are spent. Requests in flight during a kill fail without an answer (counted, not acknowledged).
At the end: acknowledged attempts, how many of them the database holds (must be all), integrity check.

    python benchmarks/bench_kill.py --clients 64 --rounds 5 --requests 30
"""

from __future__ import annotations

import sys

import argparse
import os
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from _live import call, free_port, start

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
import quiz_testing as testing

QID = testing.SAMPLE_QUESTION["id"]


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def serve(tmp: Path, db: Path, port: int, workers: int) -> subprocess.Popen:
    bank = testing.write_bank(tmp / "bank", testing.sample_question())
    return start(["-m", "quizapp.cli", "serve", "--port", str(port), "--workers", str(workers), "--bank", str(bank)],
                 {"DATABASE_URL": f"sqlite:///{db}", "SECRET_KEY": "kill", "QUIZ_LOG_JSON": "0"}, tmp / "serve.log")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--requests", type=int, default=30, help="requests per client per round")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-kill-") as d:
        tmp = Path(d)
        db, port = tmp / "kill.sqlite3", free_port()
        base = f"http://127.0.0.1:{port}"
        acknowledged: set[str] = set()
        failed = [0]
        lock = threading.Lock()
        proc = serve(tmp, db, port, args.workers)
        for rnd in range(args.rounds):
            def client(i: int) -> None:
                for k in range(args.requests):
                    status, body = call("POST", f"{base}/api/v1/questions/{QID}/attempts",
                                        {"variant": rnd * 100000 + i * 1000 + k, "answers": {"a": "1.0", "b": "yes"}},
                                        timeout=30)
                    with lock:
                        if status == 201 and body:
                            acknowledged.add(body["attempt_id"])
                        else:
                            failed[0] += 1
                    if status is None:
                        time.sleep(0.2)  # the server is restarting: try the next one a little later

            threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
            for t in threads:
                t.start()
            time.sleep(1.0)
            workers = children(proc.pid)
            if workers:
                os.kill(workers[0], signal.SIGKILL)
            time.sleep(1.0)
            for pid in children(proc.pid) + [proc.pid]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            proc.wait()
            proc = serve(tmp, db, port, args.workers)
            for t in threads:
                t.join()
            print(f"round {rnd + 1}: {len(acknowledged)} acknowledged so far, {failed[0]} requests without 201")
        proc.terminate()
        proc.wait(timeout=60)
        conn = sqlite3.connect(db)
        stored = {row[0] for row in conn.execute("SELECT id FROM attempts")}
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        conn.close()
        lost = acknowledged - stored
        print(f"acknowledged {len(acknowledged)}, stored {len(stored)}, lost {len(lost)}, integrity {integrity}")


if __name__ == "__main__":
    main()
