"""Where in the question a self-test failure belongs: the field path its line and column are read from.

A self-test failure (:mod:`checkers.bank.selftest`) names its part id, its message and the arguments that
tell it apart (a known mistake's ``note``, an invalid sample ``invalid[i]``, an invariant's id). The
authoring pages promise the YAML line and column of each failure (README, "Authoring"), so each one gets
the field it is about -- ``parts[2].mistakes[1]`` for a known mistake, ``parts[0].expected`` for an expected
answer that cannot be computed or is graded wrong, ``invariants[0]`` for an invariant -- and
:func:`quizapp.authoring.yamltext.locate` turns that path into the position ruamel.yaml kept for it.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["failure_field"]

#: Messages about the part's answer key: the failure points at the key that holds it.
_ANSWER_MESSAGES = frozenset({"expected-fail", "correct-graded-wrong", "no-correct-example", "examples-fail",
                              "grading-raised"})
#: A part's answer key, in the order a kind's spec uses them (the first one present is the one meant).
_ANSWER_KEYS = ("expected", "correct", "reference", "solution", "cases")
_INVALID = re.compile(r"^invalid\[(\d+)\]$")


def _index(items: Any, match) -> int | None:
    if not isinstance(items, list):
        return None
    return next((i for i, item in enumerate(items) if isinstance(item, Mapping) and match(item)), None)


def _part_field(part: Mapping[str, Any], base: str, message: str, args: Mapping[str, Any]) -> str:
    note = args.get("note")
    if note is not None:
        j = _index(part.get("mistakes"), lambda m: m.get("note") == note)
        if j is not None:
            return f"{base}.mistakes[{j}]"
    example = _INVALID.match(str(args.get("example") or ""))
    if example and isinstance(part.get("invalid"), list) and int(example.group(1)) < len(part["invalid"]):
        return f"{base}.invalid[{example.group(1)}]"
    if message in _ANSWER_MESSAGES:
        key = next((k for k in _ANSWER_KEYS if k in part), None)
        if key is not None:
            return f"{base}.{key}"
    return base


def failure_field(data: Any, failure: Mapping[str, Any]) -> str | None:
    """The field path (``parts[0].mistakes[1]``) a self-test ``failure`` is about, or None when the question
    has no such place (a part id that is not there)."""
    if not isinstance(data, Mapping):
        return None
    if failure.get("field"):
        return str(failure["field"])
    args = failure.get("args") or {}
    message = str(failure.get("message") or "")
    pid = failure.get("part")
    if pid is not None:
        i = _index(data.get("parts"), lambda p: p.get("id") == pid)
        if i is None:
            return None
        return _part_field(data["parts"][i], f"parts[{i}]", message, args)
    if args.get("invariant") is not None:
        k = _index(data.get("invariants"), lambda e: str(e.get("id")) == str(args["invariant"]))
        return f"invariants[{k}]" if k is not None else "invariants"
    if message == "params-fail" and "params" in data:
        return "params"
    if message == "view-fail":
        return "prompt"
    return None
