"""OpenAPI fragments of the learner-memory and account endpoints (merged into ``quizapp.api.openapi``)."""

from __future__ import annotations

from typing import Any
from checkers.bank.schema import LEVELS

from ..config import SIGN_IN_MAX_DAYS


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_TEXT = {400: "Malformed body or missing CSRF token", 401: "Not signed in, wrong password, or an invalid/revoked token",
         403: "Needs the signed-in session (not a personal token)", 404: "Unknown (or not your) attempt or token",
         409: "Conflict (account exists / nothing to rate)", 413: "Body too large",
         415: "Body is not application/json", 422: "A field has the wrong type or value (the envelope names it)",
         429: "Too many failed sign-ins (Retry-After)", 500: "Internal error"}


_RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 0}}}


def _errors(*codes: int) -> dict[str, Any]:
    out = {str(c): _json(_ref("Error"), _TEXT[c]) for c in codes}
    if "429" in out:
        out["429"] = {**out["429"], "headers": _RETRY_AFTER}
    return out


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


LEARNER = [{"bearerAuth": []}, {}]  # a personal token, else the session or the learner cookie
BODY = (400, 413, 415, 422)


def _q(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    """An optional query parameter; an empty value (``?level=``, an unset form field) means absent."""
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description,
            "allowEmptyValue": True}


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
    "Credentials": {"type": "object", "required": ["email", "password"], "properties": {
        "email": {"type": "string", "format": "email", "maxLength": 254},
        "password": {"type": "string", "minLength": 10, "maxLength": 1024}}, "additionalProperties": False},
    "SignIn": {"type": "object", "required": ["email", "password"], "properties": {
        "email": {"type": "string", "format": "email", "maxLength": 254},
        "password": {"type": "string", "minLength": 10, "maxLength": 1024},
        "remember": {"type": "boolean", "default": False, "description": (
            "Remember me on this device (opt-in): also sets Flask-Login's remember cookie (HttpOnly, SameSite=Lax, "
            "Secure like the session cookie), so the sign-in outlives a browser restart, for at most "
            f"REMEMBER_COOKIE_DURATION ({SIGN_IN_MAX_DAYS} days by default) or until sign-out, which ends it on "
            "the server")}},
        "additionalProperties": False},
    "Account": {"type": "object", "properties": {
        "learner_id": {"type": "string"}, "email": {"type": "string"},
        "created_at": {"type": "string", "format": "date-time"},
        "last_login_at": {"type": ["string", "null"], "format": "date-time"}}},
    "PersonalToken": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": ["string", "null"]}, "prefix": {"type": "string"},
        "created_at": {"type": "string"}, "last_used_at": {"type": ["string", "null"]},
        "revoked_at": {"type": ["string", "null"]},
        "token": {"type": "string", "description": "only in the 201 answer of POST: shown once"}}},
}

TOKEN_ID = {"name": "token_id", "in": "path", "required": True, "schema": {"type": "integer"}}
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
    "/api/v1/account/signup": {"post": {
        "summary": "Create an account; this browser's attempts move to it; signed in", "operationId": "signUp",
        "requestBody": _body(_ref("Credentials")),
        "x-422-rules": [{"field": "password", "code": "weak_password",
                         "rule": "not a common password, not the email, at least 4 different characters"}],
        "responses": {"201": _json(_ref("Account"), "Created"), **_errors(409, *BODY, 500)}}},
    "/api/v1/account/login": {"post": {
        "summary": "Sign in (throttled); this browser's attempts move to the account", "operationId": "signIn",
        "requestBody": _body(_ref("SignIn")),
        "responses": {"200": _json(_ref("Account")), **_errors(401, *BODY, 429, 500)}}},
    "/api/v1/account/logout": {"post": {
        "summary": "Sign out", "operationId": "signOut",
        "responses": {"200": _json({"type": "object"}), **_errors(500)}}},
    "/api/v1/account": {
        "get": {"summary": "The signed-in account", "operationId": "getAccount", "security": LEARNER,
                "responses": {"200": _json(_ref("Account")), **_errors(401, 403, 500)}},
        "delete": {"summary": "Delete the account with all its attempts (removed, not anonymised)",
                   "operationId": "deleteAccount",
                   "requestBody": _body({"type": "object", "required": ["password"],
                                         "properties": {"password": {"type": "string"}}}),
                   "responses": {"200": _json({"type": "object"}), **_errors(401, 403, *BODY, 500)}}},
    "/api/v1/account/tokens": {
        "get": {"summary": "Your personal API tokens", "operationId": "listPersonalTokens", "security": LEARNER,
                "responses": {"200": _json({"type": "object", "properties": {
                    "tokens": {"type": "array", "items": _ref("PersonalToken")}}}), **_errors(401, 403, 500)}},
        "post": {"summary": "Create a personal API token (shown once)", "operationId": "createPersonalToken",
                 "requestBody": {"required": False, "content": {"application/json": {"schema": {
                     "type": "object", "properties": {"name": {"type": "string", "maxLength": 120}}}}}},
                 "responses": {"201": _json(_ref("PersonalToken"), "Created"), **_errors(401, 403, *BODY, 500)}}},
    "/api/v1/account/tokens/{token_id}": {"delete": {
        "summary": "Revoke a personal API token", "operationId": "revokePersonalToken", "parameters": [TOKEN_ID],
        "responses": {"200": _json(_ref("PersonalToken")), **_errors(401, 403, 404, 422, 500)}}},
    "/api/v1/account/export": {"get": {
        "summary": "Everything stored about you (JSON), or your attempts (CSV)", "operationId": "exportAccount",
        "security": LEARNER, "parameters": [_q("format", {"type": "string", "enum": ["json", "csv"]}, "json")],
        "responses": {"200": {"description": "the export", "content": {"application/json": {},
                                                                        "text/csv": {}}},
                      **_errors(401, 403, 422, 500)}}},
}


def merge(paths: dict[str, Any], schemas: dict[str, Any]) -> None:
    for path, ops in PATHS.items():
        paths.setdefault(path, {}).update(ops)
    schemas.update(SCHEMAS)
