"""Variants of a question: parameters per seed, the learner's view and the after-attempt view."""

from __future__ import annotations

from typing import Any, Mapping

from .. import grading
from ..kinds.base import Fill, get_kind
from ..kinds.choice import option_order  # noqa: F401  (part of this module's interface)
from ..languages import DEFAULT_LANG, norm_lang
from ..params import generate, substitute_text

#: Variants are ints in ``[0, VARIANT_MAX)``.
VARIANT_MAX = 1_000_000


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < VARIANT_MAX:
        raise ValueError(f"variant must be an int in [0, {VARIANT_MAX}), got {seed!r}")
    return seed


def params_for(question: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """Parameter values of variant ``seed`` (deterministic)."""
    return generate(question.get("params"), check_seed(seed))


def view_lang(lang: Any) -> str:
    """The language a view is written in: ``lang`` as :func:`checkers.languages.norm_lang` reads it, else the
    default language (a view always renders; the service refuses an unsupported ``lang`` before this)."""
    return norm_lang(lang) or DEFAULT_LANG


def _text(block: Any, lang: str, params: Mapping[str, Any]) -> str | None:
    if block is None:
        return None
    return substitute_text(block[lang], params)


def _texts(block: Any, lang: str, params: Mapping[str, Any]) -> list[str]:
    if block is None:
        return []
    return [substitute_text(t, params) for t in block[lang]]


def part_hints(part: Mapping[str, Any], lang: str, params: Mapping[str, Any]) -> list[str]:
    """A part's on-demand hints, gentlest first: its ``hints`` list, then its single ``hint`` (the most
    specific one, kept from the older one-hint format)."""
    blocks = list(part.get("hints") or [])
    if part.get("hint"):
        blocks.append(part["hint"])
    return [substitute_text(b[view_lang(lang)], params) for b in blocks]


def hint_count(part: Mapping[str, Any]) -> int:
    return len(part.get("hints") or []) + (1 if part.get("hint") else 0)


def _public_part(part: Mapping[str, Any], lang: str, params: Mapping[str, Any],
                 question_id: str = "", seed: int = 0) -> dict[str, Any]:
    """The fields every part has, merged with its kind's own (:meth:`Kind.public`)."""
    kind = get_kind(part["kind"])
    out: dict[str, Any] = {
        "id": part["id"],
        "kind": part["kind"],
        "prompt": _text(part["prompt"], lang, params),
        "title": _text(part.get("title"), lang, params),
        # hints are shown one at a time on request (each one recorded): only their number is public
        "hints_total": hint_count(part),
        "placeholder": part.get("placeholder"),
        "weight": part.get("weight", kind.default_weight),
    }
    out.update(kind.public(part, params, lang, Fill(params, lang, question_id, seed)))
    return out


def public_view(question: Mapping[str, Any], seed: int, lang: str) -> dict[str, Any]:
    """What a learner sees before answering: never expected answers, references or mistakes."""
    lang = view_lang(lang)
    params = params_for(question, seed)
    return {
        "id": question["id"],
        "ref": question.get("ref"),
        "level": question["level"],
        "tags": list(question.get("tags", [])),
        "title": _text(question["title"], lang, params),
        "prompt": _text(question["prompt"], lang, params),
        "variant": seed,
        "parts": [_public_part(p, lang, params, question["id"], seed) for p in question["parts"]],
    }


def solution_view(question: Mapping[str, Any], seed: int, lang: str) -> dict[str, Any]:
    """After-attempt material: key points, pitfalls, the worked solution and each part's answer."""
    lang = view_lang(lang)
    params = params_for(question, seed)
    sol = question["solution"]
    return {
        "key_points": _texts(sol.get("key_points"), lang, params),
        "pitfalls": _texts(sol.get("pitfalls"), lang, params),
        "worked": _text(sol.get("worked"), lang, params),
        "expected": {p["id"]: grading.expected(p, params) for p in question["parts"]},
    }
