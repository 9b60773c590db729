"""The bank self-test: every question must grade its own answers right, for every seed.

For each seed: the parameters generate; every part's expected answer resolves (every engine call
succeeds); the checker's correct examples grade ``correct``; every known mistake (and the checker's
other incorrect examples) grades ``incorrect`` with its note and a bilingual feedback, which also
proves the mistake differs from the correct answer in that variant; the checker's invalid samples
grade ``invalid``; both views render in both languages, and so does every text a learner gets only on
request (each hint, each known mistake's feedback: ``text-fail``, ``args.field`` its place); and every ``invariants`` entry (a comparison the
question's text relies on, :mod:`checkers.bank.invariants`) holds with this variant's numbers.

Across the seeds, a numeric or array part whose expected value is the same in every variant fails
(status ``constant``) unless the part says ``constant: true`` with a ``constant_reason``: a number that
never changes gives the learner nothing to compute. Each failure is data: ``{"part", "seed", "seeds",
"status", "message", "args", "reason"}`` where ``status`` names the check, ``seeds`` lists every failing
seed, ``message`` is one of :data:`MESSAGES` (what went wrong, as an id a program matches on) and ``args``
holds what tells one failure of that message from another (the known mistake's ``note``, the status an
example ``graded``, the ``error`` type, ...); ``reason`` is the same failure written out for the author,
with this variant's values, and no consumer reads it back. A grading failure also says what the check
wanted (``expected``) and what it got (``computed``). :func:`distinct_failures` folds the per-seed records
into one per distinct failure (same part, status, message and args) with all its seeds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .. import grading
from . import invariants as inv
from .schema import get_kind
from .question_place import unfilled_on_request
from .shown import shown_value
from .variants import params_for, public_view, solution_view

#: Hard limit per graded example, in seconds: the service's default grading time. The self-test judges the
#: question's content, not the machine's speed, so a loaded machine must not turn a correct example into
#: ``undecided`` (the graders' soft budgets count CPU time; only this wall-clock limit would flip).
SELFTEST_TIMEOUT = 10.0

#: The self-test's failure messages by id: what each says (its ``reason`` adds this variant's values).
MESSAGES: dict[str, str] = {
    "params-fail": "the parameters do not generate",
    "view-fail": "a view (public or solution, in one language) fails to render",
    "text-fail": "a hint or a known mistake's feedback (shown on request) fails to render in one language",
    "crash": "the self-test of a part crashed",
    "expected-fail": "the part's expected answer cannot be computed",
    "examples-fail": "the kind's examples() failed",
    "no-correct-example": "the kind produced no correct example",
    "grading-raised": "grading an example raised instead of returning a verdict",
    "correct-graded-wrong": "a correct example did not grade correct",
    "incorrect-graded-wrong": "an incorrect example (a known mistake when it has a note) did not grade incorrect",
    "mistake-wrong-note": "a known mistake graded incorrect with another note",
    "mistake-no-feedback": "a known mistake graded incorrect without a feedback in every language",
    "mistake-not-exercised": "a known mistake is not among the kind's incorrect examples",
    "invalid-graded-wrong": "an invalid sample did not grade invalid",
    "constant": "a numeric or array part has the same expected value in every variant",
    "invariant-false": "an invariant the question's text relies on is false in this variant",
    "invariant-fail": "an invariant cannot be computed in this variant",
    # found outside the per-seed checks (the authoring service grades each known mistake itself)
    "mistake-equals-correct": "a known mistake grades correct: it equals the correct answer in that variant",
}

#: The ``args`` keys that tell two failures of one message apart; seed-dependent values (an answer with
#: this variant's numbers, an exception's text) are in ``reason``/``expected``/``computed`` only.
IDENTITY_ARGS = ("lang", "error", "note", "graded", "graded_note", "example", "invariant", "field")


@dataclass
class SelfTestReport:
    ok: bool
    # {"part", "seed", "reason", "status", "seeds"}; "seed" is the first failing seed, "seeds" all of them
    failures: list[dict[str, Any]] = field(default_factory=list)
    question: str | None = None
    seeds: int = 0
    checks: int = 0
    seconds: float = 0.0

    @property
    def status(self) -> str:
        """``ok``, or ``failed``."""
        return "ok" if self.ok else "failed"

    @property
    def failing_seeds(self) -> list[int]:
        """Every seed some check failed on, ascending."""
        out: set[int] = set()
        for f in self.failures:
            out.update(s for s in f.get("seeds") or [f.get("seed")] if isinstance(s, int))
        return sorted(out)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "status": self.status, "ok": self.ok, "seeds": self.seeds,
                "checks": self.checks, "failing_seeds": self.failing_seeds,
                "failures": [dict(f) for f in self.failures]}

    def summary(self) -> str:
        head = (f"{self.question}: {'ok' if self.ok else 'FAILED'} ({self.checks} checks, "
                f"{self.seeds} seeds, {self.seconds:.2f}s)")
        lines = [head]
        distinct = distinct_failures(self.failures)
        for f in distinct[:20]:
            lines.append(f"  part {f['part']} [{f.get('status')}] seeds {_seed_list(f['seeds'])}: {f['reason']}")
            if f.get("expected") is not None:
                lines.append(f"    expected {f['expected']}; computed {f.get('computed')}")
        if len(distinct) > 20:
            lines.append(f"  ... and {len(distinct) - 20} more")
        return "\n".join(lines)


def _seed_list(seeds: list[int]) -> str:
    return ", ".join(str(x) for x in seeds[:12]) + (f" (+{len(seeds) - 12})" if len(seeds) > 12 else "")


def _short(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 80 else text[:77] + "..."


def _describe(v: Any) -> str:
    note = f", note {v.note!r}" if v.note else ""
    fb = (v.feedback or {}).get("en", "") if isinstance(v.feedback, Mapping) else ""
    return f"{v.status}{note}" + (f" ({fb[:80]})" if fb and v.status != "correct" else "")


def _has_feedback(v: Any) -> bool:
    fb = v.feedback if isinstance(v.feedback, Mapping) else {}
    return bool(str(fb.get("en", "")).strip()) and bool(str(fb.get("zh", "")).strip())


def _flat(value: Any) -> list[float] | None:
    """The numbers of a numeric/array expected value, flattened; None when it is not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        out: list[float] = []
        for v in value:
            inner = _flat(v)
            if inner is None:
                return None
            out.extend(inner)
        return out
    return None


