"""Shared by bench_load.py and bench_kill.py: start ``quizapp serve`` or the bare Flask app under gunicorn
on a free loopback port, wait for its "serving on" line, and drive it with bounded client threads."""

from __future__ import annotations

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


def _tree_cpu(pid: int) -> float | None:
    """CPU seconds used so far by ``pid`` and every process below it (Linux /proc), or None elsewhere."""
    if not Path(f"/proc/{pid}").exists():
        return None
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue  # a thread or process ended meanwhile
    return total


def settle(proc: subprocess.Popen, *, idle_share: float = 0.03, quiet: float = 3.0, limit: float = 90.0) -> float:
    """Wait until the server ``proc`` (with its workers and their children) has used under ``idle_share`` of
    a core for ``quiet`` seconds in a row, at most ``limit`` seconds; return the seconds waited.

    ``quizapp serve`` answers within about a second of its launch but goes on working for several more: its
    master imports the engine and swaps its first workers for warm ones, and each warm worker starts its
    grader pool a second after it boots (``quizapp.serving.warm``); between those steps it may rest for up to
    a second (its loop's tick), hence several quiet seconds in a row. Measured during that, the service's rates
    include its own start-up on the same cores; steady state is what the throughput figures compare."""
    t0, step = time.monotonic(), 0.5
    before, still = _tree_cpu(proc.pid), 0.0
    while before is not None and still < quiet and time.monotonic() - t0 < limit:
        time.sleep(step)
        now = _tree_cpu(proc.pid)
        if now is None:
            break
        still = still + step if now - before < idle_share * step else 0.0
        before = now
    return time.monotonic() - t0


def call(method: str, url: str, body: dict | None = None, timeout: float = 30) -> tuple[int | None, dict | None]:
    """One request on a fresh connection (``Connection: close``, as a script without keep-alive makes it);
    returns (status, the JSON body or None), or (None, None) when the server cut the answer short.

    Written on a bare socket: the load generator runs on the same two cores as the server it measures, and
    whatever CPU it spends per request is taken from the server under test. ``http.client`` costs it
    0.47 ms per request, this 0.24 ms (measured on this machine, 32 threads against the bare JSON endpoint);
    ``urllib`` more again."""
    parts = urlsplit(url)
    data = json.dumps(body).encode() if body is not None else b""
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    head = (f"{method} {target} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n"
            f"Content-Length: {len(data)}\r\n" + ("Content-Type: application/json\r\n" if body is not None else "")
            + "\r\n")
    chunks: list[bytes] = []
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
            sock.sendall(head.encode() + data)
            while True:  # the server closes the connection after the answer
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
    except OSError:  # a killed server cut the answer short
        return None, None
    return _parse(b"".join(chunks))


def _parse(raw: bytes) -> tuple[int | None, dict | None]:
    """(status, JSON body or None) of a whole HTTP/1.1 answer (the service and the bare app always send a
    ``Content-Length``); (None, None) when it is cut short."""
    head, sep, payload = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None, None
    length = next((v for k, _, v in (x.partition(b":") for x in lines[1:]) if k.strip().lower() == b"content-length"),
                  None)
    if not sep or length is None or len(payload) < int(length):
        return None, None
    try:
        return status, json.loads(payload) if payload[:1] in (b"{", b"[") else None
    except ValueError:
        return status, None


def read_pages(url: str, ready, stop, out) -> None:
    """GET ``url`` one request after another until ``stop`` is set, then send the latencies (seconds) down
    the pipe ``out``. Run in a process of its own (``multiprocessing`` spawn): in the threads of the process
    that drives the load, each answer would also wait for that process's interpreter lock, and the latency
    measured would be partly the load generator's."""
    latencies: list[float] = []
    ready.set()
    while not stop.is_set():
        t0 = time.perf_counter()
        call("GET", url)
        latencies.append(time.perf_counter() - t0)
    out.send(latencies)
    out.close()


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
