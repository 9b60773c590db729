"""The checks of an authored ``code`` part against the engine function it names.

A part names the engine ``function``, the ``args`` the learner's function receives (at least one tensor;
every scalar among them fixed in ``scalars`` or drawn per case, ``draw``), the graded ``outputs``, the
tensor inputs whose ``gradients`` are compared, engine arguments held ``fixed`` or passed where the
learner's signature names them (``optional``), the reference ``solution``, known ``mistakes`` (engine
arguments overridden), ``buggy`` sources with the note each must be graded with, and an optional
``starter``. Everything is checked against the engine registry's own description of the function.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...reference import describe, names as engine_names
from ...verdict import SpecError
from .. import _common as c
from . import roles
from .cases import is_tensor_param
from .roles import MASK_NAMES
from .starter import given_starter


def validate_code_spec(spec: Mapping[str, Any]) -> None:
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
