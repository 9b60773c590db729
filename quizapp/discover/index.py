"""The full-text index behind search, on SQLite (FTS5) and PostgreSQL (tsvector + GIN), one API.

``search(session, query, tag_names) -> [question_id, ...]`` best match first. The index holds one row
per published question version (title, prompt, part prompts and tag ids/names, both languages), kept in
step with the published versions before each search: versions no longer published are dropped, new ones
added. The tables come from migration 0006 and are not ORM models.
"""

from __future__ import annotations

from typing import Any, Mapping

from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..models import QuestionVersion
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


def sync(session: Session, tag_names: Mapping[str, Mapping[str, str]]) -> int:
    """Bring the index in step with the published versions; returns how many rows changed."""
    published = {v.id: v for v in session.scalars(
        select(QuestionVersion).where(QuestionVersion.status == "published"))}
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
