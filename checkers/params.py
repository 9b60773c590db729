"""Variant parameters: seeded generation, placeholder substitution and value specs.

See ``docs/question-format.md``. Everything here treats question files as *data*: numbers come from a
seeded ``random.Random``, the reference engine, or the safe maths parser; nothing is ever evaluated as
Python.
"""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any, Mapping

from .limits import ENGINE_CACHE_SIZE, MAX_FORMAT_FIELD
from .memo import Memo
from .verdict import SpecError

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::([^}]{1,12}))?\}\}")
EXACT_PLACEHOLDER = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")

#: Python's format-spec mini-language (3.11: ``[[fill]align][sign][z][#][0][width][grouping][.precision][type]``),
#: so the numbers a spec asks for can be read before ``format()`` acts on them.
FORMAT_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(?P<width>\d+)?[,_]?(?:\.(?P<precision>\d+))?"
                         r"[bcdeEfFgGnosxX%]?", re.DOTALL)

_GENERATORS = ("uniform", "randint", "choice", "list", "simplex", "expr", "call", "value", "concat")


def _rng_for(seed: int, name: str) -> random.Random:
    # One stream per parameter, so adding a parameter does not change the others' values.
    return random.Random(f"{seed}:{name}")


def _generate_one(spec: Any, rng: random.Random, params: Mapping[str, Any], where: str) -> Any:
    if not isinstance(spec, Mapping):
        return spec  # literal
    kinds = [k for k in _GENERATORS if k in spec]
    if len(kinds) != 1:
        raise SpecError(f"{where}: needs exactly one of {', '.join(_GENERATORS)}")
    kind = kinds[0]
    rnd = spec.get("round")
    if kind == "uniform":
        lo, hi = _pair(spec["uniform"], where)
        value = rng.uniform(lo, hi)
        return round(value, int(rnd)) if rnd is not None else value
    if kind == "randint":
        lo, hi = _pair(spec["randint"], where)
        return rng.randint(int(lo), int(hi))
    if kind == "choice":
        options = spec["choice"]
        if not isinstance(options, list) or not options:
            raise SpecError(f"{where}: choice needs a non-empty list")
        return rng.choice(options)
    if kind == "list":
        length = spec.get("length")
        if not isinstance(length, int) or not 1 <= length <= 4096:
            raise SpecError(f"{where}: list needs an integer length in [1, 4096]")
        return [_generate_one(spec["list"], rng, params, f"{where}[{i}]") for i in range(length)]
    if kind == "simplex":
        n = spec["simplex"]
        if not isinstance(n, int) or not 2 <= n <= 64:
            raise SpecError(f"{where}: simplex needs an integer size in [2, 64]")
        digits = int(rnd) if rnd is not None else 3
        floor = float(spec.get("min", 0.05))
        return _simplex(rng, n, digits, floor, where)
    if kind == "expr":
        from .mathparse import evaluate_numeric  # local: the parser is heavier than this module
        return evaluate_numeric(substitute_text(spec["expr"], params), dict(_numeric_params(params)))
    if kind == "call":
        value = resolve_value(spec, params)
        return round(value, int(rnd)) if (rnd is not None and isinstance(value, float)) else value
    if kind == "concat":
        # Assemble one list from earlier parameters, e.g. scores of two groups drawn separately.
        parts = substitute(spec["concat"], params)
        if not isinstance(parts, list):
            raise SpecError(f"{where}: concat needs a list of lists")
        out: list[Any] = []
        for i, piece in enumerate(parts):
            out.extend(piece if isinstance(piece, list) else [piece])
        return out
    # A literal may assemble earlier parameters: {value: [["{{a}}", "{{b}}"], [1, 0]]}.
    return substitute(spec["value"], params)


def _pair(value: Any, where: str) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value)):
        raise SpecError(f"{where}: expects [low, high]")
    lo, hi = value
    if lo > hi:
        raise SpecError(f"{where}: low > high")
    return float(lo), float(hi)


