"""The OpenAPI 3 document of API v1, served at ``/api/v1/openapi.json``.

A test walks ``app.url_map`` and fails when a route under ``/api/v1`` is missing here (or a path here
has no route), so this stays in step with the code.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from checkers.limits import MAX_TEXT
from checkers.mathparse.symbols import ASSUMPTION_FLAGS
from checkers.bank.schema import LEVELS
from checkers.kinds import kind_names

from flask import current_app

from . import bp
from .helpers import ok


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {400: "Malformed JSON or a body that is not an object", 401: "No author credentials",
            403: "Not an author, or a revoked token", 404: "Unknown resource", 409: "Conflict",
            413: "Request body or element count too large", 415: "Body is not application/json",
            422: "A field has the wrong type or value (the envelope names it)", 500: "Internal error (no details)",
            503: "Database busy; retry"}
    return {str(c): _json(_ref("Error"), text[c]) for c in codes}


#: Every grading endpoint may answer 503 with Retry-After, having stored nothing: its process's grading slots
#: stayed taken (``busy``, quizapp.ops.admission), the database stayed locked, or code answers graded on
#: grading hosts (GRADING_BACKEND=rq) found no verdict in time.
GRADING_503 = {"503": _json(_ref("Error"), "Nothing was stored; retry after Retry-After seconds: every grading "
                                           "slot stayed taken (busy), the database stayed locked (unavailable), "
                                           "or the grading queue gave no verdict (grading_unavailable, "
                                           "grading_timeout or grading_failed)")}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _rules(*rules: tuple[str, str, str]) -> list[dict[str, str]]:
    """``x-422-rules`` of an operation: the rules between fields (or against the engine's registry) that a
    JSON Schema cannot state. A request that passes the schema but breaks one is a 422 whose envelope names
    ``field`` (or an element of it, ``field[0]``) with ``code``; no other schema-valid request is refused."""
    return [{"field": f, "code": code, "rule": rule} for f, code, rule in rules]


def breaks_rule(rules: list[dict[str, str]], status: int, body: Any) -> bool:
    """Whether a response is the 422 of one of ``rules`` (an operation's ``x-422-rules``): its error
    envelope has the rule's code and names the rule's field or an element of it."""
    error = body.get("error") if status == 422 and isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("field"), str):
        return False
    named = error["field"]
    return any(error.get("code") == rule["code"] and (named == rule["field"] or named.startswith(
        (rule["field"] + "[", rule["field"] + "."))) for rule in rules)


def _assumption_rules(*fields: str) -> list[tuple[str, str, str]]:
    """Variables' assumptions must be satisfiable together (positive and negative cannot both hold, nor
    nonnegative, nonpositive and nonzero): sympy decides when an expression is read, and the error names
    that expression's field."""
    return [(name, "invalid_field", "the variables' assumptions contradict each other") for name in fields]


#: An empty query value (``?lang=``, as an HTML form sends an unset field) is the same as leaving it out.
LANG = {"name": "lang", "in": "query", "required": False, "schema": {"type": "string", "enum": ["en", "zh"]},
        "allowEmptyValue": True, "description": "language of titles, prompts and feedback (default en)"}
QID = {"name": "qid", "in": "path", "required": True, "schema": {"type": "string"}, "description": "question id"}
FNAME = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
         "description": "engine function name, e.g. kl.k3"}
BODY_ERRORS = (400, 413, 415, 422, 500)

#: A variant in a JSON body (quizapp.services.attempts.check_variant). JSON Schema's integer admits a number
#: with a zero fraction, and so does the server: 15970.0 is variant 15970; 15970.5 is refused (422).
VARIANT = {"type": "integer", "minimum": 0, "maximum": 999999,
           "description": "the variant shown; an integral number such as 15970.0 is the same variant, a "
                          "non-integral one (15970.5) is a 422"}
