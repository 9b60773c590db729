"""Renderers: canonical plain text (which :func:`parse_math` reads back), LaTeX and MathML."""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.mathml import mathml as _mathml
from sympy.printing.str import StrPrinter


class _PlainPrinter(StrPrinter):
    # Lower-case names are what learners type; sympy's Abs/Min/Max would also parse (aliases).
    def _print_Abs(self, expr: Any) -> str:
        return f"abs({self._print(expr.args[0])})"

    def _print_Min(self, expr: Any) -> str:
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Max(self, expr: Any) -> str:
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Exp1(self, expr: Any) -> str:
        return "e"

    def _print_Relational(self, expr: Any) -> str:
        op = {"==": "=", "!=": "!="}.get(expr.rel_op, expr.rel_op)
        return f"{self._print(expr.lhs)} {op} {self._print(expr.rhs)}"

    def _print_Float(self, expr: Any) -> str:
        # Floats never come out of the parser, but callers may render their own objects.
        return repr(float(expr))


_PLAIN = _PlainPrinter({"order": None})


def render_plain(expr: Any) -> str:
    """Canonical plain-text form: ``exp(-x)``, ``x**2``, ``abs(x)``, ``a = b``."""
    return _PLAIN.doprint(expr)


class _LatexPrinter(LatexPrinter):
    # sympy writes atan2 as \operatorname{atan}_{2}, which reads back as a subscripted name.
    def _print_atan2(self, expr: Any, exp: Any = None) -> str:
        out = (r"\operatorname{atan2}\left(" + self._print(expr.args[0]) + ", "
               + self._print(expr.args[1]) + r"\right)")
        return f"{out}^{{{exp}}}" if exp else out


_LATEX = _LatexPrinter()


def render_latex(expr: Any) -> str:
    return _LATEX.doprint(expr)


def render_mathml(expr: Any) -> str:
    return _mathml(expr, printer="presentation")
