"""array: nested lists compared elementwise after a shape check.

Answers are nested lists (or their JSON text) of numbers, ``"nan"``/``"inf"`` strings or plain maths
strings. Details of a wrong answer: ``shape``, ``mismatches`` (count), ``first_mismatch`` (index list),
``max_abs_err`` and ``max_rel_err``, so the learner can find the element that is off. The rule and the
measures are those of :mod:`checkers.tensor_compare` (the verify endpoint and the code kind), applied here
element by element in plain Python so that grading an array never loads torch; a test holds them equal.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

from ...limits import MAX_GRADED_ARRAY_DEPTH as MAX_DEPTH
from ...limits import MAX_GRADED_ARRAY_ELEMENTS as MAX_ELEMENTS
from ...limits import TENSOR_ATOL as DEFAULT_ATOL  # an array part's default: the engine comparison's
from ...limits import TENSOR_RTOL as DEFAULT_RTOL
from ...params import resolve_value
from ...verdict import AnswerParseError, AnswerShapeError, Interpretation, Message, SpecError, Verdict, msg
from .. import _common as c
from .. import shape
from ..base import Examples, Kind, register_kind



def _shape(x: Any, where: str = "answer") -> tuple[int, ...]:
    if not isinstance(x, list):
        return ()
    if not x:
        return (0,)
    shapes = {_shape(v, f"{where}[{i}]") for i, v in enumerate(x)}
    if len(shapes) != 1:
        raise ValueError(f"{where}: rows of different lengths", where)
    return (len(x),) + shapes.pop()


def _read(raw: Any, path: list[int], depth: int, count: list[int]) -> Any:
    where = "answer" + "".join(f"[{i}]" for i in path)
    if depth > MAX_DEPTH:
        raise AnswerParseError("Nested too deeply at %(where)s.", None, field=where, where=where)
    count[0] += 1  # every node counts, so a million empty rows is refused as quickly as a million numbers
    if count[0] > 2 * MAX_ELEMENTS:
        raise AnswerParseError("Too many elements.", None, field=where)
    if isinstance(raw, (list, tuple)):
        return [_read(v, path + [i], depth + 1, count) for i, v in enumerate(raw)]
    count[1] += 1
    if count[1] > MAX_ELEMENTS:
        raise AnswerParseError("Too many elements.", None, field=where)
    try:
        return c.read_number(raw, field=where).value
    except AnswerParseError as err:
        raise AnswerParseError("%(where)s: %(message)s", err.column, field=where, where=where,
                               message=err.texts) from None


def _flat(x: Any, path: tuple[int, ...] = ()):
    if isinstance(x, list):
        for i, v in enumerate(x):
            yield from _flat(v, path + (i,))
    else:
        yield path, x


def _to_floats(value: Any) -> Any:
    if isinstance(value, list):
        return [_to_floats(v) for v in value]
    return c.as_float(value)


def _compare(a: Any, b: Any, rtol: float, atol: float) -> dict[str, Any]:
    """The answer ``a`` against the expected ``b`` (same shape): checkers.tensor_compare's measures."""
    mismatches, first, max_abs, max_rel = 0, None, 0.0, 0.0
    for (idx, x), (_, y) in zip(_flat(a), _flat(b)):
        err = 0.0 if (math.isnan(x) and math.isnan(y)) or x == y else abs(x - y)
        err = math.inf if math.isnan(err) else err           # a NaN against a number
        rel = 0.0 if err == 0 else (err / abs(y) if y != 0 and math.isfinite(y) else math.inf)
        max_abs, max_rel = max(max_abs, err), max(max_rel, rel)
        if not c.num_close(x, y, rtol, atol):
            mismatches += 1
            if first is None:
                first = list(idx)
    return {"mismatches": mismatches, "first_mismatch": first, "max_abs_err": max_abs, "max_rel_err": max_rel}


def _transpose(x: Any) -> Any:
    return [list(r) for r in zip(*x)]


