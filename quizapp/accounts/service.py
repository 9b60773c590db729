"""Learner accounts without Flask: sign-up, sign-in, moving a cookie learner's data, export, deletion.

Passwords reuse :mod:`quizapp.auth.accounts` (werkzeug scrypt with a per-user salt, the same length rules,
a dummy hash verified for unknown emails so both cases cost one KDF run).

Deleting an account deletes the ``learners`` row; the database cascades to its attempts, review cards,
tokens and credentials: attempts are **removed**, not anonymised (nothing of the learner is kept).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any
import json

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from ..auth import accounts as author_accounts
from ..errors import Conflict, ValidationError
from ..study import summary as practice_summary
from ..storage.ids import random_hex_id
from ..storage.models import ApiToken, Attempt, AuthorCredential, Learner, LearnerAccount, ReviewCard, utcnow
from ..timeutil import iso_utc
from ..study.review import card_view

EMAIL_MAX = 254
# One @, a non-empty local part without spaces, a domain with a dot: enough to catch typos; the address
# is never mailed.
EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s.]+(\.[^@\s.]+)+$")


def normalize_email(email: Any) -> str:
    if not isinstance(email, str) or not email.strip():
        raise ValidationError("email is required", "email", code="missing_field")
    value = email.strip().lower()
    if len(value) > EMAIL_MAX:
        raise ValidationError(f"the email address must have at most {EMAIL_MAX} characters", "email")
    if not EMAIL_RE.match(value):
        raise ValidationError("this is not an email address (name@example.org)", "email", code="invalid_email")
    return value


def check_password(password: Any, email: str) -> str:
    try:
        author_accounts._check_password(password)
    except author_accounts.AccountError as exc:
        raise ValidationError(exc.message, "password", code="weak_password") from None
    if password.strip().lower() == email or len(set(password)) < 4:
        raise ValidationError("the password is too easy to guess: use at least 4 different characters, "
                              "not your email", "password", code="weak_password")
    return password


def signup(session: Session, email: Any, password: Any, cookie_learner_id: str | None = None) -> str:
    """A new account (committed) holding the cookie learner's attempts and cards; its learner id."""
    email = normalize_email(email)
    check_password(password, email)
    if session.scalar(select(LearnerAccount.learner_id).where(LearnerAccount.email == email)) is not None:
        raise Conflict("an account with this email exists: sign in instead", "email", code="account_exists")
    learner_id = random_hex_id()
    session.add(Learner(id=learner_id, role="learner", display_name=None))
    session.flush()
    session.add(LearnerAccount(learner_id=learner_id, email=email, password_hash=generate_password_hash(
        password, method=author_accounts.PASSWORD_METHOD)))
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict("an account with this email exists: sign in instead", "email",
                       code="account_exists") from None
    if cookie_learner_id:
        merge_learner(session, cookie_learner_id, learner_id)
    return learner_id


def authenticate(session: Session, email: Any, password: Any) -> str | None:
    """The account's learner id when the password matches, else None (one KDF run either way)."""
    if not isinstance(email, str) or not isinstance(password, str) or len(password) > author_accounts.MAX_PASSWORD:
        return None
    account = session.scalar(select(LearnerAccount).where(LearnerAccount.email == email.strip().lower()[:EMAIL_MAX]))
    if account is None:
        check_password_hash(author_accounts._DUMMY_HASH, password)
        return None
    if not check_password_hash(account.password_hash, password):
        return None
    account.last_login_at = utcnow()
    session.commit()
    return account.learner_id


