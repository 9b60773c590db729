"""Several processes write one SQLite file: worker processes forked from a process that already used the
database (as gunicorn forks from its preloaded master) each submit attempts at the same moment; every
acknowledged attempt is stored once, none is lost or duplicated, and the file passes its integrity check.
Then ``quizapp serve`` itself: gunicorn with two workers, the probes, metrics summed over the workers,
a graceful restart on SIGHUP and a graceful stop on SIGTERM."""

import json
import multiprocessing as mp
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.request

import pytest
from gunicorn import util as gunicorn_util
from gunicorn.http import wsgi as gunicorn_wsgi
from sqlalchemy import select

import quiz_testing as testing
from quizapp import serving
from quizapp.config import MIN_WRITE_THREADS, WRITES_IN_FLIGHT, default_write_threads
from quizapp.serving.worker import DrainingThreadWorker, OneSendResponse
from quizapp.storage.db import get_db
from quizapp.storage.models import Attempt

PROCESSES = 4
PER_PROCESS = 12


def _writer(app, index, barrier, out):
    """In a forked child: renew what the parent owned, then submit PER_PROCESS attempts after the barrier."""
    from checkers import sandbox

    serving.after_fork(app)
    sandbox.set_inprocess(True)  # the child grades itself: the test is about the database
    client = app.test_client()
    barrier.wait()
    acknowledged = []
    for j in range(PER_PROCESS):
        r = client.post(f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts",
                        json={"variant": index * 100 + j, "answers": {"a": "1.0", "b": "yes"}})
        if r.status_code == 201:
            acknowledged.append(r.get_json()["attempt_id"])
        else:
            acknowledged.append(f"status {r.status_code}: {r.get_data(as_text=True)[:200]}")
    out.put((index, acknowledged))


@pytest.mark.slow
@pytest.mark.sqlite_only(reason="checks the SQLite file itself (integrity_check, WAL journal)")
def test_forked_workers_write_one_sqlite_file(app):
    # The parent uses the database first, so that its pool holds a connection every child inherits.
    with app.app_context():
        session = get_db(app).Session()
        assert session.scalars(select(Attempt.id)).all() == []
        session.close()
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(app, i, barrier, out)) for i in range(PROCESSES)]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0

    acknowledged = [a for i in range(PROCESSES) for a in results[i]]
    assert not [a for a in acknowledged if a.startswith("status")], acknowledged
    assert len(acknowledged) == len(set(acknowledged)) == PROCESSES * PER_PROCESS
    with app.app_context():
        session = get_db(app).Session()
        stored = session.scalars(select(Attempt.id)).all()
        variants = sorted(session.scalars(select(Attempt.variant)).all())
        session.close()
    assert sorted(stored) == sorted(acknowledged)  # none lost, none duplicated, none extra
    assert variants == sorted(i * 100 + j for i in range(PROCESSES) for j in range(PER_PROCESS))
    path = app.config["DATABASE_URL"].removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.sqlite_only(reason="SQLite's own pragmas (synchronous, busy_timeout)")
def test_sqlite_connections_sync_every_commit(app):
    """``synchronous=FULL`` (2): a commit is acknowledged only once the WAL is on disk."""
    with get_db(app).engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == app.config["SQLITE_BUSY_TIMEOUT_MS"]


def _get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path, *, workers: int, threads: int, args: tuple[str, ...] = (),
           **env: str) -> tuple[subprocess.Popen, int, list[str]]:
    """``quizapp serve`` (gunicorn; more options in ``args``) on the sample question and a database in
    ``tmp_path``, started: the process, its port and the lines it printed up to "serving on"."""
    bank = testing.write_bank(tmp_path / "bank", testing.sample_question())
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'served.sqlite3'}", "SECRET_KEY": "workers",
           "PYTHONUNBUFFERED": "1", "RATELIMIT_ENABLED": "false", **env}
    cmd = [sys.executable, "-m", "quizapp.cli", "serve", "--port", str(port), "--bank", str(bank),
           "--workers", str(workers), "--threads", str(threads), *args]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("serving on http://"):
            return proc, port, seen
    proc.wait()
    raise AssertionError("".join(seen))