NUMBER_OR_NONFINITE = {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["nan", "inf", "-inf"]}]}
TENSOR = {"description": "a number, a non-finite string or a nested list of them",
          "oneOf": [NUMBER_OR_NONFINITE, {"type": "array", "items": {}}]}
MESSAGE = {"type": "string", "description": "in the requested language"}
INTERPRETATION = {"type": ["object", "null"], "properties": {
    "text": {"type": "string"}, "latex": {"type": "string"}, "mathml": {"type": "string"},
    "spoken": {"type": "object", "additionalProperties": {"type": "string"},
               "description": "the formula in words for screen readers, per language (one line per derivation step)"}}}
#: A variable or function name the check endpoints accept (quizapp.api.questions.NAME).
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,31}$"
ASSUMPTIONS = {"type": "object", "additionalProperties": _ref("Assumptions"), "maxProperties": 50,
               "propertyNames": {"pattern": NAME_PATTERN}}
#: The k3 KL estimate as a code answer: the example body of the code-check endpoints.
K3_SOURCE = ("import torch\n\n\ndef k3(log_prob, ref_log_prob):\n"
             "    x = ref_log_prob - log_prob\n    return torch.exp(x) - x - 1\n")
#: The IPO loss (Azar et al. 2023) on the DPO log-ratios: the example of a check whose args fix beta.
IPO_SOURCE = ("def loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta):\n"
              "    h = (policy_chosen_logps - ref_chosen_logps) - (policy_rejected_logps - ref_rejected_logps)\n"
              "    return (h - 1 / (2 * beta)) ** 2\n")

SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["code", "message", "field"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"},
            "field": {"type": ["string", "null"], "description": "the offending field, e.g. answers.a"},
            "names": {"type": "array", "items": {"type": "string"},
                      "description": "unknown_function only: every engine function"}}}}},
    "Assumptions": {"type": "object", "description": "sympy-style flags, or domain=probability for (0, 1)",
                    "properties": {**{flag: {"type": "boolean"} for flag in ASSUMPTION_FLAGS},
                                   "complex": {"type": "boolean", "description": "a complex variable "
                                               "(unflagged variables are real)"},
                                   "domain": {"type": "string", "enum": ["probability"]}},
                    "additionalProperties": False},
    "QuestionSummary": {"type": "object", "properties": {
        "id": {"type": "string"}, "ref": {"type": ["string", "null"]},
        "level": {"type": "string", "enum": list(LEVELS)}, "title": MESSAGE,
        "tags": {"type": "array", "items": {"type": "string"}}, "version": {"type": "integer"},
        "parts": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "kind": {"type": "string"}}}}}},
    "QuestionList": {"type": "object", "properties": {
        "questions": {"type": "array", "items": _ref("QuestionSummary")}}},
    "PublicPart": {"type": "object", "properties": {
        "id": {"type": "string"},
        "kind": {"type": "string", "enum": []},
        "prompt": MESSAGE, "weight": {"type": "number"},
        "title": {"type": ["string", "null"], "description": "the part's title (else show 'Part n')"},
        "hints_total": {"type": "integer", "description": "hints available on request (POST .../hints)"},
        "placeholder": {"type": ["string", "null"], "description": "the author's input placeholder, if any"},
        "options": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "text": {"type": "string"}}}},
        "multiple": {"type": "boolean"}, "variables": {"type": "array", "items": {"type": "string"}},
        "functions": {"type": "object"}, "start": {}, "goal": {}, "sigfigs": {"type": "integer"},
        "precision": {"type": "string", "description": "numeric parts: the precision expected, from the tolerance"}}},
    "Question": {"type": "object", "description": "one variant; never the expected answers", "properties": {
        "id": {"type": "string"}, "ref": {"type": ["string", "null"]}, "level": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}}, "title": MESSAGE, "prompt": MESSAGE,
        "variant": {"type": "integer"}, "version": {"type": "integer"}, "lang": {"type": "string"},
        "parts": {"type": "array", "items": _ref("PublicPart")}}},
    "Answer": {"description": "string (numeric/symbolic/freetext), list of strings (derivation lines), "
                              "nested list of numbers (array), option id or list of ids (choice)",
               "oneOf": [{"type": "string"}, {"type": "number"}, {"type": "array", "items": {}}]},
    "ValidateRequest": {"type": "object", "required": ["part", "answer"], "properties": {
        "variant": VARIANT, "part": {"type": "string"},
        "answer": _ref("Answer"), "lang": {"type": "string", "enum": ["en", "zh"]}},
        "additionalProperties": False},
    "ValidateResult": {"type": "object", "properties": {
        "valid": {"type": "boolean"}, "interpreted_as": INTERPRETATION,
        "error": {"type": ["object", "null"], "properties": {
            "message": MESSAGE, "column": {"type": ["integer", "null"]}, "field": {"type": ["string", "null"]}}},
        "warning": {"type": ["string", "null"],
                    "description": "a readable answer likely too coarse (numeric: too few significant figures)"}}},
    "AttemptRequest": {"type": "object", "required": ["variant", "answers"], "properties": {
        "variant": VARIANT,
        "answers": {"type": "object", "additionalProperties": _ref("Answer")},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "PartVerdict": {"type": "object", "properties": {
        "status": {"type": "string", "enum": ["correct", "incorrect", "invalid", "undecided", "error"]},
        "score": {"type": "number", "description": "points: verdict score x weight"},
        "max_score": {"type": "number"},
        "counted": {"type": "boolean", "description": "false for invalid/undecided: consumes no attempt"},
        "feedback": MESSAGE, "note": {"type": ["string", "null"]}, "interpreted_as": INTERPRETATION,
        "details": {"type": "object"}, "steps": {"type": "array", "items": _ref("StepVerdict")},
        "first_error": {"type": ["integer", "null"]},
        "hints_used": {"type": "integer", "description": "hints shown on the part before this attempt"},
        "credit": {"type": "number", "description": "the part's credit after hints: max(0.4, 1 - 0.2 x hints)"}}},
    "Solution": {"type": ["object", "null"], "description": (
        "Present only when the attempt policy allows: after a correct attempt, after the question's tries "
        "(default 3) counted attempts on the variant, or after POST .../solution."), "properties": {
        "key_points": {"type": "array", "items": {"type": "string"}},
        "pitfalls": {"type": "array", "items": {"type": "string"}},
        "worked": {"type": ["string", "null"]}, "expected": {"type": "object"}}},
    "Attempt": {"type": "object", "properties": {
        "attempt_id": {"type": "string"}, "question_id": {"type": "string"}, "version_id": {"type": "integer"},
        "variant": {"type": "integer"}, "score": {"type": "number"}, "max_score": {"type": "number"},
        "counted": {"type": "boolean"}, "created_at": {"type": "string", "format": "date-time"},
        "parts": {"type": "object", "additionalProperties": _ref("PartVerdict")},
        "solution": _ref("Solution"),
        "practice": _ref("PracticeState"),
        "answers": {"type": "object", "description": "GET only: the answers as submitted"},
        "learner_id": {"type": "string", "description": "GET only"}, "lang": {"type": "string"}}},
    "StepVerdict": {"type": "object", "properties": {
        "index": {"type": "integer"}, "status": {"type": "string"}, "feedback": MESSAGE}},
    "SymbolicCheckRequest": {"type": "object", "required": ["expected", "answer"], "properties": {
        "expected": {"type": "string"}, "answer": {"type": "string"}, "variables": ASSUMPTIONS,
        "mode": {"type": "string", "enum": ["equivalent", "same_form", "up_to_constant", "up_to_sign"],
                 "default": "equivalent"},
        "constants": {"type": "array", "items": {"type": "string"},
                      "description": "declared variables that are given constants: in up_to_constant mode the "
                                     "allowed additive constant may depend on them"},
        "decimals": {"type": "object", "properties": {"rtol": {"type": "number", "minimum": 0},
                                                      "atol": {"type": "number", "minimum": 0}},
                     "additionalProperties": False, "minProperties": 1,
                     "description": "accept decimal answers within this tolerance (default: a decimal "
                                    "must be exactly the expected value)"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "DerivationCheckRequest": {"type": "object", "required": ["steps", "start", "goal"], "properties": {
        "steps": {"type": "array", "items": {"type": "string", "pattern": "^[^\\x00]*$"}},
        "start": {"type": "string"}, "goal": {"type": "string"}, "variables": ASSUMPTIONS,
        "functions": {"type": "object", "propertyNames": {"pattern": NAME_PATTERN}, "additionalProperties": {
            "type": "object", "required": ["args", "expr"], "additionalProperties": False, "properties": {
                "args": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": NAME_PATTERN}},
                "expr": {"type": "string", "maxLength": MAX_TEXT}}}},
        "milestones": {"type": "array", "items": {"type": "string"}, "maxItems": 20,
                       "description": "key steps (expressions) that must appear, in order, among the lines, "
                                      "matched by form (a line, one side of it, a sub-expression or some terms "
                                      "of a sum); score = (key steps found + 1 for a valid chain to the goal) / "
                                      "(milestones + 1). With or without them, the last line must be the goal in "
                                      "form and lines that are only the start/goal score 0 (note no_steps)"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "Verdict": {"type": "object", "properties": {
        "status": {"type": "string", "enum": ["correct", "incorrect", "invalid", "undecided", "error"],
                   "description": "error: code that could not be judged (syntax error, exception, time-out); "
                                  "like invalid, it costs no attempt"},
        "score": {"type": "number"}, "feedback": MESSAGE, "note": {"type": ["string", "null"]},
        "interpreted_as": INTERPRETATION, "details": {"type": "object"},
        "steps": {"type": "array", "items": _ref("StepVerdict"), "description": "derivation only"},
        "first_error": {"type": ["integer", "null"], "description": "derivation only: 0-based"},
        "missing_milestones": {"type": "array", "description": "derivation only: key steps not found "
                               "(index, expr, feedback)", "items": {"type": "object", "properties": {
                                   "index": {"type": "integer"}, "expr": {"type": "string"},
                                   "feedback": {"type": "string"}}}}}},
    "CodeCheckRequest": {"type": "object", "required": ["function", "source"], "properties": {
        "function": {"type": "string", "description": "engine function to implement, e.g. kl.k3 (any "
                     "registered function); the source defines a function named like its last component "
                     "(k3) taking the check's inputs as keyword arguments: the function's tensor inputs, "
                     "generated by each parameter's role, and its required scalars, drawn per case from the "
                     "registry's range unless args fixes them (the reply's args lists them)"},
        "args": {"type": "object", "additionalProperties": {},
                 "description": "hyperparameters held fixed for every case, e.g. {\"beta\": 0.1, \"loss_type\": "
                                "\"ipo\"}, validated like the engine's own arguments (422 naming args.<name>); "
                                "a fixed value also reaches your function where its signature names the "
                                "parameter. Unnamed hyperparameters keep the engine's defaults"},
        "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,63}$",
                 "description": "the function your source defines, when not the engine name's last component"},
        "source": {"type": "string", "maxLength": 65536,
                   "description": "Python source, at most 64 KB (UTF-8); larger is 413"},
        "convention": {"type": "string", "description": "the engine's convention to compare with (one of "
                       "the function's convention values; 422 otherwise)"},
        "outputs": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "outputs to grade (default: the function's first); with more than one, "
                                   "return a dict keyed by output name"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "CodeVerdict": {"allOf": [_ref("Verdict"), {"type": "object", "properties": {
        "function": {"type": "string"}, "name": {"type": "string", "description": "the function to define"},
        "args": {"type": "array", "items": {"type": "string"},
                 "description": "the keyword arguments your function receives"},
        "fixed": {"type": "object", "additionalProperties": {},
                  "description": "the hyperparameters held fixed (args and convention)"},
        "starter": {"type": "string", "description": "the signature the check calls, with each argument's "
                                                     "shape and what to return, as Python source"},
        "outputs": {"type": "array", "items": {"type": "string"}}}}],
        "description": "details.cases: one row per case run (id, label, ok, per-output comparison); "
                       "details.first_failure: the first failing case with expected vs got at its first "
                       "mismatch and, when small, its inputs"},
    "PartCheckRequest": {"type": "object", "required": ["part", "answer"], "properties": {
        "variant": {**VARIANT, "default": 0}, "part": {"type": "string"},
        "answer": {"description": "the part's answer as for an attempt (code: the source text)"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "Tensor": TENSOR,
    "FunctionList": {"type": "object", "properties": {"functions": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "doc": {"type": "string"},
                                         "params": {"type": "array", "items": {"type": "object"}},
                                         "outputs": {"type": "array", "items": {"type": "string"}}}}}}},
    "ReferenceCall": {"type": "object", "description": "keyword arguments of the function",
                      "additionalProperties": {}},
    "ReferenceResult": {"type": "object", "properties": {
        "function": {"type": "string"}, "outputs": {"type": "object", "additionalProperties": _ref("Tensor")}}},
    "VerifyRequest": {"type": "object", "required": ["args", "claimed"], "properties": {
        "args": {"type": "object"}, "claimed": {"type": "object", "additionalProperties": _ref("Tensor")},
        "rtol": {"type": "number", "default": 1e-6}, "atol": {"type": "number", "default": 1e-8}},
        "additionalProperties": False},
    "OutputComparison": {"type": "object", "properties": {
        "match": {"type": "boolean"}, "max_abs_err": {"oneOf": [NUMBER_OR_NONFINITE, {"type": "null"}]},
        "max_rel_err": {"oneOf": [NUMBER_OR_NONFINITE, {"type": "null"}]}, "mismatches": {"type": "integer"},
        "first_mismatch": {"type": ["array", "null"], "items": {"type": "integer"}},
        "reason": {"type": "string"}, "expected": _ref("Tensor"), "claimed": _ref("Tensor")}},
    "VerifyResult": {"type": "object", "properties": {
        "function": {"type": "string"}, "match": {"type": "boolean"},
        "outputs": {"type": "object", "additionalProperties": _ref("OutputComparison")}}},
}

PATHS: dict[str, Any] = {
    "/api/v1/questions": {"get": {
        "summary": "List published questions", "operationId": "listQuestions",
        "parameters": [{"name": "level", "in": "query", "schema": {"type": "string", "enum": list(LEVELS)},
                        "allowEmptyValue": True},
                       {"name": "tag", "in": "query", "schema": {"type": "string"}, "allowEmptyValue": True}, LANG],
        "responses": {"200": _json(_ref("QuestionList")), **_errors(422, 500)}}},
    "/api/v1/questions/{qid}": {"get": {
        "summary": "One variant of a question (a fresh random variant when omitted)", "operationId": "getQuestion",
        "parameters": [QID, {"name": "variant", "in": "query",
                             "schema": {"type": "integer", "minimum": 0, "maximum": 999999},
                             "description": "the variant; 15970.0 is read as 15970, 15970.5 is a 422"}, LANG],
        "responses": {"200": _json(_ref("Question")), **_errors(404, 422, 500)}}},
    "/api/v1/questions/{qid}/validate": {"post": {
        "summary": "Parse an answer without grading it (the 'interpreted as' preview)",
        "operationId": "validateAnswer", "parameters": [QID, LANG], "requestBody": _body(_ref("ValidateRequest")),
        "responses": {"200": _json(_ref("ValidateResult")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/questions/{qid}/attempts": {"post": {
        "summary": "Submit answers; the attempt is stored before the 201", "operationId": "submitAttempt",
        "parameters": [QID, LANG], "requestBody": _body(_ref("AttemptRequest")),
        "responses": {"201": _json(_ref("Attempt"), "Created"), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/attempts/{attempt_id}": {"get": {
        "summary": "A stored attempt", "operationId": "getAttempt",
        "parameters": [{"name": "attempt_id", "in": "path", "required": True, "schema": {"type": "string"}}, LANG],
        "responses": {"200": _json(_ref("Attempt")), **_errors(404, 422, 500)}}},
    "/api/v1/check/symbolic": {"post": {
        "summary": "Is an expression equivalent to the expected one?", "operationId": "checkSymbolic",
        "parameters": [LANG], "requestBody": _body(_ref("SymbolicCheckRequest")),
        "x-422-rules": _rules(("constants", "invalid_field", "each constant names a declared variable"),
                              *_assumption_rules("expected", "answer")),
        "responses": {"200": _json(_ref("Verdict")), **_errors(*BODY_ERRORS), **GRADING_503}}},
    "/api/v1/check/derivation": {"post": {
        "summary": "Does every step follow from the previous one, from start to goal?",
        "operationId": "checkDerivation", "parameters": [LANG],
        "requestBody": _body(_ref("DerivationCheckRequest")),
        "x-422-rules": _rules(("milestones", "invalid_field", "each milestone is a maths expression in the "
                               "declared variables"), *_assumption_rules("start", "goal", "steps")),
        "responses": {"200": _json(_ref("Verdict")), **_errors(*BODY_ERRORS), **GRADING_503}}},
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
            "schema": _ref("CodeCheckRequest"),
            "examples": {"k3": {"summary": "the k3 KL estimate", "value": {
                "function": "kl.k3", "source": K3_SOURCE}},
                "gae-trl": {"summary": "GAE under TRL's convention, both outputs", "value": {
                    "function": "advantages.gae", "convention": "trl", "outputs": ["advantages", "returns"],
                    "source": "def gae(rewards, values, mask):\n    ...\n"}},
                "ipo": {"summary": "the IPO loss at beta 0.1, hyperparameters fixed by args", "value": {
                    "function": "dpo.loss", "args": {"beta": 0.1, "loss_type": "ipo"}, "source": IPO_SOURCE}}}}}},
        "x-422-rules": _rules(
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
        "responses": {"200": _json(_ref("CodeVerdict")), **_errors(*BODY_ERRORS), **GRADING_503}}},
    "/api/v1/questions/{qid}/check": {"post": {
        "summary": "A part's practice check (code: the visible cases); costs no attempt, stored nowhere",
        "operationId": "checkPart", "parameters": [QID, LANG],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": _ref("PartCheckRequest"),
            "examples": {"k3": {"summary": "Check a k3 implementation", "value": {
                "part": "implement", "answer": K3_SOURCE}}}}}},
        "responses": {"200": _json(_ref("Verdict")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/reference": {"get": {
        "summary": "Every reference-engine function with its parameters and outputs",
        "operationId": "listReference", "responses": {"200": _json(_ref("FunctionList")), **_errors(500)}}},
    "/api/v1/reference/{name}": {"post": {
        "summary": "Run an engine function", "operationId": "callReference", "parameters": [FNAME],
        "requestBody": _body(_ref("ReferenceCall")),
        "responses": {"200": _json(_ref("ReferenceResult")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/verify/{name}": {"post": {
        "summary": "Compare claimed outputs with the engine's", "operationId": "verifyReference",
        "parameters": [FNAME], "requestBody": _body(_ref("VerifyRequest")),
        "responses": {"200": _json(_ref("VerifyResult")), **_errors(404, *BODY_ERRORS), **GRADING_503}}},
    "/api/v1/openapi.json": {"get": {
        "summary": "This document", "operationId": "openapi",
        "responses": {"200": {"description": "OpenAPI 3.1 document", "content": {"application/json": {}}}}}},
}


# Authoring endpoints: described next to their routes, merged here.
from ..authoring.openapi import SECURITY_SCHEMES as _AUTHORING_SECURITY, merge as _merge_authoring  # noqa: E402

_merge_authoring(PATHS, SCHEMAS)

from ..learning.openapi import merge as _merge_learning  # noqa: E402  (history, review, progress, accounts)

_merge_learning(PATHS, SCHEMAS)

from ..discover.openapi import merge as _merge_discover  # noqa: E402  (search)

_merge_discover(PATHS, SCHEMAS)

from ..practice.openapi import merge as _merge_practice  # noqa: E402  (attempt policy, hints)

_merge_practice(PATHS, SCHEMAS)


def _document_cookie_writes(paths: dict[str, Any]) -> None:
    """Every POST may answer 415 when it carries cookies and is not JSON (quizapp.api_writes, the CSRF guard)."""
    for operations in paths.values():
        for method, op in operations.items():
            if method == "post":
                op["responses"].setdefault("415", _json(_ref("Error"), "Sent with cookies and not as "
                                                                       "application/json (cross-site request guard)"))


_document_cookie_writes(PATHS)


def _standalone_functions() -> list[str]:
    """The engine functions ``POST /check/code`` accepts: every registered one (its inputs are chosen from
    the parameters' roles, its required scalars drawn from their ranges; checkers.kinds.code.standalone)."""
    from checkers.reference import names  # local: the engine imports torch

    return names()


def _schemas() -> dict[str, Any]:
    """The schemas, with the part kinds read from the registry when the document is served (so a kind
    registered after import is listed too)."""
    schemas = dict(SCHEMAS)
    part = dict(schemas["PublicPart"])
    part["properties"] = {**part["properties"], "kind": {"type": "string", "enum": kind_names()}}
    schemas["PublicPart"] = part
    # A code exercise implements one engine function: the names the server accepts, from the registry
    # (read on the first document served: it loads torch, which app start-up leaves to the first request
    # that needs it).
    code = dict(schemas["CodeCheckRequest"])
    code["properties"] = {**code["properties"],
                          "function": {**code["properties"]["function"], "enum": _standalone_functions()}}
    schemas["CodeCheckRequest"] = code
    return schemas


_RULE_ARG = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
#: A budget spent: 429 with the envelope (code too_many_requests) and the seconds to wait.
RATE_LIMITED_429 = {
    "description": "Too many requests for this learner or address (quizapp.ops.limits): retry after Retry-After "
                   "seconds",
    "headers": {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 0}}},
    "content": {"application/json": {"schema": _ref("Error")}},
}


def _document_rate_limits(paths: dict[str, Any]) -> None:
    """429 with Retry-After on every operation a rate limit applies to (read from the app's routes)."""
    from ..ops.limits import CHECK_ENDPOINTS, SUBMIT_ENDPOINTS  # local: the limiter's own list is the truth

    limited = set(SUBMIT_ENDPOINTS) | set(CHECK_ENDPOINTS)
    for rule in current_app.url_map.iter_rules():
        if rule.endpoint not in limited:
            continue
        path = _RULE_ARG.sub(r"{\1}", rule.rule)
        for method in rule.methods or ():
            op = paths.get(path, {}).get(method.lower())
            if op is not None:
                op["responses"].setdefault("429", RATE_LIMITED_429)


def document() -> dict[str, Any]:
    _document_rate_limits(PATHS)
    return {
        "openapi": "3.1.0",
        "info": {"title": "RLHF quiz service API", "version": "1.0.0",
                 "description": "Questions, attempts, answer checks and the torch reference engine. Every error "
                                "is {\"error\": {\"code\", \"message\", \"field\"}}. A signed cookie "
                                "(quiz_learner) identifies the anonymous learner; keep it between requests."},
        "servers": [{"url": "/"}],
        "paths": PATHS,
        "components": {"schemas": _schemas(), "securitySchemes": _AUTHORING_SECURITY},
    }


@bp.get("/openapi.json")
def openapi():
    return ok(document())
