"""The bank self-test: every question must grade its own answers right, for every seed.

For each seed: the parameters generate; every part's expected answer resolves (every engine call
succeeds); the checker's correct examples grade ``correct``; every known mistake (and the checker's
other incorrect examples) grades ``incorrect`` with its note and a bilingual feedback, which also
proves the mistake differs from the correct answer in that variant; the checker's invalid samples
grade ``invalid``; and both views render in both languages.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .variants import params_for, public_view, solution_view


@dataclass
class SelfTestReport:
    ok: bool
    failures: list[dict[str, Any]] = field(default_factory=list)  # {"part", "seed", "reason"}
    question: str | None = None
    seeds: int = 0
    checks: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        head = (f"{self.question}: {'ok' if self.ok else 'FAILED'} ({self.checks} checks, "
                f"{self.seeds} seeds, {self.seconds:.2f}s)")
        lines = [head]
        for f in self.failures[:20]:
            lines.append(f"  part {f['part']} seed {f['seed']}: {f['reason']}")
        if len(self.failures) > 20:
            lines.append(f"  ... and {len(self.failures) - 20} more")
        return "\n".join(lines)


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


def _check_part(part: Mapping[str, Any], params: Mapping[str, Any], seed: int,
                fail, count) -> None:
    from .. import grading
    from .schema import get_checker

    pid = part["id"]
    checker = get_checker(part["kind"])
    try:
        grading.expected(part, params)
        count()
    except Exception as exc:
        fail(pid, seed, f"expected answer cannot be computed: {type(exc).__name__}: {exc}")
        return
    try:
        ex = checker.examples(part, params)
    except Exception as exc:
        fail(pid, seed, f"examples() failed: {type(exc).__name__}: {exc}")
        return
    if part["kind"] == "freetext":
        return  # self-assessed: nothing to grade
    if not ex.correct:
        fail(pid, seed, "the checker produced no correct example")

    def graded(raw: Any):
        count()
        try:
            return grading.grade(raw, part, params)
        except Exception as exc:
            fail(pid, seed, f"grading {_short(raw)} raised {type(exc).__name__}: {exc}")
            return None

    for raw in ex.correct:
        v = graded(raw)
        if v is not None and v.status != "correct":
            fail(pid, seed, f"correct answer {_short(raw)} graded {_describe(v)}")
    seen_notes: set[str] = set()
    for raw, note in ex.incorrect:
        v = graded(raw)
        if v is None:
            continue
        if v.status != "incorrect":
            what = f"known mistake {note!r}" if note else "incorrect example"
            extra = " (it equals the correct answer in this variant)" if v.status == "correct" else ""
            fail(pid, seed, f"{what} {_short(raw)} graded {_describe(v)}{extra}")
            continue
        if note is not None:
            seen_notes.add(note)
            if v.note != note:
                fail(pid, seed, f"known mistake {note!r} {_short(raw)} graded incorrect with note {v.note!r}")
            elif not _has_feedback(v):
                fail(pid, seed, f"known mistake {note!r} graded incorrect without its feedback")
    for mistake in part.get("mistakes", []) or []:
        if mistake["note"] not in seen_notes and "line" not in mistake:
            fail(pid, seed, f"known mistake {mistake['note']!r} is not exercised by the checker's examples")
    for raw in ex.invalid:
        v = graded(raw)
        if v is not None and v.status != "invalid":
            fail(pid, seed, f"invalid sample {_short(raw)} graded {_describe(v)}")


def selftest(question: Mapping[str, Any], seeds: Iterable[int] = range(20)) -> SelfTestReport:
    """Run the self-test of one question over ``seeds``; never raises for a broken question."""
    start = time.perf_counter()
    failures: list[dict[str, Any]] = []
    checks = 0
    seeds = list(seeds)

    def fail(part: str | None, seed: int, reason: str) -> None:
        failures.append({"part": part, "seed": seed, "reason": reason})

    def count() -> None:
        nonlocal checks
        checks += 1

    for seed in seeds:
        try:
            params = params_for(question, seed)
            count()
        except Exception as exc:
            fail(None, seed, f"parameters do not generate: {type(exc).__name__}: {exc}")
            continue
        for lang in ("en", "zh"):
            try:
                public_view(question, seed, lang)
                solution_view(question, seed, lang)
                count()
            except Exception as exc:
                fail(None, seed, f"{lang} view fails: {type(exc).__name__}: {exc}")
        for part in question.get("parts", []):
            try:
                _check_part(part, params, seed, fail, count)
            except Exception as exc:  # a checker bug must not hide the other parts' results
                fail(part.get("id"), seed, f"self-test crashed: {type(exc).__name__}: {exc}")
    return SelfTestReport(ok=not failures, failures=failures, question=question.get("id"),
                          seeds=len(seeds), checks=checks, seconds=time.perf_counter() - start)
