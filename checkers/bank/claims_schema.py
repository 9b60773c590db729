"""The ``sources`` and ``invariants`` of a question file: where its claims come from (a paper and
section, or a framework's file and function) and the comparisons its text relies on in every variant.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from .fields import FieldChecker, check_placeholders, check_value_spec, join

#: Keys of one entry of a ``sources`` list: what is claimed and where it comes from.
SOURCE_KEYS = {"claim", "paper", "section", "file", "function", "repo"}
SOURCE_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
#: Keys of one entry of an ``invariants`` list: a comparison that must hold in every variant.
INVARIANT_KEYS = {"id", "claim", "left", "op", "right"}
INVARIANT_REQUIRED = ("id", "claim", "left", "op", "right")
#: The comparisons an invariant may make (``checkers.bank.invariants.OPS`` evaluates them).
INVARIANT_OPS = ("<", "<=", ">", ">=", "==", "!=")
#: An invariant's id, like a known mistake's note.
INVARIANT_ID_RE = re.compile(r"^[a-z0-9-]+$")


def check_sources(ctx: FieldChecker, sources: Any, field: str) -> None:
    """A ``sources`` list: each entry names a claim and either a paper (+ section) or a framework file.

    ``{claim, paper, section}`` for a paper; ``{claim, repo, file, function}`` for a framework's code
    (``repo`` is ``owner/name`` on GitHub, ``file`` the path in it, ``function`` the function or class).
    """
    if not isinstance(sources, list) or not sources:
        ctx.fail(field, "must be a non-empty list")
    for i, entry in enumerate(sources):
        ef = join(field, i)
        entry = ctx.mapping(entry, ef)
        ctx.keys(entry, SOURCE_KEYS, ef)
        if "claim" not in entry:
            ctx.fail(join(ef, "claim"), "missing (what the source supports)")
        ctx.text(entry["claim"], join(ef, "claim"))
        is_paper, is_code = "paper" in entry, "file" in entry
        if is_paper == is_code:
            ctx.fail(ef, "needs exactly one of paper (with section) or file (with repo and function)")
        needed = ("paper", "section") if is_paper else ("repo", "file", "function")
        for key in needed:
            if key not in entry:
                ctx.fail(join(ef, key), "missing")
            ctx.text(entry[key], join(ef, key))
        extra = [k for k in ("repo", "file", "function") if is_paper and k in entry] + \
                [k for k in ("paper", "section") if is_code and k in entry]
        if extra:
            ctx.fail(join(ef, extra[0]), "mixes a paper and a framework file in one entry")
        if is_code and not SOURCE_REPO_RE.match(entry["repo"]):
            ctx.fail(join(ef, "repo"), f"bad repo {entry['repo']!r}: must be owner/name")


def check_invariants(ctx: FieldChecker, invariants: Any, field: str, known: set[str]) -> None:
    """An ``invariants`` list: each entry ``{id, claim, left, op, right}`` states a comparison between two
    value specs (literal, ``{expr}``, ``{call}``; a bare string is an ``expr``) that the question's text
    relies on ("row 1 is not clipped", "Var[k3] < Var[k1]", a choice key). The self-test evaluates every
    one per variant (:mod:`checkers.bank.invariants`); here only the shape, the operator and the
    placeholders are checked.
    """
    if not isinstance(invariants, list) or not invariants:
        ctx.fail(field, "must be a non-empty list")
    ids: set[str] = set()
    for i, entry in enumerate(invariants):
        ef = join(field, i)
        entry = ctx.mapping(entry, ef)
        ctx.keys(entry, INVARIANT_KEYS, ef)
        for key in INVARIANT_REQUIRED:
            if key not in entry:
                ctx.fail(join(ef, key), "missing")
        if not isinstance(entry["id"], str) or not INVARIANT_ID_RE.match(entry["id"]):
            ctx.fail(join(ef, "id"), f"bad invariant id {entry['id']!r}: must match [a-z0-9-]+")
        if entry["id"] in ids:
            ctx.fail(join(ef, "id"), f"duplicate invariant id {entry['id']!r}")
        ids.add(entry["id"])
        ctx.text(entry["claim"], join(ef, "claim"))
        if entry["op"] not in INVARIANT_OPS:
            ctx.fail(join(ef, "op"), f"bad operator {entry['op']!r}: one of {' '.join(INVARIANT_OPS)}")
        for side in ("left", "right"):
            spec = entry[side]
            if isinstance(spec, bool) or not isinstance(spec, (int, float, str, list, Mapping)):
                ctx.fail(join(ef, side), "must be a value spec (number, list, expr string, {value|expr|call})")
            check_value_spec(ctx, spec, join(ef, side))
            check_placeholders(ctx, spec, join(ef, side), known)
