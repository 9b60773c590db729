"""Fault benchmark: kill -9 of a worker and of the master of ``quizapp serve`` while C clients submit
attempts, then restart; every attempt answered 201 must be in the database, which must pass
``PRAGMA integrity_check`` (a script that prints figures, not a test).

Each round: C client threads submit continuously (each keeps the ids it got with 201); after a short
while one worker gets SIGKILL (gunicorn starts another), a little later the master and its workers get
SIGKILL, the server is started again on the same SQLite file and the clients go on until the round's
requests are spent. Requests in flight during a kill fail without an answer (counted, not acknowledged).
At the end: acknowledged attempts, how many of them the database holds (must be all), integrity check.

``--keepalive`` measures something else: C clients each keep one HTTP/1.1 connection open and read a
question again and again (reconnecting when the server closes it); one worker gets SIGKILL, and every
half second after it the script counts the established connections each worker holds (``/proc/net/tcp``
against each worker's sockets). Where a connection served any number of requests, the clients of the
killed worker reconnected before its replacement existed and stayed on the survivor, and the replacement
held none; with connections bounded to ``quizapp.serving.MAX_REQUESTS_PER_CONNECTION`` requests they spread.

    python benchmarks/bench_kill.py --clients 64 --rounds 5 --requests 30
    python benchmarks/bench_kill.py --keepalive --clients 16
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


def socket_inodes(pid: int) -> set[str]:
    """The inodes of the sockets ``pid`` holds open."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def established(port: int) -> set[str]:
    """Inodes of the established TCP connections whose local port is ``port`` (the server's side)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                found.add(fields[9])
    return found


def keepalive_spread(clients: int, workers: int) -> None:
    """The ``--keepalive`` measurement (module docstring)."""
    import http.client  # local: only this measurement keeps connections open

    with tempfile.TemporaryDirectory(prefix="bench-keepalive-") as d:
        tmp = Path(d)
        port = free_port()
        proc = serve(tmp, tmp / "keepalive.sqlite3", port, workers)
        stop = threading.Event()
        served = [0]
        lock = threading.Lock()

        def client() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            while not stop.is_set():
                try:
                    conn.request("GET", f"/api/v1/questions/{QID}")
                    conn.getresponse().read()
                    with lock:
                        served[0] += 1
                except (OSError, http.client.HTTPException):
                    conn.close()  # the next request opens a new connection
                    time.sleep(0.01)

        threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
        for t in threads:
            t.start()
        # Past the start: the first workers were replaced by ones forked from the warm master
        # (quizapp.serving.warm), which hold torch's library from the start.
        for _ in range(600):
            time.sleep(0.1)
            before = children(proc.pid)
            if len(before) == workers and all("libtorch" in open(f"/proc/{pid}/maps").read() for pid in before):
                break
        time.sleep(1.0)
        victim = before[0]
        os.kill(victim, signal.SIGKILL)
        print(f"{clients} keep-alive clients, {workers} workers; killed worker {victim}")
        for step in range(1, 9):
            time.sleep(0.5)
            conns = established(port)
            held = {pid: len(socket_inodes(pid) & conns) for pid in children(proc.pid)}
            new = [pid for pid in held if pid not in before]
            print(f"  t+{step * 0.5:.1f} s: connections per worker "
                  + ", ".join(f"{pid}{' (replacement)' if pid in new else ''}: {n}" for pid, n in held.items()))
        stop.set()
        for t in threads:
            t.join(timeout=30)
        print(f"  {served[0]} requests answered in all")
        proc.terminate()
        proc.wait(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keepalive", action="store_true", help="the keep-alive spread after a kill instead")
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--requests", type=int, default=30, help="requests per client per round")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if args.keepalive:
        keepalive_spread(args.clients, args.workers)
        return
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
