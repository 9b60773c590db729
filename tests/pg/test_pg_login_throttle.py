"""Login throttling on a real (throwaway) PostgreSQL: the lockout, its end and the reset, and concurrent
attempts (threads with their own connections, like several workers) never check more passwords than allowed."""

import threading
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select

from quizapp.auth import accounts, create_author, throttle
from quizapp.storage.db import get_db
from quizapp.storage.models import LoginFailure

PASSWORD = "correct horse battery"


def _author(app, username="alice"):
    with app.app_context(), get_db(app).Session() as s:
        create_author(s, username, PASSWORD)


def _client(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    client.get("/author/login")
    return client


def _login(client, username, password):
    with client.session_transaction() as sess:
        token = sess["csrf"]
    return client.post("/author/login", data={"username": username, "password": password, "csrf_token": token})


def test_pg_login_lockout_and_reset(pg_app, monkeypatch):
    _author(pg_app)
    clock = [datetime(2030, 1, 1, tzinfo=timezone.utc)]
    monkeypatch.setattr(throttle, "now", lambda: clock[0])
    c = _client(pg_app, "10.1.0.1")
    for _ in range(5):
        assert _login(c, "alice", "wrong password!!").status_code == 401
    r = _login(c, "alice", PASSWORD)
    assert r.status_code == 429 and r.headers["Retry-After"] == "60"
    clock[0] += timedelta(seconds=61)
    assert _login(c, "alice", PASSWORD).status_code == 302
    with get_db(pg_app).Session() as s:
        assert s.scalar(select(func.count()).select_from(LoginFailure)) == 0


def test_pg_concurrent_attempts_check_at_most_n_passwords(pg_app, monkeypatch):
    _author(pg_app)
    checks = []
    real = accounts.check_password_hash
    lock = threading.Lock()

    def counting(pwhash, password):
        with lock:
            checks.append(1)
        return real(pwhash, password)

    monkeypatch.setattr(accounts, "check_password_hash", counting)
    pg_app.config["LOGIN_MAX_FAILURES_PER_USERNAME"] = 5  # the limit over all addresses, made small here
    n = 12
    clients = [_client(pg_app, f"10.2.0.{i}") for i in range(n)]  # other addresses: only the username limit
    barrier = threading.Barrier(n)
    statuses = [None] * n

    def run(i):
        barrier.wait(timeout=30)
        statuses[i] = _login(clients[i], "alice", "wrong password!!").status_code

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert set(statuses) <= {401, 429} and statuses.count(401) <= 5
    assert len(checks) == statuses.count(401) <= 5  # refused attempts checked no password
    with get_db(pg_app).Session() as s:
        assert s.scalar(select(func.count()).select_from(LoginFailure)) == statuses.count(401)
