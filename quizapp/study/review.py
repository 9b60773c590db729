"""Spaced review with FSRS (the ``fsrs`` package, py-fsrs): one card per learner and question.

A card is a *question*, not a part: the review page serves a fresh random variant of the whole question,
and its parts test one method together, so recalling the method is one memory. The card's fields are the
``fsrs.Card`` fields, stored in ``review_cards`` (portable columns: the schedule survives restarts,
migrations and a move from SQLite to PostgreSQL).

Rating an attempt (:func:`attempt_rating`) from its graded (non-free-text) parts:

* full marks, and no earlier attempt on the question within :data:`RETRY_WINDOW` fell short -> Good;
* full marks after such a retry -> Hard;
* anything less (wrong, partial, a part left out) -> Again.

* the learner asked for the solution of the attempt's variant before submitting it -> Again (asking for
  the solution is itself rated Again at once, :func:`record_reveal`);
* full marks reached with hints (a part's ``hints_used``, :mod:`quizapp.study.credit`) -> Hard at best.

The service does not time answers, so Easy comes only from the learner. Free-text parts cannot be graded:
an attempt that answers one waits for the learner's own rating (Again / Hard / Good / Easy, after reading
the key points); the card then takes the lower of that rating and the graded parts' rating.

Scheduling uses FSRS's default parameters, retention 0.9, without interval fuzzing so that a due date is
predictable (and testable).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, Mapping

from fsrs import Card, Rating, Scheduler, State
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session
from checkers.kinds import Kind, find_kind

from ..storage.group_commit import insert_unless_present
from ..errors import Conflict, ValidationError
from ..storage.models import Attempt, QuestionVersion, ReviewCard
from ..timeutil import iso_utc
from ..i18n import localized
from . import clock
from .clock import aware
from .grades import EPS
from .policy import ATTEMPT, solution_requested_before

RETRY_WINDOW = timedelta(hours=12)
RATINGS = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}
RATING_NAMES = {int(r): name for name, r in RATINGS.items()}
STATE_NAMES = {int(State.Learning): "learning", int(State.Review): "review", int(State.Relearning): "relearning"}

SCHEDULER = Scheduler(enable_fuzzing=False)


def parse_rating(value: Any, field: str = "rating") -> Rating:
    """``again|hard|good|easy`` or ``1..4``."""
    if isinstance(value, str) and value.strip().lower() in RATINGS:
        return RATINGS[value.strip().lower()]
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON does not tell 3 from 3.0, and the document's integer type admits both
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4:
        return Rating(value)
    raise ValidationError("rating must be one of again, hard, good, easy (or 1-4)", field)


def to_card(row: ReviewCard) -> Card:
    return Card(card_id=1, state=State(row.state), step=row.step, stability=row.stability,
                difficulty=row.difficulty, due=aware(row.due), last_review=aware(row.last_review))


def _store(row: ReviewCard, card: Card, rating: Rating) -> None:
    row.state, row.step = int(card.state), card.step
    row.stability, row.difficulty = card.stability, card.difficulty
    row.due, row.last_review = card.due, card.last_review
    row.reps = (row.reps or 0) + 1
    if rating == Rating.Again and row.last_rating is not None:
        row.lapses = (row.lapses or 0) + 1
    row.last_rating = int(rating)
    row.pending_attempt_id = None
    row.pending_rating = None


def _new_card(learner_id: str, question_id: str, at: datetime) -> dict[str, Any]:
    """The columns of a card never reviewed, due now."""
    return {"learner_id": learner_id, "question_id": question_id, "state": int(State.Learning), "step": 0,
            "due": at, "reps": 0, "lapses": 0}


def _new_row(learner_id: str, question_id: str, at: datetime) -> ReviewCard:
    return ReviewCard(**_new_card(learner_id, question_id, at))


def review(row: ReviewCard, rating: Rating, at: datetime) -> ReviewCard:
    """Apply one FSRS review to ``row`` (not committed)."""
    card, _log = SCHEDULER.review_card(to_card(row), rating, review_datetime=at)
    _store(row, card, rating)
    return row


def _freetext_ids(data: Mapping[str, Any], kinds: Mapping[str, Kind] | None = None) -> frozenset[str]:
    """The parts the learner rates (their kind is not machine-graded); ``kinds``: each part's kind, by part id,
    when the caller has already looked them up."""
    return frozenset(p["id"] for p in data.get("parts") or []
                     if not getattr(kinds.get(p["id"]) if kinds is not None else find_kind(p.get("kind")),
                                    "machine_graded", True))


def _answered(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def attempt_rating(session: Session, attempt: Attempt, data: Mapping[str, Any],
                   history: list[tuple] | None = None, *, free: frozenset[str] | None = None) -> Rating | None:
    """The graded parts' rating of ``attempt`` (None when no graded part counted). ``history``, when the
    caller has it, is the learner's timeline of the question read before the attempt was stored
    (:func:`quizapp.study.policy.timeline`): the earlier attempts and solution requests are then taken
    from it instead of read again. ``free``: the question's free-text part ids, when the caller has them."""
    free = free if free is not None else _freetext_ids(data)
    graded = {pid: v for pid, v in (attempt.verdicts or {}).items() if pid not in free}
    if not any(v.get("counted") for v in graded.values()):
        return None
    # a hint lowers the stored score (credit); full marks are judged on the checker's own score
    full = all(v.get("counted") and float(v.get("raw_score", v.get("score")) or 0) >= 1 - EPS
               for v in graded.values() if float(v.get("weight", 1)) > 0)
    if not full:
        return Rating.Again
    if solution_requested_before(session, attempt, history):
        return Rating.Again
    at = aware(attempt.created_at)
    since = at - RETRY_WINDOW
    if history is not None:
        earlier = [(item[5], item[6]) for item in history
                   if item[1] == ATTEMPT and item[4] and since <= aware(item[0]) <= at]
    else:
        earlier = session.execute(select(Attempt.score, Attempt.max_score).where(
            Attempt.learner_id == attempt.learner_id, Attempt.question_id == attempt.question_id,
            Attempt.id != attempt.id, Attempt.counted.is_(True), Attempt.created_at >= since,
            Attempt.created_at <= attempt.created_at)).all()
    helped = any(int(v.get("hints_used") or 0) for v in graded.values())
    return Rating.Hard if helped or any(s < m - EPS for s, m in earlier) else Rating.Good


