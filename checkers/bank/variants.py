"""Variants of a question: parameters per seed, the learner's view and the after-attempt view."""

from __future__ import annotations

from typing import Any, Mapping

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


def _public_part(part: Mapping[str, Any], lang: str, params: Mapping[str, Any]) -> dict[str, Any]:
    kind = part["kind"]
    out: dict[str, Any] = {
        "id": part["id"],
        "kind": kind,
        "prompt": _text(part["prompt"], lang, params),
        "hint": _text(part.get("hint"), lang, params),
        "weight": part.get("weight", 0 if kind == "freetext" else 1),
    }
    if kind == "choice":
        out["options"] = [{"id": o["id"], "text": _text(o["text"], lang, params)}
                          for o in part.get("options", [])]
        out["multiple"] = bool(part.get("multiple", isinstance(part.get("correct"), list)))
    elif kind in ("symbolic", "derivation"):
        # Input hints only: the names a learner may use, never the expected expression.
        out["variables"] = _names(part.get("variables"))
        funcs = part.get("functions") or {}
        out["functions"] = {name: list((f or {}).get("args", [])) for name, f in funcs.items()}
        if kind == "derivation":
            out["start"] = _fill(part.get("start"), params)
            out["goal"] = _fill(part.get("goal"), params)
    elif kind == "numeric" and "sigfigs" in part:
        out["sigfigs"] = part["sigfigs"]
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
        "parts": [_public_part(p, lang, params) for p in question["parts"]],
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
