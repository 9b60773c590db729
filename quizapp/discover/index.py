"""The full-text index behind search, on SQLite (FTS5) and PostgreSQL (tsvector + GIN), one API.

``search(session, query, tag_names) -> [question_id, ...]`` best match first. The index holds one row
per published question version (title, prompt, part prompts and tag ids/names, both languages), kept in
step with the published versions before each search: versions no longer published are dropped, new ones
added. The tables come from migration 0006 and are not ORM models.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..storage.models import QuestionVersion
from . import text as search_text

TABLE = "question_search"
RESULT_LIMIT = 500


def autogen_include_name(name: str | None, type_: str, parent_names: Mapping[str, Any]) -> bool:
    """Alembic ``include_name``: the search tables (and SQLite's FTS5 shadow tables) are not models."""
    return not (type_ == "table" and name is not None and name.startswith(TABLE))


def _bilingual(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def document_for(data: Mapping[str, Any], tag_names: Mapping[str, Mapping[str, str]]) -> str:
    """What a question is found by: id, ref, titles, prompts (question and parts) and its tags' names."""
    texts = [str(data.get("id") or ""), str(data.get("ref") or "")]
    texts += _bilingual(data.get("title")) + _bilingual(data.get("prompt"))
    for part in data.get("parts") or []:
        if isinstance(part, dict):
            texts += _bilingual(part.get("prompt"))
    for tag in data.get("tags") or []:
        texts.append(str(tag).replace("-", " "))
        texts += list((tag_names.get(tag) or {}).values())
    return search_text.document(*texts)


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


def _indexed_ids(session: Session) -> set[int]:
    column = "rowid" if _dialect(session) == "sqlite" else "version_id"
    return {int(r[0]) for r in session.execute(text(f"SELECT {column} FROM {TABLE}"))}


#: The databases (by URL) whose stored bodies this process has compared with what :func:`document_for`
#: makes now: once per process, so that a change of the tokens (Greek letters as names) or of the tag
#: names reaches rows indexed before it, without a migration.
_BODIES_CHECKED: set[str] = set()
_BODIES_LOCK = threading.Lock()


def _refresh_bodies(session: Session, published: Mapping[int, QuestionVersion],
                    tag_names: Mapping[str, Mapping[str, str]]) -> int:
    """Rewrite the indexed rows whose body is not what :func:`document_for` makes now; how many changed."""
    url = str(session.get_bind().url)
    with _BODIES_LOCK:
        if url in _BODIES_CHECKED:
            return 0
        _BODIES_CHECKED.add(url)
    key = "rowid" if _dialect(session) == "sqlite" else "version_id"
    stored = {int(r[0]): r[1] for r in session.execute(text(f"SELECT {key}, body FROM {TABLE}"))}
    changed = 0
    for vid, body in stored.items():
        version = published.get(vid)
        if version is None:
            continue
        fresh = document_for(version.data, tag_names)
        if fresh != body:
            session.execute(text(f"UPDATE {TABLE} SET body = :b WHERE {key} = :v"), {"b": fresh, "v": vid})
            changed += 1
    session.commit()
    return changed


def sync(session: Session, tag_names: Mapping[str, Mapping[str, str]]) -> int:
    """Bring the index in step with the published versions; returns how many rows changed."""
    published = {v.id: v for v in session.scalars(
        select(QuestionVersion).where(QuestionVersion.status == "published"))}
    _refresh_bodies(session, published, tag_names)
    indexed = _indexed_ids(session)
    stale = indexed - set(published)
    missing = [published[i] for i in sorted(set(published) - indexed)]
    if not stale and not missing:
        return 0
    sqlite = _dialect(session) == "sqlite"
    key = "rowid" if sqlite else "version_id"
    try:
        with session.begin_nested():
            for vid in stale:
                session.execute(text(f"DELETE FROM {TABLE} WHERE {key} = :v"), {"v": vid})
            for v in missing:
                session.execute(text(f"INSERT INTO {TABLE} ({key}, question_id, body) VALUES (:v, :q, :b)"),
                                {"v": v.id, "q": v.question_id, "b": document_for(v.data, tag_names)})
        session.commit()
    except IntegrityError:  # another request indexed the same version first: its rows are as good
        session.rollback()
    return len(stale) + len(missing)


def search(session: Session, query: str, tag_names: Mapping[str, Mapping[str, str]]) -> list[str] | None:
    """Question ids matching every term of ``query``, best first; ``None`` when the query has no term."""
    terms = search_text.terms(query)
    if not terms:
        return None
    sync(session, tag_names)
    if _dialect(session) == "sqlite":
        rows = session.execute(text(
            f"SELECT question_id FROM {TABLE} WHERE {TABLE} MATCH :q ORDER BY rank LIMIT :n"),
            {"q": search_text.fts5_query(terms), "n": RESULT_LIMIT})
    else:
        rows = session.execute(text(
            f"SELECT question_id FROM {TABLE} WHERE tsv @@ to_tsquery('simple', :q)"
            " ORDER BY ts_rank(tsv, to_tsquery('simple', :q)) DESC, question_id LIMIT :n"),
            {"q": search_text.tsquery(terms), "n": RESULT_LIMIT})
    out: list[str] = []
    for (qid,) in rows:
        if qid not in out:
            out.append(qid)
    return out
