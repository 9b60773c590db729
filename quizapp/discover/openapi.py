"""OpenAPI fragment of ``GET /api/v1/search`` (merged by :mod:`quizapp.openapi_doc`)."""

from __future__ import annotations

from typing import Any
from checkers.bank.schema import LEVELS

from ..httpkit.openapi import Fragment, query_param as _q


SCHEMAS: dict[str, Any] = {
    "SearchResult": {"type": "object", "required": ["questions", "total", "filter"], "properties": {
        "questions": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "ref": {"type": ["string", "null"]}, "level": {"type": "string"},
            "title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
            "status": {"type": "string", "enum": ["new", "wrong", "mastered"]},
            "matched": {"type": "array", "items": {"type": "string", "enum": ["title", "prompt", "topic", "id"]},
                        "description": "with q only: the fields that hold a search term"}}}},
        "total": {"type": "integer"},
        "filter": {"type": "object", "additionalProperties": {"type": "string"}}}},
}

PATHS: dict[str, Any] = {
    "/api/v1/search": {"get": {
        "summary": "Search questions (titles, prompts, tags; English and Chinese) and filter them",
        "description": "Every term must match: a Latin word as a prefix, a Chinese word as a run of adjacent "
                       "characters; a Greek letter matches as its name (β, \\beta and beta alike). Without q, the "
                       "filtered list in level / tutorial order. status is the "
                       "caller's: new (never answered), wrong (latest attempt below full marks), mastered.",
        "parameters": [
            _q("q", {"type": "string", "maxLength": 200}, "search words"),
            _q("level", {"type": "string", "enum": list(LEVELS)}, "level"),
            _q("tag", {"type": "string"}, "a tag of the curated list (questions/tags.yml)"),
            _q("status", {"type": "string", "enum": ["new", "wrong", "mastered"]}, "the caller's status"),
            _q("lang", {"type": "string", "enum": ["en", "zh"]}, "language of the titles")],
        "x-422-rules": [{"field": "tag", "code": "invalid_field",
                         "rule": "one of the curated tags (questions/tags.yml), when the bank has that list"}],
        "responses": {
            "200": {"description": "OK", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/SearchResult"}}}},
            "422": {"description": "A filter has a wrong value (the envelope names it)", "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}},
}


def fragment() -> Fragment:
    """The search path and its schema."""
    return Fragment(paths=PATHS, schemas=SCHEMAS)
