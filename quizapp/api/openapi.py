"""The API blueprint's part of the OpenAPI document (questions, attempts, checks, the reference engine),
and the route serving the whole document at ``/api/v1/openapi.json``.

Each blueprint describes its own routes (:mod:`quizapp.httpkit.openapi`); the app merges them
(:mod:`quizapp.openapi_doc`). A test walks ``app.url_map`` and fails when a route under ``/api/v1`` is
missing from the document (or a path there has no route), so this stays in step with the code.
"""

from __future__ import annotations

from typing import Any

from checkers.bank.schema import LEVELS

from . import bp
from ..httpkit.jsonapi import ok
from ..httpkit.openapi import Fragment, contribute, error_responses, json_response, ref, request_body, rules
from ..openapi_doc import document
from .openapi_answers import MESSAGE, answer_schemas
from .openapi_checks import IPO_SOURCE, K3_SOURCE, assumption_rules, check_schemas

_TEXT = {400: "Malformed JSON or a body that is not an object", 401: "No author credentials",
         403: "Not an author, or a revoked token", 404: "Unknown resource", 409: "Conflict",
         413: "Request body or element count too large", 415: "Body is not application/json",
         422: "A field has the wrong type or value (the envelope names it)", 500: "Internal error (no details)",
         503: "Database busy; retry"}


def _errors(*codes: int) -> dict[str, Any]:
    return error_responses(_TEXT, *codes)


#: Every grading endpoint may answer 503 with Retry-After, having stored nothing: its process's grading slots
#: stayed taken (``busy``, quizapp.ops.admission), the database stayed locked, or code answers graded on
#: grading hosts (GRADING_BACKEND=rq) found no verdict in time.
GRADING_503 = {"503": json_response(ref("Error"), "Nothing was stored; retry after Retry-After seconds: every "
                                                   "grading slot stayed taken (busy), the database stayed locked "
                                                   "(unavailable), or the grading queue gave no verdict "
                                                   "(grading_unavailable, grading_timeout or grading_failed)")}


#: An empty query value (``?lang=``, as an HTML form sends an unset field) is the same as leaving it out.
LANG = {"name": "lang", "in": "query", "required": False, "schema": {"type": "string", "enum": ["en", "zh"]},
        "allowEmptyValue": True, "description": "language of titles, prompts and feedback (default en)"}
QID = {"name": "qid", "in": "path", "required": True, "schema": {"type": "string"}, "description": "question id"}
FNAME = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
         "description": "engine function name, e.g. kl.k3"}
BODY_ERRORS = (400, 413, 415, 422, 500)

_SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["code", "message", "field"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"},
            "field": {"type": ["string", "null"], "description": "the offending field, e.g. answers.a"},
            "names": {"type": "array", "items": {"type": "string"},
                      "description": "unknown_function only: every engine function"}}}}},
    "QuestionSummary": {"type": "object", "properties": {
        "id": {"type": "string"}, "ref": {"type": ["string", "null"]},
        "level": {"type": "string", "enum": list(LEVELS)}, "title": MESSAGE,
        "tags": {"type": "array", "items": {"type": "string"}}, "version": {"type": "integer"},
        "parts": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "kind": {"type": "string"}}}}}},
    "QuestionList": {"type": "object", "properties": {
        "questions": {"type": "array", "items": ref("QuestionSummary")}}},
}