def record_reveal(session: Session, learner_id: str, question_id: str,
                  at: datetime | None = None) -> dict[str, Any]:
    """The learner asked for the solution: rate the question's card Again now (committed), so that a
    question given up on comes back soon even if no answer follows."""
    at = at or clock.now()
    row = session.get(ReviewCard, (learner_id, question_id))
    if row is None:
        row = _new_row(learner_id, question_id, at)
        session.add(row)
    review(row, Rating.Again, at)
    session.commit()
    return card_view(row) | {"needs_self_rating": False}


def _rate_row(row: Any, attempt: Attempt, rating: Rating | None, free_answered: bool,
              at: datetime) -> dict[str, Any]:
    """Apply what ``attempt`` does to its card ``row`` (a ``ReviewCard`` or the same fields on a plain
    object): a free-text answer waits for the learner's own rating, anything else is reviewed now. Returns
    what the attempt's response shows under ``review``."""
    if free_answered:
        row.pending_attempt_id = attempt.id
        row.pending_rating = int(rating) if rating is not None else None
        return {"needs_self_rating": True, "graded_rating": RATING_NAMES.get(int(rating)) if rating else None}
    review(row, rating, at)
    return card_view(row) | {"needs_self_rating": False}


def _what_to_rate(session: Session, attempt: Attempt, data: Mapping[str, Any], history: list[tuple] | None,
                  kinds: Mapping[str, Kind] | None = None) -> tuple[Rating | None, bool] | None:
    free = _freetext_ids(data, kinds)
    rating = attempt_rating(session, attempt, data, history, free=free)
    free_answered = any(_answered((attempt.answers or {}).get(pid)) for pid in free)
    return None if rating is None and not free_answered else (rating, free_answered)


