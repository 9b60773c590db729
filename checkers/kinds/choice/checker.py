"""choice: single or multiple choice; multiple answers are compared as sets (order-insensitive)."""

from __future__ import annotations

import random
from typing import Any, Mapping

from ...limits import MAX_CHOICE_ITEMS, MAX_SHORT_ANSWER
from ...i18n import join
from ...verdict import AnswerParseError, AnswerShapeError, Interpretation, SpecError, Verdict, msg
from .. import _common as c
from .. import shape
from ..base import Examples, Kind, register_kind


def option_order(question_id: str, part: Mapping[str, Any], seed: int) -> list[str]:
    """Display order of a choice part's option ids in variant ``seed``.

    A pure function of (question id, part id, seed, the option ids): the same variant always shows the same
    order, different variants usually differ. ``shuffle: false`` keeps the file order (ordered scales,
    "all of the above"). Only the order changes; ids, texts and grading do not.
    """
    ids = [str(o["id"]) for o in part.get("options") or []]
    if part.get("shuffle", True) is False or len(ids) < 2:
        return ids
    rng = random.Random(f"options:{question_id}:{part['id']}:{seed}")
    rng.shuffle(ids)
    return ids


def _ids(spec: Mapping[str, Any]) -> list[str]:
    return [str(o["id"]) for o in spec.get("options") or []]


def _correct(spec: Mapping[str, Any]) -> frozenset[str]:
    corr = spec["correct"]
    return frozenset([str(corr)] if not isinstance(corr, list) else [str(x) for x in corr])


