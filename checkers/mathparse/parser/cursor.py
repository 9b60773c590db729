"""The parser's walk over the token list, and the bounds it enforces while walking.

A :class:`TokenCursor` holds the tokens of one answer and the position in them; ``enter`` counts the
nesting depth and refuses more than ``MAX_DEPTH`` levels, so no answer can recurse the parser (or the
sympy builder after it) past a fixed depth. The messages for a bracket never closed, an operator with
nothing after it and an unexpected token are built here, with their column.
"""

from __future__ import annotations

from ..lexer import Tok, err, tokenize
from ..limits import MAX_DEPTH
from .vocabulary import CLOSERS, OPEN, Context


class TokenCursor:
    def __init__(self, text: str, ctx: Context):
        self.text = text
        self.toks: list[Tok] = tokenize(text)
        self.i = 0
        self.ctx = ctx
        self.depth = 0
        self.abs_open = 0
        self.latex = "\\" in text

    # -- token helpers -------------------------------------------------------------------------
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def advance(self) -> Tok:
        t = self.toks[self.i]
        if t.kind != "end":
            self.i += 1
        return t

    def is_op(self, *vals: str) -> bool:
        t = self.toks[self.i]
        return t.kind == "op" and t.val in vals

    def expect_close(self, opener: Tok) -> None:
        want = OPEN[opener.val]
        t = self.tok
        if t.kind == "op" and t.val == want:
            self.advance()
            return
        if t.kind == "end":
            raise err("Unbalanced brackets: '%(bracket)s' at column %(column)s is never closed.", opener.col,
                      bracket=opener.val, column=opener.col + 1)
        raise err("Expected '%(want)s' to close '%(bracket)s' from column %(opened)s, found %(detail)s at column "
                  "%(column)s.", t.col, want=want, bracket=opener.val, opened=opener.col + 1,
                  detail=self.describe(t), column=t.col + 1)

    @staticmethod
    def describe(t: Tok) -> str:
        if t.kind == "end":
            return "the end of the answer"
        if t.kind == "cmd":
            return f"'\\{t.val}'"
        return f"'{t.val}'"

    def enter(self, col: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise err("The answer is nested too deeply (more than %(limit)s levels) at column %(column)s.", col,
                      limit=MAX_DEPTH, column=col + 1)

    def unexpected(self, t: Tok):
        if t.kind == "op" and t.val in CLOSERS:
            return err("Unbalanced brackets: '%(bracket)s' at column %(column)s has no matching opening bracket.",
                       t.col, bracket=t.val, column=t.col + 1)
        if t.kind == "op" and t.val == ",":
            return err("Unexpected ',' at column %(column)s (commas only separate function arguments).", t.col,
                       column=t.col + 1)
        if t.kind == "num":
            return err("Unexpected number at column %(column)s; write '*' before a number you multiply by.", t.col,
                       column=t.col + 1)
        return err("Unexpected %(found)s at column %(column)s.", t.col, found=self.describe(t), column=t.col + 1)

    def trailing(self, op: Tok):
        return err("The answer ends with the operator '%(operator)s' (column %(column)s); something is missing "
                   "after it.", op.col, operator=op.val, column=op.col + 1)

    def trailing_raise(self, op: Tok):
        raise self.trailing(op)
