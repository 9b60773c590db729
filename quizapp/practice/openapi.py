"""OpenAPI fragment of the practice endpoints (attempt policy, hints; merged by :mod:`quizapp.openapi_doc`)."""

from __future__ import annotations

from typing import Any

from ..httpkit.openapi import Fragment, error_responses, request_body as _body, json_response as _json, ref as _ref


_TEXT = {404: "Unknown question", 409: "The part has no further hint (code no_more_hints)",
         413: "Body too large", 415: "Body is not application/json", 400: "Malformed body",
         422: "A field has the wrong type or value (the envelope names it)", 500: "Internal error"}


def _errors(*codes: int) -> dict[str, Any]:
    return error_responses(_TEXT, *codes)


VARIANT = {"type": "integer", "minimum": 0, "maximum": 999999}
LANG_FIELD = {"type": "string", "enum": ["en", "zh"]}
QID = {"name": "qid", "in": "path", "required": True, "schema": {"type": "string"}}
LANG_Q = {"name": "lang", "in": "query", "required": False, "schema": LANG_FIELD}

SCHEMAS: dict[str, Any] = {
    "PracticeState": {"type": "object", "description": (
        "The learner's state on one variant. The solution may be shown after a correct attempt "
        "(solution_reason correct), after tries_allowed counted attempts (tries), or once the learner asked "
        "for it (requested; the review card is rated Again)."), "properties": {
        "tries_allowed": {"type": "integer", "description": "the question's tries (default 3)"},
        "tries_used": {"type": "integer", "description": "counted attempts on the question, every variant, since "
                       "the last reveal (docs/practice.md); on a revealed variant, its own count"},
        "tries_left": {"type": "integer"},
        "solution_available": {"type": "boolean"},
        "solution_reason": {"type": ["string", "null"], "enum": ["correct", "tries", "requested", None]},
        "solution_requested": {"type": "boolean"},
        "hints_shown": {"type": "object", "additionalProperties": {"type": "integer"},
                        "description": "part id -> hints shown on it, on every variant, since the last "
                                       "reveal (docs/practice.md); on a revealed variant, its own count"}}},
    "PracticeView": {"type": "object", "properties": {
        "question_id": {"type": "string"}, "variant": {"type": "integer"},
        "practice": _ref("PracticeState"),
        "hints": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
                  "description": "part id -> the hints already shown, gentlest first"},
        "solution": {**_ref("Solution"), "description": "present only when practice.solution_available"}}},
    "HintRequest": {"type": "object", "required": ["variant", "part"], "properties": {
        "variant": VARIANT, "part": {"type": "string"}, "lang": LANG_FIELD}, "additionalProperties": False},
    "HintShown": {"allOf": [_ref("PracticeView"), {"type": "object", "properties": {
        "part": {"type": "string"}, "index": {"type": "integer", "description": "0 = the gentlest hint"},
        "hint": {"type": "string", "description": "Markdown with $maths$"},
        "hints_total": {"type": "integer"},
        "credit": {"type": "number", "description": "the part's credit now: max(0.4, 1 - 0.2 x hints shown)"}}}]},
    "SolutionRequest": {"type": "object", "required": ["variant"], "properties": {
        "variant": VARIANT, "lang": LANG_FIELD}, "additionalProperties": False},
    "SolutionShown": {"allOf": [_ref("PracticeView"), {"type": "object", "properties": {
        "review": {"type": ["object", "null"], "description": "the review card after the Again rating "
                                                              "(null when the solution was already shown)"}}}]},
}

PATHS: dict[str, dict[str, Any]] = {
    "/api/v1/questions/{qid}/practice": {"get": {
        "summary": "Your state on one variant: tries, hints shown, and the solution when it may be shown",
        "operationId": "getPractice",
        "parameters": [QID, {"name": "variant", "in": "query", "required": True, "schema": VARIANT}, LANG_Q],
        "responses": {"200": _json(_ref("PracticeView")), **_errors(404, 422, 500)}}},
    "/api/v1/questions/{qid}/hints": {"post": {
        "summary": "Show the next hint of a part (recorded; each hint lowers the part's credit)",
        "operationId": "showHint", "parameters": [QID, LANG_Q], "requestBody": _body(_ref("HintRequest")),
        "responses": {"201": _json(_ref("HintShown"), "Created"),
                      **_errors(400, 404, 409, 413, 415, 422, 500)}}},
    "/api/v1/questions/{qid}/solution": {"post": {
        "summary": "Show the solution of a variant now (recorded; the question's review card is rated Again)",
        "operationId": "showSolution", "parameters": [QID, LANG_Q], "requestBody": _body(_ref("SolutionRequest")),
        "responses": {"201": _json(_ref("SolutionShown"), "Created"),
                      **_errors(400, 404, 413, 415, 422, 500)}}},
}


def fragment() -> Fragment:
    """The practice paths and their schemas."""
    return Fragment(paths=PATHS, schemas=SCHEMAS)
