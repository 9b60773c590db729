"""OpenAPI fragment of the authoring endpoints (merged by :mod:`quizapp.openapi_doc`). Plain data."""

from __future__ import annotations

from typing import Any

from checkers.bank.schema import ID_RE, LEVELS, TOP_KEYS

from ..httpkit.jsonapi import MAX_JSON_INT  # larger integers are refused
from ..httpkit.openapi import Fragment, error_responses, json_response as _json, ref as _ref


_TEXT = {400: "Malformed body", 401: "No, invalid or revoked credentials", 403: "Not an author (or no CSRF token)",
         404: "Unknown question or attempt", 409: "Conflict (exists / not a draft / self-test failures listed)",
         413: "Body too large", 415: "Unsupported Content-Type",
         422: "Schema or field error; failures lists part, seed and reason", 500: "Internal error"}


def _errors(*codes: int) -> dict[str, Any]:
    return error_responses(_TEXT, *codes)


SECURITY = [{"bearerAuth": []}]
QID = {"name": "qid", "in": "path", "required": True, "schema": {"type": "string"}, "description": "question id"}
QUESTION_BODY = {"required": True, "description": "the structure of a question file (docs/question-format.md)",
                 "content": {"application/json": {"schema": _ref("QuestionFile")},
                             "application/yaml": {"schema": _ref("QuestionFile")}}}
AUTH_ERRORS = (401, 403, 500)

#: The top-level keys of a question file (checkers.bank.schema.TOP_KEYS) with what a schema can say of them;
#: the rest of the format (kinds, expressions, parameters, the self-test) is the ``invalid_question`` rule.
QUESTION_KEYS: dict[str, Any] = {
    "id": {"type": "string", "pattern": ID_RE.pattern}, "level": {"type": "string", "enum": list(LEVELS)},
    "tags": {"type": "array", "items": {"type": "string"}}, "ref": {"type": ["string", "null"]},
    **{key: {"description": "see docs/question-format.md"}
       for key in sorted(TOP_KEYS - {"id", "level", "tags", "ref"})}}
#: A question body that passes the schema can still break the format: a 422 ``invalid_question`` naming the
#: key (or an element of it, e.g. ``parts[0].kind``).
QUESTION_RULES = [{"field": key, "code": "invalid_question",
                   "rule": "follows docs/question-format.md (kinds, expressions, parameters, solution)"}
                  for key in sorted(TOP_KEYS)]

