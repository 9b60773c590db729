"""Where a self-test failure outside any part belongs: the stage of the question it happened in and, for a
view that fails to render, the text field that breaks it.

A failure with no part is the question's own: its parameters do not generate (``params-fail``), an
invariant is false or cannot be computed (``invariant-*``), or a view does not render (``view-fail``). The
self-test renders the learner's view and the solution view together and records only the language, so
:func:`checkers.bank.failure_place.failure_field` can only point such a failure at ``prompt``. Here the two
views are rendered again for that variant and language (only for a failing question, once per distinct
failure): when the learner's view renders, the solution is at fault; and within the view at fault, the first
text whose placeholders do not fill (a format spec such as ``{{p:.2q}}``) is the field, e.g.
``solution.worked.zh`` or ``parts[1].prompt.en``.

Hints, known-mistake feedback and a derivation's key-step feedback belong to no view (a learner gets them on
request, one at a time, or with a grade): the self-test fills each of them itself (:func:`unfilled_on_request`),
and its failure names the text, e.g. ``parts[0].hints[1].en``, ``parts[1].mistakes[0].feedback.zh`` or
``parts[2].key_steps[0].feedback.en``.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ..params import substitute_text
from .variants import params_for, public_view, view_lang

__all__ = ["on_request_texts", "question_stage", "unfilled_on_request", "view_field"]

#: The stage of a question-level self-test message (the view's is the learner's view or the solution).
_STAGES = {"params-fail": "params", "invariant-fail": "invariants", "invariant-false": "invariants"}
#: Part keys a view never renders (hints and feedback are shown later, one at a time).
_NOT_IN_VIEW = frozenset({"hints", "hint", "mistakes", "key_steps"})


def _texts(node: Any, path: str, lang: str) -> Iterator[tuple[str, str]]:
    """(field path, text) of every text in ``lang`` under ``node``: a ``{en, zh}`` mapping's string or its
    list of strings (key points, pitfalls)."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in _NOT_IN_VIEW:
                continue
            sub = f"{path}.{key}"
            if key == lang and isinstance(value, str):
                yield sub, value
            elif key == lang and isinstance(value, list):
                yield from ((f"{sub}[{i}]", t) for i, t in enumerate(value) if isinstance(t, str))
            else:
                yield from _texts(value, sub, lang)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _texts(item, f"{path}[{i}]", lang)


def _first_broken(texts: Iterator[tuple[str, str]], params: Mapping[str, Any]) -> str | None:
    for path, text in texts:
        try:
            substitute_text(text, params)
        except Exception:  # noqa: BLE001 - any error filling it is the view's error
            return path
    return None


def on_request_texts(question: Mapping[str, Any]) -> Iterator[tuple[Any, str, str, str]]:
    """(part id, field, language, text) of every text a learner is shown only on request, which no view
    renders: each part's ``hints[i]`` and single ``hint`` (:func:`checkers.bank.variants.part_hints`), each
    known mistake's ``feedback`` (:func:`checkers.kinds._common.mistake_feedback`) and each derivation key
    step's ``feedback`` (:func:`checkers.kinds.derivation.keysteps.key_steps`), e.g.
    ``parts[0].hints[1].en``, ``parts[1].mistakes[0].feedback.zh`` or ``parts[2].key_steps[0].feedback.en``."""
    parts = question.get("parts") if isinstance(question, Mapping) else None
    for i, part in enumerate(parts if isinstance(parts, list) else []):
        if not isinstance(part, Mapping):
            continue
        blocks = [(f"parts[{i}].hints[{j}]", b) for j, b in enumerate(part.get("hints") or [])]
        blocks += [(f"parts[{i}].hint", part["hint"])] if part.get("hint") else []
        blocks += [(f"parts[{i}].mistakes[{j}].feedback", m.get("feedback"))
                   for j, m in enumerate(part.get("mistakes") or []) if isinstance(m, Mapping)]
        blocks += [(f"parts[{i}].key_steps[{j}].feedback", k.get("feedback"))
                   for j, k in enumerate(part.get("key_steps") or []) if isinstance(k, Mapping)]
        for path, block in blocks:
            if isinstance(block, Mapping):
                yield from ((part.get("id"), f"{path}.{lang}", lang, block[lang])
                            for lang in ("en", "zh") if isinstance(block.get(lang), str))


def unfilled_on_request(question: Mapping[str, Any],
                        params: Mapping[str, Any]) -> Iterator[tuple[Any, str, str, Exception]]:
    """(part id, field, language, error) of each :func:`on_request_texts` text whose placeholders do not
    fill with ``params`` (a format spec such as ``{{p:.2q}}``, one asking for too wide a field, an unknown
    parameter): what a learner asking for that hint, or making that mistake, would get instead of it."""
    for pid, path, lang, text in on_request_texts(question):
        try:
            substitute_text(text, params)
        except Exception as exc:  # noqa: BLE001 - any error filling it is the text's error
            yield pid, path, lang, exc


def view_field(question: Mapping[str, Any], seed: Any, lang: Any) -> str | None:
    """The field a ``view-fail`` of variant ``seed`` in ``lang`` comes from: a text of the learner's view
    (``title``, ``prompt``, ``parts[i]...``) when that view fails, else a text of the solution or
    ``solution`` itself; None when it cannot be told (the parameters fail, or a kind's own view fails)."""
    if not isinstance(question, Mapping) or not isinstance(seed, int):
        return None
    lang = view_lang(lang)
    try:
        params = params_for(question, seed)
    except Exception:  # noqa: BLE001 - reported as params-fail
        return None
    try:
        public_view(question, seed, lang)
    except Exception:  # noqa: BLE001 - the learner's view is at fault: which of its texts
        public = (("title", question.get("title")), ("prompt", question.get("prompt")),
                  ("parts", question.get("parts")))
        return _first_broken((t for key, node in public for t in _texts(node, key, lang)), params)
    if not isinstance(question.get("solution"), Mapping):
        return None
    return _first_broken(_texts(question["solution"], "solution", lang), params) or "solution"


def question_stage(message: Any, field: str | None) -> str | None:
    """The stage a failure outside any part happened in: ``params``, ``invariants``, ``question`` (the
    learner's view) or ``solution`` (the solution view); None for a message that is not the question's."""
    if message == "view-fail":
        return "solution" if (field or "").startswith("solution") else "question"
    return _STAGES.get(str(message))