class ArrayChecker(Kind):
    name = "array"
    spec_keys = frozenset({"expected", "tolerance", "constant", "constant_reason"})
    value_keys = ("expected",)
    mistake_answers = True
    assets = ("kind.js",)
    answer_schema = {"type": ["string", "array"], "items": {},
                     "description": "a nested list of numbers, or text of numbers"}

    def placeholder(self, part: Mapping[str, Any]) -> Message:
        return msg("Numbers separated by spaces, e.g. 0.1 0.2 0.3")

    def accept(self, value: Any, field: str) -> Any:
        if isinstance(value, str):
            return shape.text(value, field, shape.MAX_LONG_TEXT)
        if not isinstance(value, list):
            raise AnswerShapeError(f"must be a nested list of numbers, got {shape.type_name(value)}", field)
        shape.count_leaves(value, field, [shape.MAX_ARRAY_ELEMENTS])
        return value

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        if "expected" not in spec:
            raise SpecError("array part needs expected")
        c.tolerance(spec, DEFAULT_RTOL, DEFAULT_ATOL)
        c.validate_mistakes(spec, ("value", "expr", "call", "answer"))

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> list:
        if isinstance(raw, str):
            text = raw.strip()
            if len(text) > 500_000:
                raise AnswerParseError("The answer is too long.", None)
            try:
                # JSON only: a data format, never code. Decimals stay text so that a literal beyond
                # float range (1e400) is refused as in numeric parts instead of silently becoming inf.
                raw = json.loads(text, parse_float=str)
            except (ValueError, RecursionError) as exc:  # JSONDecodeError, or a 4,300+ digit integer
                col = getattr(exc, "pos", None)
                raise AnswerParseError("Expected a list such as [[1, 2], [3, 4]].", col) from None
        if not isinstance(raw, (list, tuple)):
            raise AnswerParseError("Expected a list such as [0.1, 0.2].", None)
        value = _read(raw, [], 0, [0, 0])  # [nodes, numbers]
        try:
            _shape(value)
        except ValueError as exc:
            raise AnswerParseError("%(detail)s: rows of different lengths.", None, detail=exc.args[1]) from None
        return value

    def interpret(self, parsed: list, spec: Mapping[str, Any]) -> Interpretation:
        shape = _shape(parsed)

        def show(x):
            return "[" + ", ".join(show(v) for v in x) + "]" if isinstance(x, list) else c.fmt(x)

        def tex(x):
            if isinstance(x, list) and x and isinstance(x[0], list):
                return r"\begin{bmatrix}" + r" \\ ".join(" & ".join(c.fmt(v) if not isinstance(v, list) else show(v)
                                                                    for v in row) for row in x) + r"\end{bmatrix}"
            return r"\begin{bmatrix}" + " & ".join(c.fmt(v) for v in x) + r"\end{bmatrix}"

        def mml(x):
            rows = x if (x and isinstance(x[0], list)) else [x]
            body = "".join("<mtr>" + "".join(f"<mtd><mn>{c.fmt(v) if not isinstance(v, list) else show(v)}</mn></mtd>"
                                             for v in row) + "</mtr>" for row in rows)
            return ('<math xmlns="http://www.w3.org/1998/Math/MathML"><mrow><mo>[</mo>'
                    f"<mtable>{body}</mtable><mo>]</mo></mrow></math>")

        text = show(parsed) if len(str(parsed)) < 2000 else f"array of shape {shape}"
        return Interpretation(text=text, latex=tex(parsed) if len(parsed) <= 64 else "",
                              mathml=mml(parsed) if len(parsed) <= 64 else "")

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        value = resolve_value(spec["expected"], params)
        if not isinstance(value, list):
            value = [value]
        return _to_floats(value)

    def grade(self, parsed: list, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        b = self.expected(spec, params)
        rtol, atol = c.tolerance(spec, DEFAULT_RTOL, DEFAULT_ATOL)
        interp = self.interpret(parsed, spec)
        sa, sb = _shape(parsed), _shape(b)
        if sa != sb:
            return Verdict("incorrect", 0.0,
                           msg("Shape mismatch: expected shape %(expected)s, your answer has shape %(shape)s.",
                               expected=str(list(sb)), shape=str(list(sa))),
                           "shape_mismatch", interp, {"shape": list(sa), "expected_shape": list(sb)})
        cmp = _compare(parsed, b, rtol, atol)
        details = {"shape": list(sa), **cmp, "rtol": rtol, "atol": atol}
        if cmp["mismatches"] == 0:
            return Verdict("correct", 1.0, msg("Correct."), None, interp, details)
        for m in spec.get("mistakes") or []:
            try:
                mv = _to_floats(c.read_number(m["answer"]).value if "answer" in m and not isinstance(m["answer"], list)
                                else (m["answer"] if "answer" in m else resolve_value(m, params)))
            except Exception:  # an authoring problem must not become a crash on a learner's answer
                continue
            if not isinstance(mv, list):
                mv = [mv]
            try:
                if _shape(mv) == sa and _compare(parsed, mv, rtol, atol)["mismatches"] == 0:
                    return Verdict("incorrect", 0.0, c.mistake_feedback(m, params), m["note"], interp, details)
            except ValueError:
                continue
        n = cmp["mismatches"]
        total = sum(1 for _ in _flat(b))
        idx = "".join(f"[{i}]" for i in cmp["first_mismatch"])
        extra, note = "", "mismatch"
        if len(sa) == 2 and sa[0] == sa[1] and _compare(parsed, _transpose(b), rtol, atol)["mismatches"] == 0:
            extra, note = msg(" It looks transposed."), "transposed"
        elif _compare(parsed, [[-v for v in r] for r in b] if len(sa) == 2 else [-v for v in b] if len(sa) == 1 else b,
                      rtol, atol)["mismatches"] == 0 and len(sa) in (1, 2):
            extra, note = msg(" Every element has the wrong sign."), "wrong-sign"
        return Verdict("incorrect", 0.0,
                       msg("%(count)s of %(total)s elements do not match; the first is at index %(index)s "
                           "(largest absolute error %(err)s).%(extra)s", count=n, total=total, index=idx,
                           err=f"{cmp['max_abs_err']:.3g}", extra=extra),
                       note, interp, details)

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        b = self.expected(spec, params)
        ex = Examples(correct=[b, json.dumps(b)])

        def bump(x):
            return [bump(v) for v in x] if isinstance(x, list) else (x * 1.5 + 1 if math.isfinite(x) else 0.0)

        wrong = bump(b)
        ex.incorrect.append((wrong, self.grade(wrong, spec, params).note))
        for m in spec.get("mistakes") or []:
            if "answer" in m:
                ex.incorrect.append((m["answer"], m["note"]))
            else:
                try:
                    ex.incorrect.append((_to_floats(resolve_value(m, params)), m["note"]))
                except Exception:
                    continue
        ex.invalid += ["[1, 2", "[[1, 2], [3]]", "[1, \"abc(\"]", {"a": 1}]
        return ex


register_kind(ArrayChecker())
