"""Recursive-descent parser: tokens -> a small resolved AST of tuples (no eval, no sympify).

One module per job: :mod:`.vocabulary` (what a word or bracket means: the function allow-list,
aliases, constants, the declared names of a question), :mod:`.cursor` (the walk over the tokens and
the depth bound), :mod:`.grammar` (operators and precedence; the grammar and the AST nodes are
documented there), :mod:`.names` (variables, subscripts, splitting typed words), :mod:`.latex` (TeX
structures) and :mod:`.calls` (function calls). Tokens come from :mod:`..lexer`, the size bounds from
:mod:`..limits`, and :mod:`..build` turns the AST into sympy objects or floats.
"""

from __future__ import annotations

from typing import Any

from .calls import CallRules
from .grammar import GrammarRules
from .latex import LatexRules
from .names import NameRules
from .vocabulary import (ALIASES, BUILTINS, CONSTANTS, INVERTIBLE, RELOPS, RESERVED, SIGMA_NAME, SOFT_FUNCTIONS,
                         Context, unknown_name)


class Parser(GrammarRules, NameRules, LatexRules, CallRules):
    """One answer's parse: the grammar's rules over a :class:`~.cursor.TokenCursor`."""


def parse_ast(text: str, ctx: Context, allow_relation: bool = False) -> Any:
    return Parser(text, ctx).parse(allow_relation)


__all__ = ["ALIASES", "BUILTINS", "CONSTANTS", "INVERTIBLE", "RELOPS", "RESERVED", "SIGMA_NAME", "SOFT_FUNCTIONS",
           "Context", "Parser", "parse_ast", "unknown_name"]