class ChoiceChecker(Kind):
    name = "choice"
    spec_keys = frozenset({"options", "correct", "multiple", "shuffle"})
    mistake_answers = True
    assets = ("kind.js",)
    answer_form = "options"  # option ids, shown by their texts
    plain_form = "widget"    # form.html: radio buttons or check boxes
    answer_schema = {"type": ["string", "array"], "items": {"type": "string"},
                     "description": "an option id, or a list of ids"}
    public_schema = {"options": {"type": "array", "items": {"type": "object", "properties": {
                         "id": {"type": "string"}, "text": {"type": "string"}}}},
                     "multiple": {"type": "boolean"}}

    def page(self, part: Mapping[str, Any], render) -> dict[str, Any]:
        """The options' texts (Markdown with maths) as safe inline HTML."""
        return {"options": [{"id": str(o["id"]), "text_html": render(o.get("text") or "")}
                            for o in part.get("options") or [] if isinstance(o, dict) and "id" in o]}

    def form_answer(self, values: list[str], part: Mapping[str, Any]) -> Any:
        """Check boxes send every ticked id; a radio group sends one (or none). ``part`` is the authored
        part or its public view (both say ``multiple`` the same way)."""
        if part.get("multiple", isinstance(part.get("correct"), list)):
            return list(values)
        return values[0] if values else ""

    def accept(self, value: Any, field: str) -> Any:
        if isinstance(value, list):
            if len(value) > shape.MAX_OPTIONS:
                raise AnswerShapeError("too many options", field)
            return [shape.text(v, f"{field}[{i}]", shape.MAX_OPTION_ID) for i, v in enumerate(value)]
        return shape.text(value, field, shape.MAX_OPTION_ID)

    def public(self, part, params, lang, fill) -> dict[str, Any]:
        """Options in the variant's display order (see :func:`option_order`), and single or multiple."""
        by_id = {str(o["id"]): o for o in part.get("options", [])}
        return {"options": [{"id": by_id[i]["id"], "text": fill(by_id[i]["text"])}
                            for i in option_order(fill.question_id, part, fill.seed)],
                "multiple": bool(part.get("multiple", isinstance(part.get("correct"), list)))}

    def validate_spec(self, spec: Mapping[str, Any]) -> None:
        if "shuffle" in spec and not isinstance(spec["shuffle"], bool):
            raise SpecError("must be true or false", field="shuffle")
        options = spec.get("options")
        if not isinstance(options, list) or len(options) < 2:
            raise SpecError("choice part needs at least two options")
        ids = []
        for i, o in enumerate(options):
            if not isinstance(o, Mapping) or not isinstance(o.get("id"), str) or not o["id"]:
                raise SpecError(f"options[{i}]: needs an id")
            c.require_message(o.get("text"), f"options[{i}].text")
            ids.append(o["id"])
        if len(set(ids)) != len(ids):
            raise SpecError("options: ids must be unique")
        if "correct" not in spec:
            raise SpecError("choice part needs correct")
        multiple = bool(spec.get("multiple", False))
        corr = spec["correct"]
        if isinstance(corr, list) and not multiple and len(corr) != 1:
            raise SpecError("correct: a list of several ids needs multiple: true")
        for x in corr if isinstance(corr, list) else [corr]:
            if x not in ids:
                raise SpecError(f"correct: {x!r} is not an option id")
        c.validate_mistakes(spec, ("answer",))
        for i, m in enumerate(spec.get("mistakes") or []):
            for x in m["answer"] if isinstance(m["answer"], list) else [m["answer"]]:
                if x not in ids:
                    raise SpecError(f"mistakes[{i}].answer: {x!r} is not an option id")

    def parse(self, raw: Any, spec: Mapping[str, Any]) -> frozenset[str]:
        if isinstance(raw, str):
            if len(raw) > MAX_SHORT_ANSWER:
                raise AnswerParseError("The answer is too long.", None)
            items = [s.strip() for s in raw.split(",")] if raw.strip() else []
        elif isinstance(raw, (list, tuple)):
            if len(raw) > MAX_CHOICE_ITEMS:
                raise AnswerParseError("Too many options selected.", None)
            items = [x for x in raw]
        else:
            raise AnswerParseError("Expected an option id.", None)
        if not items:
            raise AnswerParseError("No option selected.", None)
        ids = _ids(spec)
        for x in items:
            if not isinstance(x, str) or x not in ids:
                shown = repr(x)[:40]
                raise AnswerParseError("Unknown option %(option)s; the options are %(options)s.", None, option=shown,
                                       options=", ".join(ids))
        chosen = frozenset(items)
        if not spec.get("multiple", False) and len(chosen) != 1:
            raise AnswerParseError("Choose exactly one option.", None)
        return chosen

    def interpret(self, parsed: frozenset[str], spec: Mapping[str, Any]) -> Interpretation:
        order = [i for i in _ids(spec) if i in parsed]
        text = ", ".join(order)
        return Interpretation(text=text, latex=r"\text{" + text + "}",
                              mathml=f'<math xmlns="http://www.w3.org/1998/Math/MathML"><mtext>{text}</mtext></math>')

    def expected(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
        corr = _correct(spec)
        ordered = [i for i in _ids(spec) if i in corr]
        return ordered if spec.get("multiple", False) else ordered[0]

    def grade(self, parsed: frozenset[str], spec: Mapping[str, Any], params: Mapping[str, Any]) -> Verdict:
        interp = self.interpret(parsed, spec)
        corr = _correct(spec)
        if parsed == corr:
            return Verdict("correct", 1.0, msg("Correct."), None, interp, {"selected": len(parsed)})
        for m in spec.get("mistakes") or []:
            ans = m["answer"]
            if frozenset(ans if isinstance(ans, list) else [ans]) == parsed:
                return Verdict("incorrect", 0.0, c.mistake_feedback(m, params), m["note"], interp, {"selected": len(parsed)})
        if spec.get("multiple", False):
            fb = _selection_feedback(len(parsed - corr), len(corr - parsed))
        else:
            fb = msg("Not correct.")
        return Verdict("incorrect", 0.0, fb, None, interp, {"selected": len(parsed)})

    def examples(self, spec: Mapping[str, Any], params: Mapping[str, Any]) -> Examples:
        corr = self.expected(spec, params)
        ids = _ids(spec)
        ex = Examples()
        if isinstance(corr, list):
            ex.correct += [corr, list(reversed(corr)), ",".join(corr)]
        else:
            ex.correct.append(corr)
        wrong = next((i for i in ids if i not in _correct(spec)), None)
        if wrong is not None:
            w = [wrong] if spec.get("multiple", False) else wrong
            ex.incorrect.append((w, self.grade(self.parse(w, spec), spec, params).note))
        for m in spec.get("mistakes") or []:
            ex.incorrect.append((m["answer"], m["note"]))
        ex.invalid += ["zz-not-an-option", [], 42]
        return ex


def _selection_feedback(wrong: int, missed: int) -> dict[str, str]:
    """Say how the selection differs (counts only: which options stays for the learner to find)."""
    parts = []
    if wrong:
        parts.append(msg("%(count)s of your selected options is not correct", count=wrong) if wrong == 1 else
                     msg("%(count)s of your selected options are not correct", count=wrong))
    if missed:
        parts.append(msg("you missed %(count)s correct option", count=missed) if missed == 1 else
                     msg("you missed %(count)s correct options", count=missed))
    return msg("Not quite: %(problems)s.", problems=join(parts))


register_kind(ChoiceChecker())
