"""JSON Schema of the fields a code part's public view adds (``CodeChecker.public``; OpenAPI ``PublicPart``)."""

from __future__ import annotations

from typing import Any

PUBLIC_SCHEMA: dict[str, Any] = {
    "name": {"type": "string", "description": "code parts: the function the learner writes"},
    "function": {"type": "string", "description": "code parts: the engine function it must match"},
    "args": {"type": "array", "items": {"type": "string"}},
    "outputs": {"type": "array", "items": {"type": "string"}},
    "starter": {"type": "string", "description": "code parts: the signature and docstring to start from"},
    "fix_the_bug": {"type": "boolean"},
}
