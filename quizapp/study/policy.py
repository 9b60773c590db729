"""The attempt policy: when a learner may see the solution of one variant of a question.

A learner works on one *variant* (the seed of the numbers shown). The solution of that variant -- key
points, pitfalls, the worked solution and every part's expected answer -- is shown

* after a **correct** attempt (every machine-graded part with weight > 0 correct; a question answered
  only in free text reveals its key points after any submission, since the learner rates it against them),
* after the **last try**: ``tries`` counted attempts (the question's ``tries:``, default
  :data:`checkers.bank.schema.TRIES_DEFAULT`; attempts whose every part was invalid or unchecked do not
  count), or
* when the learner **asks** for it ("show solution"): recorded as a :class:`PracticeEvent`, and the
  review scheduler rates the question Again (:func:`quizapp.study.review.record_reveal`).

Tries are counted per (learner, question), not per variant: switching to another variant (other numbers,
the same question) does not give fresh tries, or the last-try gate could be dodged by asking for a new
variant before each third wrong answer. The count runs from the learner's last *reveal* on the question
(a correct answer, the last try, or "show solution", on any variant): a variant started after a reveal
starts a fresh count. A variant whose solution was revealed stays revealed; attempts on it after that
count for it alone, not for the running count of the others.

Hints shown are counted by the same rule, per (learner, question, part) since the last reveal: a hint read
on one variant lowers the credit (:mod:`.credit`) of the next correct answer on any variant, and the hint
ladder goes on from where it was, with the texts of the variant now shown. Otherwise a learner could read
every hint on one variant and answer another at full credit. A revealed variant keeps the hints counted
when it was revealed, plus those shown on it afterwards (which do not count for the others).

Until the solution may be shown, an attempt's response, a stored attempt read back and a shared attempt
carry no ``solution``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Mapping

from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import Session
from checkers.bank.schema import TRIES_DEFAULT
from checkers.kinds import Kind, get_kind

from .clock import aware
from ..storage.models import Attempt, PracticeEvent

CORRECT, TRIES, REQUESTED = "correct", "tries", "requested"

# The ``order`` of a timeline item: what it is, and which goes first when two share an instant (a hint is
# read before the answer it helped; an attempt goes before a request for the solution).
HINT, ATTEMPT, REQUEST = -1, 0, 1


def tries_allowed(data: Mapping[str, Any]) -> int:
    value = data.get("tries", TRIES_DEFAULT)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else TRIES_DEFAULT


def graded_ids(data: Mapping[str, Any], kinds: Mapping[str, Kind] | None = None) -> frozenset[str]:
    """The ids of the question's machine-graded parts with weight > 0: those a correct answer needs.
    ``kinds``: each part's kind (by part id) when the caller has already looked them up (a submit, once
    per part); else they are looked up here."""
    out = set()
    for part in data.get("parts") or []:
        kind = kinds[part["id"]] if kinds is not None else get_kind(part.get("kind"))
        if kind.machine_graded and float(part.get("weight", kind.default_weight)) > 0:
            out.add(part["id"])
    return frozenset(out)


def is_correct(verdicts: Mapping[str, Mapping[str, Any]], data: Mapping[str, Any]) -> bool:
    """Every machine-graded part (weight > 0) answered correctly; True for a free-text-only answer."""
    return _all_correct(verdicts, graded_ids(data))


def _all_correct(verdicts: Mapping[str, Mapping[str, Any]], graded: frozenset[str]) -> bool:
    """:func:`is_correct` with the question's graded part ids already taken out of it."""
    return all((verdicts.get(pid) or {}).get("status") == "correct" for pid in graded)


@dataclass
class PracticeState:
    """What one learner has done on one variant: tries used, hints shown per part, solution asked for."""

    tries_allowed: int
    tries_used: int = 0
    solved: bool = False
    requested: bool = False
    hints: dict[str, int] = field(default_factory=dict)

    @property
    def reason(self) -> str | None:
        """Why the solution may be shown (``correct`` | ``tries`` | ``requested``), or None."""
        if self.solved:
            return CORRECT
        if self.tries_used >= self.tries_allowed:
            return TRIES
        if self.requested:
            return REQUESTED
        return None

    @property
    def revealed(self) -> bool:
        return self.reason is not None

    def view(self) -> dict[str, Any]:
        """The ``practice`` object of the API responses."""
        return {"tries_allowed": self.tries_allowed, "tries_used": self.tries_used,
                "tries_left": max(0, self.tries_allowed - self.tries_used),
                "solution_available": self.revealed, "solution_reason": self.reason,
                "solution_requested": self.requested, "hints_shown": dict(self.hints)}


