"""Throttling of password logins, shared by every worker through the database (no in-memory counters).

Every password attempt first writes a ``login_failures`` row (username lower-cased, client address) and
commits it, *then* counts the rows of the last ``window`` seconds written before it. When the username has
``max_failures`` or more of them *from this client address* (or the address ``max_failures_per_address`` for
any usernames, or the username ``max_failures_per_username`` from all addresses together), the attempt is
refused until
the newest of those rows is ``delay`` seconds old, where the delay grows with every further failure:
``base_delay * 2 ** (failures - max_failures)``, at most ``max_delay``. A refused attempt deletes its own row
(it is not a failure: no password was checked) and is answered 429 with ``Retry-After``.
An allowed attempt keeps its row when the password is wrong; a success deletes every row of its username.

Counting a username's failures per client address is what keeps one attacker from locking a learner out: the
attacker's failures lock the attacker's address, while the learner, from another address, still signs in. The
username's total over all addresses (much higher) still stops a guessing run spread over many addresses.

Writing before counting makes concurrent attempts on several workers see each other: whichever commits
second counts the first, so no more attempts than allowed reach the password check. Rows older than the
window are pruned on every attempt.

Tests move time by monkeypatching :func:`now`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ..storage.models import LoginFailure

USERNAME_MAX = 255
ADDRESS_MAX = 64


def now() -> datetime:
    """The throttle's clock (UTC); tests replace it."""
    return datetime.now(timezone.utc)


def _aware(dt: datetime) -> datetime:
    """SQLite hands back naive UTC datetimes, PostgreSQL aware ones."""
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt


def username_key(username: Any) -> str:
    return (username if isinstance(username, str) else "").strip().lower()[:USERNAME_MAX]


def address_key(address: Any) -> str:
    return (address if isinstance(address, str) and address else "unknown")[:ADDRESS_MAX]


@dataclass(frozen=True)
class Policy:
    max_failures: int = 5               # per username from one client address within the window
    max_failures_per_address: int = 20  # per client address (several people may share one)
    max_failures_per_username: int = 100  # per username from every address together
    window: int = 15 * 60               # seconds over which failures count
    base_delay: int = 60                # lock after max_failures: 1 min, then 2, 4, 8 ...
    max_delay: int = 15 * 60            # ... at most this (never longer than the window)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "Policy":
        """``LOGIN_MAX_FAILURES``, ``LOGIN_MAX_FAILURES_PER_ADDRESS``, ``LOGIN_MAX_FAILURES_PER_USERNAME``,
        ``LOGIN_WINDOW_S``,
        ``LOGIN_BASE_DELAY_S``, ``LOGIN_MAX_DELAY_S`` override the defaults."""
        d = cls()
        window = max(1, int(config.get("LOGIN_WINDOW_S", d.window)))
        return cls(max_failures=max(1, int(config.get("LOGIN_MAX_FAILURES", d.max_failures))),
                   max_failures_per_address=max(1, int(config.get("LOGIN_MAX_FAILURES_PER_ADDRESS",
                                                                  d.max_failures_per_address))),
                   max_failures_per_username=max(1, int(config.get("LOGIN_MAX_FAILURES_PER_USERNAME",
                                                                   d.max_failures_per_username))),
                   window=window,
                   base_delay=max(1, int(config.get("LOGIN_BASE_DELAY_S", d.base_delay))),
                   max_delay=min(window, max(1, int(config.get("LOGIN_MAX_DELAY_S", d.max_delay)))))

    def delay(self, failures: int, limit: int) -> int:
        """Seconds locked after the newest of ``failures`` recent failures (0 below ``limit``)."""
        if failures < limit:
            return 0
        return min(self.max_delay, self.base_delay * 2 ** min(failures - limit, 30))


@dataclass(frozen=True)
class Attempt:
    """The outcome of :func:`begin`: ``retry_after`` seconds when refused, else the row to settle."""

    row_id: int | None
    username: str
    retry_after: int = 0

    @property
    def refused(self) -> bool:
        return self.retry_after > 0


def _remaining(session: Session, policy: Policy, match: list, limit: int, row_id: int, at: datetime) -> float:
    since = at - timedelta(seconds=policy.window)
    count, newest = session.execute(
        select(func.count(), func.max(LoginFailure.created_at))
        .where(*match, LoginFailure.created_at > since, LoginFailure.id != row_id)).one()
    delay = policy.delay(int(count or 0), limit)
    if not delay or newest is None:
        return 0.0
    return (_aware(newest) + timedelta(seconds=delay) - at).total_seconds()


def begin(session: Session, username: Any, address: Any, policy: Policy | None = None) -> Attempt:
    """Record an attempt (committed) and decide whether its password may be checked."""
    policy = policy or Policy()
    user, addr = username_key(username), address_key(address)
    at = now()
    session.execute(delete(LoginFailure).where(LoginFailure.created_at <= at - timedelta(seconds=policy.window)))
    row = LoginFailure(username=user, address=addr, created_at=at)
    session.add(row)
    session.commit()
    # Rows other attempts committed before this count, mine excluded (same timestamp or not).
    wait = max(_remaining(session, policy, [LoginFailure.username == user, LoginFailure.address == addr],
                          policy.max_failures, row.id, at),
               _remaining(session, policy, [LoginFailure.address == addr], policy.max_failures_per_address,
                          row.id, at),
               _remaining(session, policy, [LoginFailure.username == user], policy.max_failures_per_username,
                          row.id, at))
    if wait > 0:
        session.execute(delete(LoginFailure).where(LoginFailure.id == row.id))
        session.commit()
        return Attempt(None, user, retry_after=max(1, math.ceil(wait)))
    return Attempt(row.id, user)


def succeeded(session: Session, attempt: Attempt) -> None:
    """The password was right: forget every failure of this username (its counter starts again)."""
    session.execute(delete(LoginFailure).where(LoginFailure.username == attempt.username))
    session.commit()


def failed(session: Session, attempt: Attempt) -> None:
    """The password was wrong: the row written by :func:`begin` stays as the failure."""


def clear(session: Session, username: Any | None = None) -> int:
    """Delete the failures of ``username`` (every failure when None); the number deleted."""
    stmt = delete(LoginFailure)
    if username is not None:
        stmt = stmt.where(LoginFailure.username == username_key(username))
    result = session.execute(stmt)
    session.commit()
    return int(result.rowcount or 0)


__all__ = ["Attempt", "Policy", "begin", "clear", "failed", "now", "succeeded"]
