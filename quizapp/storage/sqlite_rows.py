"""The rows of a SQLite group commit, bound before the writer's turn and sent to the driver in it.

Inside the turn (:func:`quizapp.storage.group_commit.write_together`) every call into SQLite's driver gives up
the interpreter lock while SQLite works, and takes it back afterwards: with the worker's other threads busy
grading and rendering, each taking back waits for one of them to let go. Measured under 32 clients on two workers, the
turn held the database 17-19 ms per group of ~6 attempts, of which 3.3 ms was its own CPU: the rest was
waiting for the lock, about 25 times per group (each statement, and each row of an ``executemany``).

So the rows are made ready before the turn -- the statement compiled once per statement and set of keys,
the parameters put in the driver's order and through the column types' bind processing, exactly as
SQLAlchemy would -- and in the turn the rows of one INSERT statement go to SQLite as one statement with a
``VALUES`` group per row (one call into the driver instead of one per row). Other statements (the UPDATE of
a review card) run as one ``executemany`` on the driver's cursor. A statement this cannot prepare
(RETURNING, a column default computed in SQL, parameters rendered into the SQL at execution, another
dialect) is left to SQLAlchemy.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from typing import Any, Mapping, Sequence

from sqlalchemy import Insert
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement

# SQLite's lowest limit on the parameters of one statement (SQLITE_MAX_VARIABLE_NUMBER before 3.32): the
# rows of a longer group are sent in slices of at most this many parameters.
MAX_PARAMETERS = 999
_VALUES = re.compile(r" VALUES (\((?:\?, )*\?\))")


class Prepared:
    """One statement compiled for SQLite's driver: its SQL, its parameters' order and bind processing, the
    values it fixes itself and the Python-side column defaults it leaves to its caller."""

    __slots__ = ("compiled", "sql", "names", "processors", "defaults", "values_group", "_multi", "_direct")

    def __init__(self, compiled: Any, dialect: Dialect, defaults: dict[str, Any],
                 keys: frozenset[str] = frozenset()) -> None:
        self.compiled = compiled
        self.sql: str = compiled.string
        self.names: list[str] = list(compiled.positiontup)
        self.processors: dict[str, Any] = {}
        for name in self.names:  # each parameter's type as this dialect processes it (TypeEngine.bind_processor)
            proc = compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            if proc is not None:
                self.processors[name] = proc
        self.defaults = defaults
        match = _VALUES.search(self.sql) if isinstance(compiled.statement, Insert) else None
        self.values_group: str | None = match.group(1) if match and len(_VALUES.findall(self.sql)) == 1 else None
        self._multi: dict[int, str] = {}
        # Every parameter of the SQL is one the caller gives by its own name (the statement is prepared for
        # that set of keys): bound by looking each up, without SQLAlchemy's construct_params, which is
        # needed only for defaults and for values the statement fixes itself.
        self._direct = not defaults and all(name in keys for name in self.names)

    def bind(self, params: Mapping[str, Any]) -> tuple:
        """``params`` as the driver takes them: every parameter of the statement, in order, through its type's
        bind processing (what SQLAlchemy's execution does for one row)."""
        if self._direct:
            processors = self.processors
            return tuple(processors[name](params[name]) if name in processors else params[name]
                         for name in self.names)
        given = dict(params)
        for key, default in self.defaults.items():
            if key not in given:
                given[key] = default()
        full = self.compiled.construct_params(given)
        out = []
        for name in self.names:
            value = full[name]
            proc = self.processors.get(name)
            out.append(proc(value) if proc is not None else value)
        return tuple(out)

    def multi_sql(self, rows: int) -> str:
        """The INSERT with ``rows`` VALUES groups (the single-row SQL's group repeated)."""
        sql = self._multi.get(rows)
        if sql is None:
            assert self.values_group is not None
            sql = self._multi[rows] = self.sql.replace(
                " VALUES " + self.values_group, " VALUES " + ", ".join([self.values_group] * rows), 1)
        return sql


_lock = threading.Lock()
_prepared: dict[tuple[int, str, frozenset[str], Any], tuple[ClauseElement, Prepared | None]] = {}


def prepare(stmt: ClauseElement, dialect: Dialect, keys: frozenset[str]) -> Prepared | None:
    """``stmt`` compiled for ``dialect`` with the parameters ``keys`` (kept: statements are module
    constants), or None when it cannot be sent to the driver directly."""
    # The dialect's JSON encoder is part of the key: it is what the JSON columns' bind processing calls
    # (SQLAlchemy's JSON type reads it from the dialect), and an engine may be made with another one.
    cache_key = (id(stmt), dialect.name, keys, getattr(dialect, "_json_serializer", None))
    hit = _prepared.get(cache_key)
    if hit is not None and hit[0] is stmt:
        return hit[1]
    prepared = _compile(stmt, dialect, keys)
    with _lock:
        _prepared[cache_key] = (stmt, prepared)  # the statement is kept with it, so its id is not reused
    return prepared


def _compile(stmt: ClauseElement, dialect: Dialect, keys: frozenset[str]) -> Prepared | None:
    if dialect.name != "sqlite" or dialect.paramstyle != "qmark":
        return None
    compiled = stmt.compile(dialect=dialect, column_keys=sorted(keys))
    if (getattr(compiled, "effective_returning", None) or compiled.positiontup is None
            or compiled.literal_execute_params or compiled.post_compile_params):
        return None  # rows come back, or the SQL itself changes with the values (IN lists)
    defaults: dict[str, Any] = {}
    for column in [*compiled.insert_prefetch, *compiled.update_prefetch]:
        default = column.default if column in compiled.insert_prefetch else column.onupdate
        if default is None or not (default.is_scalar or default.is_callable):
            return None
        defaults[column.key] = (lambda v=default.arg: v) if default.is_scalar else (lambda f=default.arg: f(None))
    if compiled.postfetch and isinstance(stmt, Insert) and any(c.server_default is None for c in compiled.postfetch):
        return None  # a value computed in SQL that SQLAlchemy would read back
    return Prepared(compiled, dialect, defaults, keys)


def run(cursor: Any, prepared: Prepared, rows: Sequence[tuple]) -> int:
    """Send ``rows`` (bound by :meth:`Prepared.bind`) of ``prepared`` on the driver's ``cursor``; returns the
    number of rows the statement changed. The driver's errors come out as SQLAlchemy's
    (:class:`sqlalchemy.exc.IntegrityError` for a constraint...), as from any other statement."""
    try:
        if len(rows) == 1:
            cursor.execute(prepared.sql, rows[0])
            return cursor.rowcount
        if prepared.values_group is None:
            cursor.executemany(prepared.sql, rows)
            return cursor.rowcount
        changed = 0
        per = max(1, MAX_PARAMETERS // max(1, len(prepared.names)))
        for start in range(0, len(rows), per):
            part = rows[start:start + per]
            cursor.execute(prepared.multi_sql(len(part)), [v for row in part for v in row])
            changed += cursor.rowcount
        return changed
    except sqlite3.Error as exc:
        raise DBAPIError.instance(prepared.sql, rows, exc, sqlite3.Error) from exc