def _simplex(rng: random.Random, n: int, digits: int, floor: float, where: str) -> list[float]:
    if floor * n >= 1:
        raise SpecError(f"{where}: min * size must be < 1")
    step = 10 ** -digits
    for _ in range(1000):
        raw = [rng.expovariate(1.0) for _ in range(n)]
        total = sum(raw)
        p = [round(floor + (1 - floor * n) * r / total, digits) for r in raw[:-1]]
        last = round(1 - sum(p), digits)
        p.append(last)
        if min(p) >= floor - step / 2 and abs(sum(p) - 1) < step / 10:
            return p
    raise SpecError(f"{where}: could not draw a simplex")  # pragma: no cover


def generate(params_spec: Mapping[str, Any] | None, seed: int) -> dict[str, Any]:
    """Parameter values of variant ``seed`` (deterministic for a given spec and seed)."""
    values: dict[str, Any] = {}
    for name, spec in (params_spec or {}).items():
        values[name] = _generate_one(spec, _rng_for(seed, name), values, f"params.{name}")
    return values


def _numeric_params(params: Mapping[str, Any]):
    for k, v in params.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            yield k, v


def format_spec_oversize(fmt: str) -> str | None:
    """What in the format spec ``fmt`` is above :data:`~checkers.limits.MAX_FORMAT_FIELD` (``"width of
    99999999999"``), or None when nothing is (or when ``fmt`` is no format spec: ``format`` refuses it)."""
    m = FORMAT_SPEC.fullmatch(fmt)
    for what in ("width", "precision"):
        digits = m.group(what) if m else None
        # past 100 digits even int() costs (and is refused past 4300): such a number is too large anyway
        if digits and (len(digits) > 100 or int(digits) > MAX_FORMAT_FIELD):
            return f"{what} of {digits.lstrip('0')[:20]}"
    return None


def check_format_spec(fmt: str) -> None:
    """SpecError unless ``fmt`` is a format spec whose width and precision are at most
    :data:`~checkers.limits.MAX_FORMAT_FIELD`: ``format`` allocates the padded string before anything else,
    so a width of 10^11 is a MemoryError and one of 10^9 gigabytes, on every view of the question."""
    if FORMAT_SPEC.fullmatch(fmt) is None:
        raise SpecError(f"format spec {fmt!r} is not a Python format spec (e.g. .4f, .3g, >8.2f)")
    over = format_spec_oversize(fmt)
    if over is not None:
        raise SpecError(f"format spec {fmt!r} asks for a {over}: at most {MAX_FORMAT_FIELD}")


def _format(value: int | float, fmt: str) -> str:
    check_format_spec(fmt)  # before format(): never allocate what the spec asks for unchecked
    try:
        return format(value, fmt)
    except (ValueError, OverflowError) as exc:  # a spec that does not fit the value (".2" of an int, "c" of 1e9)
        raise SpecError(f"format spec {fmt!r} does not apply to {type(value).__name__} {value!r}: {exc}") from None


