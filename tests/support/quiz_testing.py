"""Helpers for the service's tests (tests/api, tests/service, tests/pg, ...): an app on a migrated database, a
small sample question, and the app served live by waitress in a thread. Imported by tests only."""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import yaml

#: A two-part question (numeric + choice) the service tests load; its bilingual text lives in a YAML file.
SAMPLE_QUESTION: dict[str, Any] = yaml.safe_load(
    Path(__file__).with_name("quiz_testing_sample.yaml").read_text(encoding="utf-8"))


def sample_question(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(SAMPLE_QUESTION)
    data.update(changes)
    return data


def write_bank(root: Path, *questions: dict[str, Any]) -> Path:
    """Write question dicts as ``root/<level>/<id>.yaml``."""
    from checkers.bank import dump_question

    for q in questions or (SAMPLE_QUESTION,):
        path = Path(root) / q["level"] / f"{q['id']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_question(q), encoding="utf-8")
    return Path(root)


def make_app(tmp_path: Path, *, migrate: bool = True, database_url: str | None = None, **config: Any):
    """An app on ``database_url`` (default: SQLite at ``tmp_path/quiz.sqlite3``; the ``db_url`` fixture of
    the root conftest.py gives a fresh PostgreSQL database too), migrated to head (the schema comes from Alembic)."""
    from quizapp import create_app
    from quizapp.storage.migrate import upgrade

    cfg = {"TESTING": True, "SECRET_KEY": "test-secret",
           "DATABASE_URL": database_url or f"sqlite:///{Path(tmp_path) / 'quiz.sqlite3'}", "GRADE_TIMEOUT": 20,
           # Tests submit and check far faster than a learner; tests/service/test_service_ops.py turns them on.
           "RATELIMIT_ENABLED": False}
    cfg.update(config)
    app = create_app(cfg)
    if migrate:
        upgrade(app)
    return app


def load_sample(app, *questions: dict[str, Any]):
    from quizapp.storage.db import get_db
    from quizapp.services.questions import sync_bank

    with app.app_context():
        session = get_db(app).Session()
        try:
            return sync_bank(session, [(f"test:{q['id']}", q) for q in (questions or (SAMPLE_QUESTION,))])
        finally:
            session.close()




def schema_diffs(engine) -> list:
    """What Alembic's autogenerate finds between the database behind ``engine`` and the models."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from quizapp.storage.models import Base

    with engine.connect() as conn:
        from quizapp.discover.index import autogen_include_name  # the search index's tables are not models

        opts = {"compare_type": True, "include_name": autogen_include_name}
        return compare_metadata(MigrationContext.configure(conn, opts=opts), Base.metadata)


def assert_migration_round_trip(app, *, on_head: Callable[[Any], None] | None = None) -> str:
    """On an app whose database is empty: upgrade to head matches the models (``on_head(connection)`` may check
    more there), a second upgrade migrates nothing, downgrade to base leaves only ``alembic_version`` and
    upgrading again matches the models. Returns the head revision; disposes of the engine."""
    from sqlalchemy import inspect

    from quizapp.storage.db import get_db
    from quizapp.storage.migrate import current_revision, downgrade, head_revision, upgrade

    engine = get_db(app).engine
    assert inspect(engine).get_table_names() == []
    before, after = upgrade(app)
    assert before is None and after == head_revision(app)
    assert schema_diffs(engine) == []
    if on_head is not None:
        with engine.connect() as conn:
            on_head(conn)
    assert upgrade(app) == (after, after)  # a second run migrates nothing
    downgrade(app, "base")
    assert current_revision(app) is None
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade(app)
    assert current_revision(app) == after
    assert schema_diffs(engine) == []
    engine.dispose()
    return after


@contextmanager
def serve_in_thread(app, *, threads: int = 4, name: str = "quiz-live-server") -> Iterator[str]:
    """Serve ``app`` with waitress on a free port of 127.0.0.1 in a daemon thread; yields the base URL."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    closing = threading.Event()

    def run() -> None:
        try:
            server.run()
        except OSError:
            # closing the sockets from this side can land while the loop is in select(): EBADF, nothing lost
            if not closing.is_set():
                raise

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        closing.set()
        server.close()
        thread.join(timeout=10)


def post_attempts_concurrently(url: str, n: int, *, qid: str = SAMPLE_QUESTION["id"], timeout: float = 60,
                               join_timeout: float = 90) -> list[tuple[int | None, Any]]:
    """``n`` threads post an attempt on the sample question to the live server at ``url`` at the same moment
    (variant ``i`` from thread ``i``). Returns ``(status, body)`` per thread: the JSON body on success, the
    error text otherwise (``status`` None when no HTTP answer came), ``None`` for a thread still running."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def submit(i: int) -> None:
        body = json.dumps({"variant": i, "answers": {"a": "1.0", "b": "no" if i % 2 else "yes"}}).encode()
        req = urllib.request.Request(f"{url}/api/v1/questions/{qid}/attempts", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
        barrier.wait()
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                results[i] = (r.status, json.load(r))
        except urllib.error.HTTPError as err:
            results[i] = (err.code, err.read().decode())
        except Exception as exc:  # noqa: BLE001
            results[i] = (None, repr(exc))

    workers = [threading.Thread(target=submit, args=(i,)) for i in range(n)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(join_timeout)
    return results


CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def require_browser() -> None:
    """Fail the test, loudly, when Debian's chromium or chromium-driver is missing."""
    import pytest

    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not (os.path.isfile(p) and os.access(p, os.X_OK))]
    if missing:
        pytest.fail(
            f"browser test needs Debian's chromium and chromium-driver ({', '.join(missing)} missing): "
            "run scripts/install-browser (scripts/test does this)", pytrace=False)


