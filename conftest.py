"""Fixtures shared by every test folder, tests/ and each kind's own tests (``checkers/kinds/<kind>/tests``; the
testpaths of pyproject.toml): ``app``, the service on a migrated database holding the sample
question (``tests/support/quiz_testing.py``), and ``client``, its test client.

The database behind ``app`` (and the folders' own app fixtures, through ``db_url``) is chosen by
``--db=sqlite|postgresql|both`` (default ``both``, what ``scripts/test`` runs): in the database folders
(``DB_FOLDERS``) every such test runs once per chosen database, as ``test_x[sqlite]`` and
``test_x[postgresql]``; elsewhere it runs on SQLite. PostgreSQL is a throwaway cluster started once per
session (per xdist worker), ``tests/support/pg_cluster.py``, with a fresh database per test. A test that depends
on SQLite itself carries ``@pytest.mark.sqlite_only(reason=...)``.
"""

import re
from pathlib import Path

import pytest

# Test helpers live beside the tests (tests/support, on the path through pyproject.toml's pythonpath), not in
# the installed package.
import pg_cluster as pg
import quiz_testing as testing
from checkers import sandbox
from checkers.kinds.derivation import checker as derivation_checker

TESTS = Path(__file__).resolve().parent / "tests"
#: The folders whose tests store through the app: they run on every database ``--db`` names.
DB_FOLDERS = ("service", "api", "learner", "practice", "authoring", "discover", "mock")
BACKENDS = ("sqlite", "postgresql")


def pytest_addoption(parser):
    parser.addoption("--db", choices=("sqlite", "postgresql", "both"), default="both",
                     help="database(s) the database folders' tests run on (default: both; PostgreSQL is a "
                          "throwaway cluster, scripts/install-postgres installs the server)")


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only(reason): the test depends on SQLite itself (a file, its "
                                       "pragmas); it runs on SQLite whatever --db says")


def chosen_backends(config) -> tuple[str, ...]:
    db = config.getoption("--db")
    return BACKENDS if db == "both" else (db,)


def in_db_folder(path) -> bool:
    try:
        rel = Path(path).resolve().relative_to(TESTS)
    except ValueError:
        return False
    return rel.parts[0] in DB_FOLDERS


def pytest_generate_tests(metafunc):
    if "db_url" not in metafunc.fixturenames or not in_db_folder(metafunc.definition.path):
        return
    backends = chosen_backends(metafunc.config)
    if metafunc.definition.get_closest_marker("sqlite_only") is not None:
        backends = ("sqlite",)
    metafunc.parametrize("db_url", backends, indirect=True)


# Text that differs in every process: a random UUID (32 hex digits, either case, or the dashed form).
_RANDOM_ID = re.compile(r"[0-9a-fA-F]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def pytest_make_parametrize_id(config, val, argname):
    """Test ids the same in every process: xdist workers (scripts/test runs two) refuse to start unless they
    collect identical ids, and a bare ``object()`` sentinel (shown by its address) or a random UUID drawn at
    import would differ. They are named by their kind instead; other values keep pytest's own ids."""
    if type(val) is object:
        return f"{argname}-sentinel"
    if isinstance(val, str) and _RANDOM_ID.fullmatch(val):
        return "uuid-dashed" if "-" in val else ("hex-upper" if val.isupper() else "hex-lower")
    return None


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL cluster for this session (or xdist worker), stopped and deleted at the end."""
    cluster = pg.start_cluster()
    try:
        yield cluster
    finally:
        try:
            cluster.stop()
        finally:
            pg.shutil.rmtree(cluster.root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_cluster):
    """A fresh, empty database on the throwaway cluster (dropped after the test)."""
    name = pg_cluster.create_database()
    yield pg_cluster.url(name)
    pg_cluster.drop_database(name)


@pytest.fixture
def db_url(request, tmp_path):
    """The database an app fixture builds on: SQLite at ``tmp_path/quiz.sqlite3`` (make_app migrates it), or a
    fresh PostgreSQL database copied from the cluster's migrated template (dropped after the test). Either
    way ``testing.make_app(tmp_path, database_url=db_url)`` is an app at the newest migration."""
    backend = getattr(request, "param", "sqlite")
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'quiz.sqlite3'}"
        return
    cluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database(template=cluster.migrated_template())
    yield cluster.url(name)
    cluster.drop_database(name)


@pytest.fixture
def app(tmp_path, db_url):
    app = testing.make_app(tmp_path, database_url=db_url)
    testing.load_sample(app)
    yield app
    from quizapp.storage.db import get_db
    get_db(app).dispose()


@pytest.fixture
def client(app):
    return app.test_client()


#: The hard limit a derivation graded in this process gets when its test gives none (its soft budget is
#: most of it). These tests are about verdicts, not time: the library's default of one second can run out
#: when a cold sympy cache and a garbage collection of the test worker's large heap fall in one answer,
#: which the service never meets (it grades with its own, longer ``GRADE_TIMEOUT``). Tests of running out
#: pass their own budget or limit.
VERDICT_TEST_LIMIT = 10.0


@pytest.fixture
def inprocess(monkeypatch):
    """Grade pure functions in this process (no hard time limit) and restore the switch afterwards."""
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(True)
    monkeypatch.setattr(derivation_checker, "GRADE_TIMEOUT", VERDICT_TEST_LIMIT)
    yield
    sandbox.set_inprocess(before)