PATHS: dict[str, Any] = {
    "/api/v1/questions": {"get": {
        "summary": "List published questions", "operationId": "listQuestions",
        "parameters": [{"name": "level", "in": "query", "schema": {"type": "string", "enum": list(LEVELS)},
                        "allowEmptyValue": True},
                       {"name": "tag", "in": "query", "schema": {"type": "string"}, "allowEmptyValue": True}, LANG],
        "responses": {"200": json_response(ref("QuestionList")), **_errors(422, 500)}}},
    "/api/v1/questions/{qid}": {"get": {
        "summary": "One variant of a question (a fresh random variant when omitted)", "operationId": "getQuestion",
        "parameters": [QID, {"name": "variant", "in": "query",
                             "schema": {"type": "integer", "minimum": 0, "maximum": 999999},
                             "description": "the variant; 15970.0 is read as 15970, 15970.5 is a 422"}, LANG],
        "responses": {"200": json_response(ref("Question")), **_errors(404, 422, 500)}}},
    "/api/v1/questions/{qid}/validate": {"post": {
        "summary": "Parse an answer without grading it (the 'interpreted as' preview)",
        "operationId": "validateAnswer", "parameters": [QID, LANG], "requestBody": request_body(ref("ValidateRequest")),
        "responses": {"200": json_response(ref("ValidateResult")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/questions/{qid}/attempts": {"post": {
        "summary": "Submit answers; the attempt is stored before the 201", "operationId": "submitAttempt",
        "parameters": [QID, LANG], "requestBody": request_body(ref("AttemptRequest")),
        "responses": {"201": json_response(ref("Attempt"), "Created"), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/attempts/{attempt_id}": {"get": {
        "summary": "A stored attempt", "operationId": "getAttempt",
        "parameters": [{"name": "attempt_id", "in": "path", "required": True, "schema": {"type": "string"}}, LANG],
        "responses": {"200": json_response(ref("Attempt")), **_errors(404, 422, 500)}}},
    "/api/v1/check/symbolic": {"post": {
        "summary": "Is an expression equivalent to the expected one?", "operationId": "checkSymbolic",
        "parameters": [LANG], "requestBody": request_body(ref("SymbolicCheckRequest")),
        "x-422-rules": rules(("constants", "invalid_field", "each constant names a declared variable"),
                              *assumption_rules("expected", "answer")),
        "responses": {"200": json_response(ref("Verdict")), **_errors(*BODY_ERRORS), **GRADING_503}}},
    "/api/v1/check/derivation": {"post": {
        "summary": "Does every step follow from the previous one, from start to goal?",
        "operationId": "checkDerivation", "parameters": [LANG],
        "requestBody": request_body(ref("DerivationCheckRequest")),
        "x-422-rules": rules(("milestones", "invalid_field", "each milestone is a maths expression in the "
                               "declared variables"), *assumption_rules("start", "goal", "steps")),
        "responses": {"200": json_response(ref("Verdict")), **_errors(*BODY_ERRORS), **GRADING_503}}},
    "/api/v1/check/code": {"post": {
        "summary": "Run an implementation of an engine function on the code kind's hidden cases",
        "description": "The source runs in a sealed child (no network, no files, CPU/memory/time limits) and "
                       "its outputs are compared with the engine's (rtol 1e-6, atol 1e-8; float32 cases "
                       "rtol 1e-4, atol 1e-6), and in a gradient case its gradients; where the engine's "
                       "output is detached (the advantage estimators), an output that still carries a "
                       "gradient is incorrect with note not_detached. The first failing case is named with "
                       "expected vs got.",
        "operationId": "checkCode", "parameters": [LANG],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": ref("CodeCheckRequest"),
            "examples": {"k3": {"summary": "the k3 KL estimate", "value": {
                "function": "kl.k3", "source": K3_SOURCE}},
                "gae-trl": {"summary": "GAE under TRL's convention, both outputs", "value": {
                    "function": "advantages.gae", "convention": "trl", "outputs": ["advantages", "returns"],
                    "source": "def gae(rewards, values, mask):\n    ...\n"}},
                "ipo": {"summary": "the IPO loss at beta 0.1, hyperparameters fixed by args", "value": {
                    "function": "dpo.loss", "args": {"beta": 0.1, "loss_type": "ipo"}, "source": IPO_SOURCE}}}}}},
        "x-422-rules": rules(
            ("outputs", "invalid_field", "outputs are distinct outputs of the function (GET /api/v1/reference) "
             "that it returns with these args"),
            ("convention", "unknown_convention", "one of the function's convention values, for a function "
             "that has a convention parameter"),
            ("convention", "invalid_field", "the same as args.convention when both are given"),
            ("args", "invalid_field", "each key is a hyperparameter of the function (not a tensor input, "
             "dtype or device) with a value the engine accepts, alone and with the others"),
            ("args", "missing_field", "a required parameter that cannot be drawn (a string or a list) is "
             "given in args"),
            ("name", "invalid_field", "a Python identifier"),
            ("function", "unsupported_function", "the engine computes the generated cases with these args "
             "(every registered function does with none)")),
        "responses": {"200": json_response(ref("CodeVerdict")), **_errors(*BODY_ERRORS), **GRADING_503}}},
    "/api/v1/questions/{qid}/check": {"post": {
        "summary": "A part's practice check (code: the visible cases); costs no attempt, stored nowhere",
        "operationId": "checkPart", "parameters": [QID, LANG],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": ref("PartCheckRequest"),
            "examples": {"k3": {"summary": "Check a k3 implementation", "value": {
                "part": "implement", "answer": K3_SOURCE}}}}}},
        "responses": {"200": json_response(ref("Verdict")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/reference": {"get": {
        "summary": "Every reference-engine function with its parameters and outputs",
        "operationId": "listReference", "responses": {"200": json_response(ref("FunctionList")), **_errors(500)}}},
    "/api/v1/reference/{name}": {"post": {
        "summary": "Run an engine function", "operationId": "callReference", "parameters": [FNAME],
        "requestBody": request_body(ref("ReferenceCall")),
        "responses": {"200": json_response(ref("ReferenceResult")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/verify/{name}": {"post": {
        "summary": "Compare claimed outputs with the engine's", "operationId": "verifyReference",
        "parameters": [FNAME], "requestBody": request_body(ref("VerifyRequest")),
        "responses": {"200": json_response(ref("VerifyResult")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/openapi.json": {"get": {
        "summary": "This document", "operationId": "openapi",
        "responses": {"200": {"description": "OpenAPI 3.1 document", "content": {"application/json": {}}}}}},
}


def fragment() -> Fragment:
    """The API blueprint's paths and the schemas they use."""
    return Fragment(paths=PATHS, schemas={**_SCHEMAS, **answer_schemas(), **check_schemas()})


contribute(bp, fragment)


@bp.get("/openapi.json")
def openapi():
    return ok(document())
