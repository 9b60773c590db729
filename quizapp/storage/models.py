"""SQLAlchemy 2.0 models. The schema is created and changed only by the Alembic migrations in
``migrations/`` (tests check that upgrade-to-head and these models agree).

Design notes (so later issues need no redesign):

* ``questions`` holds the stable slug; every content change is a new immutable row in
  ``question_versions`` (``number`` 1, 2, ...), with ``status`` draft | published | retired. At most one
  version per question is published at a time (a partial unique index says so on SQLite and PostgreSQL);
  publishing a new one retires the previous one, and retiring a question retires its published version.
  Learners see the published version; a question with none is hidden.  ``created_by`` names the author
  (a ``learners`` row), ``source`` where the content came from (``bank:L1/x.yaml``, ``api``).
* An attempt records the exact version and variant seed it answered, the raw answers, every part's
  verdict (both languages), the score and whether it ``counted`` (invalid/undecided parts consume no
  attempt), so it can always be re-graded and re-displayed.
* ``learners`` are anonymous (a signed cookie carries the id); ``role`` marks those who may author.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (JSON, Boolean, CheckConstraint, DateTime, Float, ForeignKey, Index, Integer,
                        MetaData, String, Text, UniqueConstraint, text)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from .ids import random_hex_id

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: JSON everywhere, JSONB on PostgreSQL.
JSONDoc = JSON().with_variant(JSONB(), "postgresql")

VERSION_STATUSES = ("draft", "published", "retired")
ROLES = ("learner", "author")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def new_id() -> str:
    return random_hex_id()


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Learner(Base):
    __tablename__ = "learners"
    __table_args__ = (
        CheckConstraint("role IN ('learner', 'author')", name="role"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    role: Mapped[str] = mapped_column(String(16), default="learner", server_default="learner")
    display_name: Mapped[str | None] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    attempts: Mapped[list["Attempt"]] = relationship(back_populates="learner", lazy="raise")


class Question(Base):
    __tablename__ = "questions"

    id: Mapped[str] = mapped_column(String(80), primary_key=True)  # the slug of the question file
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("learners.id", ondelete="SET NULL"))

    versions: Mapped[list["QuestionVersion"]] = relationship(
        back_populates="question", order_by="QuestionVersion.number", lazy="raise")


class QuestionVersion(Base):
    __tablename__ = "question_versions"
    __table_args__ = (
        UniqueConstraint("question_id", "number"),
        CheckConstraint("status IN ('draft', 'published', 'retired')", name="status"),
        Index("ix_question_versions_one_published", "question_id", unique=True,
              sqlite_where=text("status = 'published'"), postgresql_where=text("status = 'published'")),
        Index("ix_question_versions_status_level", "status", "level"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="draft")
    content_hash: Mapped[str] = mapped_column(String(128), index=True)
    level: Mapped[str] = mapped_column(String(8))
    ref: Mapped[str | None] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(JSONDoc)
    source: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("learners.id", ondelete="SET NULL"))
    published_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The author's YAML as written (comments, key order, quoting); None for versions stored from JSON.
    yaml_text: Mapped[str | None] = mapped_column(Text)

    question: Mapped[Question] = relationship(back_populates="versions", lazy="raise")


class Attempt(Base):
    __tablename__ = "attempts"
    __table_args__ = (
        Index("ix_attempts_learner_question_created", "learner_id", "question_id", "created_at"),
        Index("ix_attempts_learner_created", "learner_id", "created_at"),  # history, newest first
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)  # unguessable
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    question_version_id: Mapped[int] = mapped_column(ForeignKey("question_versions.id", ondelete="CASCADE"),
                                                     index=True)
    variant: Mapped[int] = mapped_column(Integer)  # the variant seed, in [0, VARIANT_MAX)
    answers: Mapped[dict[str, Any]] = mapped_column(JSONDoc)  # raw, as submitted
    verdicts: Mapped[dict[str, Any]] = mapped_column(JSONDoc)  # part id -> verdict (both languages)
    score: Mapped[float] = mapped_column(Float)
    max_score: Mapped[float] = mapped_column(Float)
    counted: Mapped[bool] = mapped_column(Boolean)  # False: every part was invalid/undecided
    lang: Mapped[str] = mapped_column(String(8), default="en")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    learner: Mapped[Learner] = relationship(back_populates="attempts", lazy="raise")
    version: Mapped[QuestionVersion] = relationship(lazy="raise")


# ------------------------------------------------------------------------------------------------
# Authoring: credentials of author accounts, API tokens and stored self-test reports.

class AuthorCredential(Base):
    """A login for a ``learners`` row (its ``role`` says whether it may author)."""

    __tablename__ = "author_credentials"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))  # werkzeug scrypt, per-user salt
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    """A bearer token: only its sha256 is stored; shown once when created; revocable."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # the first characters, to recognise a token
    name: Mapped[str | None] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class VersionCheck(Base):
    """The latest schema + self-test report of a question version (publishing re-runs it)."""

    __tablename__ = "version_checks"

    version_id: Mapped[int] = mapped_column(ForeignKey("question_versions.id", ondelete="CASCADE"),
                                            primary_key=True)
    ok: Mapped[bool] = mapped_column(Boolean)
    seeds: Mapped[int] = mapped_column(Integer)
    failures: Mapped[list[Any]] = mapped_column(JSONDoc)
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ------------------------------------------------------------------------------------------------
# Login throttling: failed password logins, shared by every worker through the database.