def record_attempt(session: Session, attempt: Attempt, data: Mapping[str, Any],
                   at: datetime | None = None, *, commit: bool = True,
                   history: list[tuple] | None = None) -> dict[str, Any] | None:
    """Update the learner's card for a stored attempt (committed, or only flushed with ``commit=False``
    when the caller commits it with the attempt); what the attempt's response shows under ``review``, or
    None when nothing could be rated. ``history``: as for :func:`attempt_rating`."""
    at = at or clock.now()
    what = _what_to_rate(session, attempt, data, history)
    if what is None:
        return None
    row = session.get(ReviewCard, (attempt.learner_id, attempt.question_id))
    if row is None:
        row = _new_row(attempt.learner_id, attempt.question_id, at)
        session.add(row)
    body = _rate_row(row, attempt, *what, at)
    session.commit() if commit else session.flush()
    return body


# --- the card of a new attempt, worked out before the attempt's write -----------------------------------
#
# An attempt's writes (learner, attempt, card) run in the database's one writer turn (SQLite), where every
# statement and every line of Python holds up the writers queued behind it. So the card is read and rated
# before the turn, and the turn only stores the result: one INSERT of a new card, or one UPDATE that applies
# only if the card is still as it was read. The statements are built once.

_CARDS = ReviewCard.__table__
_CARD_KEYS = [c.key for c in _CARDS.c]
_CARD_CHANGES = [k for k in _CARD_KEYS if k not in ("learner_id", "question_id")]
_READ_CARD = select(_CARDS).where(_CARDS.c.learner_id == bindparam("learner"),
                                  _CARDS.c.question_id == bindparam("question"))
# A card inserted meanwhile by another attempt of the same learner is left alone: no row comes back
# (RETURNING, since psycopg's rowcount is not 1 for such an insert).
_NEW_CARD = {name: stmt.returning(_CARDS.c.reps)
             for name, stmt in insert_unless_present(_CARDS, ["learner_id", "question_id"]).items()}
# The same without RETURNING, as a row of a group commit on SQLite, where the number of rows it changed
# tells whether it inserted (quizapp.storage.group_commit.write_together).
_NEW_CARD_ROW = insert_unless_present(_CARDS, ["learner_id", "question_id"])["sqlite"]
# reps moves with every review and pending_attempt_id with every answer waiting for a self-rating: a card
# that still has both as read has not changed since.
_SAME_CARD = update(_CARDS).where(
    _CARDS.c.learner_id == bindparam("k_learner"), _CARDS.c.question_id == bindparam("k_question"),
    _CARDS.c.reps == bindparam("k_reps"), _CARDS.c.pending_attempt_id.is_not_distinct_from(bindparam("k_pending")),
).values({k: bindparam("v_" + k) for k in _CARD_CHANGES})


