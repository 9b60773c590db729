"""Forms of derivation lines: what a line *says*, not what it is worth.

Every line of a correct derivation has the same value, so equivalence alone cannot tell a derivation
from a copied goal. This module compares lines by **form**: a normal form of the parser's AST (never a
sympy evaluation, so ``q + (1 - q)`` is not silently 1 and a user function such as ``f(ln(b/a))`` stays
``f(...)``) after light, purely syntactic rewrites:

* sums and products are flattened and their terms/factors are a multiset (any order, any brackets):
  ``a + (b + c) ≡ c + b + a``, ``a*(b*c) ≡ c*b*a``; a sign in front of brackets is distributed
  (``q - (1 - p) ≡ q - 1 + p``); the terms ``0`` and factors ``1`` are dropped;
* division is a power ``-1``, distributed over a product: ``a/(b*c) ≡ a/b/c ≡ a*b^-1*c^-1``;
  ``x^1 ≡ x``, ``e^x ≡ exp(x)``, ``sqrt(x) ≡ x^(1/2)``, ``ln ≡ log`` (the parser's alias);
* numbers by value of their decimal text (``0.50 ≡ .5``, ``1e3 ≡ 1000``); no arithmetic is done
  (``2*3`` is not ``6``, ``x + x`` is not ``2*x``): combining terms is a step of its own.

A *form* is ``(sign, key)``: ``sign`` is ±1 and ``key`` a hashable tuple. A line's forms are its
expression, or both sides of its equation.

**Containment** (milestones, "key steps"): a line contains a milestone's form when the form is the
whole line, one side of it, one of its sub-expressions, or some of the terms of one of its sums (a
sub-multiset, up to an overall sign) or some of the factors of one of its products. E.g. the milestone
``q + (1 - q)`` is contained in ``q + (1 - q) - p*ln(q/p) - p - (1 - p)`` and in ``1 - q + q - ...``.

Work is linear in the size of the AST, which the parser bounds (``MAX_TOKENS``, ``MAX_DEPTH``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from ...mathparse import variable_specs
from ...mathparse.parser import Context, parse_ast
from ...mathparse.symbols import canonical_name

Form = tuple  # (sign, key)

ONE = ("n", "1", 0)
ZERO = ("n", "0", 0)
MINUS_ONE_EXP: Form = (-1, ONE)
HALF: Form = (1, ("^", (1, ("n", "2", 0)), MINUS_ONE_EXP))   # the form of 1/2
_NUM = re.compile(r"^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")


def _number(text: str) -> tuple:
    """The value of a decimal literal as (digits without leading/trailing zeros, exponent): string work
    only, so ``1e300`` costs nothing."""
    m = _NUM.match(text)
    if not m:
        return ("n", text, 0)
    whole, frac, exp = m.group(1) or "", m.group(2) or "", m.group(3)
    digits = (whole + frac).lstrip("0")
    if not digits:
        return ZERO
    e = (int(exp) if exp else 0) - len(frac)
    stripped = digits.rstrip("0")
    return ("n", stripped, e + len(digits) - len(stripped))


def _inverse(key: tuple) -> tuple:
    """``1/key`` as a form key (without sign): powers get a negated exponent, products are inverted
    factor by factor."""
    if key == ONE:
        return ONE
    if key[0] == "*":
        return ("*", tuple(sorted(_inverse(f) for f in key[1])))
    if key[0] == "^":
        s, e = key[2]
        if (-s, e) == (1, ONE) and key[1][0] == 1:
            return key[1][1]
        return ("^", key[1], (-s, e))
    return ("^", (1, key), MINUS_ONE_EXP)


def _product(factors: list[tuple], sign: int) -> Form:
    flat: list[tuple] = []
    for f in factors:
        if f[0] == "*":
            flat.extend(f[1])
        elif f != ONE:
            flat.append(f)
    if not flat:
        return sign, ONE
    if len(flat) == 1:
        return sign, flat[0]
    return sign, ("*", tuple(sorted(flat)))


def _sum(terms: list[Form]) -> Form:
    flat: list[Form] = []
    for s, k in terms:
        if k == ZERO:
            continue
        if k[0] == "+":
            flat.extend((s * ts, tk) for ts, tk in k[1])
        else:
            flat.append((s, k))
    if not flat:
        return 1, ZERO
    if len(flat) == 1:
        return flat[0]
    return 1, ("+", tuple(sorted(flat)))


def normal(node: Any) -> Form:
    """The form of a parser AST node (see the module docstring)."""
    kind = node[0]
    if kind == "num":
        return 1, _number(node[1])
    if kind == "var":
        return 1, ("v", node[1])
    if kind == "const":
        return 1, ("c", node[1])
    if kind == "neg":
        s, k = normal(node[1])
        return -s, k
    if kind == "sum":
        terms = []
        for sign, sub in node[1]:
            s, k = normal(sub)
            terms.append((s * sign, k))
        return _sum(terms)
    if kind == "prod":
        sign, factors = 1, []
        for sub, div in node[1]:
            s, k = normal(sub)
            sign *= s
            factors.append(_inverse(k) if div else k)
        return _product(factors, sign)
    if kind == "pow":
        base, exp = normal(node[1]), normal(node[2])
        return _power(base, exp)
    if kind in ("call", "ucall"):
        name, args = node[1], [normal(a) for a in node[2]]
        if kind == "call" and name == "sqrt":
            return _power(args[0], HALF)
        tag = "f" if kind == "call" else "u"
        return 1, (tag, name, tuple(args))
    if kind == "rel":
        raise ValueError("a relation has no single form")
    return 1, ("?", repr(node))


def _power(base: Form, exp: Form) -> Form:
    if exp == (1, ONE):
        return base
    if base == (1, ("c", "E")):
        return 1, ("f", "exp", (exp,))
    if base[0] == 1 and exp[0] == -1 and exp[1] == ONE:
        return 1, _inverse(base[1])
    return 1, ("^", base, exp)


# -------------------------------------------------------------------------------------------------
# statements

def context(spec: Mapping[str, Any]) -> Context:
    """A parser context for ``spec``'s variables and functions (user functions stay opaque calls)."""
    functions = spec.get("functions") or {}
    funcs = {canonical_name(n): (list(f.get("args") or ()), None)
             for n, f in functions.items()} if isinstance(functions, Mapping) else {}
    return Context(variable_specs(spec.get("variables") or {}), funcs)


