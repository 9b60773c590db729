"""A throwaway Redis and an RQ grading worker for the queue tests.

``redis_url``: ``redis-server`` (Debian's, ``scripts/install-redis``) on a free port of 127.0.0.1 with no
persistence (``--save '' --appendonly no``), one per test module, stopped afterwards. ``rq_worker``: an
``rq worker`` process on that Redis listening on :data:`WORKER_QUEUE` the way a grading host runs it
(``SimpleWorker``: the job runs in the worker process, so its code sandbox stays warm; JSON serializer),
stopped afterwards. Readiness is polled a bounded number of times, never timed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

import quiz_testing as testing

ROOT = Path(__file__).resolve().parents[2]
#: The queue the test worker serves; a queue of another name has no worker at all.
WORKER_QUEUE = "grading-test"
POLLS = 600          # readiness polls (0.05 s apart) before a server or worker counts as not started
POLL_PAUSE = 0.05


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]




@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    binary = shutil.which("redis-server")
    assert binary, "redis-server is not installed: run scripts/install-redis (scripts/test does)"
    folder = tmp_path_factory.mktemp("redis")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(folder), "--logfile", str(folder / "redis.log")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        for _ in range(POLLS):
            assert proc.poll() is None, (folder / "redis.log").read_text(errors="replace")
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                time.sleep(POLL_PAUSE)
        else:
            pytest.fail("redis-server did not answer PING")
        yield url
    finally:
        client.close()
        testing.stop_process(proc)


@pytest.fixture(scope="module")
def rq_worker(redis_url, tmp_path_factory):
    """An ``rq worker`` on :data:`WORKER_QUEUE`, registered with Redis before the tests use it."""
    from rq import Worker
    from rq.serializers import JSONSerializer

    rq_bin = Path(sys.executable).with_name("rq")
    log = tmp_path_factory.mktemp("rq-worker") / "worker.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRADING_", "REDIS_"))}
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(rq_bin), "worker", "-u", redis_url, "-w", "rq.worker.SimpleWorker",
                                 "-S", "rq.serializers.JSONSerializer", "--name", "test-grading-host", WORKER_QUEUE],
                                cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    connection = redis.Redis.from_url(redis_url)
    try:
        for _ in range(POLLS):
            assert proc.poll() is None, log.read_text(errors="replace")
            if any(w.name == "test-grading-host" for w in Worker.all(connection=connection,
                                                                       serializer=JSONSerializer)):
                break
            time.sleep(POLL_PAUSE)
        else:
            pytest.fail("the rq worker did not register: " + log.read_text(errors="replace"))
        yield {"proc": proc, "log": log, "queue": WORKER_QUEUE}
    finally:
        connection.close()
        testing.stop_process(proc)
