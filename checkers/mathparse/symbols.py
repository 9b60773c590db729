"""Declared variables: names, sympy assumptions and sampling domains.

A question declares ``variables: {name: assumptions}``.  Accepted assumptions:

* sympy-style flags set to true: ``positive``, ``negative``, ``nonnegative``, ``nonpositive``,
  ``real``, ``integer``, ``complex`` (flags set to false are ignored);
* ``domain: probability`` (the open interval (0, 1): the symbol is ``positive=True`` and the
  interval is kept for samplers), ``domain: positive | negative | nonnegative | real | complex``;
* nothing (``{}``, ``null``, ``true``, or a list of names instead of a mapping): a real variable.

Unflagged variables are made ``real=True`` rather than sympy's default complex symbols: every
quantity in this course is real, and real symbols let sympy simplify ``log(exp(x))`` and friends.
``complex: true`` (alone) gives sympy's complex symbol, sampled off the real line, so identities
that hold only for reals (``log(exp(z)) = z``) are refused.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import sympy

from ..verdict import SpecError
from .lexer import UNICODE_GREEK
from .parser import RESERVED

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$")
#: The assumption flags a variable may carry (the API and the question schema accept exactly these).
ASSUMPTION_FLAGS = ("positive", "negative", "nonnegative", "nonpositive", "real", "integer", "complex")
_FLAGS = ASSUMPTION_FLAGS
_DOMAINS = {
    "probability": (0.0, 1.0, True, True),
    "positive": (0.0, math.inf, True, True),
    "negative": (-math.inf, 0.0, True, True),
    "nonnegative": (0.0, math.inf, False, True),
    "nonpositive": (-math.inf, 0.0, True, False),
    "real": (-math.inf, math.inf, True, True),
    "complex": (-math.inf, math.inf, True, True),
}


@dataclass(frozen=True)
class Domain:
    """Where a sampler may draw a variable: the interval (lo, hi) with open/closed ends."""

    lo: float
    hi: float
    lo_open: bool = True
    hi_open: bool = True
    integer: bool = False
    complex: bool = False   # the whole complex plane (lo/hi then bound nothing)

    def contains(self, x: float) -> bool:
        if self.integer and x != int(x):
            return False
        above = x > self.lo if self.lo_open else x >= self.lo
        below = x < self.hi if self.hi_open else x <= self.hi
        return above and below


@dataclass(frozen=True)
class VariableSpec:
    name: str
    symbol: sympy.Symbol
    domain: Domain


def canonical_name(name: Any) -> str:
    """``β`` -> ``beta``, ``π_θ`` -> ``pi_theta``; raises SpecError for names a learner cannot type."""
    if not isinstance(name, str):
        raise SpecError(f"variable name {name!r} must be a string")
    canon = "".join(UNICODE_GREEK.get(ch, ch) for ch in name)
    if not _NAME.match(canon) or "__" in canon:
        raise SpecError(f"variable name {name!r} is not a valid maths name (letters, digits, single _)")
    if canon in RESERVED:
        raise SpecError(f"variable name {name!r} clashes with the function {canon}()")
    return canon


def _freeze(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return tuple(_freeze(v) for v in obj)
    return obj


def variables_key(variables: Any) -> tuple:
    """A hashable, order-independent key for a ``variables`` spec (for caches)."""
    if variables is None:
        return ()
    if isinstance(variables, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in variables.items()))
    if isinstance(variables, (list, tuple, set, frozenset)):
        return tuple(sorted((str(k), None) for k in variables))
    if isinstance(variables, str):
        return tuple(sorted((k, None) for k in variables.replace(",", " ").split()))
    raise SpecError(f"variables must be a mapping of name -> assumptions, not {type(variables).__name__}")


def _spec_from(name: str, raw: Any) -> VariableSpec:
    flags: dict[str, bool] = {}
    domain: Domain | None = None
    if raw is None or raw is True or raw == ():
        pass
    elif isinstance(raw, tuple):  # frozen mapping
        for key, val in raw:
            if key == "domain":
                if isinstance(val, str) and val in _DOMAINS:
                    domain = Domain(*_DOMAINS[val])
                    if val == "probability":
                        flags["positive"] = True
                    elif val != "real":
                        flags[val] = True
                else:
                    raise SpecError(f"variable {name}: unknown domain {val!r}; use one of {', '.join(_DOMAINS)}")
            elif key in _FLAGS:
                if val is True:
                    flags[key] = True
                elif val not in (False, None):
                    raise SpecError(f"variable {name}: flag {key} must be true or false")
            elif key in ("description", "desc", "label", "latex"):
                continue
            else:
                raise SpecError(f"variable {name}: unknown assumption {key!r}; use {', '.join(_FLAGS)} or domain")
    elif isinstance(raw, str) and (raw in _FLAGS or raw in _DOMAINS):
        return _spec_from(name, (("domain", raw),) if raw in _DOMAINS else ((raw, True),))
    else:
        raise SpecError(f"variable {name}: assumptions must be a mapping, got {raw!r}")
    if flags.get("positive") and flags.get("negative") or flags.get("nonnegative") and flags.get("negative") \
            or flags.get("positive") and flags.get("nonpositive"):
        raise SpecError(f"variable {name}: contradictory assumptions")
    integer = bool(flags.get("integer"))
    if domain is None:
        for key in ("positive", "negative", "nonnegative", "nonpositive"):
            if flags.get(key):
                domain = Domain(*_DOMAINS[key])
                break
        else:
            domain = Domain(*_DOMAINS["real"])
    if integer:
        domain = Domain(domain.lo, domain.hi, domain.lo_open, domain.hi_open, True)
    if flags.get("complex") and len(flags) > 1:
        flags.pop("complex")  # positive, real, ...: a narrower (real) domain was asked for as well
    elif flags.get("complex"):
        domain = Domain(-math.inf, math.inf, True, True, False, True)
    assumptions = {k: True for k in flags}
    if not assumptions:
        assumptions = {"real": True}
    return VariableSpec(name, sympy.Symbol(name, **assumptions), domain)


@lru_cache(maxsize=1024)
def _specs_cached(key: tuple) -> dict[str, VariableSpec]:
    out: dict[str, VariableSpec] = {}
    for raw_name, raw in key:
        name = canonical_name(raw_name)
        if name in out:
            raise SpecError(f"variable {raw_name!r} is declared twice")
        out[name] = _spec_from(name, raw)
    return out


def variable_specs(variables: Any) -> dict[str, VariableSpec]:
    """Canonical name -> :class:`VariableSpec` (cached: equal specs give the very same objects)."""
    return _specs_cached(variables_key(variables))


def symbols_for(variables: Any) -> dict[str, sympy.Symbol]:
    """Canonical name -> sympy Symbol with the declared assumptions (same objects on every call)."""
    return {name: spec.symbol for name, spec in variable_specs(variables).items()}


def domain_of(name: str, variables: Any) -> Domain:
    """Sampling domain of a declared variable: probability -> (0, 1), positive -> (0, inf), real -> R."""
    specs = variable_specs(variables)
    canon = canonical_name(name) if name not in specs else name
    try:
        return specs[canon].domain
    except KeyError:
        raise SpecError(f"{name!r} is not a declared variable") from None
