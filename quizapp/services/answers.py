"""Shapes of learners' answers per part kind, checked before any checker sees them (422 otherwise),
and the localisation of checker output ({"en","zh"} dicts -> the requested language)."""

from __future__ import annotations

import math
from dataclasses import asdict, is_dataclass
from typing import Any

from ..errors import ValidationError

MAX_TEXT = 4000
MAX_LINES = 100
MAX_ARRAY_ELEMENTS = 100_000


def norm_lang(lang: Any, field: str = "lang") -> str:
    """An API request's ``lang``: absent means English; one outside :data:`LANGS` is a 422 naming ``field``."""
    from checkers.languages import LANGS, norm_lang as supported

    from ..i18n import N_, Message

    if lang in (None, ""):
        return LANGS[0]
    value = supported(lang)
    if value is None:
        raise ValidationError(Message(N_("%(field)s must be one of %(langs)s"), field=field,
                                      langs=", ".join(repr(code) for code in LANGS)), field)
    return value


def _text(value: Any, field: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"must be a string, got {type_name(value)}", field)
    if len(value) > limit:
        raise ValidationError(f"longer than {limit} characters", field)
    _storable(value, field)
    return value


def _storable(value: str, field: str) -> None:
    """Answers are stored as they came (JSONB on PostgreSQL): JSONB refuses NUL characters and
    unpaired surrogates, so refuse them here on every database (422, not a 500 on PostgreSQL only)."""
    if "\x00" in value:
        raise ValidationError("must not contain NUL characters", field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("is not valid Unicode (unpaired surrogate)", field) from None


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _count_leaves(value: Any, field: str, budget: list[int], depth: int = 0) -> None:
    if depth > 8:
        raise ValidationError("nested too deeply", field)
    if isinstance(value, list):
        for i, v in enumerate(value):
            _count_leaves(v, f"{field}[{i}]", budget, depth + 1)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValidationError(f"array entries must be numbers, got {type_name(value)}", field)
    if isinstance(value, str):
        if len(value) > 200:
            raise ValidationError("entry longer than 200 characters", field)
        _storable(value, field)
    budget[0] -= 1
    if budget[0] < 0:
        raise ValidationError(f"more than {MAX_ARRAY_ELEMENTS} entries", field)


def check_answer(kind: str, value: Any, field: str) -> Any:
    """Return the answer in the form the checker takes, or raise ValidationError naming ``field``."""
    if kind == "numeric":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        return _text(value, field)
    if kind == "symbolic":
        return _text(value, field)
    if kind == "derivation":
        if isinstance(value, str):
            value = [line for line in _text(value, field, MAX_TEXT * 4).splitlines() if line.strip()]
        if not isinstance(value, list):
            raise ValidationError(f"must be a list of strings (one per line), got {type_name(value)}", field)
        if len(value) > MAX_LINES:
            raise ValidationError(f"more than {MAX_LINES} lines", field)
        return [_text(v, f"{field}[{i}]") for i, v in enumerate(value)]
    if kind == "array":
        if isinstance(value, str):
            return _text(value, field, MAX_TEXT * 4)
        if not isinstance(value, list):
            raise ValidationError(f"must be a nested list of numbers, got {type_name(value)}", field)
        _count_leaves(value, field, [MAX_ARRAY_ELEMENTS])
        return value
    if kind == "choice":
        if isinstance(value, list):
            if len(value) > 100:
                raise ValidationError("too many options", field)
            return [_text(v, f"{field}[{i}]", 100) for i, v in enumerate(value)]
        return _text(value, field, 100)
    if kind == "freetext":
        if isinstance(value, bool):
            return value
        return _text(value, field, MAX_TEXT * 4)
    return value


def localize(obj: Any, lang: str) -> Any:
    """Replace every {"en": ..., "zh": ...} message by the requested language, recursively."""
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = asdict(obj)
    if isinstance(obj, dict):
        if obj and set(obj) <= {"en", "zh"} and all(isinstance(v, str) for v in obj.values()):
            return obj.get(lang) if obj.get(lang) is not None else next(iter(obj.values()))
        return {str(k): localize(v, lang) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [localize(v, lang) for v in obj]
    return obj


def json_safe(obj: Any) -> Any:
    """Dataclasses -> dicts, tuples -> lists, non-finite floats -> "nan"/"inf"/"-inf", others -> str."""
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = asdict(obj)
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    try:  # numpy / torch scalars
        import numbers
        if isinstance(obj, numbers.Integral):
            return int(obj)
        if isinstance(obj, numbers.Real):
            return json_safe(float(obj))
    except Exception:  # noqa: BLE001
        pass
    if hasattr(obj, "tolist"):
        return json_safe(obj.tolist())
    return str(obj)
