"""The group commit's rows sent to SQLite's driver directly (quizapp.storage.sqlite_rows): bound exactly as SQLAlchemy
binds them, one INSERT statement for many rows, SQLAlchemy's errors, and statements it must leave alone."""

import sqlite3
import uuid
from datetime import datetime, timezone

import pytest
from sqlalchemy import bindparam, create_engine, event, insert, select, update
from sqlalchemy.exc import IntegrityError

from quizapp.storage import sqlite_rows
from quizapp.storage import json_columns
from quizapp.learners import learner_row
from quizapp.study.review import _NEW_CARD_ROW, _SAME_CARD
from quizapp.storage.models import Attempt, Base, Learner
from quizapp.services.attempts import _ATTEMPT_KEYS, _INSERT_ATTEMPT

pytestmark = pytest.mark.sqlite_only(reason="the rows go to SQLite's own driver")

AT = datetime(2026, 11, 27, 8, 30, 15, 123456, tzinfo=timezone.utc)


def _engine(tmp_path):
    # The service's JSON column encoder (quizapp.storage.json_columns): rows bound as the service binds them.
    engine = create_engine(f"sqlite:///{tmp_path / 'rows.sqlite3'}", json_serializer=json_columns.dumps_text,
                           json_deserializer=json_columns.loads_text)
    Base.metadata.create_all(engine)
    return engine


def _attempt(learner: str, i: int) -> dict:
    values = {"id": uuid.UUID(int=i).hex, "learner_id": learner, "question_id": "q-1", "question_version_id": 1,
              "variant": i, "answers": {"a": f"1.{i}", "nested": [1, None, "é"]},
              "verdicts": {"a": {"score": 0.5, "counted": True}}, "score": 0.5, "max_score": 1, "counted": True,
              "lang": "en", "created_at": AT}
    assert sorted(values) == sorted(_ATTEMPT_KEYS)
    return values


def _card(learner: str) -> dict:
    return {"learner_id": learner, "question_id": "q-1", "state": 1, "step": 0, "stability": 2.5, "difficulty": 5.0,
            "due": AT, "last_review": None, "reps": 1, "lapses": 0, "last_rating": 3, "pending_attempt_id": None,
            "pending_rating": None}


def _what_sqlalchemy_sends(engine, stmt, params) -> tuple:
    sent = []

    def seen(_conn, _cursor, _statement, parameters, _context, _many):
        sent.append(tuple(parameters))

    event.listen(engine, "before_cursor_execute", seen)
    try:
        with engine.begin() as conn:
            conn.execute(stmt, params)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return sent[0]


@pytest.mark.parametrize("which", ["attempt", "card", "same card"])
def test_rows_are_bound_as_sqlalchemy_binds_them(tmp_path, which):
    engine = _engine(tmp_path)
    with engine.begin() as conn:  # the learner the rows point at
        conn.execute(insert(Learner.__table__), {"id": "l" * 32, "role": "learner", "created_at": AT})
    if which == "attempt":
        stmt, params = _INSERT_ATTEMPT, _attempt("l" * 32, 7)
    elif which == "card":
        stmt, params = _NEW_CARD_ROW, _card("l" * 32)
    else:
        with engine.begin() as conn:
            conn.execute(_NEW_CARD_ROW, _card("l" * 32))
        stmt = _SAME_CARD
        params = {"k_learner": "l" * 32, "k_question": "q-1", "k_reps": 1, "k_pending": None,
                  **{"v_" + k: v for k, v in _card("l" * 32).items() if k not in ("learner_id", "question_id")},
                  "v_reps": 2, "v_last_review": AT}
    prepared = sqlite_rows.prepare(stmt, engine.dialect, frozenset(params))
    assert prepared is not None
    assert prepared.bind(params) == _what_sqlalchemy_sends(engine, stmt, params)


def test_a_column_default_is_filled_in_as_sqlalchemy_would(tmp_path):
    engine = _engine(tmp_path)
    with engine.connect() as conn:
        from sqlalchemy.orm import Session

        stmt, params = learner_row(Session(bind=conn), "a" * 32)
    prepared = sqlite_rows.prepare(stmt, engine.dialect, frozenset(params))
    bound = dict(zip(prepared.names, prepared.bind(params)))
    assert bound["id"] == "a" * 32 and bound["role"] == "learner"
    datetime.strptime(bound["created_at"], "%Y-%m-%d %H:%M:%S.%f")  # the default, in SQLite's format


