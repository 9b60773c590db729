"""``quizapp serve`` forks its first workers before importing the reference engine, imports it in the master
meanwhile, then forks only from the warm master (quizapp.serving.warm); keep-alive connections are bounded.

Whether a worker holds torch is read from the libraries mapped into it (``/proc/<pid>/maps``) right after it
boots and before it has served anything: libtorch there means the master had imported torch before the
fork, since the worker itself imports nothing until a request needs it."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import quiz_testing as testing
from quizapp import serving
from quizapp.serving.warm import WARM_NICENESS, MasterWarmer, WarmingArbiter

BOOTED = re.compile(r"Booting worker with pid: (\d+)")


def _holds_torch(pid: int) -> bool:
    return "libtorch" in Path(f"/proc/{pid}/maps").read_text()


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() and "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()


class _Server:
    """``quizapp serve --workers 1`` on the sample question; ``booted()`` reads gunicorn's lines as they come."""

    def __init__(self, tmp_path: Path) -> None:
        bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'warm.sqlite3'}", "SECRET_KEY": "warm",
               "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false", "QUIZ_LOG_JSON": "0",
               "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom")}
        cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--port", str(self.port), "--bank", str(bank),
               "--workers", "1", "--threads", "4"]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []

    def booted(self, count: int) -> list[int]:
        """The pids of the first ``count`` workers gunicorn booted, waiting for its lines (bounded by the
        server: the loop ends if it exits)."""
        pids = [int(m) for line in self.lines for m in BOOTED.findall(line)]
        for line in self.proc.stdout:
            self.lines.append(line)
            pids += [int(m) for m in BOOTED.findall(line)]
            if len(pids) >= count:
                break
        assert len(pids) >= count, "".join(self.lines)
        return pids[:count]

    def wait_for(self, text: str) -> None:
        """Read the server's lines until one holds ``text`` (bounded by the server, as :meth:`booted`)."""
        if any(text in line for line in self.lines):
            return
        for line in self.proc.stdout:
            self.lines.append(line)
            if text in line:
                return
        raise AssertionError("".join(self.lines))

    def get(self, path: str) -> tuple[int, bytes]:
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
            raw = b"".join(iter(lambda: sock.recv(65536), b""))
        head, _, body = raw.partition(b"\r\n\r\n")
        return int(head.split()[1]), body

    def stop(self) -> None:
        testing.stop_process(self.proc, timeout=60)


def _restarts(server: _Server) -> float:
    _, body = server.get("/metrics")
    line = next(x for x in body.decode().splitlines() if x.startswith("quizapp_worker_restarts_total "))
    return float(line.split()[1])


@pytest.mark.slow
def test_the_first_worker_is_cold_and_every_later_one_is_forked_from_a_warm_master(tmp_path):
    server = _Server(tmp_path)
    try:
        cold, warm = server.booted(2)  # the first worker, then the one forked once the master was warm
        assert _holds_torch(warm)
        assert _holds_torch(server.proc.pid)
        server.wait_for(f"Worker exiting (pid: {cold})")  # retired gracefully once the warm one runs
        for _ in range(1000):  # then reaped by the master (bounded)
            if not _alive(cold):
                break
            time.sleep(0.01)
        assert not _alive(cold), "".join(server.lines)
        status, _ = server.get(f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}")
        assert status == 200
        assert _restarts(server) == 0.0  # replacing the cold worker is part of the start, not a restart

        os.kill(warm, signal.SIGKILL)
        (replacement,) = server.booted(3)[2:]
        assert _holds_torch(replacement)  # before it served anything: the master's import, inherited
        assert replacement in testing.child_pids(server.proc.pid)
        status, body = server.get(f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}")
        assert status == 200 and json.loads(body)["id"] == testing.SAMPLE_QUESTION["id"]
        assert _restarts(server) == 1.0
    finally:
        server.stop()


@pytest.mark.slow
def test_a_keepalive_connection_is_closed_after_its_last_allowed_request(tmp_path):
    server = _Server(tmp_path)
    try:
        server.booted(1)
        limit = serving.MAX_REQUESTS_PER_CONNECTION
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
            reader = sock.makefile("rb")
            closes = []
            for _ in range(limit):
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                head = []
                for line in iter(reader.readline, b"\r\n"):
                    head.append(line.decode("latin-1").strip().lower())
                length = next(int(h.split(":")[1]) for h in head if h.startswith("content-length:"))
                reader.read(length)
                assert head[0].startswith("http/1.1 200")
                closes.append("connection: close" in head)
            assert closes == [False] * (limit - 1) + [True]
            assert reader.read() == b""  # the server closed it: the client's next request goes anywhere
    finally:
        server.stop()


def test_the_hook_marks_only_the_last_allowed_request_of_a_connection():
    limit = serving.MAX_REQUESTS_PER_CONNECTION
    marks = []
    for number in (1, limit - 1, limit, limit + 1):
        req = SimpleNamespace(req_number=number, must_close=False)
        serving.bound_keepalive(None, req)
        marks.append(req.must_close)
    assert marks == [False, False, True, True]


def test_a_fork_waits_for_the_warm_up_in_progress():
    """A fork while the warm-up thread is inside an import would give the child a module lock held by a
    thread it does not have: before_fork (gunicorn's pre_fork) blocks until the thread has ended."""
    release, entered = threading.Event(), threading.Event()

    def warm():
        entered.set()
        release.wait(60)

    arbiter = WarmingArbiter.__new__(WarmingArbiter)  # only its warmer is used here
    arbiter.warmer = MasterWarmer(warm=warm)
    cold = SimpleNamespace()
    arbiter.before_fork(cold)  # not started: no wait, and the worker is cold
    assert cold.quiz_warm is False

    arbiter.warmer.start()
    assert entered.wait(60)
    worker = SimpleNamespace()
    forking = threading.Thread(target=arbiter.before_fork, args=(worker,))
    forking.start()
    forking.join(0.2)
    assert forking.is_alive() and not hasattr(worker, "quiz_warm")  # still waiting for the warm-up
    release.set()
    forking.join(60)
    assert not forking.is_alive() and worker.quiz_warm is True


def test_a_failed_warm_up_leaves_the_workers_cold_and_wakes_the_master():
    woken = []

    def broken():
        raise ImportError("no engine here")

    warmer = MasterWarmer(on_done=lambda: woken.append(True), warm=broken)
    warmer.start()
    warmer.wait()
    assert warmer.done and not warmer.ok and woken == [True]


def test_the_warm_up_imports_the_engine_and_warms_the_parser():
    """In a fresh interpreter (this one may hold torch already, and must not be frozen)."""
    code = ("import sys; from quizapp.serving.warm import ENGINE_MODULES, warm_process; "
            "from checkers import mathparse; "
            "before = [m for m in ENGINE_MODULES if m in sys.modules]; warm_process(); "
            "print(before, [m for m in ENGINE_MODULES if m not in sys.modules], mathparse._warm)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "[]", "True"]


def test_the_warm_up_runs_at_a_lower_priority_than_the_thread_that_forks():
    seen = []

    def warm():
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    warmer = MasterWarmer(warm=warm)
    warmer.start()
    warmer.wait()
    assert seen == [min(19, main + WARM_NICENESS)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main  # the forking thread is unchanged
