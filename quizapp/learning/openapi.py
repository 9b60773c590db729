"""OpenAPI fragment of the learner-memory endpoints: history, shared attempts, progress, review (merged by
:mod:`quizapp.openapi_doc`)."""

from __future__ import annotations

from typing import Any
from checkers.bank.schema import LEVELS

from ..httpkit.openapi import (Fragment, error_responses, request_body as _body, json_response as _json,
                               query_param as _q, ref as _ref)

_TEXT = {400: "Malformed body or missing CSRF token", 401: "Not signed in, wrong password, or an invalid/revoked token",
         404: "Unknown (or not your) attempt or token", 409: "Conflict (account exists / nothing to rate)",
         413: "Body too large", 415: "Body is not application/json",
         422: "A field has the wrong type or value (the envelope names it)", 500: "Internal error"}


def _errors(*codes: int) -> dict[str, Any]:
    return error_responses(_TEXT, *codes)


LEARNER = [{"bearerAuth": []}, {}]  # a personal token, else the session or the learner cookie
BODY = (400, 413, 415, 422)


#: A question id as stored (the slug of its file: at most 80 characters).
QUESTION_ID = {"type": "string", "minLength": 1, "maxLength": 80}

#: An ISO 8601 date (2026-11-01) or date-time (naive times are UTC): quizapp.learning.history.parse_since.
DATE_OR_TIME = {"type": "string", "oneOf": [{"format": "date"}, {"format": "date-time"}]}


STAT = {"type": "object", "properties": {
    "seen": {"type": "integer"}, "mastered": {"type": "integer"}, "attempts": {"type": "integer"},
    "accuracy": {"type": ["number", "null"]}, "time_spent_s": {"type": "integer"}}}
CARD = {"type": "object", "properties": {
    "question_id": {"type": "string"}, "title": {"type": "string"}, "level": {"type": "string"},
    "due": {"type": "string", "format": "date-time"}, "state": {"type": "string", "enum": ["learning", "review", "relearning"]},
    "stability": {"type": ["number", "null"]}, "difficulty": {"type": ["number", "null"]},
    "reps": {"type": "integer"}, "lapses": {"type": "integer"},
    "last_rating": {"type": ["string", "null"], "enum": ["again", "hard", "good", "easy", None]},
    "pending_self_rating": {"type": "boolean"},
    "rating": {"type": "string", "enum": ["again", "hard", "good", "easy"],
               "description": "POST /review/rate only: the rating the card was reviewed with"},
    "self_rated": {"type": "boolean",
                   "description": "POST /review/rate only: true when a due question was rated as it stood, "
                                  "false when a free-text answer was (the lower of the two ratings is used)"}}}

SCHEMAS: dict[str, Any] = {
    "AttemptSummary": {"type": "object", "properties": {
        "attempt_id": {"type": "string"}, "question_id": {"type": "string"}, "title": {"type": "string"},
        "level": {"type": ["string", "null"]}, "tags": {"type": "array", "items": {"type": "string"}},
        "version_id": {"type": "integer"}, "variant": {"type": "integer"}, "score": {"type": "number"},
        "max_score": {"type": "number"}, "counted": {"type": "boolean"},
        "status": {"type": "string", "enum": ["correct", "partial", "incorrect", "uncounted"]},
        "created_at": {"type": "string", "format": "date-time"}}},
    "AttemptPage": {"type": "object", "properties": {
        "attempts": {"type": "array", "items": _ref("AttemptSummary")},
        "next_cursor": {"type": ["string", "null"], "description": "pass as ?cursor= for the next (older) page"}}},
    "Progress": {"type": "object", "properties": {
        "totals": STAT, "levels": {"type": "object", "additionalProperties": STAT},
        "tags": {"type": "object", "additionalProperties": STAT},
        "streak": {"type": "object", "properties": {"current": {"type": "integer"}, "longest": {"type": "integer"}}},
        "days": {"type": "array", "items": {"type": "object", "properties": {
            "date": {"type": "string", "format": "date"}, "attempts": {"type": "integer"},
            "accuracy": {"type": ["number", "null"]}}}},
        "today": {"type": "string", "format": "date"}}},
    "ReviewCard": CARD,
    "ReviewQueue": {"type": "object", "properties": {
        "due": {"type": "array", "items": _ref("ReviewCard"), "description": "due now, oldest due first"},
        "upcoming": {"type": "array", "items": _ref("ReviewCard"), "description": "due later today"},
        "pending": {"type": "array", "items": _ref("ReviewCard"), "description": "free-text answers to rate"},
        "counts": {"type": "object", "properties": {k: {"type": "integer"} for k in
                                                   ("due_now", "today", "tomorrow", "week", "cards")}},
        "next_due": {"type": ["string", "null"], "format": "date-time"}}},
    "RateRequest": {"type": "object", "required": ["question_id", "rating"], "properties": {
        "question_id": QUESTION_ID,
        "rating": {"oneOf": [{"type": "string", "enum": ["again", "hard", "good", "easy"]},
                             {"type": "integer", "minimum": 1, "maximum": 4}]}}, "additionalProperties": False},
    "ShareLink": {"type": "object", "properties": {
        "attempt_id": {"type": "string"}, "token": {"type": "string"}, "url": {"type": "string"}}},
}