class LoginFailure(Base):
    """One failed (or still being checked) password login: counted per username and per client address
    over a sliding window by :mod:`quizapp.auth.throttle`; a success deletes its username's rows and rows
    older than the window are pruned."""

    __tablename__ = "login_failures"
    __table_args__ = (
        Index("ix_login_failures_username_created", "username", "created_at"),
        Index("ix_login_failures_address_created", "address", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(255))  # as typed, lower-cased (unknown names too)
    address: Mapped[str] = mapped_column(String(64))    # the client's address
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


# ------------------------------------------------------------------------------------------------
# Learner memory: optional learner accounts and the spaced-review cards (FSRS state per question).

class LearnerAccount(Base):
    """An email + password sign-in for a ``learners`` row (learners without one stay cookie learners).
    The password hash uses the author accounts' scheme (werkzeug scrypt, per-user salt)."""

    __tablename__ = "learner_accounts"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)  # lower-cased
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SignedInSession(Base):
    """One signed-in browser session of a learner account. The Flask session cookie names it; signing out
    deletes the row, so a copy of the cookie taken before is refused afterwards (the cookie is signed, not
    revocable, by itself)."""

    __tablename__ = "signed_in_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # random, URL-safe
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MockInterview(Base):
    """A mock interview's state (the drawn questions, their clocks and attempts), kept on the server: the
    learner's cookie names it only, so a restored older cookie cannot reopen a question already answered or
    a set whose report was read."""

    __tablename__ = "mock_interviews"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # random, URL-safe
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), index=True)
    state: Mapped[dict[str, Any]] = mapped_column(JSONDoc)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class ReviewCard(Base):
    """The FSRS card of one question for one learner (the fields of ``fsrs.Card``), plus the attempt
    whose free-text parts still wait for the learner's own rating."""

    __tablename__ = "review_cards"
    __table_args__ = (
        Index("ix_review_cards_learner_due", "learner_id", "due"),
    )

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"), primary_key=True)
    state: Mapped[int] = mapped_column(Integer)  # fsrs.State: 1 learning, 2 review, 3 relearning
    step: Mapped[int | None] = mapped_column(Integer)
    stability: Mapped[float | None] = mapped_column(Float)
    difficulty: Mapped[float | None] = mapped_column(Float)
    due: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_review: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reps: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    last_rating: Mapped[int | None] = mapped_column(Integer)  # fsrs.Rating 1..4
    pending_attempt_id: Mapped[str | None] = mapped_column(ForeignKey("attempts.id", ondelete="SET NULL"))
    pending_rating: Mapped[int | None] = mapped_column(Integer)  # the graded parts' rating, if any


# ------------------------------------------------------------------------------------------------
# Practice: what a learner asked for while working on one variant (a hint, the solution).

PRACTICE_EVENT_KINDS = ("hint", "solution")


class PracticeEvent(Base):
    """One hint shown or one "show solution" on a (learner, question, variant): the attempt policy
    (:mod:`quizapp.study.policy`) reads them to decide when the solution may be shown and how much
    credit a part still earns; the review scheduler rates a question whose solution was asked for as Again."""

    __tablename__ = "practice_events"
    __table_args__ = (
        CheckConstraint("kind IN ('hint', 'solution')", name="kind"),
        Index("ix_practice_events_learner_question_variant", "learner_id", "question_id", "variant"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    variant: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    part_id: Mapped[str | None] = mapped_column(String(32))  # the part of a hint (None for the solution)
    hint_index: Mapped[int | None] = mapped_column(Integer)  # 0 = the gentlest hint of that part
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PracticeSummary(Base):
    """What the attempt policy (:mod:`quizapp.study.policy`) knows of one learner on one question, kept
    up to date by each attempt in the attempt's own transaction (:mod:`quizapp.study.summary`), so that a
    submit reads one row instead of the learner's whole history of the question. ``state`` is the walked
    timeline: the running tries and hints since the last reveal and, per revealed variant, its tries,
    whether solved or requested, and its hints. Hints and solution requests are folded in from their
    ``practice_events`` rows above ``last_event_id``. ``attempts`` counts the attempts folded in (the row's
    version: an update that finds another count deletes the row, and the next submit rebuilds it).
    ``version_id`` is the question version the walk judged by (another version rebuilds it)."""

    __tablename__ = "practice_summaries"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    question_id: Mapped[str] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"), primary_key=True)
    version_id: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(JSONDoc)
    attempts: Mapped[int] = mapped_column(Integer)
    last_event_id: Mapped[int] = mapped_column(Integer)
    last_short_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # latest counted, not full
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
