"""Why a search result matched: which of a question's fields hold a term of the query -- its title, its
prompt (the question's and its parts'), a topic (tag id or name) or its id / tutorial reference -- so that
a result found through its prompt or a topic says so. Read with the index's own tokens
(:mod:`.text`), so a field matches exactly when the index would match it there: a Latin word as a prefix of
a token, a Chinese word as its characters adjacent and in order, a Greek letter by its name."""

from __future__ import annotations

from typing import Any, Mapping

from . import text as search_text

FIELDS = ("title", "prompt", "topic", "id")


def _bilingual(value: Any) -> list[str]:
    if isinstance(value, Mapping):
        return [v for v in value.values() if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def _field_texts(data: Mapping[str, Any], tag_names: Mapping[str, Mapping[str, str]]) -> dict[str, list[str]]:
    prompt = _bilingual(data.get("prompt"))
    for part in data.get("parts") or []:
        if isinstance(part, Mapping):
            prompt += _bilingual(part.get("prompt"))
    topic: list[str] = []
    for tag in data.get("tags") or []:
        topic += [str(tag).replace("-", " "), *(tag_names.get(tag) or {}).values()]
    return {"title": _bilingual(data.get("title")), "prompt": prompt, "topic": topic,
            "id": [str(data.get("id") or ""), str(data.get("ref") or "")]}


def _has(tokens: list[str], term: tuple[str, ...]) -> bool:
    if len(term) == 1 and not search_text._CJK.match(term[0]):
        return any(tok.startswith(term[0]) for tok in tokens)
    n = len(term)
    return any(tuple(tokens[i:i + n]) == term for i in range(len(tokens) - n + 1))


def matched_fields(data: Mapping[str, Any], query: str,
                   tag_names: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The fields (in :data:`FIELDS` order) that hold at least one term of ``query``."""
    terms = search_text.terms(query)
    if not terms:
        return []
    out = []
    for name, texts in _field_texts(data, tag_names).items():
        tokens = search_text.document(*texts).split()
        if any(_has(tokens, term) for term in terms):
            out.append(name)
    return out
