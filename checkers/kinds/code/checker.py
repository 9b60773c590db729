"""code: the learner implements an engine function in Python; it runs sealed and is compared with the engine.

The answer is Python source defining a function named like the last component of the registry name
(``k3`` for ``kl.k3``, ``gae`` for ``advantages.gae``) unless the part names another. It is called with
keyword arguments: the case's torch tensors (float64, or float32 where a case says so; ``requires_grad``
set on the part's ``gradients`` inputs in a gradient case) and the exercise's scalars. It returns a dict of
the graded outputs, or a bare tensor when one output is graded.

Grading runs every hidden case in one fresh sealed child (:mod:`checkers.coderun`), reads plain numbers
back and compares them with the engine by :mod:`checkers.tensor_compare` (the verify endpoint's rule and
error measures, at the default tolerances of the case's dtype). The first failing case is reported with
its inputs, expected and received values, the largest errors, and a diagnosis where one fits: the output of
another convention, one of the part's known mistakes (engine arguments overridden), a flipped sign, or
values right but gradients wrong (a detach in the wrong place).

Detachment, in a gradient case: where the engine's output is differentiable its gradients are compared;
where the engine detaches it (every advantage estimator: upstream computes them under ``no_grad``), the
learner's output must not carry a gradient back to the inputs either, else the case fails with note
``not_detached``. The engine may run on CUDA (``QUIZ_DEVICE``): its outputs are brought to the CPU, where
the learner's code ran, before anything is compared.

Statuses: ``correct``; ``incorrect`` (a case differs); ``error`` (the code could not be judged: syntax
error, missing function, wrong signature, exception, time-out, resource limit — each its own ``note``).
An ``error`` costs no attempt, like an unreadable answer.

This module is the kind itself, free of torch so that loading the kinds stays fast: the part's checks
(:mod:`.spec`) and grading (:mod:`.grade`, with :mod:`.judge`, :mod:`.diagnose`, :mod:`.failures`) load
the engine on first use.
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import coderun
from ...verdict import AnswerParseError, AnswerShapeError, Interpretation, Verdict
from ..base import Examples, Kind, invalid_verdict, register_kind
from .schema import PUBLIC_SCHEMA
from .starter import is_fix_the_bug, starter_source


def learner_name(spec: Mapping[str, Any]) -> str:
    return str(spec.get("name") or spec["function"].rsplit(".", 1)[-1])


class CodeChecker(Kind):
    name = "code"
    spec_keys = None  # checked by validate_code_spec against the engine function's own parameters
    assets = ("kind.js",)
    queued = True              # running learner code is the heavy work a queue backend sends away
    answer_form = "verbatim"   # program text, shown as typed
    answer_schema = {"type": "string", "description": "Python source text"}
    public_schema = PUBLIC_SCHEMA

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        """The function to write and its starter (signature and docstring, from the registry)."""
        return {"name": learner_name(part), "function": part["function"], "args": list(part["args"]),
                "outputs": list(part["outputs"]), "starter": starter_source(part, lang),
                "fix_the_bug": is_fix_the_bug(part)}

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        from .spec import validate_code_spec  # local: the engine and the case builder import torch

        validate_code_spec(spec)

    def accept(self, value: Any, field: str) -> str:
        """Source text of at most ``coderun.MAX_SOURCE_BYTES`` (413 beyond: it never reaches a child),
        storable as it came (no NUL, no unpaired surrogate)."""
        if not isinstance(value, str):
            raise AnswerShapeError(f"must be Python source text, got {type(value).__name__}", field)
        if "\x00" in value:
            raise AnswerShapeError("must not contain NUL characters", field)
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise AnswerShapeError("is not valid Unicode (unpaired surrogate)", field) from None
        if size > coderun.MAX_SOURCE_BYTES:
            raise AnswerShapeError(f"source longer than {coderun.MAX_SOURCE_BYTES} bytes", field, status=413)
        return value

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> str:
        if not isinstance(raw, str):
            raise AnswerParseError("Expected Python source text.", None)
        if len(raw.encode("utf-8", "surrogatepass")) > coderun.MAX_SOURCE_BYTES:
            raise AnswerParseError("The code is longer than %(limit)s KB.", None,
                                   limit=coderun.MAX_SOURCE_BYTES // 1024)
        if not raw.strip():
            raise AnswerParseError("Write the function first.", None)
        return raw

    def interpret(self, parsed: str, spec: Mapping[str, Any]) -> Interpretation:
        lines = parsed.count("\n") + 1
        return Interpretation(text=f"Python source, {lines} line{'s' if lines != 1 else ''}, "
                                   f"defining {learner_name(spec)}(...)")

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        return {"solution": spec["solution"], "function": spec["function"], "name": learner_name(spec)}

    def grade(self, parsed: str, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        return _graded(parsed, spec, "hidden")

    def check(self, source: Any, spec: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Verdict:
        """**Check**: the visible cases only (their expected values may be shown); costs no attempt."""
        try:
            source = self.parse(source, spec)
        except AnswerParseError as err:
            return invalid_verdict(err)
        return _graded(source, spec, "visible")

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        ex = Examples(correct=[spec["solution"]])
        for b in spec.get("buggy") or []:
            ex.incorrect.append((b["source"], b["note"]))
        if is_fix_the_bug(spec):   # the buggy starter itself must fail, with the bug's note
            ex.incorrect.append((spec["starter"]["source"], spec["starter"]["note"]))
        ex.invalid += ["", 42]
        return ex


def _code_block(spec: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("function", "name", "args", "scalars", "fixed", "outputs", "gradients", "mistakes", "draw", "optional",
            "skip")
    return {k: spec[k] for k in keys if k in spec}


def _graded(source: str, spec: Mapping[str, Any], which: str) -> Verdict:
    """The verdict on the ``which`` cases ("hidden" or "visible"), remembered by source and exercise."""
    from .grade import grade_cached  # local: the cases, the engine and the comparison import torch

    return grade_cached(source, _code_block(spec), learner_name(spec), which)


register_kind(CodeChecker())