@contextmanager
def headless_chromium(*, window_size: tuple[int, int] = (1280, 900), extra_args: Iterable[str] = (),
                      profile_prefix: str = "quiz-chromium-", log_browser: bool = False,
                      phone: tuple[int, int] | None = None) -> Iterator[Any]:
    """A Selenium driver for /usr/bin/chromium through /usr/bin/chromedriver, headless, on a throwaway
    profile. Selenium Manager is kept offline (``SE_OFFLINE``) so that it never downloads anything;
    ``log_browser`` keeps the browser console log for ``driver.get_log("browser")``; ``phone=(width,
    height)`` starts in :func:`emulate_phone` at that size (``window_size`` alone cannot be a phone's)."""
    require_browser()
    previous = os.environ.get("SE_OFFLINE")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never download a browser or driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix=profile_prefix)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                f"--user-data-dir={profile}", f"--window-size={window_size[0]},{window_size[1]}", *extra_args):
        options.add_argument(arg)
    if log_browser:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = None
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(60)
        if phone is not None:
            emulate_phone(driver, phone)
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        if previous is None:
            os.environ.pop("SE_OFFLINE", None)
        else:
            os.environ["SE_OFFLINE"] = previous


def emulate_phone(driver, size: tuple[int, int] | None, *, scale: float = 2) -> None:
    """A phone's layout viewport of exactly ``size`` CSS px (Chromium's device metrics, ``mobile``: the page's
    viewport meta applies, scroll bars overlay the content), or, with ``None``, the window's own size again.

    A headless Chromium window cannot be narrower than about 500 px, so ``--window-size=375,...`` or
    ``set_window_size(375, ...)`` still lays a page out wider than a phone; only this emulation is 375 px."""
    if size is None:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": size[0], "height": size[1], "deviceScaleFactor": scale, "mobile": True})


def wait_for(driver, condition, message: str, timeout: float = 20):
    """``WebDriverWait(...).until(condition, message)``, polling every 0.1 s.

    A page that replaces the element between finding it and reading it (a live preview swapping its panel)
    is "not yet", not a failure: the condition is polled again.
    """
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)


def open_question(driver, base: str, qid: str, variant: int, *, lang: str = "en", timeout: float = 20) -> None:
    """Open a question page on ``variant`` and wait until its script has started (``data-ready``)."""
    from selenium.webdriver.common.by import By

    driver.get(f"{base}/questions/{qid}?variant={variant}&lang={lang}")
    wait_for(driver, lambda d: d.find_element(By.ID, "question").get_attribute("data-ready") == "1",
             "quiz.js did not start", timeout)


