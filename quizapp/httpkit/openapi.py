"""OpenAPI 3.1 building blocks shared by the blueprints' fragments, and the fragment each blueprint
contributes.

A blueprint describes its own routes in a function returning a :class:`Fragment` and attaches it with
:func:`contribute`; the app (:mod:`quizapp.openapi_doc`) merges the fragments of its registered blueprints
into the document served at ``/api/v1/openapi.json``, on copies of the fragments' paths, so building the
document never changes a module's data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from flask import Blueprint

#: The attribute of a blueprint that holds its fragment function.
_ATTRIBUTE = "openapi_fragment"


@dataclass
class Fragment:
    """One blueprint's part of the document: paths (path -> method -> operation), component schemas and
    security schemes. Two fragments may describe different methods of the same path."""

    paths: dict[str, dict[str, Any]] = field(default_factory=dict)
    schemas: dict[str, Any] = field(default_factory=dict)
    security_schemes: dict[str, Any] = field(default_factory=dict)


def contribute(bp: Blueprint, fragment: Callable[[], Fragment]) -> None:
    """Attach ``fragment`` (called each time the document is built) to ``bp``."""
    setattr(bp, _ATTRIBUTE, fragment)


def fragments(blueprints: Iterable[Blueprint]) -> list[Fragment]:
    """The fragments of ``blueprints`` that have one, in the given order."""
    out = []
    for bp in blueprints:
        fragment = getattr(bp, _ATTRIBUTE, None)
        if fragment is not None:
            out.append(fragment())
    return out


def ref(name: str) -> dict[str, str]:
    """A reference to the component schema ``name``."""
    return {"$ref": f"#/components/schemas/{name}"}


def json_response(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    """A response whose body is JSON following ``schema``."""
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def request_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A required JSON request body following ``schema``."""
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def error_responses(texts: dict[int, str], *codes: int) -> dict[str, Any]:
    """The error envelope (schema ``Error``) for each status in ``codes``, described by ``texts``."""
    return {str(c): json_response(ref("Error"), texts[c]) for c in codes}


def query_param(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    """An optional query parameter; an empty value (``?level=``, an unset form field) means absent."""
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description,
            "allowEmptyValue": True}


#: ``Retry-After`` on a 429: the seconds to wait.
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 0}}}


def rules(*items: tuple[str, str, str]) -> list[dict[str, str]]:
    """``x-422-rules`` of an operation: the rules between fields (or against the engine's registry) that a
    JSON Schema cannot state. A request that passes the schema but breaks one is a 422 whose envelope names
    ``field`` (or an element of it, ``field[0]``) with ``code``; no other schema-valid request is refused."""
    return [{"field": f, "code": code, "rule": rule} for f, code, rule in items]


def breaks_rule(rule_list: list[dict[str, str]], status: int, body: Any) -> bool:
    """Whether a response is the 422 of one of ``rule_list`` (an operation's ``x-422-rules``): its error
    envelope has the rule's code and names the rule's field or an element of it."""
    error = body.get("error") if status == 422 and isinstance(body, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("field"), str):
        return False
    named = error["field"]
    return any(error.get("code") == rule["code"] and (named == rule["field"] or named.startswith(
        (rule["field"] + "[", rule["field"] + "."))) for rule in rule_list)
