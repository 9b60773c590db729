"""Search text: the same tokens for documents and queries on SQLite FTS5 and PostgreSQL.

Neither engine segments Chinese words, so every CJK character becomes a token of its own and a Chinese
query word becomes a phrase of its characters, adjacent and in order. Latin words are
lower-cased ``[a-z0-9]+`` tokens matched as prefixes (``clip`` finds ``clipped``). Queries are built from
these tokens only, so no operator or quote of the engine's query language can come from the learner.

A Greek letter is the token of its English name, whichever way it is written: ``β``, ``\beta`` (in the
prompts' LaTeX) and ``beta`` are the same token, so a learner typing any of them finds the others
(``\varepsilon`` and ``ϵ`` are ``epsilon``; capitals are their letter's name).
"""

from __future__ import annotations

import re

QUERY_MAX_CHARS = 200
QUERY_MAX_TERMS = 12
_TOKEN = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# template placeholders ({{beta}}) and LaTeX commands (\frac) are not words a learner searches for
_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}")
_COMMAND = re.compile(r"\\[A-Za-z]+")

GREEK_NAMES = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
               "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega")
# the lower-case letters in alphabet order (ς: final sigma), then the variant forms
_GREEK_CHARS = dict(zip("αβγδεζηθικλμνξοπρστυφχψω", GREEK_NAMES)) | {
    "ς": "sigma", "ϵ": "epsilon", "ϑ": "theta", "ϖ": "pi", "ϱ": "rho", "ϕ": "phi", "ϰ": "kappa"}
_GREEK_TABLE = str.maketrans({c: f" {name} " for c, name in _GREEK_CHARS.items()})
# \beta, \Gamma, \varepsilon ... (a name not followed by another letter: \etab is not \eta)
_GREEK_COMMAND = re.compile(r"\\(?:var)?(" + "|".join(GREEK_NAMES) + r")(?![A-Za-z])", re.IGNORECASE)


def normalise(text: str) -> str:
    """``text`` lower-cased with placeholders dropped and every Greek letter (Unicode or LaTeX command)
    spelt as its name; other LaTeX commands dropped."""
    text = _PLACEHOLDER.sub(" ", text)
    text = _GREEK_COMMAND.sub(lambda m: f" {m.group(1).lower()} ", text)
    return _COMMAND.sub(" ", text).lower().translate(_GREEK_TABLE)


def _runs(text: str) -> list[str]:
    return _TOKEN.findall(normalise(text))


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