def format_value(value: Any, fmt: str | None = None) -> str:
    """Display form of a parameter: shortest round-trip floats, lists as ``[a, b]``; a number with a format
    spec ``fmt`` (:func:`check_format_spec`) as ``format`` writes it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if fmt:
            return _format(value, fmt)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if isinstance(value, int):
        return _format(value, fmt) if fmt else str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v, fmt) for v in value) + "]"
    return str(value)


def substitute_text(text: str, params: Mapping[str, Any]) -> str:
    """Replace ``{{name}}`` / ``{{name:.4f}}`` with the formatted parameter value."""

    def repl(m: re.Match[str]) -> str:
        name, fmt = m.group(1), m.group(2)
        if name not in params:
            raise SpecError(f"placeholder {{{{{name}}}}} names no parameter")
        return format_value(params[name], fmt)

    return PLACEHOLDER.sub(repl, text)


def substitute(obj: Any, params: Mapping[str, Any]) -> Any:
    """Recursively substitute placeholders; a string that is exactly ``{{name}}`` becomes the raw value."""
    if isinstance(obj, str):
        m = EXACT_PLACEHOLDER.match(obj)
        if m:
            if m.group(1) not in params:
                raise SpecError(f"placeholder {obj} names no parameter")
            return params[m.group(1)]
        return substitute_text(obj, params)
    if isinstance(obj, list):
        return [substitute(v, params) for v in obj]
    if isinstance(obj, Mapping):
        return {k: substitute(v, params) for k, v in obj.items()}
    return obj


def resolve_value(spec: Any, params: Mapping[str, Any]) -> Any:
    """Evaluate a value spec (literal, ``value``, ``expr`` or engine ``call``) to floats / nested lists."""
    if isinstance(spec, bool):
        raise SpecError("a value spec cannot be a boolean")
    if isinstance(spec, (int, float)):
        return float(spec)
    if isinstance(spec, list):
        return substitute(spec, params)
    if isinstance(spec, str):
        spec = {"expr": spec}
    if not isinstance(spec, Mapping):
        raise SpecError(f"not a value spec: {spec!r}")
    if "value" in spec:
        return substitute(spec["value"], params)
    if "expr" in spec:
        from .mathparse import evaluate_numeric  # local: the parser loads sympy, this module does not
        return evaluate_numeric(substitute_text(str(spec["expr"]), params), dict(_numeric_params(params)))
    if "call" in spec:
        return _resolve_call(spec, params)
    raise SpecError("a value spec needs one of value, expr, call")


def _resolve_call(spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
    name = spec["call"]
    outputs = _engine_outputs(name, substitute(dict(spec.get("args") or {}), params))
    out_name = spec.get("output")
    if out_name is None:
        if len(outputs) != 1:
            raise SpecError(f"engine call {name!r}: say which output ({', '.join(outputs)})")
        out_name = next(iter(outputs))
    if out_name not in outputs:
        raise SpecError(f"engine call {name!r} has no output {out_name!r} (has {', '.join(outputs)})")
    tensor = outputs[out_name]
    if "index" in spec:
        try:
            tensor = tensor[tuple(int(i) for i in spec["index"])]
        except (IndexError, TypeError, ValueError) as exc:
            raise SpecError(f"engine call {name!r}: bad index {spec['index']!r}") from exc
    value = tensor.tolist()
    scale = spec.get("scale")
    if scale is not None:
        factor = resolve_value(scale, params) if not isinstance(scale, (int, float)) else float(scale)
        value = _scale(value, factor)
    return value


#: Engine results by (function, arguments). A variant's expected values are needed when its page is
#: drawn, when it is graded and again for the solution view; the engine is pure, so each distinct call
#: runs once per process. The memo holds no lock a forked worker could inherit held (checkers.memo); the
#: memoised tensors themselves are plain data, shared copy-on-write.
_ENGINE_MEMO = Memo(ENGINE_CACHE_SIZE)


def _engine_outputs(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """``reference.call`` with its outputs as detached float64 CPU tensors, memoised on the arguments."""
    try:
        key = json.dumps([name, args], sort_keys=True)
    except (TypeError, ValueError):
        key = None
    if key is None:
        return _engine_call(name, args)
    return _ENGINE_MEMO.get(key, lambda: _engine_call(name, args))


def _engine_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    from . import reference  # local: torch import is only paid by questions that need the engine

    try:
        raw = reference.call(name, **args)
    except reference.UnknownFunction as exc:
        raise SpecError(f"engine call {name!r}: unknown function") from exc
    except reference.ReferenceInputError as exc:
        raise SpecError(f"engine call {name!r} failed: {exc}") from exc
    import torch  # local: loaded already by the engine call above; this module stays light

    return {k: v.detach().to("cpu", dtype=torch.float64) for k, v in raw.items()}


def _scale(value: Any, factor: float) -> Any:
    if isinstance(value, list):
        return [_scale(v, factor) for v in value]
    return value * factor


def is_finite_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