@pytest.mark.slow
def test_serve_runs_gunicorn_workers(tmp_path):
    assert serving.gunicorn_available()  # Linux: `quizapp serve` picks gunicorn
    proc, port, seen = _serve(tmp_path, workers=2, threads=4, PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "prom"))
    try:
        assert "2 worker(s) x 4 threads" in seen[-1]
        drain = threading.Thread(target=lambda: seen.extend(proc.stdout), daemon=True)
        drain.start()
        base = f"http://127.0.0.1:{port}"

        status, headers, body = _get(base + "/healthz", {"X-Request-ID": "probe-1"})
        assert status == 200 and json.loads(body) == {"status": "ok"} and headers["X-Request-ID"] == "probe-1"
        status, _, body = _get(base + "/readyz")
        assert status == 200, body
        assert json.loads(body)["checks"]["migrations"]["ok"] is True
        _assert_workers_pinned(proc.pid, next(line for line in seen if line.startswith("serving on")))

        n = 24
        results = testing.post_attempts_concurrently(base, n, timeout=120, join_timeout=240)
        assert all(r is not None and r[0] == 201 for r in results), results[:3]
        ids = {r[1]["attempt_id"] for r in results}
        assert len(ids) == n

        # Whichever worker answers the scrape, the counts are summed over both workers.
        _, _, body = _get(base + "/metrics")
        text = body.decode()
        line = ('quizapp_requests_total{endpoint="api.submit_attempt",method="POST",status="201"} ')
        assert line + f"{float(n)}" in text, text[:2000]
        assert 'quizapp_grading_seconds_count{kind="numeric"}' in text

        master = proc.pid
        os.kill(master, signal.SIGHUP)  # new workers replace the old ones; the socket stays open
        status, _, body = _get(base + f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}")
        assert status == 200
        os.kill(master, signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    conn = sqlite3.connect(tmp_path / "served.sqlite3")
    stored = {row[0] for row in conn.execute("SELECT id FROM attempts")}
    conn.close()
    assert stored == ids


def _assert_workers_pinned(master: int, announced: str) -> None:
    """With as many workers as CPUs, each worker is held to a CPU of its own and the processes it started
    for grading (the readiness probe started its grader pool) run on every CPU; otherwise none is held."""
    cpus = set(os.sched_getaffinity(0))
    workers = testing.child_pids(master)
    held = [os.sched_getaffinity(w) for w in workers]
    if len(cpus) == len(workers):
        assert "held to CPUs" in announced
        assert sorted(len(h) for h in held) == [1] * len(workers) and set().union(*held) == cpus
        grading = [kid for w in workers for kid in testing.child_pids(w)]
        assert grading and all(os.sched_getaffinity(kid) == cpus for kid in grading)
    else:
        assert "held to CPUs" not in announced and all(h == cpus for h in held)


def _read_answer(sock: socket.socket) -> bytes:
    """Everything the server sends on ``sock`` until it closes the connection."""
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _raw_get(sock: socket.socket, path: str) -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".encode())
    return _read_answer(sock)


@pytest.mark.slow
def test_a_connection_without_a_request_holds_no_thread(tmp_path):
    """A worker hands a connection to a thread at once when its request came with it, and otherwise leaves
    it to the event loop until the request arrives: with one thread, a client that connected and sent
    nothing yet does not keep others waiting, and is served once it sends."""
    proc, port, seen = _serve(tmp_path, workers=1, threads=1)
    try:
        threading.Thread(target=lambda: seen.extend(proc.stdout), daemon=True).start()
        with socket.create_connection(("127.0.0.1", port), timeout=20) as idle:
            for _ in range(3):  # the one thread is free for others meanwhile (a timeout here: it was held)
                with socket.create_connection(("127.0.0.1", port), timeout=20) as other:
                    assert _raw_get(other, "/healthz").startswith(b"HTTP/1.1 200")
            assert _raw_get(idle, "/healthz").startswith(b"HTTP/1.1 200")  # its request, when it comes
    finally:
        status = testing.stop_process(proc, timeout=60)  # SIGTERM: a graceful stop
    assert status == 0


@pytest.mark.slow
def test_reads_are_served_while_every_write_thread_is_taken(tmp_path):
    """Writes have threads of their own: with one read thread and one write thread, a submit whose body is
    still arriving holds the write thread, and reads are answered meanwhile (in one pool, the one thread
    would be held); a second submit waits for the first, as the one write thread serves them in turn."""
    proc, port, seen = _serve(tmp_path, workers=1, threads=1, args=("--write-threads", "1"))
    url = f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts"

    def post_head(body: bytes) -> bytes:
        return (f"POST {url} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()

    first_body = json.dumps({"answers": {"a": "1.0", "b": "yes"}, "variant": 1}).encode()
    second_body = json.dumps({"answers": {"a": "1.0", "b": "yes"}, "variant": 2}).encode()
    try:
        assert "1 worker(s) x 1 threads + 1 for writes" in seen[-1]
        threading.Thread(target=lambda: seen.extend(proc.stdout), daemon=True).start()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as first, \
                socket.create_connection(("127.0.0.1", port), timeout=30) as second:
            first.sendall(post_head(first_body) + first_body[:10])  # the rest of its body comes later
            second.sendall(post_head(second_body) + second_body)
            for _ in range(3):  # a timeout here: a read waited behind the submit
                with socket.create_connection(("127.0.0.1", port), timeout=30) as read:
                    assert _raw_get(read, "/healthz").startswith(b"HTTP/1.1 200")
            second.setblocking(False)
            with pytest.raises(BlockingIOError):  # not answered: the write thread is still on the first
                second.recv(1)
            second.setblocking(True)
            first.sendall(first_body[10:])
            assert _read_answer(first).startswith(b"HTTP/1.1 201")
            assert _read_answer(second).startswith(b"HTTP/1.1 201")
    finally:
        status = testing.stop_process(proc, timeout=60)  # SIGTERM: a graceful stop
    assert status == 0


class _Pool:
    """Stands for a thread pool: records what it is given (a future that never runs)."""

    def __init__(self) -> None:
        self.given: list = []

    def submit(self, fn, conn):
        from concurrent.futures import Future

        self.given.append(conn)
        return Future()


class _Conn:
    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.initialized = sock, False

    def init(self) -> None:
        self.initialized = True


@pytest.mark.parametrize("request_line, pool", [
    (b"POST /api/v1/questions/q/attempts HTTP/1.1", "write"), (b"PUT /x HTTP/1.1", "write"),
    (b"PATCH /x HTTP/1.1", "write"), (b"DELETE /x HTTP/1.1", "write"), (b"GET /questions/q HTTP/1.1", "read"),
    (b"HEAD / HTTP/1.1", "read"), (b"OPTIONS * HTTP/1.1", "read"), (b"", "read")])
@pytest.mark.parametrize("peeked", [True, False])
def test_a_request_goes_to_the_pool_of_its_method(request_line, pool, peeked):
    """The worker tells writes from reads by the request's first byte, peeked as it accepts a connection
    or (``peeked`` False: a keep-alive connection's next request) read there, and leaves it on the socket
    for the parser; with no write pool every request goes to gthread's pool."""
    worker = DrainingThreadWorker.__new__(DrainingThreadWorker)  # only what enqueue_req touches
    worker.tpool, worker.write_pool, worker.futures = _Pool(), _Pool(), []
    worker.finish_request = lambda fs: None
    here, there = socket.socketpair()
    with here, there:
        there.sendall(request_line + b"\r\n" if request_line else b"")
        conn = _Conn(here)
        worker.enqueue_req(conn, request_line[:1] if peeked else None)
        pools = {"write": worker.write_pool.given, "read": worker.tpool.given}
        assert pools[pool] == [conn] and pools["read" if pool == "write" else "write"] == []
        if request_line:
            assert here.recv(len(request_line)) == request_line  # still there for the parser
        worker.write_pool = None
        worker.enqueue_req(conn, b"P")
        assert worker.tpool.given[-1] is conn and len(worker.futures) == 2


def test_write_threads_share_the_hosts_writes_in_flight():
    assert default_write_threads(1) == WRITES_IN_FLIGHT
    assert default_write_threads(2) == WRITES_IN_FLIGHT // 2
    assert default_write_threads(64) == MIN_WRITE_THREADS


@pytest.mark.slow
def test_an_oversized_request_line_gets_the_json_envelope(tmp_path):
    """gunicorn refuses a request line over its limit before the app sees it; the answer is still the API's
    JSON error envelope, not gunicorn's HTML page."""
    proc, port, seen = _serve(tmp_path, workers=1, threads=2)
    try:
        threading.Thread(target=lambda: seen.extend(proc.stdout), daemon=True).start()
        with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
            answer = _raw_get(sock, "/api/v1/questions?q=" + "a" * 5000)  # over 4094, in one read
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400") and b"Content-Type: application/json" in head
        error = json.loads(body)["error"]
        assert error["code"] == "bad_request" and error["field"] is None and error["message"]
        with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:  # the worker still serves
            assert _raw_get(sock, "/healthz").startswith(b"HTTP/1.1 200")
    finally:
        assert testing.stop_process(proc, timeout=60) == 0


class _SendsSeen:
    """A socket that keeps each ``sendall`` call's bytes."""

    def __init__(self) -> None:
        self.sends: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sends.append(bytes(data))


def _answer(cls, headers: list[tuple[str, str]], pieces: list[bytes], method: str = "POST") -> list[bytes]:
    req = type("Req", (), {"version": (1, 1), "method": method, "should_close": lambda self: False})()
    sock = _SendsSeen()
    resp = cls(req, sock, None)
    resp.start_response("200 OK", headers)
    for piece in pieces:
        resp.write(piece)
    resp.close()
    return sock.sends


@pytest.mark.parametrize("headers, pieces, sends", [
    ([("Content-Type", "application/json"), ("Content-Length", "11")], [b'{"ok":true}'], (1, 2)),
    ([("Content-Length", "0")], [b""], (1, 1)),             # empty: the head alone, as in gunicorn
    ([("Content-Length", "4")], [b"abcdef"], (2, 2)),       # past its length: gunicorn's way, cut to 4
    ([("Content-Length", "6")], [b"abc", b"def"], (2, 3)),  # streamed: the head with the first piece
    ([("Content-Type", "text/plain")], [b"abc", b"de"], (4, 4)),  # no length: chunked, gunicorn's way
])
def test_a_one_piece_answer_goes_out_in_one_send(monkeypatch, headers, pieces, sends):
    """The worker's response sends the head with the first body piece of known length in one call into the
    kernel (``sends``: its calls, then gunicorn's), and every answer's bytes are gunicorn's own, byte for
    byte (a fixed date: both are made here)."""
    monkeypatch.setattr(gunicorn_util, "http_date", lambda: "Fri, 27 Nov 2026 18:00:00 GMT")
    ours, theirs = _answer(OneSendResponse, headers, pieces), _answer(gunicorn_wsgi.Response, headers, pieces)
    assert b"".join(ours) == b"".join(theirs) and b"".join(ours).startswith(b"HTTP/1.1 200 OK\r\n")
    assert (len(ours), len(theirs)) == sends
    if sends[0] == 1 and pieces[0]:
        assert ours[0].endswith(b"\r\n\r\n" + pieces[0])


class _CountingSocket(socket.socket):
    """A socket that counts its calls to setblocking (each one a call into the kernel)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.blocking_calls: list[bool] = []

    def setblocking(self, flag: bool) -> None:
        self.blocking_calls.append(flag)
        super().setblocking(flag)


def test_a_connection_whose_request_arrived_is_not_made_non_blocking_and_back():
    """ArrivedConn leaves a socket blocking as accept() made it (gthread's TConn: setblocking(False) then
    (True), two ioctl calls per request); one made non-blocking while kept alive is made blocking again."""
    from gunicorn.config import Config
    from gunicorn.workers.gthread import TConn

    from quizapp.serving.worker import ArrivedConn

    here, there = socket.socketpair()
    with there:
        sock = _CountingSocket(fileno=here.detach())
        with sock:
            theirs = TConn(Config(), _CountingSocket(fileno=os.dup(sock.fileno())), ("127.0.0.1", 1), ("127.0.0.1", 2))
            theirs.init()
            assert theirs.sock.blocking_calls == [False, True]  # what gthread does per connection
            theirs.sock.close()
            conn = ArrivedConn(Config(), sock, ("127.0.0.1", 1), ("127.0.0.1", 2))
            assert sorted(vars(conn)) == sorted(vars(theirs))  # the same connection, as gthread reads it
            conn.init()
            assert conn.initialized and conn.parser is not None
            assert sock.blocking_calls == [] and sock.gettimeout() is None
            there.sendall(b"GET /x HTTP/1.1\r\nHost: h\r\n\r\n")
            assert next(conn.parser).path == "/x"
            sock.setblocking(False)  # gthread, keeping the connection alive between two requests
            conn.init()
            assert sock.blocking_calls == [False, True] and sock.gettimeout() is None


def test_the_heartbeat_is_touched_at_most_once_a_second(monkeypatch):
    from quizapp.serving import worker as worker_module

    clock = [100.0]
    # the worker module's clock only (not time.monotonic for every thread of this process)
    monkeypatch.setattr(worker_module, "time", type("Clock", (), {"monotonic": staticmethod(lambda: clock[0])}))
    touched: list[float] = []
    worker = DrainingThreadWorker.__new__(DrainingThreadWorker)  # only what notify touches
    worker.tmp = type("Tmp", (), {"notify": lambda self: touched.append(clock[0])})()
    for step in range(25):  # event-loop rounds every 0.1 s
        clock[0] = 100.0 + step * 0.1
        worker.notify()
    assert len(touched) == 3 and touched[0] == 100.0
    assert all(b - a >= worker_module.HEARTBEAT_EVERY - 1e-9 for a, b in zip(touched, touched[1:]))