def _same(a: list[float], b: list[float]) -> bool:
    """Whether two expected values are one value: equal to 9 significant digits, at any scale. (An absolute
    tolerance made every value below it one value: lam^(n-1) for lam in {0.9, 0.95} and n in {500, 1000,
    2000} ranges over 1e-92..1e-11 and read as constant whenever no variant drew the largest.)"""
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-9) for x, y in zip(a, b))


def _may_be_constant(part: Mapping[str, Any]) -> bool:
    """Whether the part's kind has an expected value that should vary (its keys include ``constant``)."""
    try:
        keys = get_kind(part.get("kind")).spec_keys
    except Exception:  # an unknown kind is the schema's to report
        return False
    return keys is not None and "constant" in keys


def check_constant(part: Mapping[str, Any], values: Mapping[int, Any]) -> dict[str, Any] | None:
    """A failure record when a numeric/array part's expected value is one value over >= 2 seeds."""
    if not _may_be_constant(part) or part.get("constant") is True or len(values) < 2:
        return None
    flats = [_flat(v) for v in values.values()]
    if any(f is None for f in flats) or not all(_same(flats[0], f) for f in flats[1:]):
        return None
    seeds = sorted(values)
    record = failure(part.get("id"), seeds[0], "constant",
                     f"expected value is {_short(values[seeds[0]])} in all {len(seeds)} variants: vary the "
                     f"parameters so there is something to compute, or mark the part constant: true "
                     f"with a constant_reason", "constant")
    record["seeds"] = seeds
    return record


def failure(part: str | None, seed: int | None, message: str, reason: str, status: str = "grading", *,
            expected: str | None = None, computed: str | None = None, **args: Any) -> dict[str, Any]:
    """One failure record: ``message`` is a key of :data:`MESSAGES`; ``args`` are JSON-able values."""
    if message not in MESSAGES:
        raise KeyError(f"unknown self-test message {message!r}")
    record = {"part": part, "seed": seed, "reason": reason, "status": status,
              "seeds": [seed] if seed is not None else [], "message": message, "args": dict(args)}
    if expected is not None or computed is not None:
        record.update(expected=expected, computed=computed)
    return record


