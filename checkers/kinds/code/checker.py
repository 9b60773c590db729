"""code: the learner implements an engine function in Python; it runs sealed and is compared with the engine.

The answer is Python source defining a function named like the last component of the registry name
(``k3`` for ``kl.k3``, ``gae`` for ``advantages.gae``) unless the part names another. It is called with
keyword arguments: the case's torch tensors (float64, or float32 where a case says so; ``requires_grad``
set on the part's ``gradients`` inputs in a gradient case) and the exercise's scalars. It returns a dict of
the graded outputs, or a bare tensor when one output is graded.

Grading runs every hidden case in one fresh sealed child (:mod:`checkers.coderun`), reads plain numbers
back and compares them here with the engine at the verify API's tolerances (rtol 1e-6, atol 1e-8; float32
cases rtol 1e-4, atol 1e-6) and gradients at rtol 1e-6, atol 1e-8. The first failing case is reported with
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
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, Mapping

from ... import coderun
from ...memo import Memo, Uncacheable
from ...i18n import empty, join
from ...verdict import AnswerParseError, AnswerShapeError, Interpretation, SpecError, Verdict, msg
from .. import _common as c
from ..base import Examples, Kind, invalid_verdict, register_kind
from .starter import given_starter, is_fix_the_bug, starter_source

# torch, the reference engine and the case builder are bound on first use by _load(): importing torch takes
# seconds, and a server worker must answer its first request without it (most questions never run code).
torch: Any = None
describe = engine_names = MASK_NAMES = Case = CaseBuilder = cotangent = is_tensor_param = tensor_json = None  # type: ignore[assignment]
roles: Any = None
_loaded = False


def _load() -> None:
    """Bind the torch-backed names of this module (idempotent; the import system serialises imports)."""
    global torch, describe, engine_names, MASK_NAMES, Case, CaseBuilder, cotangent, is_tensor_param, tensor_json
    global roles, _loaded
    if _loaded:
        return
    import torch as _torch  # local: torch takes seconds to import; a worker starts without it

    from ...reference import describe as _describe, names as _names  # local: the engine imports torch
    from . import cases  # local: the case builder imports torch and the engine
    from . import roles as _roles  # local: the role generators import torch

    torch, describe, engine_names = _torch, _describe, _names
    MASK_NAMES, Case, CaseBuilder = cases.MASK_NAMES, cases.Case, cases.CaseBuilder
    cotangent, is_tensor_param, tensor_json = cases.cotangent, cases.is_tensor_param, cases.tensor_json
    roles = _roles
    _loaded = True

RTOL, ATOL = 1e-6, 1e-8
RTOL_F32, ATOL_F32 = 1e-4, 1e-6
GRAD_RTOL, GRAD_ATOL = 1e-6, 1e-8
SHOW_INPUT_NUMBERS = 48         # inputs of a failing case are quoted when this small


def learner_name(spec: Mapping[str, Any]) -> str:
    return str(spec.get("name") or spec["function"].rsplit(".", 1)[-1])


# ----------------------------------------------------------------------------------------- spec


def validate_code_spec(spec: Mapping[str, Any]) -> None:
    _load()
    fn = spec.get("function")
    if fn not in engine_names():
        raise SpecError(f"function: {fn!r} is not an engine function")
    params = {p["name"]: p for p in describe(fn)["params"]}
    outputs = describe(fn)["outputs"]
    args = spec.get("args")
    if not (isinstance(args, list) and args and all(isinstance(a, str) for a in args)):
        raise SpecError("args: needs the list of argument names the learner's function receives")
    for a in args:
        if a not in params:
            raise SpecError(f"args: {a!r} is not a parameter of {fn}")
    for key in ("scalars", "fixed"):
        block = spec.get(key) or {}
        if not isinstance(block, Mapping):
            raise SpecError(f"{key}: must be a mapping")
        for k in block:
            if k not in params:
                raise SpecError(f"{key}.{k}: not a parameter of {fn}")
    for k in spec.get("scalars") or {}:
        if k not in args:
            raise SpecError(f"scalars.{k}: the learner's function must receive it (list it in args)")
    tensor_args = [a for a in args if is_tensor_param(params[a])]
    if not tensor_args:
        raise SpecError("args: at least one tensor input is needed")
    for a in args:
        if not is_tensor_param(params[a]) and a not in (spec.get("scalars") or {}) \
                and a not in (spec.get("draw") or []):
            raise SpecError(f"args: {a!r} is a scalar; give its value in scalars")
    outs = spec.get("outputs")
    if not (isinstance(outs, list) and outs and all(o in outputs for o in outs)):
        raise SpecError(f"outputs: a non-empty list among {', '.join(outputs)}")
    for g in spec.get("gradients") or []:
        if g not in tensor_args or g in MASK_NAMES or params[g]["kind"] != "tensor" \
                or roles.role_of(params[g]) in ("mask", "group_ids"):
            raise SpecError(f"gradients: {g!r} must be a floating tensor input")
    for d in spec.get("draw") or []:
        if d not in args or is_tensor_param(params[d]):
            raise SpecError(f"draw: {d!r} must be a scalar the learner's function receives (in args)")
    optional = spec.get("optional") or {}
    if not isinstance(optional, Mapping) or not all(k in params for k in optional):
        raise SpecError(f"optional: a mapping of parameters of {fn}")
    if not isinstance(spec.get("solution"), str):
        raise SpecError("solution: the reference solution's source is required")
    c.require_message(spec.get("summary"), "summary")
    mistakes = spec.get("mistakes") or []
    c.validate_mistakes(spec, ("overrides",))
    for i, m in enumerate(mistakes):
        if not isinstance(m["overrides"], Mapping) or not all(k in params for k in m["overrides"]):
            raise SpecError(f"mistakes[{i}].overrides: engine arguments of {fn}")
    for i, b in enumerate(spec.get("buggy") or []):
        if not (isinstance(b, Mapping) and isinstance(b.get("source"), str) and isinstance(b.get("note"), str)):
            raise SpecError(f"buggy[{i}]: needs source and the note it must be graded with")
    _validate_starter(spec)


def _validate_starter(spec: Mapping[str, Any]) -> None:
    """``starter`` (optional): ``{source, fix_the_bug, note}`` -- the learner's starting code instead of the
    generated one; with ``fix_the_bug: true`` it is a buggy implementation and ``note`` its graded note."""
    if "starter" not in spec:
        return
    block = given_starter(spec)
    if block is None:
        raise SpecError("starter: a mapping {source, fix_the_bug, note}")
    if set(block) - {"source", "fix_the_bug", "note"}:
        raise SpecError(f"starter: unknown keys {sorted(set(block) - {'source', 'fix_the_bug', 'note'})}")
    if not (isinstance(block.get("source"), str) and block["source"].strip()):
        raise SpecError("starter.source: the Python source the learner starts from")
    if not isinstance(block.get("fix_the_bug", False), bool):
        raise SpecError("starter.fix_the_bug: true or false")
    if block.get("fix_the_bug") and not isinstance(block.get("note"), str):
        raise SpecError("starter.note: a fix-the-bug starter needs the note it must be graded with")
    if "note" in block and not block.get("fix_the_bug"):
        raise SpecError("starter.note: only a fix-the-bug starter (fix_the_bug: true) is graded")


# ------------------------------------------------------------------------------------ running


def _payload_case(builder: CaseBuilder, case: Case, outputs: list[str], ref) -> dict[str, Any]:
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


def _tensor_from(reply: Any) -> torch.Tensor | None:
    """A learner tensor from the child's JSON, or None when the reply is not well formed."""
    if not isinstance(reply, dict):
        return None
    shape, data = reply.get("shape"), reply.get("data")
    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)
            and isinstance(data, list) and len(data) == math.prod(shape)):
        return None
    try:
        flat = [float(x) for x in data]   # "nan"/"inf"/"-inf" strings read as the floats they name
    except (TypeError, ValueError):
        return None
    return torch.tensor(flat, dtype=torch.float64).reshape(shape)