LANG = _q("lang", {"type": "string", "enum": ["en", "zh"]}, "language of titles")

PATHS: dict[str, dict[str, Any]] = {
    "/api/v1/attempts": {"get": {
        "summary": "Your own attempts, newest first (cursor pagination)", "operationId": "listAttempts",
        "security": LEARNER,
        "parameters": [_q("question", QUESTION_ID, "question id"),
                       _q("level", {"type": "string", "enum": list(LEVELS)}, "level"),
                       _q("tag", {"type": "string"}, "tag"),
                       _q("status", {"type": "string", "enum": ["correct", "partial", "incorrect", "uncounted"]},
                          "grade"),
                       _q("since", DATE_OR_TIME, "ISO 8601 date or date-time (UTC)"),
                       _q("cursor", {"type": "string"}, "next_cursor of the previous page"),
                       _q("limit", {"type": "integer", "minimum": 1, "maximum": 100}, "page size (20)"), LANG],
        "x-422-rules": [{"field": "cursor", "code": "invalid_cursor",
                         "rule": "a next_cursor this API returned, unchanged"}],
        "responses": {"200": _json(_ref("AttemptPage")), **_errors(401, 422, 500)}}},
    "/api/v1/attempts/{attempt_id}/share": {"post": {
        "summary": "A read-only link to one of your attempts", "operationId": "shareAttempt", "security": LEARNER,
        "parameters": [{"name": "attempt_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"201": _json(_ref("ShareLink"), "Created"), **_errors(401, 404, 500)}}},
    "/api/v1/shared/{token}": {"get": {
        "summary": "The attempt behind a shared link (read-only)", "operationId": "getSharedAttempt",
        "parameters": [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}}, LANG],
        "responses": {"200": _json(_ref("Attempt")), **_errors(404, 500)}}},
    "/api/v1/progress": {"get": {
        "summary": "Per level and tag: seen, mastered, accuracy, attempts, time; practice streak",
        "operationId": "getProgress", "security": LEARNER,
        "responses": {"200": _json(_ref("Progress")), **_errors(401, 500)}}},
    "/api/v1/review/queue": {"get": {
        "summary": "Due review cards (FSRS), oldest due first, with counts", "operationId": "reviewQueue",
        "security": LEARNER, "parameters": [LANG],
        "responses": {"200": _json(_ref("ReviewQueue")), **_errors(401, 422, 500)}}},
    "/api/v1/review/rate": {"post": {
        "summary": "Your own rating (again/hard/good/easy): of your latest free-text answer to a question, or "
                   "else of the question if it is due for review (409 when neither)", "operationId": "rateReview",
        "security": LEARNER, "requestBody": _body(_ref("RateRequest")),
        "responses": {"200": _json(_ref("ReviewCard")), **_errors(401, 409, *BODY, 500)}}},
}


def fragment() -> Fragment:
    """The learner-memory paths and their schemas."""
    return Fragment(paths=PATHS, schemas=SCHEMAS)
