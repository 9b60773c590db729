"""Names in an answer: variables (with subscripts and a probability's conditioning annotation),
constants, function names, and undeclared runs of letters split into known names.

A subscript or ``\\text{...}`` argument may only hold letters, digits and ``_``; sympy's LaTeX
spelling ``x_{1}`` of the symbol ``x1`` is accepted for such names.
"""

from __future__ import annotations

from typing import Any, Callable

from ..lexer import Tok, err
from .cursor import TokenCursor
from .vocabulary import CONSTANTS, ALIASES, SOFT_FUNCTIONS, split_word, unknown_name

#: LaTeX commands whose braced argument is a word (``\\text{ref}``, ``\\operatorname{softplus}``).
TEXT_COMMANDS = ("text", "mathrm", "textrm", "mathit", "rm", "operatorname", "textit")


class NameRules(TokenCursor):
    """Reading names; ``call`` and ``atom`` come from the sibling rule classes."""

    def name_atom(self) -> Any:
        t = self.tok
        word = t.val
        ctx = self.ctx
        followed_by_sub = self.toks[self.i + 1].kind == "op" and self.toks[self.i + 1].val == "_"
        kind = ctx.classify(word)
        if followed_by_sub and kind in ("func",) and word in ("log", "ln", "lg"):
            self.advance()
            return self.call("log", t, base_sub=True)
        if followed_by_sub:
            self.advance()
            full = word
            while self.is_op("_"):
                us = self.advance()
                full = full + "_" + self.subscript(us)
            name = self.lookup(full)
            if name is None:
                raise unknown_name(full, t.col, ctx)
            return self.conditioned(("var", name))
        if kind is None:
            pieces = split_word(word, ctx.known_words) if self.typed(t) else None
            if not pieces or len(pieces) < 2:
                raise unknown_name(word, t.col, ctx)
            new, col = [], t.col
            for p in pieces:
                new.append(Tok("name", p, col))
                col += len(p)
            self.toks[self.i:self.i + 1] = new
            return self.name_atom()
        self.advance()
        if kind == "var":
            return self.conditioned(("var", word))
        if kind == "const":
            return ("const", CONSTANTS[word])
        if kind == "ufunc":
            return self.call(word, t)
        return self.call(ALIASES.get(word, SOFT_FUNCTIONS.get(word, word)), t)

    #: Tokens allowed inside a conditioning annotation such as ``(y|x)`` or ``(y_w \\mid x)``.
    _COND_OPS = {"_", "|", ",", "{", "}"}

    def conditioned(self, node: Any) -> Any:
        """Skip a probability's conditioning annotation right after a variable: ``pi_theta(y|x)`` is the
        variable ``pi_theta`` (the tutorial's notation). Only a bracket holding names with exactly one
        top-level ``|`` qualifies, so no valid product or absolute value is ever swallowed."""
        toks, i = self.toks, self.i
        if not (toks[i].kind == "op" and toks[i].val == "("):
            return node
        j, bars, names = i + 1, 0, 0
        while j < len(toks):
            t = toks[j]
            if t.kind == "op" and t.val == ")":
                break
            if t.kind == "name" or t.kind == "num":
                names += 1
            elif t.kind == "op" and t.val in self._COND_OPS:
                bars += t.val == "|"
            else:
                return node
            j += 1
        else:
            return node
        if bars != 1 or names < 2 or j >= len(toks):
            return node
        self.i = j + 1
        return node

    def typed(self, t: Tok) -> bool:
        """True for a run of ASCII letters typed as such (not ``\\beta`` / ``β``): only those are split."""
        return self.text.startswith(t.val, t.col)

    def lookup(self, full: str) -> str | None:
        if full in self.ctx.variables:
            return full
        # sympy's LaTeX printer writes the symbol x1 as x_{1}: accept digit subscripts for such names.
        parts = full.split("_")
        joined = parts[0]
        for p in parts[1:]:
            joined += p if p.isdigit() else "_" + p
        return joined if joined in self.ctx.variables else None

    def braced_words(self, extra: Callable[[Tok, list[str]], bool], unclosed: Callable[[], Exception],
                     stray: Callable[[Tok], Exception]) -> list[str]:
        """The pieces of a braced group up to its ``}`` (the ``{`` already read): names and digits, and
        whatever ``extra(token, pieces)`` takes (it advances and records it, or answers False);
        ``unclosed()`` / ``stray(token)`` build the errors for a missing ``}`` and any other token."""
        parts: list[str] = []
        while True:
            u = self.tok
            if u.kind in ("name", "num"):
                self.advance()
                parts.append(u.val)
            elif u.kind == "op" and u.val == "}":
                self.advance()
                return parts
            elif u.kind == "end":
                raise unclosed()
            elif not extra(u, parts):
                raise stray(u)

    def subscript(self, us: Tok) -> str:
        t = self.tok
        if t.kind in ("name", "num"):
            self.advance()
            return t.val
        if t.kind == "cmd" and t.val in TEXT_COMMANDS:
            self.advance()
            return self.text_arg(t)
        if t.kind == "op" and t.val == "{":
            self.advance()

            def extra(u: Tok, parts: list[str]) -> bool:
                if u.kind == "cmd" and u.val in TEXT_COMMANDS:
                    self.advance()
                    parts.append(self.text_arg(u))
                    return True
                if u.kind == "op" and u.val == "_" and parts:
                    self.advance()
                    parts[-1] = parts[-1] + "_" + self.subscript(u)
                    return True
                return False

            parts = self.braced_words(
                extra,
                lambda: err("Unbalanced brackets: '%(bracket)s' at column %(column)s is never closed.", t.col,
                            bracket="{", column=t.col + 1),
                lambda u: err("A subscript may only contain letters and digits (column %(column)s).", u.col,
                              column=u.col + 1))
            if not parts:
                raise err("Empty subscript at column %(column)s.", us.col, column=us.col + 1)
            return "_".join(parts)
        if t.kind == "end":
            raise self.trailing(us)
        raise err("A subscript may only contain letters and digits (column %(column)s).", t.col, column=t.col + 1)

    def text_arg(self, cmd: Tok) -> str:
        """``\\text{ref}`` / ``\\operatorname{softplus}``: the letters inside, as one word."""
        if not self.is_op("{"):
            raise err("\\%(command)s needs a braced argument (column %(column)s).", cmd.col, command=cmd.val,
                      column=cmd.col + 1)
        self.advance()

        def extra(u: Tok, parts: list[str]) -> bool:
            if u.kind == "op" and u.val == "_" and parts:
                self.advance()
                parts.append("_")
                return True
            return False

        word = "".join(self.braced_words(
            extra,
            lambda: err("Unbalanced brackets after \\%(command)s (column %(column)s).", cmd.col, command=cmd.val,
                        column=cmd.col + 1),
            lambda u: err("\\%(command)s{...} may only contain letters and digits (column %(column)s).", u.col,
                          command=cmd.val, column=u.col + 1)))
        if not word:
            raise err("Empty \\%(command)s{} at column %(column)s.", cmd.col, command=cmd.val, column=cmd.col + 1)
        return word
