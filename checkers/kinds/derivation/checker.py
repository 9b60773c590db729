"""derivation: reasoning by equivalence over a list of lines (cf. STACK).

Each line is an expression, an equation ``lhs = rhs``, or a continuation ``= expr`` (a leading ``=``
continues the previous line: after an expression ``E`` it asserts ``E = expr``; after an equation
``L = R`` it asserts ``R = expr`` and the running equation becomes ``L = expr``).

The chain is in one of two modes. In **expression mode** it is a run of equivalent expressions (it
has shown ``first = newest``); in **equation mode** it carries a running equation (not an identity).
A line must follow from the running statement:

* **expression after expression / continuation**: the two expressions are equivalent under the
  declared assumptions (the layered checker of :mod:`checkers.equivalence`).
* **continuation in equation mode**: the new right-hand side is equivalent to the old one.
* **equation line** ``L = R`` is accepted when one of these holds:
  1. in expression mode, it is an *identity* under the assumptions (L ≡ R) *that continues the running
     expression* (one side is equivalent to it), e.g. ``f(log(q/p)) = q/p - log(q/p) - 1``; the chain
     stays in expression mode. An identity that does not continue the expression is an error, and in
     equation mode an identity (``0 = 0``, ``x = x``) never follows: it says nothing about the equation;
  2. it is *equivalent to the running equation*: solving that equation numerically for one variable
     at random values of the others (bracketing + bisection over the variable's domain, a bounded
     number of points), every root also satisfies the new equation, and vice versa — e.g. from
     ``pi_star = pi_ref exp(r/beta)/Z`` to ``r = beta log(pi_star/pi_ref) + beta log Z``. If only the
     forward direction holds the step is accepted as an implication (noted in the step's feedback);
  3. it *sets the derivative to zero*: it is equivalent, as an equation, to ``∂E/∂v = 0`` for an
     earlier expression ``E`` and a variable ``v`` (the Gao peak: from ``d(alpha - beta d)`` to
     ``alpha - 2 beta d = 0``).
  Cases 2 and 3 never accept an identity, and switch the chain to equation mode.
* **expression after an equation**: equivalent to its right-hand side (or its left-hand side); a side
  calculation in expression mode (the running equation is remembered).

The first line must match ``start``: an equivalent expression or an identity with the start as one
side; for an equation start, the start equation itself (each side equivalent, either way round).
The final statement must match ``goal``: an expression goal, the final expression (or right-hand
side); an equation goal, the final equation must *be* the goal — equivalent as an equation and each
side equivalent to the goal's side, either way round. Same solutions alone is not enough: the start
equation usually has the goal's solutions already (``alpha - 2 beta d = 0`` vs ``d = alpha/(2 beta)``).

Time: one budget for parsing, the steps, the goal and the known mistakes; each step gets what is left
and is interrupted at the deadline in sandbox workers, so running out is ``undecided`` naming the line.
A known wrong step (a ``line`` mistake) gives its feedback when it is the first failing line.
``details = {"steps": [{"index", "status", "feedback"}], "first_error": index | None}``.

One module per job: :mod:`.lines` (reading the lines and the authored start and goal), :mod:`.equations`
(equations compared by their solutions), :mod:`.steps` (one step against the running statement),
:mod:`.chain` (the verdict on the whole chain), :mod:`.mistakes` (known mistakes), :mod:`.grade` (one
answer within one budget, in the sandbox); :mod:`.form`, :mod:`.keysteps` and :mod:`.shown` as before.
This module is the kind itself, registered by name; every public name stays importable from it.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...limits import DERIVATION_BUDGET as TOTAL_BUDGET  # noqa: F401  (the kind's public name for its budget)
from ...limits import GRADE_TIMEOUT as DEFAULT_TIMEOUT  # noqa: F401  (the kind's public name for its hard limit)
from ...limits import MAX_GRADED_LINES as MAX_LINES
from ...limits import MISTAKE_RESERVE  # noqa: F401  (public here since the kind was one module)
from ...params import substitute
from ...verdict import AnswerParseError, AnswerShapeError, Interpretation, Message, SpecError, Verdict, msg
from .. import _common as c
from .. import shape
from ..base import GRADE_TIMEOUT, Examples, Kind, invalid_verdict, register_kind
from ..maths_spec import (PUBLIC_NAMES_SCHEMA, maths_syntax_help, public_names, spec_parse_check, validate_common,
                          warm_parser)
from ..sandboxed import grade_sandboxed
from . import keysteps as KS
from . import shown
from .chain import check_chain  # noqa: F401  (public here since the kind was one module)
from .equations import EQ_POINTS, GRID, equations_equivalent, implies  # noqa: F401  (likewise)
from .grade import grade_lines, soft_budget
from .lines import Line, parse_lines
from .steps import StepResult  # noqa: F401  (likewise)


def _refuse(raw: Any) -> Verdict | None:
    """Refuse, in the calling process, answers that are not text or a list of text lines."""
    if isinstance(raw, str):
        return None
    if not isinstance(raw, (list, tuple)) or not raw:
        return invalid_verdict(AnswerParseError("Enter the derivation as one or more lines.", None))
    if len(raw) > MAX_LINES:
        return invalid_verdict(AnswerParseError("At most %(limit)s lines.", None, limit=MAX_LINES))
    for i, line in enumerate(raw):
        if not isinstance(line, str):
            return invalid_verdict(AnswerParseError("Line %(line)s is not text.", None, field=f"answer[{i}]",
                                                    line=i + 1))
    return None


class DerivationChecker(Kind):
    name = "derivation"
    spec_keys = frozenset({"variables", "functions", "start", "goal", "reference", "key_steps"})
    assets = ("kind.js",)
    answer_form = "verbatim"  # lines of working, shown as typed
    answer_schema = {"type": ["string", "array"], "items": {"type": "string"},
                     "description": "a list of lines (or one text of lines)"}
    public_schema = {**PUBLIC_NAMES_SCHEMA, "start": {}, "goal": {}}

    def placeholder(self, part: Mapping[str, Any]) -> Message:
        return msg("One step per line, each following from the line before")

    def syntax_help(self, part: Mapping[str, Any]) -> Message:
        return maths_syntax_help(part)

    def page(self, part: Mapping[str, Any], render) -> dict[str, Any]:
        """The start and the goal as one line each (several equal forms joined by =)."""
        return {key: " = ".join(str(x) for x in part[key]) for key in ("start", "goal")
                if isinstance(part.get(key), list)}

    def read_back(self, details: Mapping[str, Any]) -> dict[str, Any]:
        """Each line's verdict and the first line that does not follow, beside the part's verdict."""
        if "steps" not in details:
            return {}
        return {"steps": details["steps"], "first_error": details.get("first_error")}

    def warm(self) -> None:
        warm_parser()

    def accept(self, value: Any, field: str) -> Any:
        """A list of lines, or one text that is split into its non-blank lines."""
        if isinstance(value, str):
            value = [line for line in shape.text(value, field, shape.MAX_LONG_TEXT).splitlines() if line.strip()]
        if not isinstance(value, list):
            raise AnswerShapeError(f"must be a list of strings (one per line), got {shape.type_name(value)}",
                                   field)
        if len(value) > shape.MAX_LINES:
            raise AnswerShapeError(f"more than {shape.MAX_LINES} lines", field)
        return [shape.text(v, f"{field}[{i}]") for i, v in enumerate(value)]

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        out = public_names(part)
        out["start"] = fill(part.get("start"))
        out["goal"] = fill(part.get("goal"))
        return out

    def grade_answer(self, raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any], *,
                     timeout: float | None = None) -> Verdict:
        """Parse *and* grade inside the sandbox pool under a hard wall-clock limit; the steps share one
        soft budget (each gets what is left) and running out names the step reached."""
        refused = _refuse(raw)
        if refused is not None:
            return refused
        # exact str / list objects: nothing of the caller's types travels to the worker
        raw = str.__str__(raw) if isinstance(raw, str) else [str.__str__(line) for line in raw]
        limit = timeout or GRADE_TIMEOUT
        return grade_sandboxed(grade_lines, raw, spec, params, soft_budget(limit), limit)

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        validate_common(spec)
        for key in ("start", "goal"):
            spec_parse_check(spec.get(key), spec, key, allow_relation=True)
        ref = spec.get("reference")
        if ref is not None and (not isinstance(ref, list) or not all(isinstance(x, str) for x in ref)):
            raise SpecError("reference: must be a list of lines")
        c.validate_mistakes(spec, ("answer", "line"))
        KS.validate(spec)

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> list[Line]:
        return parse_lines(raw, spec)

    def interpret(self, parsed: list[Line], spec: Mapping[str, Any]) -> Interpretation:
        return shown.interpretation(parsed, spec)

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        return {"start": substitute(str(spec["start"]), params), "goal": substitute(str(spec["goal"]), params),
                "reference": substitute(list(spec.get("reference") or []), params)}

    def grade(self, parsed: list[Line], spec: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None) -> Verdict:
        """Parsed lines are graded by their text, on the sandboxed path like any other answer."""
        return self.grade_answer([ln.text for ln in parsed], spec, params, timeout=timeout)

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        ex = Examples()
        if spec.get("reference"):
            ex.correct.append(substitute(list(spec["reference"]), params))
        start = substitute(str(spec["start"]), params)
        goal = substitute(str(spec["goal"]), params)
        # no step of its own: the start, the goal, or the start then the goal score 0
        ex.incorrect += [([start], None), ([goal], None), ([start, goal], None)]
        ex.incorrect.append(([start, "= 0"], None))
        ex.incorrect.append(([start, "0 = 0"], None))   # a vacuous identity never follows
        for m in spec.get("mistakes") or []:
            if "answer" in m:
                ex.incorrect.append((substitute(list(m["answer"]), params), m["note"]))
            elif "line" in m:  # the known wrong step right after the start: the first failing step
                ex.incorrect.append(([start, substitute(str(m["line"]), params)], m["note"]))
        ex.invalid += [[], ["("], ["= 1"]]
        return ex


register_kind(DerivationChecker())