def _compare(expected: torch.Tensor, got: torch.Tensor | None, rtol: float, atol: float) -> dict[str, Any]:
    exp = expected.detach().to(torch.float64)
    if got is None:
        return {"ok": False, "reason": "not_a_tensor"}
    if tuple(got.shape) != tuple(exp.shape):
        return {"ok": False, "reason": "shape", "expected_shape": list(exp.shape), "shape": list(got.shape)}
    close = torch.isclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
    both = torch.isfinite(got) & torch.isfinite(exp)
    abs_err = torch.where(both, (got - exp).abs(), torch.zeros_like(exp))
    rel_err = torch.where(both & (exp != 0), abs_err / exp.abs().clamp_min(1e-300), torch.zeros_like(exp))
    result = {"ok": bool(close.all()), "max_abs_err": float(abs_err.max()) if exp.numel() else 0.0,
              "max_rel_err": float(rel_err.max()) if exp.numel() else 0.0,
              "mismatches": int((~close).sum())}
    if not result["ok"]:
        idx = [int(i) for i in torch.nonzero(~close)[0].tolist()]
        result.update(first_mismatch=idx, expected_value=_num(exp[tuple(idx)]), got_value=_num(got[tuple(idx)]))
    return result


def _num(t: torch.Tensor) -> Any:
    x = float(t)
    return x if math.isfinite(x) else str(x)


