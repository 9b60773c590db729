"""The learner's expression rendered as typed: what "interpreted as" shows.

sympy evaluates and orders what it builds (``q*p`` becomes ``p*q``, ``x + 2x`` becomes ``3*x``,
``exp(-x) + x - 1`` becomes ``x - 1 + exp(-x)``), so rendering the built expression would show the
learner something they did not write.  This module renders the parser's AST instead
(:mod:`.parser`): terms and factors stay in the order typed, a division stays where it was typed
(left to right, ``1/2x`` is ``(1/2)*x``), brackets that group something are kept, numbers keep their
typed digits, and the only change is that implicit products are written out (``2p`` -> ``2*p``,
``2 · p``).  Three forms: plain text (which :func:`checkers.mathparse.parse_math` reads back to the
same expression), LaTeX and presentation MathML (the inner markup, as :func:`.render.render_mathml`).

Rendering is linear in the AST, whose size and depth the parser bounds (:mod:`.limits`).
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import Any, Callable

import sympy

from . import _compile_functions, _functions_key
from .parser import Context, parse_ast
from .render import render_latex, render_mathml
from .symbols import _specs_cached, variables_key

#: Binding strength of each node kind: a child binding less tightly than its place needs is bracketed.
_REL, _SUM, _PROD, _NEG, _POW, _ATOM = range(6)
_RELOPS_TEX = {"=": "=", "<": "<", ">": ">", "<=": r"\le", ">=": r"\ge", "!=": r"\ne"}
_RELOPS_ML = {"=": "=", "<": "&lt;", ">": "&gt;", "<=": "&#8804;", ">=": "&#8805;", "!=": "&#8800;"}
_TEX_FUNCS = {"log": r"\log", "exp": r"\exp", "sin": r"\sin", "cos": r"\cos", "tan": r"\tan",
              "sinh": r"\sinh", "cosh": r"\cosh", "tanh": r"\tanh", "min": r"\min", "max": r"\max"}
_SHOWN_NAME = {"log": "ln", "sigmoid": "σ"}


def _level(node: Any) -> int:
    kind = node[0]
    return {"rel": _REL, "sum": _SUM, "prod": _PROD, "neg": _NEG, "pow": _POW}.get(kind, _ATOM)


@lru_cache(maxsize=512)
def _name_tex(name: str) -> str:
    return render_latex(sympy.Symbol(name))


@lru_cache(maxsize=512)
def _name_ml(name: str) -> str:
    return render_mathml(sympy.Symbol(name))


class _Renderer:
    """What the three forms share: a child is bracketed (:meth:`wrap`) when it binds less tightly than
    its place needs, and terms and factors keep the order and the division points typed."""

    def wrap(self, out: str) -> str:
        raise NotImplementedError

    def _node(self, node: Any) -> str:
        raise NotImplementedError

    def render(self, node: Any, need: int = _REL) -> str:
        out = self._node(node)
        return self.wrap(out) if _level(node) < need else out

    def negated(self, node: Any) -> str:
        """The operand of a minus sign (``-x^2`` needs no bracket, ``-(a + b)`` does)."""
        return self.render(node[1], _NEG + 1 if node[1][0] != "pow" else _POW)

    def term(self, item: Any) -> str:
        return self.render(item, _SUM + 1 if item[0] == "sum" else _SUM)

    def signed_terms(self, node: Any) -> str:
        """A sum written inline: ``a - b + c``, a leading minus kept."""
        out = ""
        for i, (sign, item) in enumerate(node[1]):
            part = self.term(item)
            out += (part if sign > 0 else "-" + part) if i == 0 else (" + " if sign > 0 else " - ") + part
        return out

    def factor(self, i: int, factor: Any) -> str:
        return self.render(factor, _PROD + 1 if (i or factor[0] == "prod") else _PROD)

    def fractions_as_typed(self, node: Any, frac: Callable[[str, str], str], times: str) -> str:
        """A product whose every division is a fraction of everything to its left, as typed."""
        out, bare = "", ""  # bare: the lone factor so far, unbracketed (a fraction bar groups it)
        for i, (factor, div) in enumerate(node[1]):
            if div:
                out = frac(bare or out, self.render(factor))
                bare = ""
                continue
            part = self.factor(i, factor)
            out, bare = (part, self.render(factor)) if i == 0 else (out + times + part, "")
        return out


class _Text(_Renderer):
    """Plain text: ``*``, ``/``, ``^``, function calls; brackets wherever the tree needs them."""

    def wrap(self, out: str) -> str:
        return f"({out})"

    def _node(self, node: Any) -> str:
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "const":
            return "e" if node[1] == "E" else "pi"
        if kind == "var":
            return node[1]
        if kind == "neg":
            return "-" + self.negated(node)
        if kind == "sum":
            return self.signed_terms(node)
        if kind == "prod":
            out = ""
            for i, (factor, div) in enumerate(node[1]):
                part = self.factor(i, factor)
                out = part if i == 0 else out + ("/" if div else "*") + part
            return out
        if kind == "pow":
            return self.render(node[1], _ATOM) + "^" + self.render(node[2], _ATOM)
        if kind in ("call", "ucall"):
            return f"{node[1]}(" + ", ".join(self.render(a) for a in node[2]) + ")"
        if kind == "rel":
            return f"{self.render(node[2], _SUM)} {node[1]} {self.render(node[3], _SUM)}"
        raise ValueError(f"unknown node {kind!r}")


class _Tex(_Renderer):
    def wrap(self, out: str) -> str:
        return rf"\left({out}\right)"

    def _node(self, node: Any) -> str:
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "const":
            return "e" if node[1] == "E" else r"\pi"
        if kind == "var":
            return _name_tex(node[1])
        if kind == "neg":
            return "-" + self.negated(node)
        if kind == "sum":
            return self.signed_terms(node)
        if kind == "prod":
            return self.fractions_as_typed(node, lambda num, den: rf"\frac{{{num}}}{{{den}}}", r" \cdot ")
        if kind == "pow":
            base = self.render(node[1], _ATOM)
            return f"{{{base}}}^{{{self.render(node[2])}}}"
        if kind in ("call", "ucall"):
            name, args = node[1], node[2]
            inner = ", ".join(self.render(a) for a in args)
            if name == "sqrt":
                return rf"\sqrt{{{inner}}}"
            if name == "abs":
                return rf"\left|{inner}\right|"
            if name == "exp":
                return rf"e^{{{inner}}}"
            if name == "log" and len(args) == 2:
                return rf"\log_{{{self.render(args[1])}}}\left({self.render(args[0])}\right)"
            shown = r"\ln" if name == "log" else r"\sigma" if name == "sigmoid" else \
                _TEX_FUNCS.get(name, rf"\operatorname{{{name}}}")
            return rf"{shown}\left({inner}\right)"
        if kind == "rel":
            return f"{self.render(node[2], _SUM)} {_RELOPS_TEX[node[1]]} {self.render(node[3], _SUM)}"
        raise ValueError(f"unknown node {kind!r}")


def _row(*items: str) -> str:
    return "<mrow>" + "".join(items) + "</mrow>"


def _mo(op: str) -> str:
    return f"<mo>{op}</mo>"


class _MathML(_Renderer):
    def wrap(self, out: str) -> str:
        return _row(_mo("("), out, _mo(")"))

    def _node(self, node: Any) -> str:
        kind = node[0]
        if kind == "num":
            return f"<mn>{escape(node[1])}</mn>"
        if kind == "const":
            return "<mi>e</mi>" if node[1] == "E" else "<mi>&#960;</mi>"
        if kind == "var":
            return _name_ml(node[1])
        if kind == "neg":
            return _row(_mo("-"), self.negated(node))
        if kind == "sum":
            items = []
            for i, (sign, item) in enumerate(node[1]):
                if i or sign < 0:
                    items.append(_mo("+" if sign > 0 else "-"))
                items.append(self.term(item))
            return _row(*items)
        if kind == "prod":
            return _row(self.fractions_as_typed(node, lambda num, den: f"<mfrac>{_row(num)}{_row(den)}</mfrac>",
                                                _mo("&#183;")))
        if kind == "pow":
            return f"<msup>{self.render(node[1], _ATOM)}{self.render(node[2])}</msup>"
        if kind in ("call", "ucall"):
            name, args = node[1], node[2]
            inner = []
            for i, a in enumerate(args):
                if i:
                    inner.append(_mo(","))
                inner.append(self.render(a))
            if name == "sqrt":
                return f"<msqrt>{_row(*inner)}</msqrt>"
            if name == "abs":
                return _row(_mo("|"), *inner, _mo("|"))
            if name == "exp":
                return f"<msup><mi>e</mi>{_row(*inner)}</msup>"
            shown = escape(_SHOWN_NAME.get(name, name))
            return _row(f"<mi>{shown}</mi>", _mo("("), *inner, _mo(")"))
        if kind == "rel":
            return _row(self.render(node[2], _SUM), _mo(_RELOPS_ML[node[1]]), self.render(node[3], _SUM))
        raise ValueError(f"unknown node {kind!r}")


def render_typed(ast: Any) -> tuple[str, str, str]:
    """``(text, latex, mathml)`` of a parsed AST, structure as typed (see the module docstring)."""
    return _Text().render(ast), _Tex().render(ast), _MathML().render(ast)


def typed_forms(text: str, variables: Any = None, functions: Any = None, *,
                allow_relation: bool = False) -> tuple[str, str, str]:
    """``(text, latex, mathml)`` of an answer that :func:`checkers.mathparse.parse_math` has read with
    the same names, rendered as typed; re-reading it costs only the tokenizer and the parser (no sympy)."""
    vkey = variables_key(variables)
    fkey = _functions_key(functions)
    f_asts = _compile_functions(fkey, vkey)[0] if fkey else {}
    return render_typed(parse_ast(text, Context(_specs_cached(vkey), f_asts), allow_relation))
