"""Function calls: allow-listed functions (with their argument counts), the question's own functions
(each use counted against ``MAX_FUNCTION_EXPANSIONS``), ``log_b x``, ``\\log^2 x`` and arguments
written without brackets (``ln 2x`` is ``ln(2x)``).
"""

from __future__ import annotations

from typing import Any

from ..lexer import Tok, err
from ..limits import MAX_ARGS, MAX_FUNCTION_EXPANSIONS
from .cursor import TokenCursor
from .vocabulary import BUILTINS, INVERTIBLE


class CallRules(TokenCursor):
    """Calls; ``sum``, ``atom``, ``power``, ``exponent`` and ``tex_arg`` come from the sibling rule classes."""

    # -- calls ---------------------------------------------------------------------------------
    def call(self, fname: str, t: Tok, base_sub: bool = False) -> Any:
        user = fname in self.ctx.functions
        args_prefix: list[Any] = []
        if base_sub:
            us = self.advance()  # the "_"
            self.enter(us.col)
            base = self.tex_arg() if self.tok.kind != "end" else self.trailing_raise(us)
            self.depth -= 1
            args_prefix = [base]
        power = None
        if self.is_op("^"):  # \log^2 x means (log x)^2, as in TeX
            caret = self.advance()
            self.enter(caret.col)
            power = (self.exponent(caret), caret.col)
            self.depth -= 1
            p = power[0]
            if fname in INVERTIBLE and p[0] == "neg" and p[1][0] == "num" and p[1][1] == "1":
                raise err("%(written)s^(-1) at column %(column)s is ambiguous: write a%(function)s(x) for the inverse "
                          "function or 1/%(function)s(x) for the reciprocal.", t.col, written=t.val, column=t.col + 1,
                          function=fname)
        self.enter(t.col)
        nxt = self.tok
        if nxt.kind == "op" and nxt.val in "([":
            opener = self.advance()
            args = [self.sum()]
            while self.is_op(","):
                self.advance()
                args.append(self.sum())
                if len(args) > MAX_ARGS:
                    raise err("Too many arguments for %(function)s (at most %(limit)s).", t.col, function=fname,
                              limit=MAX_ARGS)
            self.expect_close(opener)
        elif nxt.kind == "op" and nxt.val == "{":
            args = [self.atom()]
        elif self.starts_factor(nxt) and nxt.kind != "op" or (nxt.kind == "op" and nxt.val == "|"):
            # ln x, \log \frac{a}{b}, beta log r: the argument is the run of implicitly multiplied
            # factors up to the next operator or function name (ln 2x == ln(2x), log x / y == log(x)/y).
            items = [(self.power(), False)]
            while self.starts_factor(self.tok) and self.tok.kind != "num" and not self.is_function_word(self.tok):
                items.append((self.power(), False))
            args = [items[0][0] if len(items) == 1 else ("prod", items)]
        else:
            if nxt.kind == "end":
                raise err("The function %(function)s at column %(column)s needs an argument.", t.col,
                          function=t.val, column=t.col + 1)
            raise err("The function %(function)s at column %(column)s needs an argument in brackets, e.g. "
                      "%(function)s(x).", t.col, function=t.val, column=t.col + 1)
        self.depth -= 1
        if base_sub:
            if len(args) != 1:
                raise err("log with a subscript base takes one argument (column %(column)s).", t.col,
                          column=t.col + 1)
            args = args + args_prefix
        if user:
            params = self.ctx.functions[fname][0]
            lo = hi = len(params)
        else:
            lo, hi = BUILTINS[fname]
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise err("%(function)s takes %(want)s argument(s), got %(got)s (column %(column)s).", t.col,
                      function=t.val, want=want, got=len(args), column=t.col + 1)
        if power is not None:
            node = self._finish_call(fname, args, t, user)
            return ("pow", node, power[0], power[1])
        return self._finish_call(fname, args, t, user)

    def _finish_call(self, fname: str, args: list[Any], t: Tok, user: bool) -> Any:
        if user:
            self.ctx.expansions += 1
            if self.ctx.expansions > MAX_FUNCTION_EXPANSIONS:
                raise err("Too many uses of %(function)s (at most %(limit)s).", t.col, function=fname,
                          limit=MAX_FUNCTION_EXPANSIONS)
            return ("ucall", fname, args, t.col)
        return ("call", fname, args, t.col)

    def is_function_word(self, t: Tok) -> bool:
        return t.kind == "name" and self.ctx.classify(t.val) in ("func", "ufunc")
