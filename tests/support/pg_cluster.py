"""A throwaway PostgreSQL cluster for the tests (one per pytest session, or per xdist worker).

``start_cluster()``: ``initdb`` into a fresh temporary folder, ``pg_ctl start`` on a free port of 127.0.0.1
(its unix socket in that folder too, trust authentication, no fsync). A PostgreSQL server refuses to run as
root: as root the folder is handed to the ``postgres`` user and the server binaries run through
``runuser -u postgres``. ``PgCluster.create_database`` / ``drop_database`` give each test its own database;
``migrated_template`` migrates one database per cluster that later databases are copied from (``CREATE
DATABASE ... TEMPLATE``: a copy of the files, far cheaper than running every migration again).

The binaries come from ``pg_config --bindir`` or ``/usr/lib/postgresql/<version>/bin``. When they are
missing the tests fail (``scripts/test`` installs them through ``scripts/install-postgres``).
Fixtures using it: the root ``conftest.py`` (``pg_cluster``, ``pg_url``, the ``app`` fixture on PostgreSQL).
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
from dataclasses import dataclass, field
from pathlib import Path

import pytest

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
    """A cluster started by ``start_cluster``: its folder, port and how to run its binaries."""

    bindir: Path
    root: Path
    port: int
    run_as: list[str]
    template: str | None = None  # a migrated database to copy (``migrated_template``)
    _numbers: itertools.count = field(default_factory=lambda: itertools.count(1))

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

    def create_database(self, *, template: str | None = None) -> str:
        """A new database (empty, or a copy of ``template``); returns its name."""
        name = f"quiz_{os.getpid()}_{next(self._numbers)}"
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        return name

    def drop_database(self, name: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def migrated_template(self) -> str:
        """A database migrated to head, made once per cluster (the schema comes from Alembic, as on SQLite).
        Nothing stays connected to it, so ``CREATE DATABASE ... TEMPLATE`` may copy it."""
        if self.template is None:
            import quiz_testing

            from quizapp.storage.db import get_db

            name = self.create_database()
            scratch = Path(tempfile.mkdtemp(prefix="quizpg-template-"))
            try:
                app = quiz_testing.make_app(scratch, database_url=self.url(name))
                get_db(app).dispose()
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            self.template = name
        return self.template

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.tool("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=60)


def start_cluster() -> PgCluster:
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
