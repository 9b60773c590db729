"""The attempt policy's history of one learner on one question, kept as one row (``practice_summaries``) that
each attempt updates in its own transaction: a submit reads that row, not every earlier attempt, so the
300th submit on a question costs what the first does.

The row holds the walk of :func:`quizapp.study.policy.walk` over everything up to the last attempt stored
(running tries and hints since the last reveal; per revealed variant its tries, solved, requested and hints),
``last_event_id`` (the hints and solution requests folded in: ``practice_events`` rows above it are read and
walked on at the next submit, a handful at most), ``last_short_at`` (the latest counted attempt scored below
full, which is all the review rating reads of earlier attempts: :func:`quizapp.study.review.attempt_rating`)
and ``attempts`` (how many attempts it folds in).

It is a cache, never the truth: an absent row, or one walked for another version of the question, is
rebuilt from the full history (once). A write is a compare-and-set on ``attempts``: if another submit of
the same learner on the same question changed the row meanwhile, the row is deleted instead, and the next
submit rebuilds it (the attempts themselves are always stored). Merging a cookie learner into an account
deletes the account's rows (:func:`quizapp.accounts.service.merge_learner`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.orm import Session

from ..storage.group_commit import insert_unless_present
from .clock import aware
from .grades import EPS
from ..storage.models import Attempt, PracticeEvent, PracticeSummary, utcnow
from . import policy

_S, _E = PracticeSummary.__table__.c, PracticeEvent.__table__.c
_KEY = (_S.learner_id == bindparam("learner")) & (_S.question_id == bindparam("question"))
_READ = select(_S.version_id, _S.state, _S.attempts, _S.last_event_id, _S.last_short_at).where(_KEY)
#: Hints and solution requests not yet folded in (the index on learner, question, variant serves it).
_EVENTS_AFTER = select(_E.id, _E.created_at, _E.kind, _E.variant, _E.part_id).where(
    _E.learner_id == bindparam("learner"), _E.question_id == bindparam("question"),
    _E.kind.in_(("solution", "hint")), _E.id > bindparam("after"))
_SET = ("version_id", "state", "attempts", "last_event_id", "last_short_at", "updated_at")
_UPDATE = update(PracticeSummary.__table__).where(_KEY, _S.attempts == bindparam("seen")).values(
    {name: bindparam(f"new_{name}", type_=_S[name].type) for name in _SET})
#: RETURNING tells whether it inserted (a DO NOTHING's rowcount is not reliable on every driver).
_INSERT = {name: stmt.returning(_S.attempts)
           for name, stmt in insert_unless_present(PracticeSummary.__table__, ["learner_id", "question_id"]).items()}
#: The same without RETURNING, as a row of a group commit on SQLite, where the number of rows it changed
#: tells whether it inserted (:meth:`SummaryChange.rows`).
_INSERT_ROW = insert_unless_present(PracticeSummary.__table__, ["learner_id", "question_id"])["sqlite"]
_DROP = delete(PracticeSummary.__table__).where(_KEY)
#: Before every attempt: the time of a solution request folded into the row (it came before the attempt).
_LONG_AGO = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass
class Snapshot:
    """The learner's history of a question as a submit needs it: ``walked`` (the policy's walk before the
    attempt), ``history`` (what the review rating reads: :func:`quizapp.study.review.attempt_rating`),
    ``known`` (something of the learner is stored, so its ``learners`` row exists), ``seen`` (the row's
    ``attempts`` as read; None when there was no row) and what the row is written with."""

    walked: policy.Replay
    history: list[tuple]
    known: bool
    seen: int | None
    attempts: int
    last_event_id: int
    last_short_at: datetime | None
    version_id: int


def _to_json(walked: policy.Replay) -> dict[str, Any]:
    return {"running": walked.running, "hints": walked.hints,
            "revealed": {str(v): r for v, r in walked.revealed.items()},
            "revealed_hints": {str(v): h for v, h in walked.revealed_hints.items()}}


def _from_json(state: Mapping[str, Any]) -> policy.Replay:
    return policy.Replay(running=int(state["running"]), hints=dict(state["hints"]),
                         revealed={int(v): dict(r) for v, r in state["revealed"].items()},
                         revealed_hints={int(v): dict(h) for v, h in state["revealed_hints"].items()})


def _event_item(at: datetime, kind: str, variant: int, part_id: str | None) -> tuple:
    return (at, policy.REQUEST, variant, None, None) if kind == "solution" else (at, policy.HINT, variant, part_id,
                                                                                  None)


def _short(item: tuple) -> bool:
    """A counted attempt scored below full (the review rating's "an earlier try was not perfect")."""
    return item[1] == policy.ATTEMPT and bool(item[4]) and item[5] < item[6] - EPS


def empty(version_id: int) -> Snapshot:
    """A learner made up for this request: nothing stored, nothing read."""
    return Snapshot(policy.Replay(), [], False, None, 1, 0, None, version_id)


def read(session: Session, learner_id: str, question_id: str, version_id: int,
         data: Mapping[str, Any], *, graded: frozenset[str] | None = None) -> Snapshot:
    """The learner's row for the question plus the events after it: two indexed reads, whatever the number
    of attempts. Without a row walked for ``version_id``, the full history is read and walked (once; the
    next submit stores the row). ``graded``: :func:`quizapp.study.policy.graded_ids` of ``data``, when the
    caller has them."""
    graded_set = graded if graded is not None else policy.graded_ids(data)
    if session.new or session.dirty or session.deleted:
        session.flush()  # what the caller added is part of the history (the ORM's autoflush, done here)
    conn = session.connection()
    args = {"learner": learner_id, "question": question_id}
    row = conn.execute(_READ, args).first()
    if row is not None and row.version_id == version_id:
        walked = _from_json(row.state)
        events = conn.execute(_EVENTS_AFTER, {**args, "after": row.last_event_id}).all()
        new = sorted((_event_item(at, kind, v, part) for _id, at, kind, v, part in events),
                     key=lambda it: (aware(it[0]), it[1]))
        policy.walk(new, data, walked, graded=graded_set)
        history = [(_LONG_AGO, policy.REQUEST, v, None, None) for v, r in walked.revealed.items() if r["requested"]]
        if row.last_short_at is not None:
            history.append((row.last_short_at, policy.ATTEMPT, -1, {}, True, 0.0, 1.0))
        return Snapshot(walked, history, True, row.attempts, row.attempts + 1,
                        max([row.last_event_id, *(e[0] for e in events)]), row.last_short_at, version_id)
    graded_order = tuple(sorted(graded_set))
    items = [(at, policy.ATTEMPT, v, {pid: {"status": status} for pid, status in zip(graded_order, statuses)},
              counted, score, max_score)
             for at, v, counted, score, max_score, *statuses in conn.execute(policy.attempts_read(graded_order),
                                                                              args)]
    attempts = len(items)
    events = conn.execute(_EVENTS_AFTER, {**args, "after": -1}).all()
    items += [_event_item(at, kind, v, part) for _id, at, kind, v, part in events]
    items.sort(key=lambda it: (aware(it[0]), it[1]))
    shorts = [aware(it[0]) for it in items if _short(it)]
    return Snapshot(policy.walk(items, data, graded=graded_set), items, bool(items) or row is not None,
                    None if row is None else row.attempts, attempts + 1,
                    max([0, *(e[0] for e in events)]), max(shorts, default=None), version_id)


def after(snapshot: Snapshot, attempt: Attempt, data: Mapping[str, Any], *,
          graded: frozenset[str] | None = None) -> policy.Replay:
    """The walk with ``attempt`` added (the snapshot's own walk is left as it was); ``graded`` as for
    :func:`read`."""
    return policy.walk([policy.attempt_item(attempt)], data, snapshot.walked.copy(), graded=graded)


class SummaryChange:
    """The row's write after an attempt (:func:`writer`), run in the attempt's transaction: as a row of the
    attempt's group commit on SQLite (:meth:`rows`, one statement for the summaries of all the attempts
    committed together), then :meth:`write`; elsewhere :meth:`write` alone. A row another submit changed
    meanwhile (or inserted first) is deleted instead."""

    __slots__ = ("seen", "values", "key", "outcome")

    def __init__(self, seen: int | None, values: dict[str, Any], key: dict[str, str]) -> None:
        self.seen, self.values, self.key = seen, values, key
        self.outcome: dict[str, bool] = {}  # "applied": how the row of :meth:`rows` went

    def _update_params(self) -> dict[str, Any]:
        return {**self.key, "seen": self.seen, **{f"new_{name}": self.values[name] for name in _SET}}

    def rows(self, dialect: str) -> list[tuple]:
        """The write as a row of a SQLite group commit (:func:`quizapp.storage.group_commit.write_together`),
        which tells ``outcome`` whether it applied; none on other databases."""
        if dialect != "sqlite":
            return []
        if self.seen is None:
            return [(_INSERT_ROW, self.values, self.outcome)]
        return [(_UPDATE, self._update_params(), self.outcome)]

    def write(self, session: Session) -> None:
        """Store the row (or take how the row of :meth:`rows` went, when it was given as one); delete it
        when it was changed or inserted by another submit meanwhile."""
        done = self.outcome.get("applied")
        conn = session.connection() if done is not True else None
        if done is None:
            if self.seen is None:
                stmt = _INSERT.get(conn.dialect.name)
                done = stmt is not None and conn.execute(stmt, self.values).first() is not None
            else:
                done = conn.execute(_UPDATE, self._update_params()).rowcount == 1
        if not done:
            conn.execute(_DROP, self.key)


def writer(snapshot: Snapshot, attempt: Attempt, walked: policy.Replay) -> SummaryChange:
    """The row's write after ``attempt`` (``walked``: :func:`after`), to run in the attempt's transaction
    (:class:`SummaryChange`)."""
    item = policy.attempt_item(attempt)
    last_short = aware(item[0]) if _short(item) else snapshot.last_short_at
    values = {"learner_id": attempt.learner_id, "question_id": attempt.question_id,
              "version_id": snapshot.version_id, "state": _to_json(walked), "attempts": snapshot.attempts,
              "last_event_id": snapshot.last_event_id, "last_short_at": last_short, "updated_at": utcnow()}
    return SummaryChange(snapshot.seen, values, {"learner": attempt.learner_id, "question": attempt.question_id})


def forget(session: Session, learner_id: str) -> None:
    """Drop every row of ``learner_id`` (not committed): its attempts changed other than by a submit."""
    session.execute(delete(PracticeSummary).where(PracticeSummary.learner_id == learner_id))