def test_rows_of_an_insert_are_one_statement_and_count_what_they_changed(tmp_path):
    engine = _engine(tmp_path)
    learners = [f"{i:032x}" for i in range(1, 6)]
    stmt = learner_row_stmt(engine)
    prepared = sqlite_rows.prepare(stmt, engine.dialect, frozenset({"id"}))
    raw = engine.raw_connection()
    seen: list[str] = []
    try:
        raw.driver_connection.set_trace_callback(seen.append)
        cursor = raw.driver_connection.cursor()
        assert sqlite_rows.run(cursor, prepared, [prepared.bind({"id": i}) for i in learners[:2]]) == 2
        # three rows, one of which exists: ON CONFLICT DO NOTHING inserts two
        assert sqlite_rows.run(cursor, prepared, [prepared.bind({"id": i}) for i in learners[1:4]]) == 2
        raw.driver_connection.commit()
    finally:
        raw.close()
    inserts = [s for s in seen if s.startswith("INSERT")]
    assert len(inserts) == 2 and all(s.count("), (") == 1 for s in inserts[:1])
    with engine.connect() as conn:
        assert sorted(conn.scalars(select(Learner.id))) == learners[:4]


def test_a_long_group_is_sent_in_slices_under_the_parameter_limit(tmp_path, monkeypatch):
    engine = _engine(tmp_path)
    monkeypatch.setattr(sqlite_rows, "MAX_PARAMETERS", 2 * len(_ATTEMPT_KEYS))  # two attempts a statement
    with engine.begin() as conn:
        conn.execute(insert(Learner.__table__), {"id": "l" * 32, "role": "learner", "created_at": AT})
    prepared = sqlite_rows.prepare(_INSERT_ATTEMPT, engine.dialect, frozenset(_ATTEMPT_KEYS))
    rows = [prepared.bind(_attempt("l" * 32, i)) for i in range(5)]
    raw = engine.raw_connection()
    seen: list[str] = []
    try:
        raw.driver_connection.set_trace_callback(seen.append)
        assert sqlite_rows.run(raw.driver_connection.cursor(), prepared, rows) == 5
        raw.driver_connection.commit()
    finally:
        raw.close()
    assert len([s for s in seen if s.startswith("INSERT")]) == 3
    with engine.connect() as conn:
        stored = conn.execute(select(Attempt.variant, Attempt.answers).order_by(Attempt.variant)).all()
    assert [(v, a) for v, a in stored] == [(i, _attempt("l" * 32, i)["answers"]) for i in range(5)]


def test_a_constraint_broken_by_a_row_is_sqlalchemys_integrity_error(tmp_path):
    engine = _engine(tmp_path)
    prepared = sqlite_rows.prepare(insert(Learner.__table__), engine.dialect, frozenset({"id", "role"}))
    raw = engine.raw_connection()
    try:
        cursor = raw.driver_connection.cursor()
        with pytest.raises(IntegrityError) as caught:
            sqlite_rows.run(cursor, prepared, [prepared.bind({"id": "x" * 32, "role": "learner"})] * 2)
        assert isinstance(caught.value.orig, sqlite3.IntegrityError)
    finally:
        raw.close()


def test_statements_it_cannot_send_directly_are_left_to_sqlalchemy(tmp_path):
    engine = _engine(tmp_path)
    returning = insert(Learner.__table__).returning(Learner.id)
    assert sqlite_rows.prepare(returning, engine.dialect, frozenset({"id", "role"})) is None
    in_list = update(Learner.__table__).where(Learner.id.in_(bindparam("ids", expanding=True))).values(role="x")
    assert sqlite_rows.prepare(in_list, engine.dialect, frozenset({"ids"})) is None  # its SQL depends on the list
    postgres = create_engine("postgresql+psycopg://u@localhost/db")  # never connects
    assert sqlite_rows.prepare(insert(Learner.__table__), postgres.dialect, frozenset({"id", "role"})) is None


def learner_row_stmt(engine):
    from sqlalchemy.orm import Session

    with engine.connect() as conn:
        return learner_row(Session(bind=conn), "0" * 32)[0]