def until_queued(queue, ready: Callable[[], bool], tries: int = 20_000) -> None:
    """Wait (bounded: ``tries`` polls 1 ms apart) until ``ready()`` holds for the group commit's ``queue``
    (:mod:`quizapp.storage.db`), read under its lock."""
    for _ in range(tries):
        with queue.lock:
            if ready():
                return
        threading.Event().wait(0.001)
    raise AssertionError("the writes did not queue up")


def stop_process(proc, timeout: float = 30) -> int:
    """SIGTERM, then SIGKILL if ``proc`` has not exited within ``timeout`` seconds; returns its exit status."""
    import signal
    import subprocess

    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def child_pids(pid: int) -> set[int]:
    """The children of every thread of ``pid`` (a worker's request threads start its grader pool); empty once
    ``pid`` is gone."""
    out: set[int] = set()
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return out
    for task in tasks:
        try:
            out |= {int(p) for p in (task / "children").read_text().split()}
        except FileNotFoundError:  # the thread ended meanwhile
            continue
    return out


def author_login(client, username: str, password: str) -> str:
    """Log in through the author form (with its CSRF token); returns the new session's CSRF token."""
    client.get("/author/login")
    with client.session_transaction() as sess:
        token = sess["csrf"]
    r = client.post("/author/login", data={"username": username, "password": password, "csrf_token": token})
    assert r.status_code == 302, r.get_data(as_text=True)
    with client.session_transaction() as sess:
        return sess["csrf"]


class SqlSeen:
    """What a database ran while :func:`sql_seen` watched: ``statements`` (whitespace folded, transaction
    control left out) and ``commits``."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.commits = 0

    def add(self, statement: str) -> None:
        text = " ".join(statement.split())
        if text.upper() == "COMMIT":
            self.commits += 1
        elif text.upper() not in ("BEGIN", "ROLLBACK"):
            self.statements.append(text)


def values_groups(insert: str) -> int:
    """The rows of an INSERT as SQLite traced it: its VALUES groups (values inlined; the tests' values hold
    no ``), (``)."""
    return insert.split(" VALUES ", 1)[1].count("), (") + 1


@contextmanager
def sql_seen(engine) -> Iterator[SqlSeen]:
    """Watch the SQL run for ``engine``'s database. On SQLite, SQLite's own trace of every connection checked
    out meanwhile, from any engine (the group commit's own engine, and rows it sends to the driver directly,
    included), with the values inlined; elsewhere SQLAlchemy's cursor events of ``engine`` (and its commits)."""
    import sqlite3

    from sqlalchemy import event
    from sqlalchemy.pool import Pool

    seen = SqlSeen()
    if engine.dialect.name != "sqlite":
        def on_execute(_conn, _cursor, statement, *_args):
            seen.add(statement)

        def on_commit(_conn):
            seen.commits += 1

        event.listen(engine, "before_cursor_execute", on_execute)
        event.listen(engine, "commit", on_commit)
        try:
            yield seen
        finally:
            event.remove(engine, "before_cursor_execute", on_execute)
            event.remove(engine, "commit", on_commit)
        return
    traced: list = []
    lock = threading.Lock()

    def locked_add(statement: str) -> None:
        with lock:
            seen.add(statement)

    def on_checkout(dbapi_connection, _record, _proxy):
        if isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.set_trace_callback(locked_add)
            traced.append(dbapi_connection)

    event.listen(Pool, "checkout", on_checkout)
    try:
        yield seen
    finally:
        event.remove(Pool, "checkout", on_checkout)
        for connection in traced:
            try:
                connection.set_trace_callback(None)
            except sqlite3.ProgrammingError:  # closed meanwhile
                pass


def mock_items(app, client) -> list[dict]:
    """The items of ``client``'s mock interview as the server keeps them (the cookie only names it)."""
    from quizapp.storage.db import get_db
    from quizapp.mock.store import SESSION_KEY
    from quizapp.storage.models import MockInterview

    with client.session_transaction() as sess:
        mid = sess[SESSION_KEY]
    with get_db(app).Session() as s:
        return s.get(MockInterview, mid).state["items"]


def from_forked_child(make: Callable[[], str]) -> str:
    """``make()`` run in a child forked from this process, its text read back by the parent (the child leaves
    with ``os._exit``, running none of the parent's clean-up)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.write(write_end, make().encode())
        os._exit(0)
    os.close(write_end)
    try:
        return os.read(read_end, 65536).decode()
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
