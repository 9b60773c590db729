"""Variants of a question: parameters per seed, the learner's view and the after-attempt view."""

from __future__ import annotations

import random
from typing import Any, Mapping

from ..kinds import precision
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


def norm_lang(lang: str | None) -> str:
    return "zh" if isinstance(lang, str) and lang.lower().startswith("zh") else "en"


def _text(block: Any, lang: str, params: Mapping[str, Any]) -> str | None:
    if block is None:
        return None
    return substitute_text(block[lang], params)


def _texts(block: Any, lang: str, params: Mapping[str, Any]) -> list[str]:
    if block is None:
        return []
    return [substitute_text(t, params) for t in block[lang]]


def _names(spec: Any) -> list[str]:
    return list(spec) if isinstance(spec, Mapping) else list(spec or [])


def _fill(obj: Any, params: Mapping[str, Any]) -> Any:
    if isinstance(obj, str):
        return substitute_text(obj, params)
    if isinstance(obj, list):
        return [_fill(v, params) for v in obj]
    return obj


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


def _public_part(part: Mapping[str, Any], lang: str, params: Mapping[str, Any],
                 question_id: str = "", seed: int = 0) -> dict[str, Any]:
    kind = part["kind"]
    out: dict[str, Any] = {
        "id": part["id"],
        "kind": kind,
        "prompt": _text(part["prompt"], lang, params),
        "hint": _text(part.get("hint"), lang, params),
        "weight": part.get("weight", 0 if kind == "freetext" else 1),
    }
    if kind == "choice":
        by_id = {str(o["id"]): o for o in part.get("options", [])}
        out["options"] = [{"id": by_id[i]["id"], "text": _text(by_id[i]["text"], lang, params)}
                          for i in option_order(question_id, part, seed)]
        out["multiple"] = bool(part.get("multiple", isinstance(part.get("correct"), list)))
    elif kind in ("symbolic", "derivation"):
        # Input hints only: the names a learner may use, never the expected expression.
        out["variables"] = _names(part.get("variables"))
        funcs = part.get("functions") or {}
        out["functions"] = {name: list((f or {}).get("args", [])) for name, f in funcs.items()}
        if kind == "derivation":
            out["start"] = _fill(part.get("start"), params)
            out["goal"] = _fill(part.get("goal"), params)
    elif kind == "numeric":
        if "sigfigs" in part:
            out["sigfigs"] = part["sigfigs"]
        # What precision is expected, generated from the part's tolerance (never typed per file).
        out["precision"] = precision.statement(part)[lang]
    return out


def public_view(question: Mapping[str, Any], seed: int, lang: str) -> dict[str, Any]:
    """What a learner sees before answering: never expected answers, references or mistakes."""
    lang = norm_lang(lang)
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
    from .. import grading

    lang = norm_lang(lang)
    params = params_for(question, seed)
    sol = question["solution"]
    return {
        "key_points": _texts(sol.get("key_points"), lang, params),
        "pitfalls": _texts(sol.get("pitfalls"), lang, params),
        "worked": _text(sol.get("worked"), lang, params),
        "expected": {p["id"]: grading.expected(p, params) for p in question["parts"]},
    }
