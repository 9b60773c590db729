"""Seeded sample points drawn from each symbol's declared domain.

probability: softmax of random logits or uniform on (0, 1); positive / nonnegative / negative:
log-uniform magnitude on e^[-2.5, 2.5]; real: normal(0, 1.5); integers: small integers; complex: off
the real line with imaginary parts beyond ±pi, so that branch differences show. The same seed and
symbols always give the same points, so a verdict is reproducible.
"""

from __future__ import annotations

import math
import random
from typing import Any, Iterable, Mapping

import sympy as sp

def symbol_domain(sym: sp.Symbol, variables: Mapping[str, Any] | None = None) -> str:
    """One of probability | positive | nonnegative | negative | posint | integer | real | complex."""
    spec = variables.get(sym.name) if isinstance(variables, Mapping) else None
    if isinstance(spec, Mapping):
        dom = spec.get("domain")
        if dom in ("probability", "unit", "(0,1)"):
            return "probability"
        if dom in ("positive", "nonnegative", "negative", "real", "complex"):
            return dom
        if spec.get("complex") and not any(spec.get(f) for f in ("positive", "negative", "nonnegative",
                                                                  "nonpositive", "real", "integer")):
            return "complex"
        if spec.get("integer") and (spec.get("positive") or spec.get("nonnegative")):
            return "posint"
        for flag in ("positive", "nonnegative", "negative", "integer", "real"):
            if spec.get(flag):
                return flag
    if sym.is_integer:
        return "posint" if sym.is_nonnegative else "integer"
    if sym.is_positive:
        return "positive"
    if sym.is_nonnegative:
        return "nonnegative"
    if sym.is_negative:
        return "negative"
    if sym.is_real:
        return "real"
    if sym.is_complex:
        return "complex"
    # Undeclared symbols are sampled as reals: learners think of them as reals, and real sampling
    # still exposes branch differences such as log(a b) vs log a + log b at negative points.
    return "real"


def _draw(domain: str, rng: random.Random, i: int) -> float:
    if domain == "probability":
        if i % 2:
            return rng.uniform(0.02, 0.98)
        k = rng.randint(2, 5)
        logits = [rng.gauss(0.0, 1.5) for _ in range(k)]
        m = max(logits)
        ex = [math.exp(z - m) for z in logits]
        p = ex[0] / sum(ex)
        return min(max(p, 1e-3), 1 - 1e-3)
    if domain in ("positive", "nonnegative"):
        return math.exp(rng.uniform(-2.5, 2.5))
    if domain == "negative":
        return -math.exp(rng.uniform(-2.5, 2.5))
    if domain == "posint":
        return float(rng.randint(1, 7))
    if domain == "integer":
        return float(rng.choice([-4, -3, -2, -1, 1, 2, 3, 4, 5]))
    if domain == "complex":
        # Imaginary parts beyond ±pi, so that branch differences (log(exp(z)) vs z) show up.
        return complex(rng.gauss(0.0, 1.5), rng.uniform(-6.0, 6.0))
    return rng.gauss(0.0, 1.5)


def sample_points(symbols: Iterable[sp.Symbol], variables: Mapping[str, Any] | None, seed: int,
                  n: int) -> list[dict[sp.Symbol, float]]:
    syms = sorted(symbols, key=lambda s: s.name)
    rng = random.Random(f"equivalence:{seed}:{','.join(s.name for s in syms)}")
    domains = [symbol_domain(s, variables) for s in syms]
    return [{s: _draw(d, rng, i) for s, d in zip(syms, domains)} for i in range(n)]

