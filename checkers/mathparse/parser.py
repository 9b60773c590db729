"""Recursive-descent parser: tokens -> a small resolved AST of tuples.

The AST only ever contains allow-listed node kinds, resolved names and literal text of numbers; the
backends (:mod:`.build`) turn it into sympy objects or floats.  Names are resolved here, against the
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

import difflib
from typing import Any

from .lexer import LATEX_GREEK, Tok, err, tokenize
from .limits import MAX_ARGS, MAX_DEPTH, MAX_FUNCTION_EXPANSIONS

_TRIG = ("sin", "cos", "tan", "sec", "csc", "cot")
_HYPERBOLIC = ("sinh", "cosh", "tanh", "sech", "csch", "coth")
#: Functions whose ``f^{-1}`` a reader may take for the inverse function: refused with a hint.
INVERTIBLE = frozenset(_TRIG + _HYPERBOLIC)
#: Allow-listed functions: canonical name -> (min args, max args).  Every elementary function sympy
#: knows, plus the RLHF staples; ``gamma`` is Euler's gamma function (see SOFT_FUNCTIONS).
BUILTINS: dict[str, tuple[int, int]] = {
    "exp": (1, 1), "log": (1, 2), "sqrt": (1, 1), "abs": (1, 1), "min": (1, MAX_ARGS),
    "max": (1, MAX_ARGS), "sigmoid": (1, 1), "logsigmoid": (1, 1), "softplus": (1, 1),
    "clip": (3, 3), "log2": (1, 1), "log10": (1, 1), "cbrt": (1, 1), "root": (2, 2),
    "atan2": (2, 2), "sign": (1, 1), "floor": (1, 1), "ceil": (1, 1), "erf": (1, 1), "erfc": (1, 1),
    "gamma": (1, 1),
    **{f: (1, 1) for f in _TRIG + _HYPERBOLIC},
    **{"a" + f: (1, 1) for f in _TRIG + _HYPERBOLIC},
}
#: Other spellings of allow-listed functions (``Abs``/``Min``/``Max``/``ceiling`` are how sympy
#: prints them; ``arcsin`` and ``arsinh``/``arcsinh`` are the textbook names of ``asin``/``asinh``).
ALIASES = {"ln": "log", "Abs": "abs", "Min": "min", "Max": "max", "lg": "log10", "σ": "sigmoid",
           "ceiling": "ceil", "sgn": "sign", "cosec": "csc",
           **{"arc" + f: "a" + f for f in _TRIG + _HYPERBOLIC},
           **{"ar" + f: "a" + f for f in _HYPERBOLIC}}
#: Names that are a function only while the question declares no variable of that name: ``sigma``
#: (the sigmoid) and ``gamma``/``Gamma`` (Euler's gamma; RL questions use gamma as the discount).
SOFT_FUNCTIONS = {"sigma": "sigmoid", "gamma": "gamma", "Gamma": "gamma"}
SIGMA_NAME = "sigma"
RESERVED = (set(BUILTINS) | set(ALIASES)) - set(SOFT_FUNCTIONS)
CONSTANTS = {"e": "E", "E": "E", "pi": "pi"}
RELOPS = {"=", "<", ">", "<=", ">=", "!="}
_OPEN = {"(": ")", "[": "]", "{": "}", "⌊": "⌋", "⌈": "⌉"}
#: Floor and ceiling brackets (``\\lfloor x \\rfloor``, ``⌈x⌉``): the bracket is the function call.
_ROUNDING = {"⌊": "floor", "⌈": "ceil"}
_CLOSERS = ")]}⌋⌉"


class Context:
    """Names a parse may use.  ``variables``: canonical name -> anything; ``functions``: name ->
    (arg names, body AST)."""

    __slots__ = ("variables", "functions", "exact", "known_words", "expansions")

    def __init__(self, variables: dict[str, Any], functions: dict[str, tuple[list[str], Any]],
                 exact: bool = False):
        self.variables = variables
        self.functions = functions
        self.exact = exact
        self.expansions = 0
        words = {v for v in variables if "_" not in v}
        words |= {c for c in CONSTANTS if c not in variables}
        words |= RESERVED | set(functions)
        words |= {w for w in SOFT_FUNCTIONS if w not in variables}
        self.known_words = words

    def classify(self, word: str) -> str | None:
        if word in self.variables:
            return "var"
        if word in self.functions:
            return "ufunc"
        if word in BUILTINS or word in ALIASES or word in SOFT_FUNCTIONS:
            return "func"
        if word in CONSTANTS:
            return "const"
        return None

    def candidates(self) -> list[str]:
        return sorted(set(self.variables) | set(self.functions) | set(BUILTINS) | {"ln", "e", "pi"})


def _suggest(name: str, ctx: Context) -> str:
    close = difflib.get_close_matches(name, ctx.candidates(), n=1, cutoff=0.6)
    return close[0] if close else ""


def unknown_name(name: str, col: int, ctx: Context):
    hint = _suggest(name, ctx)
    declared = ", ".join(sorted(ctx.variables)) or "none"
    if hint:
        return err("Unknown name '%(name)s' at column %(column)s. Did you mean '%(hint)s'? Variables you may "
                   "use: %(declared)s.", col, name=name, column=col + 1, hint=hint, declared=declared)
    return err("Unknown name '%(name)s' at column %(column)s. Variables you may use: %(declared)s.", col,
               name=name, column=col + 1, declared=declared)


def _split_word(word: str, known: set[str]) -> list[str] | None:
    """Split an undeclared run of letters into known names (``xy`` -> x, y), fewest pieces first."""
    n = len(word)
    if n > 64:
        return None
    maxlen = max((len(k) for k in known), default=0)
    best: list[list[str] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        if best[i] is None:
            continue
        for j in range(i + 1, min(n, i + maxlen) + 1):
            piece = word[i:j]
            if piece in known:
                cand = best[i] + [piece]
                if best[j] is None or len(cand) < len(best[j]):
                    best[j] = cand
    return best[n]


class Parser:
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
        want = _OPEN[opener.val]
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

    # -- grammar -----------------------------------------------------------------------------
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

    def unexpected(self, t: Tok):
        if t.kind == "op" and t.val in _CLOSERS:
            return err("Unbalanced brackets: '%(bracket)s' at column %(column)s has no matching opening bracket.",
                       t.col, bracket=t.val, column=t.col + 1)
        if t.kind == "op" and t.val == ",":
            return err("Unexpected ',' at column %(column)s (commas only separate function arguments).", t.col,
                       column=t.col + 1)
        if t.kind == "num":
            return err("Unexpected number at column %(column)s; write '*' before a number you multiply by.", t.col,
                       column=t.col + 1)
        return err("Unexpected %(found)s at column %(column)s.", t.col, found=self.describe(t), column=t.col + 1)

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
            if t.val in _OPEN:
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
        if self.latex and not (t.kind == "op" and t.val in _OPEN):
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

    def trailing(self, op: Tok):
        return err("The answer ends with the operator '%(operator)s' (column %(column)s); something is missing "
                   "after it.", op.col, operator=op.val, column=op.col + 1)

    def tex_arg(self) -> Any:
        """A TeX macro argument: a braced group, or a single character / command."""
        t = self.tok
        if t.kind == "op" and t.val in _OPEN:
            return self.atom()
        if t.kind == "num" and self.latex and len(t.val) > 1:
            self.toks[self.i:self.i + 1] = [Tok("num", t.val[0], t.col), Tok("num", t.val[1:], t.col + 1)]
        elif t.kind == "name" and self.latex and len(t.val) > 1 and self.ctx.classify(t.val) is None \
                and self.typed(t) and not self.toks[self.i + 1].val == "_":
            self.toks[self.i:self.i + 1] = [Tok("name", t.val[0], t.col), Tok("name", t.val[1:], t.col + 1)]
        return self.atom()

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
            if t.val in _OPEN:
                self.advance()
                inner = self.sum()
                self.expect_close(t)
                if t.val in _ROUNDING:
                    return ("call", _ROUNDING[t.val], [inner], t.col)
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
            if t.val in _CLOSERS:
                prev = self.toks[self.i - 1] if self.i > 0 else None
                if prev is not None and prev.kind == "op" and prev.val in _OPEN:
                    raise err("Empty brackets at column %(column)s.", prev.col, column=prev.col + 1)
                raise self.unexpected(t)
        if t.kind == "end":
            prev = self.toks[self.i - 1] if self.i > 0 else None
            if prev is not None and prev.kind == "op" and prev.val not in _CLOSERS + "|":
                raise self.trailing(prev)
            raise err("The answer ends unexpectedly; something is missing.", t.col)
        raise err("Expected a number, a variable or '(' at column %(column)s, found %(found)s.", t.col,
                  column=t.col + 1, found=self.describe(t))

    # -- names ---------------------------------------------------------------------------------
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
            pieces = _split_word(word, ctx.known_words) if self.typed(t) else None
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

    def subscript(self, us: Tok) -> str:
        t = self.tok
        if t.kind in ("name", "num"):
            self.advance()
            return t.val
        if t.kind == "cmd" and t.val in ("text", "mathrm", "textrm", "mathit", "rm", "operatorname", "textit"):
            self.advance()
            return self.text_arg(t)
        if t.kind == "op" and t.val == "{":
            self.advance()
            parts: list[str] = []
            while True:
                u = self.tok
                if u.kind in ("name", "num"):
                    self.advance()
                    parts.append(u.val)
                elif u.kind == "cmd" and u.val in ("text", "mathrm", "textrm", "mathit", "rm",
                                                   "operatorname", "textit"):
                    self.advance()
                    parts.append(self.text_arg(u))
                elif u.kind == "op" and u.val == "_" and parts:
                    self.advance()
                    parts[-1] = parts[-1] + "_" + self.subscript(u)
                elif u.kind == "op" and u.val == "}":
                    self.advance()
                    break
                elif u.kind == "end":
                    raise err("Unbalanced brackets: '%(bracket)s' at column %(column)s is never closed.", t.col,
                              bracket="{", column=t.col + 1)
                else:
                    raise err("A subscript may only contain letters and digits (column %(column)s).", u.col,
                              column=u.col + 1)
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
        parts: list[str] = []
        while True:
            u = self.tok
            if u.kind in ("name", "num"):
                self.advance()
                parts.append(u.val)
            elif u.kind == "op" and u.val == "_" and parts:
                self.advance()
                parts.append("_")
            elif u.kind == "op" and u.val == "}":
                self.advance()
                break
            elif u.kind == "end":
                raise err("Unbalanced brackets after \\%(command)s (column %(column)s).", cmd.col, command=cmd.val,
                          column=cmd.col + 1)
            else:
                raise err("\\%(command)s{...} may only contain letters and digits (column %(column)s).", u.col,
                          command=cmd.val, column=u.col + 1)
        word = "".join(parts)
        if not word:
            raise err("Empty \\%(command)s{} at column %(column)s.", cmd.col, command=cmd.val, column=cmd.col + 1)
        return word

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
        if t.kind == "end" or (t.kind == "op" and t.val not in _OPEN and t.val != "|"):
            raise err("\\%(command)s is missing an argument (column %(column)s).", cmd.col, command=cmd.val,
                      column=cmd.col + 1)
        return self.tex_arg()

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

    def trailing_raise(self, op: Tok):
        raise self.trailing(op)

    def is_function_word(self, t: Tok) -> bool:
        return t.kind == "name" and self.ctx.classify(t.val) in ("func", "ufunc")


def parse_ast(text: str, ctx: Context, allow_relation: bool = False) -> Any:
    return Parser(text, ctx).parse(allow_relation)
