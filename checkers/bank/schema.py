"""Schema validation of question files (``docs/question-format.md``): the top level, the solution and
each part (its common keys, known mistakes, input help, and the kind's own checks); the parameters are
:mod:`checkers.bank.params_schema`, the sources and invariants :mod:`checkers.bank.claims_schema`.

Every problem is reported as :class:`checkers.bank.fields.BankError` naming the file, the dotted field
path (list items as ``parts[2]``) and the problem, e.g. ``questions/L1/kl-coins.yaml:
parts[0].mistakes[1].note: must match [a-z0-9-]+``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from .. import kinds
from ..verdict import SpecError
from .claims_schema import check_invariants, check_sources
from .fields import FieldChecker, check_placeholders, check_value_spec, join
from .params_schema import check_generator_runs, check_params

ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{2,79}$")
REF_RE = re.compile(r"^Q([1-9]|1[0-9]|2[0-5])$")
PART_ID_RE = re.compile(r"^[a-z0-9_]{1,20}$")
NOTE_RE = re.compile(r"^[a-z0-9-]+$")
LEVELS = ("L1", "L2", "L3")

TOP_KEYS = {"id", "ref", "level", "tags", "title", "prompt", "params", "parts", "solution", "source",
            "sources", "tries", "invariants"}
#: Tries a learner has before the solution is shown (``tries:``; the default when absent).
TRIES_DEFAULT = 3
TRIES_MAX = 10
#: At most this many hints per part (``hints:``, gentle first).
HINTS_MAX = 5
TOP_REQUIRED = ("id", "level", "tags", "title", "prompt", "parts", "solution")
SOLUTION_KEYS = {"key_points", "pitfalls", "worked"}

#: Keys every part may have, whatever its kind.
PART_COMMON = {"id", "kind", "prompt", "hint", "hints", "title", "placeholder", "weight", "mistakes", "sources"}
# Kind-specific keys are each kind's ``spec_keys`` (checkers/kinds/<name>/; docs/question-format.md).

MISTAKE_KEYS = {"note", "feedback", "call", "args", "output", "index", "scale", "expr", "value", "overrides",
                "answer", "line"}


def _check_constant(ctx: FieldChecker, part: Mapping[str, Any], field: str) -> None:
    """``constant: true`` admits an expected value that is the same in every variant; it needs a reason.

    Without it the self-test fails such a part: a number that never changes gives the learner nothing
    to compute (it can be memorised), so it must be a deliberate choice the author explains.
    """
    if "constant" in part and not isinstance(part["constant"], bool):
        ctx.fail(join(field, "constant"), "must be true or false")
    if part.get("constant") is True:
        if "constant_reason" not in part:
            ctx.fail(join(field, "constant_reason"), "missing (constant: true needs a reason)")
        ctx.bilingual(part["constant_reason"], join(field, "constant_reason"))
    elif "constant_reason" in part:
        ctx.fail(join(field, "constant_reason"), "only allowed with constant: true")



def _check_part(ctx: FieldChecker, part: Any, field: str) -> None:
    part = ctx.mapping(part, field)
    for key in ("id", "kind", "prompt"):
        if key not in part:
            ctx.fail(join(field, key), "missing")
    if not isinstance(part["id"], str) or not PART_ID_RE.match(part["id"]):
        ctx.fail(join(field, "id"), f"bad part id {part['id']!r}: must match [a-z0-9_]{{1,20}}")
    kind = part["kind"]
    try:
        checker = get_kind(kind)
    except SpecError as exc:
        ctx.fail(join(field, "kind"), str(exc))
    if checker.spec_keys is not None:  # None: the kind checks its own keys in validate_spec
        ctx.keys(part, PART_COMMON | checker.spec_keys, field)
    ctx.bilingual(part["prompt"], join(field, "prompt"))
    if "hint" in part:
        ctx.bilingual(part["hint"], join(field, "hint"))
    _check_input_help(ctx, part, field)
    if "weight" in part:
        w = part["weight"]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
            ctx.fail(join(field, "weight"), "must be a number >= 0")
    for key in checker.value_keys:  # values given as a literal, a {{param}} or an engine call
        if key not in part:
            ctx.fail(join(field, key), "missing")
        check_value_spec(ctx, part[key], join(field, key))
    if checker.spec_keys is not None and "constant" in checker.spec_keys:
        _check_constant(ctx, part, field)
    if "sources" in part:
        check_sources(ctx, part["sources"], join(field, "sources"))
    mistakes = part.get("mistakes", [])
    if not isinstance(mistakes, list):
        ctx.fail(join(field, "mistakes"), "must be a list")
    notes: set[str] = set()
    for j, mistake in enumerate(mistakes):
        mf = join(join(field, "mistakes"), j)
        mistake = ctx.mapping(mistake, mf)
        ctx.keys(mistake, MISTAKE_KEYS, mf)
        if "note" not in mistake:
            ctx.fail(join(mf, "note"), "missing")
        note = mistake["note"]
        if not isinstance(note, str) or not NOTE_RE.match(note):
            ctx.fail(join(mf, "note"), f"bad note {note!r}: must match [a-z0-9-]+")
        notes.add(note)  # several wrong answers may share one note (the same misconception)
        if "feedback" not in mistake:
            ctx.fail(join(mf, "feedback"), "missing")
        ctx.bilingual(mistake["feedback"], join(mf, "feedback"))
    checker.warm()
    try:
        checker.validate_spec(part)
    except SpecError as exc:
        if getattr(exc, "field", None):
            ctx.fail(join(field, exc.field), str(exc))
        ctx.fail(field, f"{kind} part: {exc}")
    except (KeyError, TypeError, ValueError) as exc:  # a checker that trips over malformed data
        ctx.fail(field, f"{kind} part is malformed: {type(exc).__name__}: {exc}")


def _check_input_help(ctx: FieldChecker, part: Mapping[str, Any], field: str) -> None:
    """``hints`` (bilingual texts, gentle first), ``title`` (bilingual) and ``placeholder`` (one string:
    an input example is maths, the same in both languages)."""
    if "hints" in part:
        hints = part["hints"]
        if not isinstance(hints, list) or not hints:
            ctx.fail(join(field, "hints"), "must be a non-empty list of {en, zh} texts")
        if len(hints) + (1 if "hint" in part else 0) > HINTS_MAX:
            ctx.fail(join(field, "hints"), f"at most {HINTS_MAX} hints per part (counting hint)")
        for j, hint in enumerate(hints):
            ctx.bilingual(hint, join(join(field, "hints"), j))
    if "title" in part:
        ctx.bilingual(part["title"], join(field, "title"))
    if "placeholder" in part:
        value = part["placeholder"]
        if not isinstance(value, str) or not value.strip() or len(value) > 80:
            ctx.fail(join(field, "placeholder"), "must be a non-empty string of at most 80 characters")


def validate_question(data: Any, file: Any = None) -> None:
    """Raise :class:`BankError` unless ``data`` is a well-formed question (see the format doc)."""
    ctx = FieldChecker(file)
    data = ctx.mapping(data, "")
    ctx.keys(data, TOP_KEYS, "")
    for key in TOP_REQUIRED:
        if key not in data:
            ctx.fail(key, "missing")
    qid = data["id"]
    if not isinstance(qid, str) or not ID_RE.match(qid):
        ctx.fail("id", f"bad id {qid!r}: a slug of 3-80 characters [a-z0-9-]")
    if "ref" in data:
        if not isinstance(data["ref"], str) or not REF_RE.match(data["ref"]):
            ctx.fail("ref", f"bad ref {data['ref']!r}: must be Q1..Q25")
    level = data["level"]
    if level not in LEVELS:
        ctx.fail("level", f"bad level {level!r}: must be one of {', '.join(LEVELS)}")
    if file is not None:
        folder = Path(str(file)).parent.name
        if folder in LEVELS and folder != level:
            ctx.fail("level", f"level {level} does not match the folder {folder}/")
    tags = data["tags"]
    if not isinstance(tags, list) or not tags or not all(isinstance(t, str) and t for t in tags):
        ctx.fail("tags", "must be a non-empty list of strings")
    if len(set(tags)) != len(tags):
        ctx.fail("tags", "duplicate tag")
    ctx.bilingual(data["title"], "title")
    ctx.bilingual(data["prompt"], "prompt")
    if "source" in data:
        ctx.text(data["source"], "source")
    if "sources" in data:
        check_sources(ctx, data["sources"], "sources")
    if "tries" in data:
        tries = data["tries"]
        if isinstance(tries, bool) or not isinstance(tries, int) or not 1 <= tries <= TRIES_MAX:
            ctx.fail("tries", f"must be a whole number from 1 to {TRIES_MAX} (tries before the solution)")

    names = check_params(ctx, data.get("params"))
    known = set(names)
    if "invariants" in data:
        check_invariants(ctx, data["invariants"], "invariants", known)

    parts = data["parts"]
    if not isinstance(parts, list) or not parts:
        ctx.fail("parts", "must be a non-empty list")
    ids: set[str] = set()
    for i, part in enumerate(parts):
        field = f"parts[{i}]"
        _check_part(ctx, part, field)
        if part["id"] in ids:
            ctx.fail(join(field, "id"), f"duplicate part id {part['id']!r}")
        ids.add(part["id"])
    if not any(get_kind(p["kind"]).machine_graded and p.get("weight", 1) > 0 for p in parts):
        ctx.fail("parts", "needs at least one machine-graded part (not freetext, weight > 0)")

    solution = ctx.mapping(data["solution"], "solution")
    ctx.keys(solution, SOLUTION_KEYS, "solution")
    for key in sorted(SOLUTION_KEYS):
        if key not in solution:
            ctx.fail(f"solution.{key}", "missing")
    ctx.bilingual(solution["key_points"], "solution.key_points", lists=True)
    ctx.bilingual(solution["pitfalls"], "solution.pitfalls", lists=True)
    ctx.bilingual(solution["worked"], "solution.worked")

    for key in ("title", "prompt", "parts", "solution"):
        check_placeholders(ctx, data[key], key, known)

    # The generator must run: a variant is drawn at validation time (seed 0), parameter by parameter so
    # that a failure names the parameter.
    check_generator_runs(ctx, data.get("params"))


def get_kind(kind: str):
    """The answer kind registered as ``kind`` (importing :mod:`checkers.kinds` registers every kind)."""
    return kinds.get_kind(kind)
