"""The ``params`` section of a question file: each parameter is a literal or one generator with its
allowed keys, names only earlier parameters, and draws a value (seed 0) when the file is validated, so a
generator that cannot run is reported with its parameter's name.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from .. import params as P
from ..verdict import SpecError
from .fields import FieldChecker, check_placeholders, join

PARAM_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


#: Keys allowed next to each parameter generator.
PARAM_GENERATOR_KEYS: dict[str, set[str]] = {
    "uniform": {"round"},
    "randint": set(),
    "choice": set(),
    "list": {"length"},
    "simplex": {"round", "min"},
    "expr": set(),
    "call": {"args", "output", "index", "scale", "round"},
    "value": set(),
    "concat": set(),
}


def check_params(ctx: FieldChecker, params: Any) -> list[str]:
    """Check the ``params`` mapping; the parameter names in order."""
    if params is None:
        return []
    params = ctx.mapping(params, "params")
    names: list[str] = []
    for name, spec in params.items():
        field = f"params.{name}"
        if not isinstance(name, str) or not PARAM_RE.match(name):
            ctx.fail(field, "parameter names are identifiers ([A-Za-z_][A-Za-z0-9_]*)")
        _check_generator(ctx, spec, field, set(names))
        names.append(name)
    return names


def _check_generator(ctx: FieldChecker, spec: Any, field: str, earlier: set[str]) -> None:
    if isinstance(spec, bool):
        ctx.fail(field, "a parameter cannot be a boolean")
    if not isinstance(spec, Mapping):
        if isinstance(spec, (int, float, str, list)):
            return  # literal
        ctx.fail(field, f"not a parameter generator: {spec!r}")
    kinds = [k for k in PARAM_GENERATOR_KEYS if k in spec]
    if len(kinds) != 1:
        ctx.fail(field, f"needs exactly one of {', '.join(PARAM_GENERATOR_KEYS)} (found {kinds or 'none'})")
    kind = kinds[0]
    ctx.keys(spec, {kind} | PARAM_GENERATOR_KEYS[kind], field)
    if kind == "list":
        _check_generator(ctx, spec["list"], join(field, "list"), earlier)
    if kind in ("expr", "call", "value", "concat"):
        check_placeholders(ctx, spec, field, earlier)
        if kind == "call" and not isinstance(spec["call"], str):
            ctx.fail(join(field, "call"), "must be an engine function name")



def check_generator_runs(ctx: FieldChecker, params_spec: Any, seed: int = 0) -> dict[str, Any]:
    """Draw variant ``seed`` parameter by parameter, so that a failure names the parameter; the values."""
    values: dict[str, Any] = {}
    for name, spec in (params_spec or {}).items():
        field = f"params.{name}"
        try:
            values[name] = P._generate_one(spec, P._rng_for(seed, name), values, field)
        except SpecError as exc:
            msg = str(exc)
            m = re.match(r"^(params\.[A-Za-z0-9_]+(?:\[\d+\])*): (.*)$", msg, re.S)
            ctx.fail(m.group(1) if m else field, m.group(2) if m else msg)
        except Exception as exc:  # engine or parser failure while drawing a variant
            ctx.fail(field, f"cannot generate (seed {seed}): {type(exc).__name__}: {exc}")
    return values
