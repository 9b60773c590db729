"""The operator grammar of the recursive-descent parser: relations, sums, products, powers, atoms.

The AST only ever contains allow-listed node kinds, resolved names and literal text of numbers; the
backends (:mod:`..build`) turn it into sympy objects or floats.  Names are resolved here, against the
declared variables and the function allow-list, so every unknown name is reported with its column.

Grammar (both languages share it; ``latex`` only changes how un-braced ``^``/``_``/``\\frac``
arguments are read, as in TeX: ``x^23`` is ``x^2*3`` in LaTeX and ``x^23`` in plain text)::

    relation := sum [relop sum]
    sum      := product (('+'|'-') product)*
    product  := unary (('*'|'/') unary | implicit-factor)*     # left to right: 1/2x == x/2
    unary    := ('+'|'-')* power
    power    := atom ['^' exponent]                              # right associative
    atom     := number | name [subscripts] | call | '(' sum ')' | '{' sum '}' | '|' sum '|' | \\frac..

AST nodes::

    ("num", text, col)  ("const", "E"|"pi")  ("var", name)  ("neg", node)
    ("sum", [(sign, node), ...])  ("prod", [(node, is_division), ...])  ("pow", base, exp, col)
    ("call", fname, [args], col)  ("ucall", fname, [args], col)  ("rel", op, lhs, rhs, col)
"""

from __future__ import annotations

from typing import Any

from ..lexer import Tok, err
from .cursor import TokenCursor
from .vocabulary import CLOSERS, OPEN, RELOPS, ROUNDING


class GrammarRules(TokenCursor):
    """Operators and precedence; names, LaTeX commands and calls come from the sibling rule classes."""

    def parse(self, allow_relation: bool) -> Any:
        t = self.tok
        if t.kind == "end":
            raise err("The answer is empty.", 0)
        lhs = self.sum()
        t = self.tok
        if t.kind == "op" and t.val in RELOPS:
            if not allow_relation:
                if t.val == "=":
                    raise err("An equation ('=' at column %(column)s) is not expected here; enter an "
                              "expression.", t.col, column=t.col + 1)
                raise err("A comparison ('%(operator)s' at column %(column)s) is not expected here; enter an "
                          "expression.", t.col, operator=t.val, column=t.col + 1)
            self.advance()
            if self.tok.kind == "end":
                raise err("The right-hand side of the equation is missing.", self.tok.col)
            rhs = self.sum()
            t2 = self.tok
            if t2.kind == "op" and t2.val in RELOPS:
                raise err("Only one '=' or comparison is allowed (second at column %(column)s).", t2.col,
                          column=t2.col + 1)
            lhs = ("rel", t.val, lhs, rhs, t.col)
        t = self.tok
        if t.kind != "end":
            raise self.unexpected(t)
        return lhs

    def sum(self) -> Any:
        self.enter(self.tok.col)
        items = [(1, self.product())]
        while self.is_op("+", "-"):
            sign = 1 if self.advance().val == "+" else -1
            items.append((sign, self.product()))
        self.depth -= 1
        return items[0][1] if len(items) == 1 and items[0][0] == 1 else ("sum", items)

    def product(self) -> Any:
        items = [(self.unary(), False)]
        while True:
            t = self.tok
            if t.kind == "op" and t.val in "*/":
                self.advance()
                items.append((self.unary(), t.val == "/"))
            elif self.starts_factor(t):
                if t.kind == "num":
                    raise self.unexpected(t)
                items.append((self.power(), False))
            else:
                break
        return items[0][0] if len(items) == 1 else ("prod", items)

    def starts_factor(self, t: Tok) -> bool:
        if t.kind in ("num", "name", "cmd"):
            return True
        if t.kind == "op":
            if t.val in OPEN:
                return True
            if t.val == "|":
                return self.abs_open == 0
        return False

    def unary(self) -> Any:
        neg = False
        while self.is_op("+", "-"):
            if self.advance().val == "-":
                neg = not neg
        node = self.power()
        return ("neg", node) if neg else node

    def power(self) -> Any:
        base = self.atom()
        if self.is_op("^"):
            caret = self.advance()
            self.enter(caret.col)
            exp = self.exponent(caret)
            self.depth -= 1
            return ("pow", base, exp, caret.col)
        return base

    def exponent(self, caret: Tok) -> Any:
        t = self.tok
        if t.kind == "end":
            raise self.trailing(caret)
        if self.latex and not (t.kind == "op" and t.val in OPEN):
            neg = False
            while self.is_op("+", "-"):
                if self.advance().val == "-":
                    neg = not neg
            node = self.tex_arg()
            if self.is_op("^"):  # x^a^b: TeX would refuse; read it right-associatively
                c2 = self.advance()
                self.enter(c2.col)
                node = ("pow", node, self.exponent(c2), c2.col)
                self.depth -= 1
            return ("neg", node) if neg else node
        return self.unary()

    def atom(self) -> Any:
        t = self.tok
        if t.kind == "num":
            self.advance()
            if self.ctx.exact and any(c in t.val for c in ".eE"):
                raise err("An exact answer is required: the decimal %(number)s at column %(column)s is not "
                          "allowed (write a fraction such as 1/2, or ln(2), sqrt(3)...).", t.col, number=t.val,
                          column=t.col + 1)
            return ("num", t.val, t.col)
        if t.kind == "name":
            return self.name_atom()
        if t.kind == "cmd":
            return self.command()
        if t.kind == "op":
            if t.val in OPEN:
                self.advance()
                inner = self.sum()
                self.expect_close(t)
                if t.val in ROUNDING:
                    return ("call", ROUNDING[t.val], [inner], t.col)
                return inner
            if t.val == "|":
                self.advance()
                self.abs_open += 1
                inner = self.sum()
                self.abs_open -= 1
                if not self.is_op("|"):
                    raise err("Absolute value bar '|' at column %(column)s is never closed.", t.col, column=t.col + 1)
                self.advance()
                return ("call", "abs", [inner], t.col)
            if t.val in CLOSERS:
                prev = self.toks[self.i - 1] if self.i > 0 else None
                if prev is not None and prev.kind == "op" and prev.val in OPEN:
                    raise err("Empty brackets at column %(column)s.", prev.col, column=prev.col + 1)
                raise self.unexpected(t)
        if t.kind == "end":
            prev = self.toks[self.i - 1] if self.i > 0 else None
            if prev is not None and prev.kind == "op" and prev.val not in CLOSERS + "|":
                raise self.trailing(prev)
            raise err("The answer ends unexpectedly; something is missing.", t.col)
        raise err("Expected a number, a variable or '(' at column %(column)s, found %(found)s.", t.col,
                  column=t.col + 1, found=self.describe(t))