_A, _E = Attempt.__table__.c, PracticeEvent.__table__.c
# Run on the session's connection (Core): an attempt reads the learner's history of the question in two
# indexed statements, with no ORM entity built for it.
_EVENTS = select(_E.created_at, _E.kind, _E.variant, _E.part_id).where(
    _E.learner_id == bindparam("learner"), _E.question_id == bindparam("question"),
    _E.kind.in_(("solution", "hint")))


@functools.cache  # one statement per set of graded parts of the bank's questions, built once
def attempts_read(graded: tuple[str, ...]) -> Select:
    """The learner's attempts on the question with, of their verdicts, only the status of each graded part
    (``graded``, sorted), read by the database (SQLite's ``json_extract``, PostgreSQL's ``#>>``). The whole
    verdicts document of every earlier attempt, decoded in Python, made an attempt cost more with each one
    before it (in process: 8.5 ms of CPU per submit after 100 attempts on a question, 20 ms after 300,
    against 6 ms for a first one; 12 ms after 300 now, the rows themselves still read)."""
    statuses = [_A.verdicts[(pid, "status")].as_string() for pid in graded]
    return select(_A.created_at, _A.variant, _A.counted, _A.score, _A.max_score, *statuses).where(
        _A.learner_id == bindparam("learner"), _A.question_id == bindparam("question"))


def _timeline(session: Session, learner_id: str, question_id: str, data: Mapping[str, Any]) -> list[tuple]:
    """The learner's counted attempts, hints shown and solution requests on the question (``data``: the
    question dict shown), oldest first: ``(created_at, order, variant, verdicts, counted, score,
    max_score)`` for an attempt (order :data:`ATTEMPT`; ``verdicts`` holds the ``status`` of each graded
    part, all that :func:`walk` reads), ``(created_at, HINT, variant, part_id, None)`` for a hint and
    ``(created_at, REQUEST, variant, None, None)`` for "show solution"."""
    if session.new or session.dirty or session.deleted:
        session.flush()  # what the caller added is part of the history (the ORM's autoflush, done here)
    conn = session.connection()
    args = {"learner": learner_id, "question": question_id}
    graded = tuple(sorted(graded_ids(data)))
    items = [(at, ATTEMPT, v, {pid: {"status": status} for pid, status in zip(graded, statuses)}, counted,
              score, max_score)
             for at, v, counted, score, max_score, *statuses in conn.execute(attempts_read(graded), args)]
    items += [(at, REQUEST, v, None, None) if kind == "solution" else (at, HINT, v, part_id, None)
              for at, kind, v, part_id in conn.execute(_EVENTS, args)]
    items.sort(key=lambda it: (it[0], it[1]))
    return items


@dataclass
class Replay:
    """A walked timeline: ``running`` tries and ``hints`` (per part) since the last reveal, and per revealed
    variant its ``tries_used``, ``solved`` and ``requested`` (``revealed``) and its hints
    (``revealed_hints``)."""

    running: int = 0
    hints: dict[str, int] = field(default_factory=dict)
    revealed: dict[int, dict[str, Any]] = field(default_factory=dict)
    revealed_hints: dict[int, dict[str, int]] = field(default_factory=dict)

    def copy(self) -> "Replay":
        """A copy that walking on leaves this one as it was: every dict of it copied, its values being
        numbers and flags (``copy.deepcopy`` did the same by walking it generically, on every submit)."""
        return Replay(self.running, dict(self.hints), {v: dict(r) for v, r in self.revealed.items()},
                      {v: dict(h) for v, h in self.revealed_hints.items()})

    def reveal(self, variant: int, record: dict[str, Any]) -> None:
        """The variant's solution is shown: it keeps the running counts, the others start afresh."""
        self.revealed[variant] = record
        self.revealed_hints[variant] = self.hints
        self.running, self.hints = 0, {}


def walk(items: list[tuple], data: Mapping[str, Any], start: Replay | None = None, *,
         graded: frozenset[str] | None = None) -> Replay:
    """Walk a timeline (:func:`_timeline`) by the rule of the module docstring, from ``start`` (a walk of
    the items before these, changed in place; a fresh one by default). Linear in the number of items; the
    question's graded parts (``graded``: :func:`graded_ids`, when the caller has them) are read from
    ``data`` once, not once per attempt."""
    allowed = tries_allowed(data)
    graded = graded if graded is not None else graded_ids(data)
    out = start if start is not None else Replay()
    for item in items:
        _step(out, item, allowed, graded)
    return out