def _check_part(part: Mapping[str, Any], params: Mapping[str, Any], seed: int,
                fail, count, seen: dict[int, Any] | None = None) -> None:
    pid = part["id"]
    checker = get_kind(part["kind"])
    try:
        value = grading.expected(part, params)
        count()
    except Exception as exc:
        fail(pid, seed, "expected-fail", f"expected answer cannot be computed: {type(exc).__name__}: {exc}",
             "expected", error=type(exc).__name__)
        return
    if seen is not None:
        seen[seed] = value
    try:
        ex = checker.examples(part, params)
    except Exception as exc:
        fail(pid, seed, "examples-fail", f"examples() failed: {type(exc).__name__}: {exc}",
             error=type(exc).__name__)
        return
    if not checker.machine_graded:
        return  # self-assessed: nothing to grade
    want = shown_value(value)  # as a person reads it (checkers.bank.shown), never Python's repr
    want = want if len(want) <= 80 else want[:77] + "..."
    if not ex.correct:
        fail(pid, seed, "no-correct-example", "the checker produced no correct example")

    def graded(raw: Any, ident: dict[str, Any]):
        count()
        try:
            return grading.grade(raw, part, params, timeout=SELFTEST_TIMEOUT)
        except Exception as exc:
            fail(pid, seed, "grading-raised", f"grading {_short(raw)} raised {type(exc).__name__}: {exc}",
                 error=type(exc).__name__, **ident)
            return None

    for i, raw in enumerate(ex.correct):
        v = graded(raw, {"example": f"correct[{i}]"})
        if v is not None and v.status != "correct":
            fail(pid, seed, "correct-graded-wrong", f"correct answer {_short(raw)} graded {_describe(v)}",
                 "correct-example", expected=f"correct (expected value {want})",
                 computed=f"{_short(raw)} graded {_describe(v)}", example=f"correct[{i}]",
                 graded=v.status, graded_note=v.note)
    seen_notes: set[str] = set()
    for i, (raw, note) in enumerate(ex.incorrect):
        # a known mistake is itself by its note (the examples before it may differ by variant); others by place
        ident = {"note": note} if note is not None else {"example": f"incorrect[{i}]"}
        v = graded(raw, ident)
        if v is None:
            continue
        if v.status != "incorrect":
            what = f"known mistake {note!r}" if note else "incorrect example"
            extra = " (it equals the correct answer in this variant)" if v.status == "correct" else ""
            fail(pid, seed, "incorrect-graded-wrong", f"{what} {_short(raw)} graded {_describe(v)}{extra}",
                 "known-mistake", expected=f"incorrect (expected value {want})",
                 computed=f"{_short(raw)} graded {_describe(v)}", graded=v.status, graded_note=v.note, **ident)
            continue
        if note is not None:
            seen_notes.add(note)
            if v.note != note:
                fail(pid, seed, "mistake-wrong-note",
                     f"known mistake {note!r} {_short(raw)} graded incorrect with note {v.note!r}",
                     "known-mistake", expected=f"note {note!r}", computed=f"note {v.note!r}", note=note,
                     graded=v.status, graded_note=v.note)
            elif not _has_feedback(v):
                fail(pid, seed, "mistake-no-feedback",
                     f"known mistake {note!r} graded incorrect without its feedback", note=note)
    for mistake in part.get("mistakes", []) or []:
        if mistake["note"] not in seen_notes and "line" not in mistake:
            fail(pid, seed, "mistake-not-exercised",
                 f"known mistake {mistake['note']!r} is not exercised by the checker's examples",
                 note=mistake["note"])
    for i, raw in enumerate(ex.invalid):
        v = graded(raw, {"example": f"invalid[{i}]"})
        if v is not None and v.status != "invalid":
            fail(pid, seed, "invalid-graded-wrong", f"invalid sample {_short(raw)} graded {_describe(v)}",
                 "invalid-sample", expected="invalid", computed=f"{_short(raw)} graded {_describe(v)}",
                 example=f"invalid[{i}]", graded=v.status, graded_note=v.note)


def _check_invariants(question: Mapping[str, Any], params: Mapping[str, Any], seed: int, fail, count) -> None:
    """Every ``invariants`` entry must hold with this variant's parameters (status ``invariant``, part
    None, ``args.invariant`` the entry's id); the reason names the question, the variant, the claim and
    both sides' values."""
    qid = question.get("id")
    for entry in question.get("invariants") or []:
        iid = str(entry.get("id"))
        where = f"{qid} variant {seed}: invariant {iid!r} ({entry.get('claim')})"
        try:
            holds, left, right = inv.evaluate(entry, params)
            count()
        except Exception as exc:
            fail(None, seed, "invariant-fail", f"{where} cannot be computed: {type(exc).__name__}: {exc}",
                 "invariant", invariant=iid, error=type(exc).__name__)
            continue
        if not holds:
            fail(None, seed, "invariant-false",
                 f"{where} is false: {_short(left)} {entry.get('op')} {_short(right)} does not hold",
                 "invariant", expected=f"{entry.get('left')!r} {entry.get('op')} {entry.get('right')!r}",
                 computed=f"{_short(left)} {entry.get('op')} {_short(right)}", invariant=iid)


