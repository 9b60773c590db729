"""LaTeX structures: ``\\frac``-style fractions, ``\\sqrt[n]{x}``, macro arguments read as TeX reads
them (``x^23`` is ``x^2*3``), and word commands (``\\operatorname{f}``, ``\\mathrm{ref}``) read as names.
"""

from __future__ import annotations

from typing import Any

from ..lexer import LATEX_GREEK, Tok, err
from .cursor import TokenCursor
from .vocabulary import OPEN, unknown_name


class LatexRules(TokenCursor):
    """LaTeX commands; ``sum``, ``atom``, ``name_atom`` and ``text_arg`` come from the sibling rule classes."""

    def tex_arg(self) -> Any:
        """A TeX macro argument: a braced group, or a single character / command."""
        t = self.tok
        if t.kind == "op" and t.val in OPEN:
            return self.atom()
        if t.kind == "num" and self.latex and len(t.val) > 1:
            self.toks[self.i:self.i + 1] = [Tok("num", t.val[0], t.col), Tok("num", t.val[1:], t.col + 1)]
        elif t.kind == "name" and self.latex and len(t.val) > 1 and self.ctx.classify(t.val) is None \
                and self.typed(t) and not self.toks[self.i + 1].val == "_":
            self.toks[self.i:self.i + 1] = [Tok("name", t.val[0], t.col), Tok("name", t.val[1:], t.col + 1)]
        return self.atom()

    # -- LaTeX structures ------------------------------------------------------------------------
    def command(self) -> Any:
        t = self.advance()
        name = t.val
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            self.enter(t.col)
            num = self.tex_arg_required(t)
            den = self.tex_arg_required(t)
            self.depth -= 1
            return ("prod", [(num, False), (den, True)])
        if name == "sqrt":
            self.enter(t.col)
            index = None
            if self.latex and self.is_op("["):
                opener = self.advance()
                index = self.sum()
                self.expect_close(opener)
            arg = self.tex_arg_required(t)
            self.depth -= 1
            if index is None:
                return ("call", "sqrt", [arg], t.col)
            return ("pow", arg, ("prod", [(("num", "1", t.col), False), (index, True)]), t.col)
        # \operatorname{f}, \mathrm{ref}, \text{...}: a word, then treated like a typed name.
        word = self.text_arg(t)
        if word in LATEX_GREEK:
            word = LATEX_GREEK[word]
        self.toks.insert(self.i, Tok("name", word, t.col))
        if self.ctx.classify(word) is None and "_" in word:
            name = self.lookup(word)
            if name is None:
                raise unknown_name(word, t.col, self.ctx)
            self.advance()
            return ("var", name)
        return self.name_atom()

    def tex_arg_required(self, cmd: Tok) -> Any:
        t = self.tok
        if t.kind == "end" or (t.kind == "op" and t.val not in OPEN and t.val != "|"):
            raise err("\\%(command)s is missing an argument (column %(column)s).", cmd.col, command=cmd.val,
                      column=cmd.col + 1)
        return self.tex_arg()
