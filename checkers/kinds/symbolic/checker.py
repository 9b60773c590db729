"""symbolic: an expression compared with the expected one by :mod:`checkers.equivalence`.

Grading runs in the sandbox pool (hard wall-clock limit) unless it is already inside a worker.
``undecided`` (no decision in time, or the layers disagree) and ``invalid`` cost no attempt and say why.
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import budget as work
from ... import mathparse
from ...equivalence import (MODES, EquivalenceResult, check_equivalence, check_within_tolerance, evaluate,
                           precise_gap, sample_points)
from ...limits import EQUIV_BUDGET
from ...mathparse import parse_math
from ...mathparse.spoken import speak_mathml  # the solution's formula, read aloud
from ...mathparse.symbols import canonical_name
from ...mathparse.typed import typed_forms
from ...params import substitute_text
from ...i18n import N_
from ...verdict import AnswerParseError, Interpretation, Message, SpecError, Verdict, msg
from .. import _common as c
from .. import shape
from ..base import GRADE_TIMEOUT, Examples, Kind, invalid_verdict, register_kind
from ..maths_spec import (PUBLIC_NAMES_SCHEMA, maths_syntax_help, names_of, parse_spec_expr, public_names,
                          spec_parse_check, validate_common, warm_parser)
from ..sandboxed import grade_sandboxed
from ..sandboxed import run_guarded  # noqa: F401  (still importable from checkers.kinds.symbolic)

_NOT_FOLLOW = ("incorrect", "not_equal")


def interpretation(parsed, spec: Mapping[str, Any] | None = None) -> Interpretation:
    """What "interpreted as" shows: the answer as typed, implicit products written out
    (:mod:`checkers.mathparse.typed`), when the part's names are known; else sympy's canonical form."""
    if spec is not None and getattr(parsed, "source", ""):
        try:
            text, latex, mathml = typed_forms(parsed.source, spec.get("variables") or {},
                                              spec.get("functions") or {}, allow_relation=parsed.relation)
            return Interpretation(text=text, latex=latex, mathml=mathml)
        except (AnswerParseError, ValueError, RecursionError):  # read once already; canonical form as fallback
            pass
    return Interpretation(text=str(parsed.text), latex=parsed.latex or "", mathml=parsed.mathml or "")


#: How close (relative) a decimal answer must come to the exact value to be called an approximation
#: of it, which earns the feedback "give the exact value" rather than a generic "not equivalent".
APPROX_RTOL = 1e-3


def constants_of(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """``constants: [beta]``: declared variables that are given constants of the question (for
    ``up_to_constant``, the allowed additive constant may depend on them)."""
    raw = spec.get("constants") or []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, (list, tuple)) or not all(isinstance(n, str) for n in raw):
        raise SpecError("constants: must be a list of variable names")
    variables = spec.get("variables") or {}
    canon = mathparse.variable_specs(variables)
    out = []
    for n in raw:
        name = n if n in canon else None
        if name is None:
            try:
                name = canonical_name(n)
            except SpecError:
                name = None
        if name not in canon:
            raise SpecError(f"constants: {n!r} is not a declared variable")
        out.append(name)
    return tuple(out)


def decimal_tolerance(spec: Mapping[str, Any]) -> tuple[float, float] | None:
    """``decimals: {rtol: r, atol: a}``: the part accepts decimal answers within this tolerance
    (missing bounds are 0). Without it a decimal must be exactly the expected value."""
    raw = spec.get("decimals")
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or not raw or set(raw) - {"rtol", "atol"}:
        raise SpecError("decimals: must be a mapping with rtol and/or atol")
    out = []
    for key in ("rtol", "atol"):
        v = raw.get(key, 0.0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or v == float("inf"):
            raise SpecError(f"decimals.{key}: must be a finite number >= 0")
        out.append(float(v))
    return out[0], out[1]


#: Digits at which an unproved decimal answer is compared with the expected value. A literal has at
#: most MAX_NUMBER_DIGITS (50) digits, so a decimal that only approximates the value differs by more
#: than 10^-(DECIMAL_DIGITS - 10) somewhere and never passes; an exactly representable one agrees.
DECIMAL_DIGITS = 80


def _exact_to_many_digits(expected, answer, variables, budget: float) -> bool:
    pts = sample_points(expected.free_symbols | answer.free_symbols, variables, 0, 2)
    gap = precise_gap(expected, answer, pts, work.clock() + budget / 2, digits=DECIMAL_DIGITS)
    return gap is not None and gap <= 10.0 ** -(DECIMAL_DIGITS - 10)


def _inexact_decimal(decimals: tuple[str, ...], interp, details) -> Verdict:
    shown = ", ".join(decimals[:3])
    return Verdict("incorrect", 0.0,
                   msg("A decimal (%(decimals)s) is not the exact value: give the exact value "
                       "(a fraction such as 1/3, or ln(2), sqrt(3), ...).", decimals=shown),
                   "inexact-decimal", interp, details)


def _slip_hint(e, a, variables) -> tuple[str, dict[str, str]] | None:
    """Cheap numeric diagnosis of a wrong answer: sign, factor 2, additive constant."""
    pts = sample_points(e.free_symbols | a.free_symbols, variables, 7, 12)
    ratios, diffs = [], []
    for pt in pts:
        ve, va = evaluate(e, pt), evaluate(a, pt)
        if ve is None or va is None or isinstance(ve, complex) or isinstance(va, complex):
            continue
        diffs.append(va - ve)
        if ve != 0:
            ratios.append(va / ve)
    if len(ratios) >= 3:
        r0 = ratios[0]
        if all(abs(r - r0) <= 1e-7 * max(1.0, abs(r0)) for r in ratios):
            if abs(r0 + 1) < 1e-7:
                return "wrong-sign", msg("Right up to the sign: check the sign.")
            if abs(r0 - 2) < 1e-7 or abs(r0 - 0.5) < 1e-7:
                return "factor-2", msg("Off by a factor of 2: check for a missing or extra 1/2.")
            if abs(r0 - 1) > 1e-6:  # a ratio of 1.000000000000001 is no "factor" worth naming
                return "constant-factor", msg("Off by a constant factor (about %(factor)s).", factor=f"{r0:.4g}")
    if len(diffs) >= 3:
        d0 = diffs[0]
        if d0 != 0 and all(abs(d - d0) <= 1e-7 * max(1.0, abs(d0)) for d in diffs):
            return "additive-constant", msg("Off by an additive constant (about %(constant)s).",
                                            constant=f"{d0:.4g}")
    return None


def grade_expression(answer_text: str, spec: Mapping[str, Any], params: Mapping[str, Any],
                     budget: float = EQUIV_BUDGET) -> Verdict:
    """Parse + compare; runs wherever it is called (the sandbox calls it in a worker)."""
    variables = spec.get("variables") or {}
    try:
        parsed = parse_math(answer_text, variables, spec.get("functions") or {})
    except AnswerParseError as err:
        return Verdict("invalid", 0.0, dict(err.texts), "parse_error",
                       details={"error": err.to_dict()})
    interp = interpretation(parsed, spec)
    expected = parse_spec_expr(str(spec["expected"]), spec, params).expr
    mode = spec.get("mode", "equivalent")
    constants = constants_of(spec)
    # A decimal is read as the exact number typed (0.5 is 1/2), and it is accepted only when that
    # exact number is *proved* to give the expected value: sample points cannot tell 0.333333333333333
    # from 1/3. A part with ``decimals: {rtol, atol}`` judges decimal answers within that tolerance.
    decimals = tuple(getattr(parsed, "decimals", ()) or ())
    tol = decimal_tolerance(spec)
    if decimals and tol is not None and mode == "equivalent":
        res = check_within_tolerance(expected, parsed.expr, variables, rtol=tol[0], atol=tol[1],
                                     time_budget=budget)
    else:
        res = check_equivalence(expected, parsed.expr, variables, mode, time_budget=budget,
                                require_proof=bool(decimals), constants=constants)
    details = {"method": res.method, "reason": res.reason, "mode": mode}
    if decimals:
        details["decimals"] = list(decimals)
    if decimals and res.outcome != "equal" and not res.timed_out and (tol is None or mode != "equivalent"):
        if res.method == "unproved" and _exact_to_many_digits(expected, parsed.expr, variables, budget):
            res = EquivalenceResult("equal", "precise", f"agrees to {DECIMAL_DIGITS - 10} digits", res.details)
            details.update(method=res.method, reason=res.reason)
        near = res.outcome != "equal" and res.method in ("unproved", "disagree")
        if res.outcome != "equal" and not near and mode == "equivalent":
            near = check_within_tolerance(expected, parsed.expr, variables, rtol=APPROX_RTOL, atol=0.0,
                                          time_budget=budget / 4).equal
        if near:
            return _inexact_decimal(decimals, interp, details)
    if res.outcome == "equal" and res.method == "precise":
        return Verdict("correct", 1.0, msg("Correct."), None, interp, details)
    if res.outcome == "equal":
        fb = msg("Correct.")
        if mode == "up_to_constant":
            fb = msg("Correct (up to an additive constant).")
        elif mode == "up_to_sign" and res.details.get("sign") == -1:
            fb = msg("Correct (up to sign).")
        return Verdict("correct", 1.0, fb, None, interp, details)
    if res.outcome == "undecided":
        why = {"timeout": N_("the check ran out of time"),
               "too_few_points": N_("the expression could not be evaluated at enough points"),
               "disagree": N_("numeric and symbolic checks disagree"),
               "unproved": N_("it could not be proved")}.get(res.method)
        return Verdict("undecided", 0.0,
                       msg("Could not decide whether this is correct (%(why)s); no attempt was used. "
                           "Try writing it in a simpler form.", why=msg(why) if why else res.reason),
                       "undecided", interp, details)
    # not equal: a known mistake first, then generic diagnosis
    if res.method == "form":
        return Verdict("incorrect", 0.0,
                       msg("Equivalent, but not in the requested simplified form (%(detail)s).",
                           detail="; ".join(res.details.get("form_problems", []))),
                       "not_simplified", interp, {**details, "form_problems": res.details.get("form_problems")})
    for m in spec.get("mistakes") or []:
        try:
            mexpr = parse_spec_expr(str(m["answer"]), spec, params).expr
        except (AnswerParseError, SpecError):
            continue
        if check_equivalence(mexpr, parsed.expr, variables, "equivalent", time_budget=budget / 4).equal:
            return Verdict("incorrect", 0.0, c.mistake_feedback(m, params), m["note"], interp, details)
    hint = _slip_hint(expected, parsed.expr, variables) if mode == "equivalent" else None
    if hint is not None:
        note, fb = hint
        return Verdict("incorrect", 0.0, fb, note, interp, details)
    return Verdict("incorrect", 0.0, msg("Not equivalent to the expected answer."),
                   None, interp, details)


class SymbolicChecker(Kind):
    name = "symbolic"
    spec_keys = frozenset({"expected", "variables", "functions", "mode", "constants", "decimals"})
    mistake_answers = True
    assets = ("kind.js",)
    plain_form = "text"
    param_exprs = False  # expected.expr is the answer's formula in the part's variables
    public_schema = PUBLIC_NAMES_SCHEMA

    def placeholder(self, part: Mapping[str, Any]) -> Message:
        names = names_of(part)
        return msg("An expression in %(names)s", names=names) if names else msg("An expression")

    def syntax_help(self, part: Mapping[str, Any]) -> Message:
        return maths_syntax_help(part)

    def warm(self) -> None:
        warm_parser()

    def accept(self, value: Any, field: str) -> Any:
        return shape.text(value, field)

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        return public_names(part)

    def grade_answer(self, raw: Any, spec: Mapping[str, Any], params: Mapping[str, Any], *,
                     timeout: float | None = None) -> Verdict:
        """Parse *and* grade inside the sandbox pool under a hard wall-clock limit (a time-out is
        ``undecided`` and costs no attempt). Non-text is refused here: it could not be graded anyway,
        and arbitrary objects need not even survive the trip to a worker."""
        if not isinstance(raw, str):
            return invalid_verdict(AnswerParseError("Expected a maths expression as text.", None))
        limit = timeout or GRADE_TIMEOUT
        # The layers stop themselves well before the hard limit, so a slow-but-finishing check still
        # returns its own reasoned verdict instead of a bare time-out.
        budget = max(0.05, min(0.6 * limit, EQUIV_BUDGET))
        return grade_sandboxed(grade_expression, str.__str__(raw), spec, params, budget, limit)

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        validate_common(spec)
        if spec.get("mode", "equivalent") not in MODES:
            raise SpecError(f"mode: must be one of {', '.join(MODES)}")
        spec_parse_check(spec.get("expected"), spec, "expected")
        decimal_tolerance(spec)
        try:
            constants_of(spec)
        except ImportError:  # pragma: no cover - parser not installed yet
            pass
        c.validate_mistakes(spec, ("answer",))
        for i, m in enumerate(spec.get("mistakes") or []):
            spec_parse_check(m["answer"], spec, f"mistakes[{i}].answer")

    def parse(self, raw: Any, spec: Mapping[str, Any]):
        if not isinstance(raw, str):
            raise AnswerParseError("Expected a maths expression as text.", None)
        return parse_math(raw, spec.get("variables") or {}, spec.get("functions") or {})

    def interpret(self, parsed, spec: Mapping[str, Any]) -> Interpretation:
        return interpretation(parsed, spec)

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        p = parse_spec_expr(str(spec["expected"]), spec, params)
        return {"text": p.text, "latex": p.latex, "mathml": p.mathml, "spoken": speak_mathml(p.mathml)}

    def grade(self, parsed, spec: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None) -> Verdict:
        """A parsed answer is graded by its text, on the sandboxed path like any other."""
        return self.grade_answer(parsed.text, spec, params, timeout=timeout)

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        exp_text = substitute_text(str(spec["expected"]), params)
        ex = Examples(correct=[exp_text])
        ex.incorrect.append((f"2*({exp_text}) + 1", None))
        for m in spec.get("mistakes") or []:
            ex.incorrect.append((substitute_text(str(m["answer"]), params), m["note"]))
        ex.invalid += ["(", "__import__('os')", "undeclared_symbol_zz + 1", "x = = 1"]
        return ex


register_kind(SymbolicChecker())
