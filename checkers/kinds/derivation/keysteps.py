"""Judging a derivation's reasoning: "show your steps" and key steps (milestones).

Every line of a correct chain has the value of the start, so a chain that is valid step by step may
still show nothing: the start, the goal, or the start followed by the goal. On top of the chain's
verdict (:func:`checkers.kinds.derivation.check_chain`):

1. **No step of its own** -- every line is, in form (:mod:`.form`), the start or the goal
   (or an equation whose sides are each a side of the start or goal, e.g. ``start = goal``): score 0,
   note ``no_steps``, "show your steps". Decided from forms alone, so it holds even when the chain
   could not be checked in time.
2. **Key steps** ``key_steps: [{expr: "<maths>" | ["<maths>", ...], feedback: {en, zh}}]``: each must
   appear, in order, among the lines that follow (a line contains a key step when one of its
   alternative forms is the line, one side of it, a sub-expression, or some terms of one of its sums
   or factors of one of its products). The derivation has ``n + 1`` checkpoints: the ``n`` key steps
   and the goal reached (in form) by a valid chain. Score = checkpoints hit / (n + 1): full marks only
   with every key step and a valid chain to the goal; the missing key steps are named by their
   feedback (``details.missing_milestones``).

Key steps are matched only on lines up to the first failing one (later lines were not checked).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ...i18n import join
from ...params import PLACEHOLDER, substitute_text
from ...verdict import AnswerParseError, SpecError, Verdict, msg
from .. import _common as c
from . import form as F

Message = dict


@dataclass
class KeyStep:
    index: int
    text: str                 # the first alternative, as authored (after placeholders)
    forms: list               # the alternatives' forms
    feedback: Message


def _alternatives(item: Any, where: str) -> list[str]:
    expr = item.get("expr") if isinstance(item, Mapping) else None
    alts = expr if isinstance(expr, list) else [expr]
    if not alts or not all(isinstance(a, str) and a.strip() for a in alts):
        raise SpecError(f"{where}.expr: must be a maths expression or a non-empty list of them")
    return alts


def _feedback(item: Mapping[str, Any], where: str, params: Mapping[str, Any] | None = None) -> Message:
    """The key step's feedback in every language; with ``params``, its ``{{name}}`` placeholders filled
    with the variant's parameters, or as written where they do not fill (the learner still gets the
    verdict; the bank self-test names the text, ``parts[i].key_steps[j].feedback.<lang>``)."""
    fb = item.get("feedback")
    if not (isinstance(fb, Mapping) and set(fb) == {"en", "zh"}
            and all(isinstance(fb[k], str) and fb[k].strip() for k in ("en", "zh"))):
        raise SpecError(f"{where}.feedback: must be {{en, zh}} naming the step for a learner who missed it")
    if params is None:
        return {"en": fb["en"], "zh": fb["zh"]}
    # the same filling (and fallback) as a known mistake's feedback, which a learner is shown the same way
    return c.mistake_feedback(item, params)


def key_steps(spec: Mapping[str, Any], params: Mapping[str, Any]) -> list[KeyStep]:
    """The part's key steps with their forms and feedback (placeholders filled). SpecError for a malformed
    one."""
    raw = spec.get("key_steps") or []
    out = []
    for i, item in enumerate(raw):
        where = f"key_steps[{i}]"
        texts = [substitute_text(a, params) for a in _alternatives(item, where)]
        forms = []
        for t in texts:
            try:
                stmt = F.statement(t, spec)
            except AnswerParseError as exc:
                raise SpecError(f"{where}.expr: {exc.message}") from None
            if stmt[0] != "expr":
                raise SpecError(f"{where}.expr: a key step is an expression (a line contains it, or one side of "
                                f"its equation does), not an equation")
            forms.append(stmt[1])
        out.append(KeyStep(i, texts[0], forms, _feedback(item, where, params)))
    return out


def validate(spec: Mapping[str, Any]) -> None:
    """Structure of ``key_steps``; where nothing is a placeholder, also that each key step parses and is
    not already in the start or the goal (it would be found in a submission that shows no work)."""
    raw = spec.get("key_steps")
    if raw is None:
        return
    if not isinstance(raw, list) or not raw:
        raise SpecError("key_steps: must be a non-empty list of {expr, feedback}")
    texts = [str(spec.get("start")), str(spec.get("goal"))]
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping) or set(item) - {"expr", "feedback"}:
            raise SpecError(f"key_steps[{i}]: must be a mapping with expr and feedback only")
        texts += _alternatives(item, f"key_steps[{i}]")
        _feedback(item, f"key_steps[{i}]")
    if any(PLACEHOLDER.search(t) for t in texts):
        return  # checked per variant by the bank's self-test (the reference must hit every key step)
    steps = key_steps(spec, {})
    for key in ("start", "goal"):
        try:
            given = F.statement(str(spec[key]), spec)
        except AnswerParseError:
            continue  # reported by the start/goal check
        for ks in steps:
            if F.line_contains(given, ks.forms):
                raise SpecError(f"key_steps[{ks.index}].expr: already contained in the {key}, so it shows no work")


def line_forms(lines: Sequence[Any], spec: Mapping[str, Any]) -> list[tuple | None]:
    """The form of each line (None where it has none: then it counts as a step of its own)."""
    out: list[tuple | None] = []
    for ln in lines:
        try:
            out.append(F.statement(ln.text, spec))
        except (AnswerParseError, ValueError, RecursionError):
            out.append(None)
    return out


def is_given(stmt: tuple | None, start: tuple | None, goal: tuple | None) -> bool:
    """Is this line, in form, just the start or the goal (or an equation made of their sides)?"""
    if stmt is None:
        return False
    known = [g for g in (start, goal) if g is not None]
    if any(F.same_statement(stmt, g) for g in known):
        return True
    given_sides = {side for g in known for side in F.sides(g)}
    return stmt[0] == "eq" and all(side in given_sides for side in F.sides(stmt))


def _names(missing: list[KeyStep]) -> dict[str, str] | str:
    return join([k.feedback for k in missing])


def judge(verdict: Verdict, lines: Sequence[Any], forms: Sequence[tuple | None], start: tuple | None,
          goal: tuple | None, steps: Sequence[KeyStep]) -> Verdict:
    """Apply "show your steps" and the key steps to the chain's ``verdict`` (see the module docstring)."""
    details = verdict.details if verdict.details is not None else {}
    verdict.details = details
    if all(is_given(f, start, goal) for f in forms):
        details["own_steps"] = 0
        details["missing_milestones"] = [{"index": k.index, "expr": k.text, "feedback": k.feedback} for k in steps]
        return Verdict("incorrect", 0.0, msg("Show your steps: every line is the start or the goal as given. Write "
                                             "the intermediate lines that lead from the start to the goal."),
                       "no_steps", verdict.interpreted_as, details)
    if not steps or verdict.status in ("invalid", "undecided"):
        return verdict
    checked = [ln_status == "ok" for ln_status in (s["status"] for s in details.get("steps", []))]
    usable = [f for f, ok in zip(forms, checked) if ok and f is not None]
    positions = [i for i, (f, ok) in enumerate(zip(forms, checked)) if ok and f is not None]
    hits = [[F.line_contains(f, ks.forms) for f in usable] for ks in steps]
    found_at = F.match_in_order(hits)
    missing = [ks for ks, at in zip(steps, found_at) if at is None]
    details["milestones"] = [{"index": ks.index, "expr": ks.text, "found": at is not None,
                              "line": lines[positions[at]].index if at is not None else None}
                             for ks, at in zip(steps, found_at)]
    details["missing_milestones"] = [{"index": k.index, "expr": k.text, "feedback": k.feedback} for k in missing]
    n, found = len(steps), len(steps) - len(missing)
    chain_done = verdict.status == "correct"
    score = (found + (1 if chain_done else 0)) / (n + 1)
    if chain_done and not missing:
        return verdict
    names = _names(missing)
    if chain_done:
        return Verdict("incorrect", score,
                       msg("Every step follows and the goal is reached, but a key step is missing: %(steps)s.",
                           steps=names),
                       "missing_key_steps", verdict.interpreted_as, details)
    verdict.score = score
    if missing:
        fb = verdict.feedback or {}
        key_steps = msg("Key steps not shown yet: %(steps)s.", steps=names)
        verdict.feedback = {lang: f"{fb.get(lang, '')} {text}".strip() for lang, text in key_steps.items()}
    return verdict


__all__ = ["KeyStep", "is_given", "judge", "key_steps", "line_forms", "validate"]
