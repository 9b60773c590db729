"""A code answer graded: its cases run in one sealed child, then judged in order into one verdict.

Every case of the set (the hidden ones for a graded answer, the visible ones for **Check**) goes to one
fresh sealed child (:mod:`checkers.coderun`) with the engine's cotangents for a gradient case; the child's
plain numbers come back and each case is judged (:mod:`.judge`) until the first that fails, which is
named and diagnosed (:mod:`.diagnose`). Code that could not be judged is an ``error``
(:mod:`.failures`).

A decided verdict is a pure function of the source and the exercise (the cases are fixed per exercise),
so it is remembered (:data:`VERDICTS`): a resubmission, or the bank self-test over many seeds, runs the
sandbox once. A verdict about the machine rather than the code is never remembered.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping

from ... import coderun
from ...memo import Memo, Uncacheable
from ...verdict import Verdict, msg
from .cases import Case, CaseBuilder, Reference, cotangent, tensor_json
from .diagnose import diagnose
from .failures import case_error_verdict, error_verdict, fatal_verdict
from .judge import judge_case

#: Verdicts that say something about the machine, not the code: a time-out or a resource limit hit under load,
#: or no sandbox to be had. Such a verdict is ``undecided`` (it costs no try) and is never remembered, so the
#: same source is run again once the machine is free.
MACHINE_STATE_NOTES = frozenset({"timeout", "resource_limit", "sandbox_unavailable"})
#: Decided verdicts by (source, the exercise's code block as JSON, "hidden" or "visible").
VERDICTS = Memo(maxsize=256)


def payload_case(builder: CaseBuilder, case: Case, outputs: list[str], ref: Reference) -> dict[str, Any]:
    """One case as the sealed child receives it: typed inputs, outputs to return, and for a gradient case
    the inputs to differentiate and the cotangent of each output the engine keeps in the graph."""
    typed = builder.typed(case)
    kwargs: dict[str, Any] = {}
    for k, v in typed.items():
        kwargs[k] = tensor_json(v, requires_grad=case.grad and k in builder.gradients)
    kwargs.update(case.scalars)
    item: dict[str, Any] = {"id": case.id, "kwargs": kwargs, "outputs": outputs}
    if case.optional:
        item["optional_kwargs"] = dict(case.optional)
    if case.grad:
        item["grad_wrt"] = list(builder.gradients)
        # Only the outputs the engine keeps in the graph are differentiated; of the others (detached
        # upstream) the child reports whether the learner's output still carries a gradient.
        item["cotangents"] = {n: tensor_json(cotangent(ref.outputs[n]))["tensor"] for n in outputs
                              if ref.attached[n]}
    return item


def grade_cached(source: str, spec: Mapping[str, Any], function_name: str, which: str) -> Verdict:
    """:func:`grade` through :data:`VERDICTS` (``spec`` is the part's code block)."""
    spec_json = json.dumps(spec, sort_keys=True, default=str)

    def compute() -> Verdict:
        verdict = grade(source, json.loads(spec_json), function_name, which)
        if verdict.note in MACHINE_STATE_NOTES:
            raise Uncacheable(dataclasses.replace(verdict, status="undecided"))
        return verdict

    return VERDICTS.get((source, spec_json, which), compute)


def grade(source: str, spec: Mapping[str, Any], function_name: str, which: str) -> Verdict:
    """The verdict of ``source`` (defining ``function_name``) on the ``which`` cases of ``spec``."""
    builder = CaseBuilder(spec)
    outputs = list(spec["outputs"])
    cases = builder.visible() if which == "visible" else builder.hidden()
    refs = [builder.reference_full(case, outputs) for case in cases]
    payload = [payload_case(builder, case, outputs, ref) for case, ref in zip(cases, refs)]
    try:
        outcome = coderun.run(source, function_name, payload)
    except coderun.SandboxUnavailable as exc:
        return error_verdict("sandbox_unavailable", msg("Code cannot be graded on this server: %(reason)s.",
                                                        reason=str(exc)))
    if outcome.fatal is not None:
        return fatal_verdict(outcome.fatal, function_name)
    rows = []
    for case, ref in zip(cases, refs):
        reply = outcome.cases.get(case.id)
        if reply is None:
            if outcome.timed_out:
                return error_verdict("timeout", msg("Your code did not finish in time (case: %(case)s).",
                                                    case=case.label), rows)
            if outcome.too_large:
                return error_verdict("resource_limit", msg("Your code produced too much output."), rows)
            return error_verdict("resource_limit", msg(
                "Your code was stopped (CPU or memory limit, or it exited) in case: %(case)s.", case=case.label),
                rows)
        if "error" in reply:
            return case_error_verdict(reply, case, rows)
        row = judge_case(builder, case, reply, ref, outputs)
        rows.append(row)
        if not row["ok"]:
            feedback, note = diagnose(builder, case, reply, outputs, row, spec)
            return Verdict("incorrect", 0.0, feedback, note, None,
                           {"cases": rows, "first_failure": row, "output": outcome.output[:1000]})
    return Verdict("correct", 1.0, msg("All %(count)s cases pass.", count=len(rows)), None,
                   None, {"cases": rows, "output": outcome.output[:1000]})
