"""Shared by bench_load.py and bench_kill.py: start ``quizapp serve`` or the bare Flask app under gunicorn
on a free loopback port, wait for its "serving on" line, and drive it with bounded client threads."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """Run ``python args...`` and return once it printed its "serving on" line."""
    full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false",
                "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, *args], env=full_env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    out = open(log, "a")
    for line in proc.stdout:  # bounded by the process: it ends if the server exits
        out.write(line)
        if line.startswith("serving on http://"):
            break
    else:
        raise SystemExit(f"server exited before listening; see {log}")
    threading.Thread(target=lambda: [out.write(x) for x in proc.stdout], daemon=True).start()
    return proc


def call(method: str, url: str, body: dict | None = None, timeout: float = 30) -> tuple[int | None, dict | None]:
    """One request on a fresh connection, as a browser or a script without keep-alive makes it; returns
    (status, the JSON body or None), or (None, None) when the server cut the answer short.

    Plain ``http.client``: the load generator runs on the same cores as the server it measures, and
    ``urllib``'s handler chain costs it about half as much CPU again per request, taken from the server."""
    parts = urlsplit(url)
    data = json.dumps(body).encode() if body is not None else None
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=data,
                     headers={"Content-Type": "application/json"} if data else {})
        resp = conn.getresponse()
        raw = resp.read()
    except (OSError, http.client.HTTPException):  # a killed server cut the answer short
        return None, None
    finally:
        conn.close()
    try:
        return resp.status, json.loads(raw) if raw[:1] in (b"{", b"[") else None
    except ValueError:
        return resp.status, None


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def hammer(clients: int, requests_each: int, fn) -> tuple[float, list[float], int]:
    """``clients`` threads call ``fn(i, k)`` ``requests_each`` times; returns (req/s, latencies, errors)."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def run(i: int) -> None:
        barrier.wait()
        mine, bad = [], 0
        for k in range(requests_each):
            t0 = time.perf_counter()
            status = fn(i, k)
            mine.append(time.perf_counter() - t0)
            bad += 0 if status is not None and 200 <= status < 300 else 1
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return len(latencies) / elapsed, latencies, errors[0]