def _step(out: Replay, item: tuple, allowed: int, graded_ids: frozenset[str]) -> None:
    """One timeline item walked (:func:`walk`)."""
    _at, order, variant, payload, counted, *_ = item
    seen = out.revealed.get(variant)
    if order == HINT:
        if payload:  # a hint on a revealed variant counts for it alone, like an attempt on it
            shown = out.revealed_hints[variant] if seen is not None else out.hints
            shown[payload] = shown.get(payload, 0) + 1
        return
    if order == REQUEST:  # "show solution"
        if seen is None:
            out.reveal(variant, {"tries_used": out.running, "solved": False, "requested": True})
        else:
            seen["requested"] = True
        return
    if not counted and graded_ids:
        return
    correct = _all_correct(payload, graded_ids)
    if seen is not None:  # practising a variant already revealed: its own count only
        seen["tries_used"] += 1
        seen["solved"] = seen["solved"] or correct
        return
    out.running += 1
    if correct or out.running >= allowed:
        out.reveal(variant, {"tries_used": out.running, "solved": correct, "requested": False})


def timeline(session: Session, learner_id: str, question_id: str, data: Mapping[str, Any]) -> list[tuple]:
    """The timeline :func:`state` replays (:func:`_timeline`), for a caller that extends it itself."""
    return _timeline(session, learner_id, question_id, data)


def attempt_item(attempt: Attempt) -> tuple:
    """A stored attempt as an item of a timeline."""
    return (attempt.created_at, ATTEMPT, attempt.variant, attempt.verdicts or {}, attempt.counted, attempt.score,
            attempt.max_score)


def state(session: Session, learner_id: str | None, question_id: str, variant: int,
          data: Mapping[str, Any], *, items: list[tuple] | None = None,
          hints: Mapping[str, int] | None = None, walked: Replay | None = None) -> PracticeState:
    """The learner's state on ``variant`` of ``question_id`` (``data``: the question dict shown): tries
    counted per question since the last reveal, and hints shown the same way (module docstring).
    ``items`` (the timeline, hints included) is read from the database unless the caller already has it,
    and ``hints`` (per part) is taken from it unless given: an attempt's response replays the timeline read
    before it was stored, plus the attempt (which shows no hint). ``walked``: the timeline already walked
    (:mod:`quizapp.study.summary`), used instead of ``items``."""
    out = PracticeState(tries_allowed=tries_allowed(data))
    if not learner_id:
        return out
    if walked is None:
        walked = walk(items if items is not None else _timeline(session, learner_id, question_id, data), data)
    mine = walked.revealed.get(variant)
    if mine is None:
        out.tries_used, shown = walked.running, walked.hints
    else:
        out.tries_used, out.solved, out.requested = mine["tries_used"], mine["solved"], mine["requested"]
        shown = walked.revealed_hints[variant]
    out.hints = dict(hints if hints is not None else shown)
    return out


def record_solution_request(session: Session, learner_id: str, question_id: str, variant: int) -> None:
    """Record "show solution" (not committed; one row per variant is enough)."""
    exists = session.scalar(select(PracticeEvent.id).where(
        PracticeEvent.learner_id == learner_id, PracticeEvent.question_id == question_id,
        PracticeEvent.variant == variant, PracticeEvent.kind == "solution").limit(1))
    if exists is None:
        session.add(PracticeEvent(learner_id=learner_id, question_id=question_id, variant=variant,
                                  kind="solution"))


def solution_requested_before(session: Session, attempt: Attempt, history: list[tuple] | None = None) -> bool:
    """Whether the attempt's learner asked for the solution of its variant before submitting it.
    ``history``, when the caller has it, is the learner's timeline of the question read before the attempt
    was stored (:func:`timeline`): then it is answered from that, with no query."""
    if history is not None:
        at = aware(attempt.created_at)
        return any(order == REQUEST and variant == attempt.variant and aware(when) <= at
                   for when, order, variant, *_ in history)
    return session.scalar(select(PracticeEvent.id).where(
        PracticeEvent.learner_id == attempt.learner_id, PracticeEvent.question_id == attempt.question_id,
        PracticeEvent.variant == attempt.variant, PracticeEvent.kind == "solution",
        PracticeEvent.created_at <= attempt.created_at).limit(1)) is not None