@dataclass
class CardChange:
    """What a new attempt does to its review card, rated before the attempt is written (:func:`plan_attempt`)
    and stored by :meth:`write` inside the attempt's transaction."""

    attempt: Attempt
    data: Mapping[str, Any]
    at: datetime
    read: dict[str, Any] | None  # the card's columns as read; None: the learner had no card for the question
    row: SimpleNamespace  # the card's columns after the attempt
    body: dict[str, Any]  # the response's ``review``

    outcome: dict[str, bool] = field(default_factory=dict)  # "applied": how the row of :meth:`rows` went

    def rows(self, dialect: str) -> list[tuple]:
        """The card's write as a row of the attempt's group commit on SQLite (one statement for the cards of
        all the attempts committed together, :func:`quizapp.storage.group_commit.write_together`), which tells
        ``outcome`` whether it applied; none on other databases, where :meth:`write` stores the card."""
        if dialect != "sqlite":
            return []
        values = {k: getattr(self.row, k) for k in _CARD_KEYS}
        if self.read is None:
            return [(_NEW_CARD_ROW, values, self.outcome)]
        return [(_SAME_CARD, self._same_card_params(values), self.outcome)]

    def _same_card_params(self, values: dict[str, Any]) -> dict[str, Any]:
        return {"k_learner": self.read["learner_id"], "k_question": self.read["question_id"],
                "k_reps": self.read["reps"], "k_pending": self.read["pending_attempt_id"],
                **{"v_" + k: values[k] for k in _CARD_CHANGES}}

    def write(self, session: Session) -> dict[str, Any] | None:
        """Store the rated card (inside the caller's transaction, after the attempt's INSERT) if it has not
        changed since it was read -- or take how the row of :meth:`rows` went, when it was given as one --;
        else rate the attempt again against the card as it is now (another attempt of the same learner on
        the same question got there first). Returns the body's ``review``."""
        stored = self.outcome.get("applied")
        if stored is None:
            conn = session.connection()
            values = {k: getattr(self.row, k) for k in _CARD_KEYS}
            if self.read is None:
                stmt = _NEW_CARD.get(conn.dialect.name)
                stored = stmt is not None and conn.execute(stmt, values).first() is not None
            else:
                stored = conn.execute(_SAME_CARD, self._same_card_params(values)).rowcount == 1
        if stored:
            return self.body
        # the history read before the attempt lacks the attempt that changed the card: read it again
        return record_attempt(session, self.attempt, self.data, self.at, commit=False)


def plan_attempt(session: Session, attempt: Attempt, data: Mapping[str, Any], at: datetime | None = None, *,
                 history: list[tuple] | None = None, new_learner: bool = False,
                 kinds: Mapping[str, Kind] | None = None) -> CardChange | None:
    """Read the card of ``attempt`` (not stored yet) and rate it as :func:`record_attempt` would, without
    writing anything; None when the attempt rates nothing. ``history``: as for :func:`attempt_rating`;
    ``kinds``: each part's kind, by part id, when the caller has looked them up.
    ``new_learner``: the learner id was made up for this request, so no card of it exists (the new card is
    still written as an INSERT that yields to a stored one, :meth:`CardChange.write`)."""
    at = at or clock.now()
    what = _what_to_rate(session, attempt, data, history, kinds)
    if what is None:
        return None
    found = None if new_learner else session.connection().execute(
        _READ_CARD, {"learner": attempt.learner_id, "question": attempt.question_id}).mappings().first()
    read = dict(found) if found is not None else None
    if read is not None:
        row = SimpleNamespace(**read)
    else:
        row = SimpleNamespace(**(dict.fromkeys(_CARD_KEYS) | _new_card(attempt.learner_id, attempt.question_id, at)))
    body = _rate_row(row, attempt, *what, at)
    return CardChange(attempt=attempt, data=data, at=at, read=read, row=row, body=body)


def self_rate(session: Session, learner_id: str, question_id: Any, rating: Any,
              at: datetime | None = None) -> dict[str, Any]:
    """The learner's own rating (committed), as in Anki: of their latest free-text answer to ``question_id``
    (the card then takes the lower of it and the graded parts' rating), or else of a card that is due,
    reviewed with the learner's rating as it stands (the learner recalled the method, or looked at the
    question, and judged it; ``self_rated`` in the answer). A card not due and waiting for nothing cannot be
    rated: one review per due date, whether the learner's or an answer's."""
    chosen = parse_rating(rating)
    if not isinstance(question_id, str) or not question_id or len(question_id) > 80:
        raise ValidationError("question_id must be a question id", "question_id")
    at = at or clock.now()
    row = session.get(ReviewCard, (learner_id, question_id))
    if row is not None and row.pending_attempt_id is None and aware(row.due) <= at:
        review(row, chosen, at)
        session.commit()
        return card_view(row) | {"rating": RATING_NAMES[int(chosen)], "self_rated": True}
    if row is None or row.pending_attempt_id is None:
        raise Conflict("nothing of yours to rate on this question: no free-text answer waits for a rating and "
                       "the question is not due for review", "question_id", code="nothing_to_rate")
    final = min(chosen, Rating(row.pending_rating)) if row.pending_rating else chosen
    review(row, final, at)
    session.commit()
    return card_view(row) | {"rating": RATING_NAMES[int(final)], "self_rated": False}


