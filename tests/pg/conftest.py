"""A throwaway PostgreSQL cluster for the tests in tests/pg/ (one per pytest session / xdist worker).

``pg_cluster`` (session): ``initdb`` into a fresh temporary folder, ``pg_ctl start`` on a free port of
127.0.0.1 (its unix socket in that folder too, trust authentication, no fsync), stopped and deleted at
the end. A PostgreSQL server refuses to run as root: as root the folder is handed to the ``postgres``
user and the server binaries run through ``runuser -u postgres``.
``pg_url`` (function): a new empty database on that cluster, dropped after the test.

The binaries come from ``pg_config --bindir`` or ``/usr/lib/postgresql/<version>/bin``. When they are
missing the tests fail (``scripts/test`` installs them through ``scripts/install-postgres``).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from quizapp import testing

SUPERUSER = "quiz_test"
INSTALL_HINT = ("PostgreSQL server binaries (initdb, pg_ctl) not found: run scripts/install-postgres "
                "(scripts/test does) or put pg_config on PATH")


def find_bindir() -> Path | None:
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                candidates.append(Path(out.stdout.strip()))
        except (OSError, subprocess.SubprocessError):
            pass

    def _version(path: str) -> tuple[int, ...]:
        parts = Path(path).parent.name.split(".")
        return tuple(int(p) for p in parts if p.isdigit())

    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)]
    for bindir in candidates:
        if all(os.access(bindir / tool, os.X_OK) for tool in ("initdb", "pg_ctl", "postgres")):
            return bindir
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgCluster:
    bindir: Path
    root: Path
    port: int
    run_as: list[str]

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def connect(self, dbname: str = "postgres"):
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, dbname=dbname,
                               autocommit=True, connect_timeout=10)

    def tool(self, name: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([*self.run_as, str(self.bindir / name), *args], capture_output=True, text=True,
                              timeout=timeout, cwd=self.root)

    def log_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no server log)"

    def start(self) -> None:
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {shlex.quote(str(self.root))} -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=60")
        res = self.tool("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", opts,
                        "start", timeout=90)
        if res.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed ({res.returncode}): {res.stdout}{res.stderr}\n"
                               f"{self.log_tail()}")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.tool("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=60)


def _start_cluster() -> PgCluster:
    try:
        import psycopg  # noqa: F401
    except ModuleNotFoundError:
        pytest.fail("psycopg is not installed: run scripts/setup (the test extra includes psycopg[binary])",
                    pytrace=False)
    bindir = find_bindir()
    if bindir is None:
        pytest.fail(INSTALL_HINT, pytrace=False)
    # Not pytest's tmp_path: /tmp/pytest-of-root is 0700 and the postgres user could not reach it.
    # A short path also keeps the unix socket under the 107-byte limit.
    run_as: list[str] = []
    if os.geteuid() != 0:
        root = Path(tempfile.mkdtemp(prefix="quizpg-"))
    else:
        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("running as root and no 'postgres' user to run the server as: " + INSTALL_HINT,
                        pytrace=False)
        run_as = ["runuser", "-u", "postgres", "--"]
        root = Path(tempfile.mkdtemp(prefix="quizpg-"))
        os.chown(root, pw.pw_uid, pw.pw_gid)
        if subprocess.run([*run_as, "test", "-w", str(root)]).returncode != 0:  # e.g. TMPDIR under /root
            shutil.rmtree(root, ignore_errors=True)
            root = Path(tempfile.mkdtemp(prefix="quizpg-", dir="/tmp"))
            os.chown(root, pw.pw_uid, pw.pw_gid)
    cluster = PgCluster(bindir, root, 0, run_as)
    res = cluster.tool("initdb", "-D", str(cluster.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                       "--locale=C", "--no-sync", "--no-instructions", timeout=120)
    if res.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"initdb failed ({res.returncode}):\n{res.stdout}{res.stderr}", pytrace=False)
    error = None
    for _ in range(3):  # a free port can be taken between choosing and binding it
        cluster.port = _free_port()
        try:
            cluster.start()
            return cluster
        except RuntimeError as exc:
            error = exc
            cluster.stop()
    shutil.rmtree(root, ignore_errors=True)
    pytest.fail(f"could not start a throwaway PostgreSQL: {error}", pytrace=False)


@pytest.fixture(scope="session")
def pg_cluster():
    cluster = _start_cluster()
    try:
        yield cluster
    finally:
        try:
            cluster.stop()
        finally:
            shutil.rmtree(cluster.root, ignore_errors=True)


_db_numbers = itertools.count(1)


@pytest.fixture
def pg_url(pg_cluster):
    """A fresh, empty database on the throwaway cluster (dropped after the test)."""
    name = f"quiz_{os.getpid()}_{next(_db_numbers)}"
    with pg_cluster.connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield pg_cluster.url(name)
    with pg_cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_app(tmp_path, pg_url):
    """The app on a migrated PostgreSQL database holding the sample question."""
    from quizapp.db import get_db

    app = testing.make_app(tmp_path, DATABASE_URL=pg_url)
    testing.load_sample(app)
    yield app
    get_db(app).dispose()
