"""Search text: the same tokens for documents and queries on SQLite FTS5 and PostgreSQL.

Neither engine segments Chinese words, so every CJK character becomes a token of its own and a Chinese
query word becomes a phrase of its characters, adjacent and in order. Latin words are
lower-cased ``[a-z0-9]+`` tokens matched as prefixes (``clip`` finds ``clipped``). Queries are built from
these tokens only, so no operator or quote of the engine's query language can come from the learner.
"""

from __future__ import annotations

import re

QUERY_MAX_CHARS = 200
QUERY_MAX_TERMS = 12
_TOKEN = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# template placeholders ({{beta}}) and LaTeX commands (\frac) are not words a learner searches for
_NOISE = re.compile(r"\{\{[^{}]*\}\}|\\[A-Za-z]+")


def _runs(text: str) -> list[str]:
    return _TOKEN.findall(_NOISE.sub(" ", text).lower())


def document(*texts: str) -> str:
    """The indexed body: the tokens of ``texts``, CJK characters spaced apart."""
    out: list[str] = []
    for text in texts:
        for run in _runs(text or ""):
            out.append(" ".join(run) if _CJK.match(run) else run)
    return " ".join(out)


def terms(query: str) -> list[tuple[str, ...]]:
    """Query ``->`` terms; a term is one latin word ``(w,)`` or a CJK phrase ``(c1, c2, ...)``."""
    out: list[tuple[str, ...]] = []
    for run in _runs((query or "")[:QUERY_MAX_CHARS]):
        term = tuple(run) if _CJK.match(run) else (run,)
        if term not in out:
            out.append(term)
    return out[:QUERY_MAX_TERMS]


def fts5_query(query_terms: list[tuple[str, ...]]) -> str:
    """``"w"* AND "c1 c2"``: every term must match; a latin word as a prefix, a CJK run as a phrase."""
    parts = []
    for term in query_terms:
        if len(term) == 1 and not _CJK.match(term[0]):
            parts.append(f'"{term[0]}"*')
        else:
            parts.append('"' + " ".join(term) + '"')
    return " AND ".join(parts)


def tsquery(query_terms: list[tuple[str, ...]]) -> str:
    """``w:* & (c1 <-> c2)`` for ``to_tsquery('simple', ...)``: the same meaning as :func:`fts5_query`."""
    parts = []
    for term in query_terms:
        if len(term) == 1 and not _CJK.match(term[0]):
            parts.append(f"{term[0]}:*")
        else:
            parts.append("(" + " <-> ".join(term) + ")")
    return " & ".join(parts)
