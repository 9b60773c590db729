"""OpenAPI fragment of the learner account endpoints: sign-up, sign-in, the account, personal tokens, export
(merged by :mod:`quizapp.openapi_doc`)."""

from __future__ import annotations

from typing import Any

from ..config import SIGN_IN_MAX_DAYS
from ..httpkit.openapi import (RETRY_AFTER, Fragment, error_responses, request_body as _body,
                               json_response as _json, query_param as _q, ref as _ref)

_TEXT = {400: "Malformed body or missing CSRF token", 401: "Not signed in, wrong password, or an invalid/revoked token",
         403: "Needs the signed-in session (not a personal token)", 404: "Unknown (or not your) attempt or token",
         409: "Conflict (account exists / nothing to rate)", 413: "Body too large",
         415: "Body is not application/json", 422: "A field has the wrong type or value (the envelope names it)",
         429: "Too many failed sign-ins (Retry-After)", 500: "Internal error"}


def _errors(*codes: int) -> dict[str, Any]:
    out = error_responses(_TEXT, *codes)
    if "429" in out:
        out["429"] = {**out["429"], "headers": RETRY_AFTER}
    return out


LEARNER = [{"bearerAuth": []}, {}]  # a personal token, else the session or the learner cookie
BODY = (400, 413, 415, 422)
TOKEN_ID = {"name": "token_id", "in": "path", "required": True, "schema": {"type": "integer"}}

SCHEMAS: dict[str, Any] = {
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

PATHS: dict[str, dict[str, Any]] = {
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


def fragment() -> Fragment:
    """The account paths and their schemas."""
    return Fragment(paths=PATHS, schemas=SCHEMAS)