def _brief(t: torch.Tensor) -> Any:
    """A small input as nested lists, non-finite numbers as strings (JSON-safe)."""
    def conv(x: Any) -> Any:
        if isinstance(x, list):
            return [conv(y) for y in x]
        x = float(x)
        return x if math.isfinite(x) else str(x)
    return conv(t.tolist())


class CodeChecker(Kind):
    name = "code"
    spec_keys = None  # checked by validate_code_spec against the engine function's own parameters
    assets = ("kind.js",)

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        """The function to write and its starter (signature and docstring, from the registry)."""
        return {"name": learner_name(part), "function": part["function"], "args": list(part["args"]),
                "outputs": list(part["outputs"]), "starter": starter_source(part, lang),
                "fix_the_bug": is_fix_the_bug(part)}

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
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

    def starter(self, spec: Mapping[str, Any]) -> str:
        return starter_source(spec)

    def grade(self, parsed: str, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        return _grade_cached(parsed, json.dumps(_code_block(spec), sort_keys=True, default=str), "hidden")

    def check(self, source: Any, spec: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Verdict:
        """**Check**: the visible cases only (their expected values may be shown); costs no attempt."""
        try:
            source = self.parse(source, spec)
        except AnswerParseError as err:
            return invalid_verdict(err)
        return _grade_cached(source, json.dumps(_code_block(spec), sort_keys=True, default=str), "visible")

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


#: Verdicts that say something about the machine, not the code: a time-out or a resource limit hit under load,
#: or no sandbox to be had. Such a verdict is ``undecided`` (it costs no try) and is never remembered, so the
#: same source is run again once the machine is free.
MACHINE_STATE_NOTES = frozenset({"timeout", "resource_limit", "sandbox_unavailable"})
_VERDICTS = Memo(maxsize=256)


def _grade_cached(source: str, spec_json: str, which: str) -> Verdict:
    # A decided verdict is a pure function of the source and the exercise (the cases are fixed per exercise),
    # so a resubmission or the bank self-test over many seeds runs the sandbox once.
    def compute() -> Verdict:
        verdict = _grade(source, json.loads(spec_json), which)
        if verdict.note in MACHINE_STATE_NOTES:
            raise Uncacheable(dataclasses.replace(verdict, status="undecided"))
        return verdict

    return _VERDICTS.get((source, spec_json, which), compute)


_grade_cached.cache_clear = _VERDICTS.clear  # type: ignore[attr-defined]


def _grade(source: str, spec: Mapping[str, Any], which: str) -> Verdict:
    _load()
    builder = CaseBuilder(spec)
    outputs = list(spec["outputs"])
    cases = builder.visible() if which == "visible" else builder.hidden()
    refs = [builder.reference_full(case, outputs) for case in cases]
    payload = [_payload_case(builder, case, outputs, ref) for case, ref in zip(cases, refs)]
    try:
        outcome = coderun.run(source, learner_name(spec), payload)
    except coderun.SandboxUnavailable as exc:
        return _error("sandbox_unavailable", msg("Code cannot be graded on this server: %(reason)s.",
                                                  reason=str(exc)))
    if outcome.fatal is not None:
        return _fatal(outcome.fatal, spec)
    rows = []
    for case, ref in zip(cases, refs):
        reply = outcome.cases.get(case.id)
        if reply is None:
            if outcome.timed_out:
                return _error("timeout", msg("Your code did not finish in time (case: %(case)s).",
                                             case=case.label), rows)
            if outcome.too_large:
                return _error("resource_limit", msg("Your code produced too much output."), rows)
            return _error("resource_limit", msg(
                "Your code was stopped (CPU or memory limit, or it exited) in case: %(case)s.", case=case.label),
                rows)
        if "error" in reply:
            return _case_error(reply, case, rows)
        row = _judge_case(builder, case, reply, ref, outputs)
        rows.append(row)
        if not row["ok"]:
            verdict_text = _diagnose(builder, case, reply, outputs, row, spec)
            return Verdict("incorrect", 0.0, verdict_text[0], verdict_text[1], None,
                           {"cases": rows, "first_failure": row, "output": outcome.output[:1000]})
    return Verdict("correct", 1.0, msg("All %(count)s cases pass.", count=len(rows)), None,
                   None, {"cases": rows, "output": outcome.output[:1000]})


def _judge_case(builder: CaseBuilder, case: Case, reply: dict, reference, outputs) -> dict[str, Any]:
    rtol, atol = (RTOL_F32, ATOL_F32) if case.dtype == "float32" else (RTOL, ATOL)
    row: dict[str, Any] = {"id": case.id, "label": case.label, "ok": True, "outputs": {}, "grads": {}}
    for name in outputs:
        got = _tensor_from((reply.get("outputs") or {}).get(name))
        cmp = _compare(reference.outputs[name], got, rtol, atol)
        row["outputs"][name] = cmp
        row["ok"] &= cmp["ok"]
    if case.grad:
        attached = reply.get("attached") if isinstance(reply.get("attached"), dict) else {}
        # The engine's output is detached (upstream computes it under no_grad): the learner's must be too.
        leaking = [n for n in outputs if not reference.attached[n] and attached.get(n) is True]
        if leaking:
            row["not_detached"] = leaking
            row["ok"] = False
        for name, ref in reference.grads.items():
            raw = (reply.get("grads") or {}).get(name, "missing")
            got = torch.zeros_like(ref, dtype=torch.float64) if raw is None else _tensor_from(raw)
            cmp = _compare(ref, got, GRAD_RTOL, GRAD_ATOL)
            row["grads"][name] = cmp
            row["ok"] &= cmp["ok"]
    if not row["ok"]:
        row["inputs"] = {k: _brief(v) for k, v in builder.typed(case).items()
                         if sum(t.numel() for t in case.tensors.values()) <= SHOW_INPUT_NUMBERS}
        row["inputs"].update(case.scalars)
    return row


def _matches(builder: CaseBuilder, case: Case, reply: dict, outputs: list[str], overrides) -> bool:
    try:
        alt, _ = builder.reference(Case(case.id, case.label, case.tensors, case.scalars, case.dtype, False,
                                        case.engine_fixed), outputs, overrides)
    except Exception:  # an override that does not apply to this case is simply not the diagnosis
        return False
    rtol, atol = (RTOL_F32, ATOL_F32) if case.dtype == "float32" else (RTOL, ATOL)
    return all(_compare(alt[n], _tensor_from((reply.get("outputs") or {}).get(n)), rtol, atol)["ok"]
               for n in outputs)


def _diagnose(builder: CaseBuilder, case: Case, reply: dict, outputs: list[str], row: dict,
              spec: Mapping[str, Any]) -> tuple[dict[str, str], str]:
    values_ok = all(cmp["ok"] for cmp in row["outputs"].values())
    if values_ok and row.get("not_detached"):
        names = ", ".join(row["not_detached"])
        return msg("Case “%(case)s” fails: the values are right, but %(names)s still carries a gradient back "
                   "to the inputs. The reference computes it without gradient (upstream: under "
                   "torch.no_grad()); detach it, or a loss built on it would also train what it was "
                   "computed from (for advantages: the critic).", case=case.label, names=names), "not_detached"
    head = msg("Case “%(case)s” fails: %(where)s", case=case.label, where=_where(row))
    if values_ok and row["grads"]:
        return msg("%(head)s The values are right but the gradients are not: check where you detach "
                   "(a detached term, or one that should be detached and is not).", head=head), \
            "gradient-mismatch"
    for m in spec.get("mistakes") or []:
        if _matches(builder, case, reply, outputs, m["overrides"]):
            return msg("%(head)s %(mistake)s", head=head, mistake=m["feedback"]), m["note"]
    params = {p["name"]: p for p in describe(builder.function)["params"]}
    conv = params.get("convention")
    if conv is not None:
        current = (spec.get("fixed") or {}).get("convention", conv.get("default"))
        for other in conv.get("allowed") or []:
            if other != current and _matches(builder, case, reply, outputs, {"convention": other}):
                return msg("%(head)s Your output follows the %(other)s convention; this exercise asks for "
                           "%(current)s.", head=head, other=other, current=current), \
                    f"convention-{other}"
    got = {n: _tensor_from((reply.get("outputs") or {}).get(n)) for n in outputs}
    expected = _expected_of(builder, case, outputs)
    if all(got[n] is not None and _compare(-expected[n], got[n], RTOL_F32, ATOL_F32)["ok"] for n in outputs):
        return msg("%(head)s Every value has the wrong sign.", head=head), "wrong-sign"
    return head, "mismatch"


def _expected_of(builder: CaseBuilder, case: Case, outputs: list[str]) -> dict[str, torch.Tensor]:
    return builder.reference(Case(case.id, case.label, case.tensors, case.scalars, case.dtype, False,
                                  case.engine_fixed), outputs)[0]


def _where(row: dict) -> dict[str, str]:
    for what, block in ((msg("output"), row["outputs"]), (msg("gradient of"), row["grads"])):
        for name, cmp in block.items():
            if cmp["ok"]:
                continue
            if cmp.get("reason") == "shape":
                return msg("%(what)s %(name)s has shape %(shape)s, expected %(expected)s.", what=what, name=name,
                           shape=str(cmp["shape"]), expected=str(cmp["expected_shape"]))
            if cmp.get("reason") == "not_a_tensor":
                return msg("%(what)s %(name)s is missing or not a tensor of numbers.", what=what, name=name)
            idx = "".join(f"[{i}]" for i in cmp["first_mismatch"])
            return msg("%(what)s %(name)s%(index)s is %(got)s, expected %(expected)s (%(count)s element(s) differ; "
                       "largest absolute error %(abs_err)s, relative %(rel_err)s).", what=what, name=name, index=idx,
                       got=str(cmp["got_value"]), expected=str(cmp["expected_value"]), count=cmp["mismatches"],
                       abs_err=f"{cmp['max_abs_err']:.3g}", rel_err=f"{cmp['max_rel_err']:.3g}")
    return empty()


def _error(note: str, feedback: dict[str, str], rows: list | None = None, **details: Any) -> Verdict:
    return Verdict("error", 0.0, feedback, note, None, {"cases": rows or [], **details})


def _fatal(fatal: dict, spec: Mapping[str, Any]) -> Verdict:
    note = str(fatal.get("note", "exception"))
    if note == "syntax_error":
        line, col = fatal.get("line"), fatal.get("column")
        return _error("syntax_error", msg("Syntax error on line %(line)s, column %(column)s: %(message)s.", line=line,
                                          column=col, message=fatal.get("message")),
                      line=line, column=col)
    if note == "missing_function":
        name = learner_name(spec)
        return _error("missing_function", msg("Define a function named %(name)s.", name=name))
    if note == "exception":
        err = fatal.get("error") or {}
        return _error("exception", msg("Your module raised %(type)s: %(message)s (%(where)s).", type=err.get("type"),
                                       message=err.get("message"), where=join(list(err.get("where") or []))))
    return _error("sandbox_unavailable", msg("Code cannot be graded on this server: %(reason)s.",
                                             reason=fatal.get("message")))


def _case_error(reply: dict, case: Case, rows: list) -> Verdict:
    err = reply.get("error") or {}
    where = "; ".join(err.get("where") or [])
    text_en = f"{err.get('type')}: {err.get('message')}" + (f" ({where})" if where else "")
    if reply.get("signature"):
        return _error("wrong_signature", msg("The function's parameters do not match the exercise: %(error)s.",
                                             error=text_en), rows)
    if reply.get("resource"):
        return _error("resource_limit", msg("Out of memory in case “%(case)s”.", case=case.label), rows)
    return _error("exception", msg("Case “%(case)s” raised %(error)s.", case=case.label, error=text_en), rows)


register_kind(CodeChecker())
