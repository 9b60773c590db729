"""The ``code`` part a stand-alone check grades against, built for any engine function.

``POST /api/v1/check/code`` names an engine function, and optionally ``args`` (hyperparameters fixed for
the check, validated as the engine validates its own arguments), ``convention``, ``outputs`` and ``name``.
:func:`standalone_spec` turns that into a ``code`` spec for :class:`~.cases.CaseBuilder`:

* **tensor inputs** — the function's required tensors, plus the optional ones the registry marks
  ``standalone=True`` (``index`` beside ``scores``); for a function that declares none, the engine is
  probed on a generated case and every optional tensor its refusal names is added (``mask: opo needs the
  response mask`` adds ``mask``), so that a function registered later is checkable without an edit here;
* **scalars** — a required scalar the request does not fix is drawn per case from its registry ``range``
  and passed to the learner's function; a fixed one (``args``) is passed with its value; every other
  hyperparameter keeps the engine's default (or its ``args`` value) and is passed to the learner's
  function only where its signature names it;
* **gradients** — every real-valued tensor input: the gradient case compares gradients where the engine's
  output is differentiable, and grades an output that still carries a gradient where the engine's is
  detached as ``not_detached``;
* **edge cases** the engine refuses for this function (say a batch of one where groups are needed) are
  left out; a function whose random cases the engine cannot compute is refused, naming the field.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Mapping

from ...reference import describe, get
from ...reference.errors import ReferenceInputError
from ...reference.registry import COMMON_PARAMS
from ...reference.tensors import TensorContext, coerce_argument
from . import roles
from .cases import CaseBuilder, is_tensor_param

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
COMMON = frozenset(p.name for p in COMMON_PARAMS)


class StandaloneError(ValueError):
    """A request the stand-alone check cannot grade: ``field`` names the offending request field."""

    def __init__(self, field: str, message: str, code: str = "invalid_field"):
        super().__init__(message)
        self.field, self.message, self.code = field, message, code


def _validate_args(function: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` checked like the engine's own keyword arguments; the JSON values are kept as given."""
    import torch  # local: only a check with hyperparameters needs torch's dtypes here

    entry = get(function)
    params = {p.name: p for p in entry.params}
    ctx = TensorContext(dtype=torch.float64, device=torch.device("cpu"))
    out: dict[str, Any] = {}
    for key, value in args.items():
        field = f"args.{key}"
        if key in COMMON:
            raise StandaloneError(field, f"{key} is not a hyperparameter: the check runs both sides itself")
        if key not in params:
            names = ", ".join(p.name for p in entry.params if not is_tensor_param({"kind": p.kind}))
            raise StandaloneError(field, f"{key!r} is not a parameter of {function} (its hyperparameters: "
                                         f"{names or 'none'})")
        param = params[key]
        if param.kind in ("tensor", "labels"):
            raise StandaloneError(field, f"{key} is a tensor input: the check generates it")
        if param.kind == "tensor_or_float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise StandaloneError(field, "must be a number (a per-row tensor is generated, never fixed)")
        if value is None:
            if param.required:
                raise StandaloneError(field, f"{key} is required by {function} and cannot be null")
        else:
            try:
                coerce_argument(param, value, ctx)
            except ReferenceInputError as exc:
                raise StandaloneError(field, f"{key} {exc.reason}") from None
        out[key] = value
    return out


@functools.lru_cache(maxsize=512)
def _cached(function: str, args_json: str, convention: str | None, outputs_json: str | None,
            name: str | None) -> str:
    spec = _build(function, json.loads(args_json), convention,
                  None if outputs_json is None else json.loads(outputs_json), name)
    return json.dumps(spec)


def standalone_spec(function: str, *, args: Mapping[str, Any] | None = None, convention: str | None = None,
                    outputs: list[str] | None = None, name: str | None = None) -> dict[str, Any]:
    """The ``code`` spec of a stand-alone check of ``function`` (raises :class:`StandaloneError`)."""
    return json.loads(_cached(function, json.dumps(dict(args or {}), sort_keys=True), convention,
                              None if outputs is None else json.dumps(list(outputs)), name))