def is_due(session: Session, learner_id: str, question_id: str, at: datetime | None = None) -> bool:
    """Whether the learner's card of ``question_id`` is due and waits for no free-text rating: what
    :func:`self_rate` rates as a review of its own."""
    row = session.get(ReviewCard, (learner_id, question_id))
    return row is not None and row.pending_attempt_id is None and aware(row.due) <= (at or clock.now())


def card_view(row: ReviewCard) -> dict[str, Any]:
    return {"question_id": row.question_id, "due": iso_utc(row.due), "state": STATE_NAMES.get(row.state),
            "stability": row.stability, "difficulty": row.difficulty, "reps": row.reps, "lapses": row.lapses,
            "last_rating": RATING_NAMES.get(row.last_rating) if row.last_rating else None,
            "last_review": iso_utc(row.last_review), "pending_self_rating": row.pending_attempt_id is not None}


def _day_end(at: datetime, days: int) -> datetime:
    start = at.replace(hour=0, minute=0, second=0, microsecond=0)
    return start + timedelta(days=days)


def queue(session: Session, learner_id: str | None, *, lang: str = "en", at: datetime | None = None,
          limit: int = 100) -> dict[str, Any]:
    """Due cards (oldest due first), those coming due later today (``upcoming``), the cards waiting for a self-rating, counts of cards due by the end of
    today / during tomorrow / within 7 days (UTC days), and when the next card not yet due is due."""
    at = at or clock.now()
    empty = {"due": [], "upcoming": [], "pending": [], "counts": {"due_now": 0, "today": 0, "tomorrow": 0, "week": 0, "cards": 0},
             "next_due": None}
    if not learner_id:
        return empty
    rows = session.execute(
        select(ReviewCard, QuestionVersion).join(QuestionVersion, (QuestionVersion.question_id == ReviewCard.question_id)
                                                 & (QuestionVersion.status == "published"))
        .where(ReviewCard.learner_id == learner_id).order_by(ReviewCard.due, ReviewCard.question_id)).all()
    out = empty | {"due": [], "upcoming": [], "pending": []}
    today, tomorrow, week = _day_end(at, 1), _day_end(at, 2), at + timedelta(days=7)
    counts = {"due_now": 0, "today": 0, "tomorrow": 0, "week": 0, "cards": len(rows)}
    next_due = None
    for row, version in rows:
        entry = card_view(row) | {"title": localized(version.data.get("title"), lang) or row.question_id,
                                  "level": version.level, "tags": list(version.data.get("tags") or [])}
        if row.pending_attempt_id is not None:
            out["pending"].append(entry)
            continue
        due = aware(row.due)
        if due <= at:
            counts["due_now"] += 1
            if len(out["due"]) < limit:
                out["due"].append(entry)
        else:
            if next_due is None:
                next_due = due
            if due <= today and len(out["upcoming"]) < limit:
                out["upcoming"].append(entry)
        if due <= today:
            counts["today"] += 1
        elif due <= tomorrow:
            counts["tomorrow"] += 1
        if due <= week:
            counts["week"] += 1
    out["counts"] = counts
    out["next_due"] = iso_utc(next_due)
    return out


def cards_by_question(session: Session, learner_id: str) -> dict[str, ReviewCard]:
    return {r.question_id: r for r in session.scalars(select(ReviewCard).where(ReviewCard.learner_id == learner_id))}
