"""Login throttling: failures per username and per client address live in the database (several workers
share them); after N failures the login answers 429 with Retry-After and checks no password, for a delay
that grows with further failures; a success resets the username's counter; old rows are pruned.
Time is moved by monkeypatching ``quizapp.auth.throttle.now`` (no sleeping)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select

from quizapp.auth import accounts, throttle
from quizapp.storage.db import get_db
from quizapp.storage.models import LoginFailure

T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(throttle, "now", c)
    return c


@pytest.fixture
def kdf_calls(monkeypatch):
    """How many password hashes were verified (the lockout must check none)."""
    calls = []
    real = accounts.check_password_hash

    def counting(pwhash, password):
        calls.append(1)
        return real(pwhash, password)

    monkeypatch.setattr(accounts, "check_password_hash", counting)
    return calls


def client_at(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    client.get("/author/login")
    return client


def attempt(client, username: str, password: str):
    with client.session_transaction() as sess:
        token = sess["csrf"]
    return client.post("/author/login", data={"username": username, "password": password, "csrf_token": token})


def failures(app, **where) -> int:
    with get_db(app).Session() as s:
        stmt = select(func.count()).select_from(LoginFailure)
        for column, value in where.items():
            stmt = stmt.where(getattr(LoginFailure, column) == value)
        return s.scalar(stmt)


def test_throttle_locks_after_n_failures_until_the_delay_passes(authoring_app, authoring_passwords, clock,
                                                               kdf_calls):
    alice = client_at(authoring_app, "10.0.0.1")
    for _ in range(5):
        assert attempt(alice, "alice", "wrong password!!").status_code == 401
    assert len(kdf_calls) == 5 and failures(authoring_app, username="alice") == 5
    r = attempt(alice, "alice", authoring_passwords["alice"])
    assert r.status_code == 429 and r.headers["Retry-After"] == "60"
    assert b"Too many failed logins" in r.data
    assert len(kdf_calls) == 5  # no password check while locked
    assert alice.get("/author/").status_code == 302  # not logged in
    # the refusal is not a failure of its own; the lock still holds half-way
    assert failures(authoring_app, username="alice") == 5
    clock.advance(30)
    r = attempt(alice, "Alice", authoring_passwords["alice"])  # the username's case does not escape it
    assert r.status_code == 429 and r.headers["Retry-After"] == "30"
    # another username from another address is unaffected
    bob = client_at(authoring_app, "10.0.0.2")
    assert attempt(bob, "bob", authoring_passwords["bob"]).status_code == 302
    clock.advance(31)
    r = attempt(alice, "alice", authoring_passwords["alice"])
    assert r.status_code == 302 and alice.get("/author/").status_code == 200
    assert failures(authoring_app, username="alice") == 0  # success resets the counter


def test_throttle_delay_grows_and_success_resets(authoring_app, authoring_passwords, clock):
    c = client_at(authoring_app, "10.0.0.1")
    for _ in range(5):
        assert attempt(c, "alice", "wrong password!!").status_code == 401
    clock.advance(61)
    assert attempt(c, "alice", "wrong password!!").status_code == 401  # allowed again, and wrong
    r = attempt(c, "alice", authoring_passwords["alice"])
    assert r.status_code == 429 and r.headers["Retry-After"] == "120"  # 6 failures: twice as long
    clock.advance(121)
    assert attempt(c, "alice", authoring_passwords["alice"]).status_code == 302
    c = client_at(authoring_app, "10.0.0.1")  # logged out; the counter starts again from zero
    for _ in range(4):
        assert attempt(c, "alice", "wrong password!!").status_code == 401
    assert attempt(c, "alice", authoring_passwords["alice"]).status_code == 302


def test_throttle_per_address_and_unknown_usernames(authoring_app, authoring_passwords, clock, kdf_calls):
    authoring_app.config["LOGIN_MAX_FAILURES_PER_ADDRESS"] = 6
    spray = client_at(authoring_app, "192.0.2.7")
    for i in range(6):  # one guess per (mostly unknown) username: no username reaches its limit
        assert attempt(spray, f"user{i}", "wrong password!!").status_code == 401
    r = attempt(spray, "bob", authoring_passwords["bob"])
    assert r.status_code == 429 and int(r.headers["Retry-After"]) == 60 and len(kdf_calls) == 6
    assert attempt(client_at(authoring_app, "192.0.2.8"), "bob", authoring_passwords["bob"]).status_code == 302
    # an unknown username is throttled like a real one (no hint that it does not exist)
    ghost = client_at(authoring_app, "198.51.100.1")
    for _ in range(5):
        assert attempt(ghost, "nobody-here", "wrong password!!").status_code == 401
    assert attempt(ghost, "nobody-here", "wrong password!!").status_code == 429


def test_throttle_prunes_old_failures(authoring_app, clock):
    c = client_at(authoring_app, "10.0.0.1")
    for _ in range(3):
        attempt(c, "alice", "wrong password!!")
    assert failures(authoring_app) == 3
    clock.advance(15 * 60 + 1)
    attempt(c, "bob", "wrong password!!")
    assert failures(authoring_app) == 1 and failures(authoring_app, username="bob") == 1


def test_throttle_policy_from_config():
    p = throttle.Policy.from_config({"LOGIN_MAX_FAILURES": "3", "LOGIN_WINDOW_S": 600, "LOGIN_MAX_DELAY_S": 9999})
    assert p.max_failures == 3 and p.window == 600 and p.max_delay == 600  # never longer than the window
    assert [p.delay(n, 3) for n in (2, 3, 4, 5, 10)] == [0, 60, 120, 240, 600]