def _build(function: str, args: dict[str, Any], convention: str | None, outputs: list[str] | None,
           name: str | None) -> dict[str, Any]:
    info = describe(function)
    params = {p["name"]: p for p in info["params"] if p["name"] not in COMMON}
    fixed = _validate_args(function, args)
    if convention is not None:
        allowed = (params.get("convention") or {}).get("allowed") or []
        if convention not in allowed:
            raise StandaloneError("convention", f"convention must be one of {', '.join(allowed)}" if allowed
                                  else f"{function} has no convention parameter", "unknown_convention")
        if fixed.get("convention", convention) != convention:
            raise StandaloneError("convention", "differs from args.convention")
        fixed["convention"] = convention
    outs = _outputs(info, outputs)
    named_outputs = outputs is not None
    if name is not None and not IDENTIFIER.match(name):
        raise StandaloneError("name", "must be a Python identifier (the function your source defines)")

    scalars: dict[str, Any] = {}
    draw: list[str] = []
    optional: dict[str, Any] = {}
    engine_fixed: dict[str, Any] = {}
    for p in params.values():
        if is_tensor_param(p):
            continue
        pname = p["name"]
        if p["required"]:
            if pname in fixed:
                scalars[pname] = fixed[pname]
            elif p["kind"] in ("float", "int", "bool", "choice", "tensor_or_float"):
                draw.append(pname)
            else:
                raise StandaloneError(f"args.{pname}", f"{function} needs {pname}: give it in args",
                                      "missing_field")
        elif pname in fixed:
            engine_fixed[pname] = fixed[pname]
            optional[pname] = fixed[pname]
        elif "default" in p:
            optional[pname] = p["default"]
    tensors = [n for n, p in params.items() if is_tensor_param(p)
               and (p["required"] or p.get("standalone") is True)]
    spec: dict[str, Any] = {"kind": "code", "function": function, "outputs": outs, "fixed": engine_fixed,
                            "scalars": scalars, "draw": draw, "optional": optional}
    if name is not None:
        spec["name"] = name
    for _ in range(sum(is_tensor_param(p) for p in params.values()) + 1):   # each probe adds one tensor
        spec["args"] = tensors + [n for n in params if n in scalars or n in draw]
        spec["gradients"] = [n for n in tensors if roles.differentiable(params[n])]
        missing = _probe(spec, params, fixed, named_outputs)
        if missing is None:
            return spec
        tensors.append(missing)
    raise StandaloneError("function", f"{function} cannot be checked stand-alone: its inputs could not be chosen",
                          "unsupported_function")


def _outputs(info: Mapping[str, Any], outputs: list[str] | None) -> list[str]:
    names = list(info["outputs"])
    if outputs is None:
        return [names[0]]
    if not outputs or len(outputs) > len(names):
        raise StandaloneError("outputs", f"outputs must be a non-empty list among {', '.join(names)}")
    for i, out in enumerate(outputs):
        if out not in names or outputs.index(out) != i:
            raise StandaloneError(f"outputs[{i}]", f"{out!r} is not an output of {info['name']} (or is listed "
                                                   f"twice); outputs: {', '.join(names)}")
    return list(outputs)


def _probe(spec: dict[str, Any], params: Mapping[str, Mapping[str, Any]], fixed: Mapping[str, Any],
           named_outputs: bool) -> str | None:
    """Run the engine on every case of ``spec``. Returns None when the random cases run (edge cases the
    engine refuses are recorded in ``spec["skip"]``, a gradient case that cannot be differentiated drops
    the gradients), or the optional tensor to add; raises when no input set can work. The default graded
    output is the first declared output the engine returns with these arguments."""
    builder = CaseBuilder(spec)
    skip: list[str] = []
    function = spec["function"]
    cases = builder.hidden() + builder.visible()
    try:
        returned = builder.returned(cases[0])
    except ReferenceInputError as exc:
        return _remedy(function, exc, spec, params, fixed)
    except (RuntimeError, ValueError, TypeError, IndexError) as exc:
        raise StandaloneError("function", f"{function} cannot be checked stand-alone "
                                          f"({type(exc).__name__}: {exc})", "unsupported_function") from None
    absent = [o for o in spec["outputs"] if o not in returned]
    if absent and named_outputs:
        i = spec["outputs"].index(absent[0])
        raise StandaloneError(f"outputs[{i}]", f"{function} does not return {absent[0]} with these args "
                                               f"(it returns {', '.join(returned)})")
    if absent:
        spec["outputs"] = [next(o for o in describe(function)["outputs"] if o in returned)]
    for case in cases:
        try:
            ref = builder.reference_full(case, spec["outputs"])
        except ReferenceInputError as exc:
            if not case.id.startswith("random-"):
                skip.append(case.id)
                continue
            return _remedy(function, exc, spec, params, fixed)
        except (RuntimeError, ValueError, TypeError, IndexError) as exc:
            if case.grad:
                spec["gradients"] = []
                continue
            if not case.id.startswith("random-"):
                skip.append(case.id)
                continue
            raise StandaloneError("function", f"{function} cannot be checked stand-alone "
                                              f"({type(exc).__name__}: {exc})", "unsupported_function") from None
        if not ref.outputs:
            raise StandaloneError("outputs", "no output to grade")
    spec["skip"] = skip
    return None


def _remedy(function: str, exc: ReferenceInputError, spec: Mapping[str, Any],
            params: Mapping[str, Mapping[str, Any]], fixed: Mapping[str, Any]) -> str:
    """The optional tensor that answers the engine's refusal ``exc``, or a :class:`StandaloneError`."""
    field = exc.argument
    chosen = set(spec["args"])
    candidates = [n for n, p in params.items() if is_tensor_param(p) and not p["required"]
                  and n not in chosen and p.get("standalone") is not False]
    if field in candidates:
        return str(field)
    if field in params and not is_tensor_param(params[field]) and field not in fixed:
        # a refusal about a scalar that has a tensor alternative (group_size or index): the tensor
        labels = [n for n in candidates if params[n]["kind"] == "labels"]
        if labels:
            return labels[0]
    if field in fixed:
        raise StandaloneError(f"args.{field}", f"{field}: {exc.reason}")
    raise StandaloneError("function", f"{function} cannot be checked stand-alone with these arguments "
                                      f"({field or 'input'}: {exc.reason})", "unsupported_function")
