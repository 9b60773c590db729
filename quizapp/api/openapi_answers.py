"""The question, answer and verdict schemas of API v1's document: what a learner is shown, what an answer
may be, and what grading says back. The kinds' parts of these schemas are read from the answer kinds'
registry when the document is built (:func:`answer_schemas`): the part kinds' names, each kind's public
fields (``Kind.public_schema``) and the answers it takes (``Kind.answer_schema``).
"""

from __future__ import annotations

import json
from typing import Any

from checkers.kinds import all_kinds, kind_names

from ..httpkit.openapi import ref

#: A variant in a JSON body (quizapp.services.attempts.check_variant). JSON Schema's integer admits a number
#: with a zero fraction, and so does the server: 15970.0 is variant 15970; 15970.5 is refused (422).
VARIANT = {"type": "integer", "minimum": 0, "maximum": 999999,
           "description": "the variant shown; an integral number such as 15970.0 is the same variant, a "
                          "non-integral one (15970.5) is a 422"}
MESSAGE = {"type": "string", "description": "in the requested language"}
INTERPRETATION = {"type": ["object", "null"], "properties": {
    "text": {"type": "string"}, "latex": {"type": "string"}, "mathml": {"type": "string"},
    "spoken": {"type": "object", "additionalProperties": {"type": "string"},
               "description": "the formula in words for screen readers, per language (one line per derivation step)"}}}

_SCHEMAS: dict[str, Any] = {
    "PublicPart": {"type": "object", "properties": {
        "id": {"type": "string"},
        "kind": {"type": "string", "enum": []},
        "prompt": MESSAGE, "weight": {"type": "number"},
        "title": {"type": ["string", "null"], "description": "the part's title (else show 'Part n')"},
        "hints_total": {"type": "integer", "description": "hints available on request (POST .../hints)"},
        "placeholder": {"type": ["string", "null"], "description": "the author's input placeholder, if any"}}},
    "Question": {"type": "object", "description": "one variant; never the expected answers", "properties": {
        "id": {"type": "string"}, "ref": {"type": ["string", "null"]}, "level": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}}, "title": MESSAGE, "prompt": MESSAGE,
        "variant": {"type": "integer"}, "version": {"type": "integer"}, "lang": {"type": "string"},
        "parts": {"type": "array", "items": ref("PublicPart")}}},
    "ValidateRequest": {"type": "object", "required": ["part", "answer"], "properties": {
        "variant": VARIANT, "part": {"type": "string"},
        "answer": ref("Answer"), "lang": {"type": "string", "enum": ["en", "zh"]}},
        "additionalProperties": False},
    "ValidateResult": {"type": "object", "properties": {
        "valid": {"type": "boolean"}, "interpreted_as": INTERPRETATION,
        "error": {"type": ["object", "null"], "properties": {
            "message": MESSAGE, "column": {"type": ["integer", "null"]}, "field": {"type": ["string", "null"]}}},
        "warning": {"type": ["string", "null"],
                    "description": "a readable answer likely too coarse (numeric: too few significant figures)"}}},
    "AttemptRequest": {"type": "object", "required": ["variant", "answers"], "properties": {
        "variant": VARIANT,
        "answers": {"type": "object", "additionalProperties": ref("Answer")},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
    "PartVerdict": {"type": "object", "properties": {
        "status": {"type": "string", "enum": ["correct", "incorrect", "invalid", "undecided", "error"]},
        "score": {"type": "number", "description": "points: verdict score x weight"},
        "max_score": {"type": "number"},
        "counted": {"type": "boolean", "description": "false for invalid/undecided: consumes no attempt"},
        "feedback": MESSAGE, "note": {"type": ["string", "null"]}, "interpreted_as": INTERPRETATION,
        "details": {"type": "object"}, "steps": {"type": "array", "items": ref("StepVerdict")},
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
        "parts": {"type": "object", "additionalProperties": ref("PartVerdict")},
        "solution": ref("Solution"),
        "practice": ref("PracticeState"),
        "answers": {"type": "object", "description": "GET only: the answers as submitted"},
        "learner_id": {"type": "string", "description": "GET only"}, "lang": {"type": "string"}}},
    "StepVerdict": {"type": "object", "properties": {
        "index": {"type": "integer"}, "status": {"type": "string"}, "feedback": MESSAGE}},
    "Verdict": {"type": "object", "properties": {
        "status": {"type": "string", "enum": ["correct", "incorrect", "invalid", "undecided", "error"],
                   "description": "error: code that could not be judged (syntax error, exception, time-out); "
                                  "like invalid, it costs no attempt"},
        "score": {"type": "number"}, "feedback": MESSAGE, "note": {"type": ["string", "null"]},
        "interpreted_as": INTERPRETATION, "details": {"type": "object"},
        "steps": {"type": "array", "items": ref("StepVerdict"), "description": "derivation only"},
        "first_error": {"type": ["integer", "null"], "description": "derivation only: 0-based"},
        "missing_milestones": {"type": "array", "description": "derivation only: key steps not found "
                               "(index, expr, feedback)", "items": {"type": "object", "properties": {
                                   "index": {"type": "integer"}, "expr": {"type": "string"},
                                   "feedback": {"type": "string"}}}}}},
    "PartCheckRequest": {"type": "object", "required": ["part", "answer"], "properties": {
        "variant": {**VARIANT, "default": 0}, "part": {"type": "string"},
        "answer": {"description": "the part's answer as for an attempt (code: the source text)"},
        "lang": {"type": "string", "enum": ["en", "zh"]}}, "additionalProperties": False},
}


def _answer() -> dict[str, Any]:
    """Any answer one of the kinds takes: the distinct ``Kind.answer_schema``, described kind by kind."""
    alternatives: list[dict[str, Any]] = []
    said = []
    for kind in all_kinds():
        schema = {k: v for k, v in kind.answer_schema.items() if k != "description"}
        if schema not in alternatives:
            alternatives.append(schema)
        said.append(f"{kind.name}: {kind.answer_schema.get('description', 'text')}")
    return {"description": "as the part's kind takes it; " + "; ".join(said), "anyOf": alternatives}


def _public_part(part: dict[str, Any]) -> dict[str, Any]:
    """``PublicPart`` with the kinds' names and each kind's public fields (the first kind to declare a field
    names its schema)."""
    properties = dict(part["properties"])
    for kind in all_kinds():
        for key, schema in kind.public_schema.items():
            properties.setdefault(key, json.loads(json.dumps(schema)))  # a copy: the document is mutable
    properties["kind"] = {"type": "string", "enum": kind_names()}
    return {**part, "properties": properties}


def answer_schemas() -> dict[str, Any]:
    """The schemas above, with the kinds' parts read from the registry (so a kind registered after import is
    listed too)."""
    schemas = dict(_SCHEMAS)
    schemas["PublicPart"] = _public_part(schemas["PublicPart"])
    schemas["Answer"] = _answer()
    return schemas