def merge_learner(session: Session, from_id: str, to_id: str) -> int:
    """Move every attempt and review card of cookie learner ``from_id`` to ``to_id`` (committed); a
    question with a card on both sides keeps the more recently reviewed one. Returns attempts moved.
    Only a plain cookie learner (no account, no login, not an author) is ever merged away."""
    if not from_id or from_id == to_id:
        return 0
    source = session.get(Learner, from_id)
    if source is None or source.role != "learner" or session.get(LearnerAccount, from_id) is not None \
            or session.get(AuthorCredential, from_id) is not None:
        return 0
    theirs = {c.question_id: c for c in session.scalars(select(ReviewCard).where(ReviewCard.learner_id == from_id))}
    mine = {c.question_id: c for c in session.scalars(select(ReviewCard).where(ReviewCard.learner_id == to_id))}
    for qid, card in theirs.items():
        other = mine.get(qid)
        newer = other is None or (card.last_review is not None and (other.last_review is None
                                                                    or card.last_review > other.last_review))
        if other is not None and newer:
            session.delete(other)
            session.flush()
        if newer:
            session.execute(update(ReviewCard).where(ReviewCard.learner_id == from_id, ReviewCard.question_id == qid)
                            .values(learner_id=to_id))
    moved = session.execute(update(Attempt).where(Attempt.learner_id == from_id).values(learner_id=to_id)).rowcount
    practice_summary.forget(session, to_id)  # its histories gained attempts: rebuilt at the next submit
    session.execute(delete(ReviewCard).where(ReviewCard.learner_id == from_id))
    session.execute(delete(Learner).where(Learner.id == from_id))
    session.commit()
    return int(moved or 0)


def account_of(session: Session, learner_id: str | None) -> LearnerAccount | None:
    return session.get(LearnerAccount, learner_id) if learner_id else None


def delete_account(session: Session, learner_id: str) -> int:
    """Delete the account and everything of it (committed); the number of attempts removed."""
    n = session.scalar(select(func.count()).select_from(Attempt).where(Attempt.learner_id == learner_id))
    session.execute(delete(Learner).where(Learner.id == learner_id))
    session.commit()
    return n


def account_view(account: LearnerAccount) -> dict[str, Any]:
    return {"learner_id": account.learner_id, "email": account.email, "created_at": iso_utc(account.created_at),
            "last_login_at": iso_utc(account.last_login_at)}


def token_view(row: ApiToken) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "prefix": row.prefix, "created_at": iso_utc(row.created_at),
            "last_used_at": iso_utc(row.last_used_at), "revoked_at": iso_utc(row.revoked_at)}


CSV_COLUMNS = ("attempt_id", "created_at", "question_id", "version_id", "variant", "score", "max_score", "counted",
               "lang", "answers", "statuses")


def export(session: Session, learner_id: str) -> dict[str, Any]:
    """Everything stored about the learner: account, attempts (answers and verdicts), review cards, tokens."""
    account = account_of(session, learner_id)
    attempts = session.scalars(select(Attempt).where(Attempt.learner_id == learner_id)
                               .order_by(Attempt.created_at, Attempt.id))
    return {
        "account": account_view(account) if account else {"learner_id": learner_id, "email": None},
        "attempts": [{"attempt_id": a.id, "created_at": iso_utc(a.created_at), "question_id": a.question_id,
                      "version_id": a.question_version_id, "variant": a.variant, "answers": a.answers,
                      "verdicts": a.verdicts, "score": a.score, "max_score": a.max_score, "counted": a.counted,
                      "lang": a.lang} for a in attempts],
        "review_cards": [card_view(c) for c in session.scalars(
            select(ReviewCard).where(ReviewCard.learner_id == learner_id).order_by(ReviewCard.question_id))],
        "tokens": [token_view(t) for t in author_accounts.list_tokens(session, learner_id)],
    }


def export_csv(data: dict[str, Any]) -> str:
    """The attempts of :func:`export` as CSV (answers as JSON text, part statuses as ``a=correct;b=...``)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for a in data["attempts"]:
        statuses = ";".join(f"{pid}={(v or {}).get('status')}" for pid, v in sorted((a["verdicts"] or {}).items()))
        row = [a["attempt_id"], a["created_at"], a["question_id"], a["version_id"], a["variant"], a["score"],
               a["max_score"], a["counted"], a["lang"], json.dumps(a["answers"], ensure_ascii=False), statuses]
        # A cell starting with = + - @ would run as a formula in a spreadsheet: quote it as text.
        writer.writerow(["'" + c if isinstance(c, str) and c[:1] in "=+-@" else c for c in row])
    return out.getvalue()

