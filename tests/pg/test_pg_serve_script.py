"""scripts/serve-postgres end to end (installers skipped, a one-question bank): it starts its own cluster under
PG_DIR, creates the database, migrates, loads the bank and serves; SIGTERM stops the server and the cluster;
a second run on the same folder migrates nothing, adds no question and keeps the stored attempt."""

from __future__ import annotations

import http.cookiejar
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import pg_cluster as pg
import quiz_testing as testing

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "serve-postgres"
QID = testing.SAMPLE_QUESTION["id"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# One learner across both runs: its signed cookie (the same SECRET_KEY) reads its attempt back.
OPENER = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def _get(url: str):
    try:
        with OPENER.open(url, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as err:
        return err.code, None
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return None, None


def _wait_ready(proc: subprocess.Popen, url: str) -> None:
    for _ in range(400):  # polls, a quarter second apart; the bound is on tries
        assert proc.poll() is None, f"serve-postgres exited ({proc.returncode})"
        if _get(f"{url}/readyz")[0] == 200:
            return
        time.sleep(0.25)
    pytest.fail("serve-postgres never became ready")


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=120)
    return out


@pytest.fixture
def serve_dirs():
    if pg.find_bindir() is None:
        pytest.fail(pg.INSTALL_HINT, pytrace=False)
    # Under /tmp, not pytest's tmp_path: the postgres user (the server's, as root) must reach the folder.
    root = Path(tempfile.mkdtemp(prefix="quizserve-", dir="/tmp"))
    os.chmod(root, 0o755)
    bank = testing.write_bank(root / "bank")
    yield root / "pg", bank
    data = root / "pg" / "data"
    if (data / "postmaster.pid").exists():  # a failed run: do not leave a server behind
        run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 and pwd.getpwnam("postgres") else []
        subprocess.run([*run_as, str(pg.find_bindir() / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
    shutil.rmtree(root, ignore_errors=True)


def _run(pg_dir: Path, bank: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "QUIZ_SKIP_SETUP": "1", "PG_DIR": str(pg_dir), "PG_PORT": str(_free_port()),
           "RATELIMIT_ENABLED": "false", "SECRET_KEY": "serve-postgres-test"}
    env.pop("DATABASE_URL", None)
    return subprocess.Popen([str(SCRIPT), "--port", str(port), "--server", "waitress", "--bank", str(bank)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_serve_postgres_starts_serves_stops_and_runs_again(serve_dirs):
    pg_dir, bank = serve_dirs
    port = _free_port()
    url = f"http://127.0.0.1:{port}"

    proc = _run(pg_dir, bank, port)
    try:
        _wait_ready(proc, url)
        status, body = _get(f"{url}/readyz")
        assert body["checks"]["migrations"]["ok"] is True
        status, listing = _get(f"{url}/api/v1/questions")
        assert status == 200 and [q["id"] for q in listing["questions"]] == [QID]
        req = urllib.request.Request(f"{url}/api/v1/questions/{QID}/attempts", method="POST",
                                     data=json.dumps({"variant": 3, "answers": {"a": "1", "b": "no"}}).encode(),
                                     headers={"Content-Type": "application/json"})
        with OPENER.open(req, timeout=60) as r:
            assert r.status == 201
            attempt_id = json.load(r)["attempt_id"]
    finally:
        first = _stop(proc)
    assert "postgresql+psycopg://" in first, first  # the server announced the PostgreSQL database
    assert "migrated empty -> " in first and "1 added" in first, first
    assert proc.returncode == 0, first
    assert (pg_dir / "data" / "PG_VERSION").is_file()
    assert not (pg_dir / "data" / "postmaster.pid").exists(), "the cluster was left running"

    proc = _run(pg_dir, bank, port)
    try:
        _wait_ready(proc, url)
        status, attempt = _get(f"{url}/api/v1/attempts/{attempt_id}")
        assert status == 200 and attempt["question_id"] == QID
    finally:
        second = _stop(proc)
    assert "nothing to migrate" in second and "0 added" in second and "1 unchanged" in second, second
    assert not (pg_dir / "data" / "postmaster.pid").exists()