def selftest(question: Mapping[str, Any], seeds: Iterable[int] = range(20)) -> SelfTestReport:
    """Run the self-test of one question over ``seeds``; never raises for a broken question."""
    start = time.perf_counter()
    failures: list[dict[str, Any]] = []
    checks = 0
    seeds = list(seeds)
    expected_by_part: dict[str, dict[int, Any]] = {}

    def fail(part: str | None, seed: int, message: str, reason: str, status: str = "grading", *,
             expected: str | None = None, computed: str | None = None, **args: Any) -> None:
        failures.append(failure(part, seed, message, reason, status, expected=expected, computed=computed,
                                **args))

    def count() -> None:
        nonlocal checks
        checks += 1

    for seed in seeds:
        try:
            params = params_for(question, seed)
            count()
        except Exception as exc:
            fail(None, seed, "params-fail", f"parameters do not generate: {type(exc).__name__}: {exc}", "params",
                 error=type(exc).__name__)
            continue
        _check_invariants(question, params, seed, fail, count)
        for lang in ("en", "zh"):
            try:
                public_view(question, seed, lang)
                solution_view(question, seed, lang)
                count()
            except Exception as exc:
                fail(None, seed, "view-fail", f"{lang} view fails: {type(exc).__name__}: {exc}", "view",
                     lang=lang, error=type(exc).__name__)
        count()  # every hint and known-mistake feedback, as a learner asking for it or making it gets it
        for pid, where, lang, exc in unfilled_on_request(question, params):
            fail(pid, seed, "text-fail", f"{where} does not render: {type(exc).__name__}: {exc}", "view",
                 lang=lang, error=type(exc).__name__, field=where)
        for part in question.get("parts", []):
            try:
                _check_part(part, params, seed, fail, count,
                            expected_by_part.setdefault(str(part.get("id")), {}))
            except Exception as exc:  # a checker bug must not hide the other parts' results
                fail(part.get("id"), seed, "crash", f"self-test crashed: {type(exc).__name__}: {exc}", "crash",
                     error=type(exc).__name__)
    for part in question.get("parts", []):
        record = check_constant(part, expected_by_part.get(str(part.get("id")), {}))
        if record is not None:
            failures.append(record)
    return SelfTestReport(ok=not failures, failures=failures, question=question.get("id"),
                          seeds=len(seeds), checks=checks, seconds=time.perf_counter() - start)


def failure_key(f: Mapping[str, Any]) -> tuple:
    """What makes two per-seed records one failure: part, check, message and the identifying ``args``
    (:data:`IDENTITY_ARGS`). A record without a message (made elsewhere) is only itself."""
    args = f.get("args") or {}
    if not f.get("message"):
        return (f.get("part"), f.get("status"), None, str(f.get("reason")))
    return (f.get("part"), f.get("status"), f["message"], tuple(repr(args.get(k)) for k in IDENTITY_ARGS))


def distinct_failures(failures: Iterable[Mapping[str, Any]], examples: int = 3) -> list[dict[str, Any]]:
    """One record per distinct failure: the per-seed records with the same :func:`failure_key` fold into
    the first one, with ``seeds`` (every seed it occurs on, ascending), ``count`` and up to ``examples``
    ``{"seed", "reason", "expected", "computed"}`` samples."""
    groups: dict[tuple, dict[str, Any]] = {}
    for f in failures:
        key = failure_key(f)
        seeds = [s for s in (f.get("seeds") or [f.get("seed")]) if s is not None]
        sample = {"seed": f.get("seed"), "reason": f.get("reason"), "expected": f.get("expected"),
                  "computed": f.get("computed")}
        g = groups.get(key)
        if g is None:
            g = groups[key] = dict(f)
            g["seeds"], g["examples"] = [], []
        g["seeds"] = sorted(set(g["seeds"]) | set(seeds))
        if len(g["examples"]) < examples:
            g["examples"].append(sample)
    out = []
    for g in groups.values():
        g["seed"] = g["seeds"][0] if g["seeds"] else None
        g["count"] = len(g["seeds"])
        out.append(g)
    return out
