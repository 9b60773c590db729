"""The stand-alone symbolic check (``POST /api/v1/check/symbolic``): an answer compared with an expected
expression, graded as a ``symbolic`` part built from the call's arguments (no question needed)."""

from __future__ import annotations

from typing import Any, Mapping

from ...verdict import Verdict
from ..base import get_kind
from .checker import SymbolicChecker


def check_symbolic(expected: str, answer: str, variables: Mapping[str, Any] | None = None,
                   mode: str = "equivalent", *, functions: Mapping[str, Any] | None = None,
                   timeout: float | None = None, constants: list[str] | None = None,
                   decimals: Mapping[str, float] | None = None) -> Verdict:
    """Grade ``answer`` against ``expected`` (both maths text) in ``mode``, the names declared by
    ``variables``/``functions``; parse errors -> ``invalid``, time-outs -> ``undecided``."""
    spec: dict[str, Any] = {"kind": SymbolicChecker.name, "expected": expected, "variables": dict(variables or {}),
                            "mode": mode, "functions": dict(functions or {})}
    if constants:
        spec["constants"] = list(constants)
    if decimals is not None:
        spec["decimals"] = dict(decimals)
    return get_kind(spec["kind"]).grade_answer(answer, spec, {}, timeout=timeout)


__all__ = ["check_symbolic"]