SCHEMAS: dict[str, Any] = {
    "QuestionFile": {"type": "object", "required": ["id", "level", "tags", "title", "prompt", "parts", "solution"],
                     "description": "a question file (see docs/question-format.md): the keys listed, no other",
                     "properties": QUESTION_KEYS, "additionalProperties": False},
    "SelfTestFailure": {"type": "object", "properties": {
        "part": {"type": ["string", "null"]}, "seed": {"type": ["integer", "null"]},
        "reason": {"type": "string"}, "field": {"type": ["string", "null"]}, "file": {"type": "string"},
        "seeds": {"type": "array", "items": {"type": "integer"}, "description": "every seed the failure occurs on"},
        "count": {"type": ["integer", "null"]},
        "check": {"type": ["string", "null"], "description": "the check that failed (schema, expression, "
                                                              "expected, correct-example, known-mistake, ...)"},
        "expected": {"type": ["string", "null"]}, "computed": {"type": ["string", "null"]},
        "line": {"type": "integer", "description": "1-based line in the YAML"},
        "column": {"type": "integer", "description": "1-based column in the YAML"},
        "expr_column": {"type": ["integer", "null"], "description": "1-based column inside the expression"},
        "source_line": {"type": "string"},
        "stage": {"type": "string", "enum": ["params", "invariants", "question", "solution"],
                  "description": "a failure outside any part: where it happened (the parameters, an invariant, "
                                 "the question's text as learners see it, the solution)"}}},
    "SelfTestReport": {"type": ["object", "null"], "properties": {
        "ok": {"type": "boolean"}, "seeds": {"type": "integer", "minimum": 20},
        "failures": {"type": "array", "items": _ref("SelfTestFailure")}}},
    "QuestionVersion": {"type": "object", "properties": {
        "question_id": {"type": "string"}, "version": {"type": "integer"}, "version_id": {"type": "integer"},
        "status": {"type": "string", "enum": ["draft", "published", "retired"]},
        "content_hash": {"type": "string"}, "level": {"type": "string"}, "ref": {"type": ["string", "null"]},
        "source": {"type": ["string", "null"]}, "created_by": {"type": ["string", "null"]},
        "created_at": {"type": ["string", "null"]}, "published_at": {"type": ["string", "null"]},
        "retired_at": {"type": ["string", "null"]}, "selftest": _ref("SelfTestReport"),
        "data": _ref("QuestionFile"), "publishable": {"type": "boolean"}, "created": {"type": "boolean"},
        "yaml": {"type": "string", "description": "the version's YAML as the author wrote it"}}},
    "VersionList": {"type": "object", "properties": {
        "question_id": {"type": "string"}, "versions": {"type": "array", "items": _ref("QuestionVersion")}}},
    "PublishRequest": {"type": "object", "properties": {"version": {
        "type": "integer", "minimum": 1, "maximum": MAX_JSON_INT,
        "description": "the version number to publish (versions count from 1; 2.0 is 2)"}},
                       "additionalProperties": False},
    "RetireResult": {"type": "object", "properties": {
        "question_id": {"type": "string"}, "retired_version": {"type": "integer"}, "status": {"type": "string"},
        "attempts_kept": {"type": "integer"}}},
    "BankFiles": {"type": "object", "required": ["files"], "additionalProperties": False,
                  "properties": {"files": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["path", "content"], "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}, "content_hash": {"type": "string"}}}}}},
    "ImportSummary": {"type": "object", "properties": {
        "added": {"type": "array", "items": {"type": "string"}},
        "updated": {"type": "array", "items": {"type": "string"}},
        "unchanged": {"type": "array", "items": {"type": "string"}}}},
    "Regrade": {"type": "object", "properties": {
        "attempt_id": {"type": "string"}, "question_id": {"type": "string"}, "version_id": {"type": "integer"},
        "version": {"type": "integer"}, "variant": {"type": "integer"},
        "parts": {"type": "object", "description": "part id -> {regraded, stored}: status, score, note, counted"},
        "matches": {"type": "boolean"}, "differences": {"type": "array", "items": {"type": "object"}}}},
}

PATHS: dict[str, dict[str, Any]] = {
    "/api/v1/questions": {"post": {
        "summary": "Create a question: version 1 as a draft, with its schema check and self-test report",
        "operationId": "createQuestion", "security": SECURITY, "requestBody": QUESTION_BODY,
        "x-422-rules": QUESTION_RULES,
        "responses": {"201": _json(_ref("QuestionVersion"), "Created"),
                      **_errors(400, *AUTH_ERRORS, 409, 413, 415, 422)}}},
    "/api/v1/questions/{qid}": {
        "put": {"summary": "Save a new draft version (an unchanged draft is returned with 200)",
                "operationId": "updateQuestion", "security": SECURITY, "parameters": [QID],
                "x-422-rules": QUESTION_RULES,
                "requestBody": QUESTION_BODY,
                "responses": {"201": _json(_ref("QuestionVersion"), "Created"), "200": _json(_ref("QuestionVersion")),
                              **_errors(400, *AUTH_ERRORS, 404, 413, 415, 422)}},
        "delete": {"summary": "Retire the question: hidden from learners, attempts kept",
                   "operationId": "retireQuestion", "security": SECURITY, "parameters": [QID],
                   "responses": {"200": _json(_ref("RetireResult")), **_errors(*AUTH_ERRORS, 404, 409)}}},
    "/api/v1/questions/{qid}/publish": {"post": {
        "summary": "Publish a draft (default the newest version); 409 with the failures if its self-test fails",
        "operationId": "publishQuestion", "security": SECURITY, "parameters": [QID],
        "requestBody": {"required": False, "content": {"application/json": {"schema": _ref("PublishRequest")}}},
        "responses": {"200": _json(_ref("QuestionVersion")), **_errors(400, *AUTH_ERRORS, 404, 409, 415, 422)}}},
    "/api/v1/questions/{qid}/versions": {"get": {
        "summary": "Every version (drafts included) with status and self-test report",
        "operationId": "listVersions", "security": SECURITY, "parameters": [QID],
        "responses": {"200": _json(_ref("VersionList")), **_errors(*AUTH_ERRORS, 404)}}},
    "/api/v1/export": {"get": {
        "summary": "Export the published bank (zip of question files, or json) or one question (YAML)",
        "operationId": "exportBank", "security": SECURITY,
        "parameters": [{"name": "id", "in": "query", "schema": {"type": "string"}, "allowEmptyValue": True,
                        "description": "one question (empty: the whole bank)"},
                       {"name": "format", "in": "query", "schema": {"type": "string", "enum": ["zip", "json", "yaml"]},
                        "allowEmptyValue": True,
                        "description": "default yaml for one question, zip for the bank (empty: the default)"}],
        "x-422-rules": [{"field": "format", "code": "invalid_field",
                         "rule": "zip exports the bank only, yaml one question only (json either)"}],
        "responses": {"200": {"description": "question files", "content": {
            "application/zip": {}, "application/yaml": {}, "application/json": {"schema": _ref("BankFiles")}}},
            **_errors(*AUTH_ERRORS, 404, 422)}}},
    "/api/v1/import": {"post": {
        "summary": "Import question files, all or nothing (each validated and self-tested)",
        "operationId": "importBank", "security": SECURITY,
        "x-422-rules": [{"field": "files", "code": "invalid_field",
                         "rule": "each path is relative, without '..', and ends in .yaml"},
                        {"field": "files", "code": "import_failed",
                         "rule": "every file is a question file that follows docs/question-format.md and "
                                 "passes its self-test (failures lists each problem)"}],
        "parameters": [{"name": "publish", "in": "query", "schema": {"type": "boolean", "default": True}},
                       {"name": "path", "in": "query", "schema": {"type": "string"},
                        "description": "file path for a single YAML body"}],
        "requestBody": {"required": True, "content": {"application/zip": {}, "application/yaml": {},
                                                      "application/json": {"schema": _ref("BankFiles")}}},
        "responses": {"200": _json(_ref("ImportSummary")), **_errors(400, *AUTH_ERRORS, 413, 415, 422)}}},
    "/api/v1/attempts/{attempt_id}/regrade": {"post": {
        "summary": "Re-grade a stored attempt against the version it answered (nothing is written)",
        "operationId": "regradeAttempt", "security": SECURITY,
        "parameters": [{"name": "attempt_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": _json(_ref("Regrade")), **_errors(*AUTH_ERRORS, 404)}}},
}

SECURITY_SCHEMES = {"bearerAuth": {"type": "http", "scheme": "bearer",
                                   "description": "an author's API token (quizapp create-token or /author/tokens)"}}


def fragment() -> Fragment:
    """The authoring paths (methods of paths the API blueprint also serves), schemas and the bearer scheme."""
    return Fragment(paths=PATHS, schemas=SCHEMAS, security_schemes=SECURITY_SCHEMES)