def statement(text: str, spec: Mapping[str, Any]) -> tuple:
    """``("expr", form)`` or ``("eq", lhs form, rhs form)`` of one line or authored statement.

    A continuation ``= X`` is read as the expression ``X``. Raises the parser's AnswerParseError."""
    stripped = text.lstrip()
    if stripped.startswith("=") and not stripped.startswith("=="):
        stripped = stripped[1:]
    ast = parse_ast(stripped, context(spec), True)
    if ast[0] == "rel":
        return "eq", normal(ast[2]), normal(ast[3])
    return "expr", normal(ast)


def sides(stmt: tuple) -> list[Form]:
    """The forms a statement offers: its expression, or both sides of its equation."""
    return [stmt[1]] if stmt[0] == "expr" else [stmt[1], stmt[2]]


def same_statement(a: tuple, b: tuple) -> bool:
    """Same form: equal expressions, or equations with equal sides (either way round)."""
    if a[0] != b[0]:
        return False
    if a[0] == "expr":
        return a[1] == b[1]
    return (a[1], a[2]) == (b[1], b[2]) or (a[1], a[2]) == (b[2], b[1])


# -------------------------------------------------------------------------------------------------
# containment and key steps

def _children(key: tuple) -> Iterable[Form]:
    tag = key[0]
    if tag == "+":
        return key[1]
    if tag == "*":
        return [(1, f) for f in key[1]]
    if tag == "^":
        return [key[1], key[2]]
    if tag in ("f", "u"):
        return key[2]
    return ()


def _sub_multiset(small: Sequence, big: Sequence) -> bool:
    need, have = Counter(small), Counter(big)
    return all(have[x] >= n for x, n in need.items())


def contains(form: Form, target: Form) -> bool:
    """Is ``target`` the whole of ``form``, a sub-expression of it, or part of one of its sums or
    products (see the module docstring)?"""
    stack = [form]
    tkey = target[1]
    neg_terms = tuple((-s, k) for s, k in tkey[1]) if tkey[0] == "+" else ()
    while stack:
        s, k = stack.pop()
        if (s, k) == target or (k == tkey and tkey[0] in ("+", "*")):
            return True
        if tkey[0] == "+" and k[0] == "+" and (_sub_multiset(tkey[1], k[1]) or _sub_multiset(neg_terms, k[1])):
            return True
        if tkey[0] == "*" and k[0] == "*" and _sub_multiset(tkey[1], k[1]):
            return True
        stack.extend(_children(k))
    return False


def line_contains(stmt: tuple, alternatives: Sequence[Form]) -> bool:
    return any(contains(side, alt) for side in sides(stmt) for alt in alternatives)


def match_in_order(hits: Sequence[Sequence[bool]]) -> list[int | None]:
    """``hits[i][j]``: line j contains key step i. The line of each key step in the largest set of key
    steps found in order (a line may hold several; each one on the same or a later line than the one
    before it), None for the others. Earliest lines win ties."""
    n = len(hits)
    memo: dict[tuple[int, int], tuple[int, tuple]] = {}

    def best(i: int, pos: int) -> tuple[int, tuple]:
        if i == n:
            return 0, ()
        if (i, pos) in memo:
            return memo[(i, pos)]
        skip_n, skip_path = best(i + 1, pos)
        out = (skip_n, (None,) + skip_path)
        j = next((j for j in range(pos, len(hits[i])) if hits[i][j]), None)
        if j is not None:
            take_n, take_path = best(i + 1, j)
            if take_n + 1 >= skip_n:  # prefer taking: same count, this key step found
                out = (take_n + 1, (j,) + take_path)
        memo[(i, pos)] = out
        return out

    return list(best(0, 0)[1])


__all__ = ["contains", "context", "line_contains", "match_in_order", "normal", "same_statement", "sides",
           "statement"]
