"""Author accounts and API tokens (no Flask here: the CLI, the API and the pages call these).

Passwords: werkzeug's scrypt (a memory-hard KDF with a random per-user salt). Tokens: ``qa_`` + 32 random
bytes (URL-safe base64); the database keeps only their sha256, their first characters (to tell them apart)
and when they were last used and revoked.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from ..storage.ids import random_hex_id
from ..storage.models import ApiToken, AuthorCredential, Learner, utcnow
from ..timeutil import iso_utc

USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{1,79}$")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
TOKEN_PREFIX = "qa_"
PASSWORD_METHOD = "scrypt"
# Verified against when the username is unknown, so both cases cost one KDF run.
# The stored hash an unknown username is checked against, so that its login costs one scrypt run like a real
# one. Written out in generate_password_hash's format (werkzeug's scrypt parameters, a 16-character salt, a
# 64-byte digest) rather than made by it: making it cost a scrypt derivation (~0.3 s, 32 MiB) in every
# process importing this module (the serve master, each CLI command), and a digest of zeros matches nothing.
_DUMMY_HASH = f"scrypt:32768:8:1${secrets.token_hex(8)}${'0' * 128}"


class AccountError(ValueError):
    """A bad username/password/token request (the message names the problem)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class Principal:
    learner_id: str
    role: str
    via: str                     # "token" | "session"
    username: str | None = None
    token_id: int | None = None

    @property
    def is_author(self) -> bool:
        return self.role == "author"


def _check_password(password: str) -> None:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AccountError(f"the password must have at least {MIN_PASSWORD} characters", "password")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"the password must have at most {MAX_PASSWORD} characters", "password")


def create_author(session: Session, username: str, password: str, *, role: str = "author",
                  display_name: str | None = None) -> Learner:
    """A new learners row with ``role`` and a password credential (committed)."""
    if not isinstance(username, str) or not USERNAME_RE.match(username):
        raise AccountError("the username must be 2-80 letters, digits or _ . @ -", "username")
    if role not in ("author", "learner"):
        raise AccountError("role must be author or learner", "role")
    _check_password(password)
    if session.scalar(select(AuthorCredential).where(AuthorCredential.username == username)) is not None:
        raise AccountError(f"the username {username!r} is taken", "username")
    learner = Learner(id=random_hex_id(), role=role, display_name=display_name or username)
    session.add(learner)
    session.flush()
    session.add(AuthorCredential(learner_id=learner.id, username=username,
                                 password_hash=generate_password_hash(password, method=PASSWORD_METHOD)))
    session.commit()
    return learner


def set_password(session: Session, username: str, password: str) -> None:
    _check_password(password)
    cred = session.scalar(select(AuthorCredential).where(AuthorCredential.username == username))
    if cred is None:
        raise AccountError(f"no account {username!r}", "username")
    cred.password_hash = generate_password_hash(password, method=PASSWORD_METHOD)
    session.commit()


def authenticate_password(session: Session, username: str, password: str) -> Principal | None:
    """The account's principal when the password matches, else None (constant work either way)."""
    if not isinstance(username, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
        return None
    cred = session.scalar(select(AuthorCredential).where(AuthorCredential.username == username))
    if cred is None:
        check_password_hash(_DUMMY_HASH, password)
        return None
    if not check_password_hash(cred.password_hash, password):
        return None
    learner = session.get(Learner, cred.learner_id)
    if learner is None:
        return None
    cred.last_login_at = utcnow()
    session.commit()
    return Principal(learner.id, learner.role, "session", username=cred.username)


def principal_for_session(session: Session, learner_id: str) -> Principal | None:
    learner = session.get(Learner, learner_id) if isinstance(learner_id, str) else None
    if learner is None:
        return None
    cred = session.get(AuthorCredential, learner_id)
    return Principal(learner.id, learner.role, "session", username=cred.username if cred else None)


def learner_for_username(session: Session, username: str) -> Learner | None:
    cred = session.scalar(select(AuthorCredential).where(AuthorCredential.username == username))
    return session.get(Learner, cred.learner_id) if cred else None


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(session: Session, learner_id: str, name: str | None = None) -> tuple[ApiToken, str]:
    """A new token for ``learner_id``: returns (row, the token itself, which is never stored)."""
    if session.get(Learner, learner_id) is None:
        raise AccountError(f"no account {learner_id!r}", "learner_id")
    if name is not None and (not isinstance(name, str) or len(name) > 120):
        raise AccountError("the token name must be at most 120 characters", "name")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(learner_id=learner_id, token_hash=token_digest(token), prefix=token[:10], name=name or None)
    session.add(row)
    session.commit()
    return row, token


def resolve_token(session: Session, token: str, *, touch: bool = False) -> tuple[ApiToken, Learner] | None:
    """The (token row, learner) of a live token, else None. ``touch`` records ``last_used_at``."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    digest = token_digest(token)
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == digest))
    if row is None or row.revoked_at is not None or not hmac.compare_digest(row.token_hash, digest):
        return None
    learner = session.get(Learner, row.learner_id)
    if learner is None:
        return None
    if touch:
        row.last_used_at = utcnow()
        session.commit()
    return row, learner


def list_tokens(session: Session, learner_id: str) -> list[ApiToken]:
    return list(session.scalars(select(ApiToken).where(ApiToken.learner_id == learner_id)
                                .order_by(ApiToken.created_at.desc(), ApiToken.id.desc())))


def revoke_token(session: Session, token_id: int, *, learner_id: str | None = None) -> ApiToken:
    """Revoke token ``token_id`` (of ``learner_id`` when given); idempotent."""
    row = session.get(ApiToken, token_id) if isinstance(token_id, int) else None
    if row is None or (learner_id is not None and row.learner_id != learner_id):
        raise AccountError(f"no token {token_id!r}", "token_id")
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        session.commit()
    return row


def iso(dt: datetime | None) -> str | None:
    return iso_utc(dt)
