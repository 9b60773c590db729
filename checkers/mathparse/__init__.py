"""Safe maths parser: learners' (untrusted) plain maths or LaTeX -> sympy objects, without eval.

Text is tokenised (:mod:`.lexer`), parsed by a bounded recursive-descent parser into an AST of
allow-listed node kinds with every name resolved (:mod:`.parser`), and only then turned into sympy
objects or floats by walking that AST (:mod:`.build`).  Nothing here ever calls ``eval``, ``exec``,
``sympify``, ``parse_expr``, ``S(<str>)`` or ``parse_latex``.

Public API::

    parse_math(text, variables=None, functions=None, *, allow_relation=False, exact=False,
               evaluate=True) -> ParsedMath
    symbols_for(variables) -> dict[str, sympy.Symbol]
    variable_specs(variables) -> dict[str, VariableSpec]; domain_of(name, variables) -> Domain
    evaluate_numeric(text, values, functions=None) -> float
    render_plain(expr) / render_latex(expr) / render_mathml(expr)

Choices worth knowing (see also docs in the submodules):

* Decimals are exact: ``0.1`` becomes ``Rational(1, 10)`` (the number typed, not its binary float);
  with ``exact=True`` any decimal or scientific literal is an error.
* ``2e-5`` is scientific notation; ``2e`` and ``2e^x`` use Euler's number.  ``e``/``E`` and ``pi``
  are the constants unless declared as variables.
* Implicit multiplication is an ordinary product, evaluated left to right with ``*`` and ``/``
  (``1/2x`` is ``x/2``, as in sympy and Python).  A number may not follow a factor implicitly
  (``x 2`` is an error).
* ``ln x``, ``\\log x``: a function without brackets takes the following run of implicitly
  multiplied factors (``ln 2x`` is ``ln(2x)``; ``log x / y`` is ``log(x)/y``).
* ``sigmoid``/``σ``/``\\sigma`` (when no variable ``sigma`` is declared) is built as
  ``1/(1 + exp(-x))``, ``logsigmoid(x)`` as ``-log(1 + exp(-x))``, ``softplus(x)`` as
  ``log(1 + exp(x))``; ``clip(x, lo, hi)`` as ``Min(Max(x, lo), hi)``; ``log(x, b)``, ``log_2 x``,
  ``\\log_{b}`` as ``log(x)/log(b)``.
* Control, format (bidi, zero-width, BOM) and other invisible characters are rejected with their
  column rather than stripped, so what is graded is exactly what the learner sees.
* Per-question functions are expanded: ``f(a)`` becomes the parsed body with ``a`` substituted.
  Bodies may use declared variables and built-in functions, not other per-question functions.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from typing import Any, Mapping

import sympy

from ..verdict import AnswerParseError, SpecError
from .build import FloatEvaluator, SympyBuilder, check_finite_real
from .lexer import err
from .limits import BUILD_BUDGET_S, CACHE_SIZE
from .parser import Context, parse_ast
from .render import render_latex, render_mathml, render_plain
from .symbols import (Domain, VariableSpec, _freeze, _specs_cached, canonical_name, domain_of,
                      symbols_for, variable_specs, variables_key)

__all__ = ["warm_up", "AnswerParseError", "Domain", "ParsedMath", "VariableSpec", "domain_of", "evaluate_numeric",
           "parse_math", "render_latex", "render_mathml", "render_plain", "symbols_for",
           "variable_specs"]


class ParsedMath:
    """A parsed answer.  ``text`` is the canonical plain form (what the preview shows and what
    :func:`parse_math` reads back); ``source`` is the raw input.  ``latex``/``mathml`` are rendered
    on first access (MathML costs a few milliseconds)."""

    __slots__ = ("expr", "text", "relation", "lhs", "rhs", "source", "decimals", "_latex", "_mathml")

    def __init__(self, expr: Any, text: str, latex: str | None = None, mathml: str | None = None,
                 relation: bool = False, lhs: Any = None, rhs: Any = None, source: str = "",
                 decimals: tuple[str, ...] = ()):
        #: The decimal / scientific literals typed (``0.333``, ``1e-3``), in order.  They are read as
        #: exact rationals, but a grader must know that the learner wrote a decimal: 0.333333333333333
        #: is not 1/3, however close sample points say they are.
        self.decimals = decimals
        self.expr = expr
        self.text = text
        self._latex = latex
        self._mathml = mathml
        self.relation = relation
        self.lhs = lhs
        self.rhs = rhs
        self.source = source

    @property
    def latex(self) -> str:
        if self._latex is None:
            self._latex = render_latex(self.expr)
        return self._latex

    @property
    def mathml(self) -> str:
        if self._mathml is None:
            self._mathml = render_mathml(self.expr)
        return self._mathml

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParsedMath) and self.expr == other.expr and self.relation == other.relation

    def __hash__(self) -> int:
        return hash((self.expr, self.relation))

    def __repr__(self) -> str:
        return f"ParsedMath({self.text!r}, relation={self.relation})"


# -- per-question functions --------------------------------------------------------------------

def _functions_key(functions: Any) -> tuple:
    if not functions:
        return ()
    if not isinstance(functions, Mapping):
        raise SpecError("functions must be a mapping name -> {args: [...], expr: '...'}")
    return _freeze(functions)


@lru_cache(maxsize=256)
def _compile_functions(fkey: tuple, vkey: tuple) -> tuple[dict, dict]:
    """-> (name -> (arg names, body AST), name -> (arg Dummies, body sympy))."""
    specs = _specs_cached(vkey)
    asts: dict[str, tuple[list[str], Any]] = {}
    exprs: dict[str, tuple[list[sympy.Symbol], Any]] = {}
    for raw_name, raw in fkey:
        name = canonical_name(raw_name)
        if name in specs:
            raise SpecError(f"function {raw_name!r} has the same name as a variable")
        d = dict(raw) if isinstance(raw, tuple) else None
        if not d or "expr" not in d or not isinstance(d["expr"], str):
            raise SpecError(f"function {raw_name!r} needs args: [...] and expr: '...'")
        args = d.get("args") or ()
        if isinstance(args, str):
            args = (args,)
        arg_names = [canonical_name(a) for a in args]
        if len(set(arg_names)) != len(arg_names):
            raise SpecError(f"function {raw_name!r} repeats an argument name")
        # Arguments shadow declared variables of the same name inside the body.
        body_vars: dict[str, Any] = dict(specs)
        body_vars.update({a: None for a in arg_names})
        try:
            ast = parse_ast(d["expr"], Context(body_vars, {}, exact=False))
        except AnswerParseError as exc:
            raise SpecError(f"function {raw_name!r}: {exc.message}") from None
        dummies = [sympy.Dummy(a, real=True) for a in arg_names]
        symbols = {n: s.symbol for n, s in specs.items()}
        symbols.update(dict(zip(arg_names, dummies)))
        try:
            body = SympyBuilder(symbols, {}).build(ast)
        except AnswerParseError as exc:
            raise SpecError(f"function {raw_name!r}: {exc.message}") from None
        asts[name] = (arg_names, ast)
        exprs[name] = (dummies, body)
    return asts, exprs


# -- parse_math ------------------------------------------------------------------------------

#: Typical answers parsed once per process before the first real one: sympy's first use of its
#: assumption system, Rational arithmetic and printers costs tens of milliseconds, which must not be
#: charged to (and so reject) a learner's honest answer in a fresh worker.
_WARM_UP_INPUTS = (
    "exp(-x) + x - 1",
    "log(sigmoid(b*(x - y))) + softplus(-x)",
    r"\frac{1}{2}\left(\log x\right)^{2} - \sqrt{x} \cdot 0.5",
    "max(x, 0) - min(x, 1) + abs(x) + tanh(x)^2",
    "b*log(x/y) + b*log(y) = b*log(x)",
)
_warm_lock = threading.Lock()
_warm = False


def warm_up() -> None:
    """Pay sympy's one-time costs outside any answer's build budget (idempotent, thread-safe)."""
    global _warm
    if _warm:
        return
    with _warm_lock:
        if _warm:
            return
        vkey = variables_key({"x": {"positive": True}, "y": {"positive": True}, "b": {"positive": True}})
        for text in _WARM_UP_INPUTS:
            expr = _parse_uncached(text, vkey, (), True, False, True, budget_s=None)
            _ = expr.latex, expr.mathml
        _warm = True


@lru_cache(maxsize=CACHE_SIZE)
def _parse_cached(text: str, vkey: tuple, fkey: tuple, allow_relation: bool, exact: bool,
                  evaluate: bool) -> ParsedMath:
    warm_up()
    return _parse_uncached(text, vkey, fkey, allow_relation, exact, evaluate)


def _parse_uncached(text: str, vkey: tuple, fkey: tuple, allow_relation: bool, exact: bool,
                    evaluate: bool, budget_s: float | None = BUILD_BUDGET_S) -> ParsedMath:
    specs = _specs_cached(vkey)
    f_asts, f_exprs = _compile_functions(fkey, vkey) if fkey else ({}, {})
    ast = parse_ast(text, Context(specs, f_asts, exact=exact), allow_relation)
    builder = SympyBuilder({n: s.symbol for n, s in specs.items()}, f_exprs, evaluate=evaluate,
                           budget_s=budget_s)
    try:
        expr = builder.build(ast)
    except RecursionError:  # pragma: no cover - depth is bounded by the parser; belt and braces
        raise err("The answer is nested too deeply.", None) from None
    check_finite_real(expr, text)
    relation = ast[0] == "rel"
    lhs = expr.lhs if relation else None
    rhs = expr.rhs if relation else None
    return ParsedMath(expr, render_plain(expr), relation=relation, lhs=lhs, rhs=rhs, source=text,
                      decimals=tuple(decimal_literals(ast)))


def decimal_literals(ast: Any) -> list[str]:
    """The decimal and scientific number literals of a parsed AST (``0.5``, ``2e-3``), in order."""
    found: list[str] = []
    stack = [ast]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or not node:
            continue
        if node[0] == "num":
            if any(c in node[1] for c in ".eE"):
                found.append(node[1])
            continue
        # An AST node is (kind, ...); the items of sum/prod lists are (sign, node) / (node, is_division).
        for child in reversed(node[1:] if isinstance(node[0], str) else node):
            if isinstance(child, tuple):
                stack.append(child)
            elif isinstance(child, list):
                stack.extend(reversed(child))
    return found


def parse_math(text: str, variables: Any = None, functions: Any = None, *, allow_relation: bool = False,
               exact: bool = False, evaluate: bool = True) -> ParsedMath:
    """Parse untrusted maths (plain or LaTeX) into a :class:`ParsedMath`.

    Raises :class:`AnswerParseError` (with a 0-based ``column`` where one applies and a Chinese
    message) for anything that is not allow-listed maths; raises :class:`SpecError` for a malformed
    ``variables`` / ``functions`` spec (authored data, not learner input).
    """
    if not isinstance(text, str):
        raise err("The answer must be text.", None)
    return _parse_cached(text, variables_key(variables), _functions_key(functions), bool(allow_relation),
                         bool(exact), bool(evaluate))


# -- evaluate_numeric ------------------------------------------------------------------------

@lru_cache(maxsize=CACHE_SIZE)
def _numeric_ast(text: str, names: frozenset, fkey: tuple) -> tuple[Any, dict]:
    f_asts = _compile_functions(fkey, tuple((n, None) for n in sorted(names)))[0] if fkey else {}
    return parse_ast(text, Context({n: None for n in names}, f_asts)), f_asts


def evaluate_numeric(text: str, values: Mapping[str, float], functions: Any = None) -> float:
    """Evaluate maths such as ``ln(2)/2`` or ``1 - p`` with ``values`` for its variables.

    Raises :class:`AnswerParseError` for unreadable input and for results that are not finite real
    numbers (``log(0)``, ``sqrt(-1)``, overflow).
    """
    if not isinstance(text, str):
        raise err("The expression must be text.", None)
    env: dict[str, float] = {}
    for name, value in (values or {}).items():
        try:
            canon = canonical_name(name)
        except SpecError:
            continue  # a parameter no expression can name (e.g. "log") is simply not a variable
        if isinstance(value, bool):
            continue
        try:
            env[canon] = float(value)
        except (TypeError, ValueError, OverflowError):
            continue
    ast, f_asts = _numeric_ast(text, frozenset(env), _functions_key(functions))
    try:
        result = FloatEvaluator(env, f_asts).ev(ast)
    except (OverflowError, ZeroDivisionError):
        raise err("The value is too large or divides by zero.", None) from None
    except (ValueError, TypeError):
        raise err("The value is undefined or not a real number (log of zero or of a negative number, "
                  "square root of a negative number?).", None) from None
    except RecursionError:  # pragma: no cover
        raise err("The expression is nested too deeply.", None) from None
    if not math.isfinite(result):
        raise err("The value is not a finite number.", None)
    return result
