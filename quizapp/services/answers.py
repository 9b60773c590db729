"""Shapes of learners' answers, checked by each part's kind before any checker sees them (422 otherwise),
and the localisation of checker output ({"en","zh"} dicts -> the requested language)."""

from __future__ import annotations

import math
from dataclasses import fields, is_dataclass
from typing import Any
import numbers

from checkers.kinds import Kind
from checkers.kinds.shape import MAX_ARRAY_ELEMENTS, MAX_LINES, MAX_TEXT, type_name  # noqa: F401  (one place)
from checkers.verdict import AnswerShapeError
from checkers.languages import LANGS, norm_lang as supported

from ..errors import PayloadTooLarge, ValidationError
from ..i18n import Message, N_



def norm_lang(lang: Any, field: str = "lang") -> str:
    """An API request's ``lang``: absent means English; one outside :data:`LANGS` is a 422 naming ``field``."""
    if lang in (None, ""):
        return LANGS[0]
    value = supported(lang)
    if value is None:
        raise ValidationError(Message(N_("%(field)s must be one of %(langs)s"), field=field,
                                      langs=", ".join(repr(code) for code in LANGS)), field)
    return value


def shape_error(exc: AnswerShapeError) -> ValidationError | PayloadTooLarge:
    """The service's error for an answer its kind refused: 422 naming the field (413 when too large)."""
    if exc.status == 413:
        return PayloadTooLarge(exc.message, exc.field)
    return ValidationError(exc.message, exc.field)


def check_answer(kind: Kind, value: Any, field: str) -> Any:
    """Return the answer in the form ``kind`` (the part's kind, looked up by the caller) takes, or raise
    ValidationError naming ``field``."""
    try:
        return kind.accept(value, field)
    except AnswerShapeError as exc:
        raise shape_error(exc) from None


def _fields(obj: Any) -> dict[str, Any]:
    """A dataclass instance's fields, one level deep: the callers convert the values themselves, recursively
    (``dataclasses.asdict`` would deep-copy every value first, and a verdict is converted on every submit)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


def localize(obj: Any, lang: str) -> Any:
    """Replace every {"en": ..., "zh": ...} message by the requested language, recursively."""
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = _fields(obj)
    if isinstance(obj, dict):
        if obj and set(obj) <= {"en", "zh"} and all(isinstance(v, str) for v in obj.values()):
            return obj.get(lang) if obj.get(lang) is not None else next(iter(obj.values()))
        return {str(k): localize(v, lang) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [localize(v, lang) for v in obj]
    return obj


_PLAIN = (str, int, bool, type(None))


def json_safe(obj: Any) -> Any:
    """Dataclasses -> dicts, tuples -> lists, non-finite floats -> "nan"/"inf"/"-inf", others -> str."""
    # Exact built-in types first: a verdict is dozens of nested plain values, and each submit converts it.
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): json_safe(v) for k, v in obj.items()}
    if kind is list:
        return [json_safe(v) for v in obj]
    if kind is float and math.isfinite(obj):
        return obj
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = _fields(obj)
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
        if isinstance(obj, numbers.Integral):
            return int(obj)
        if isinstance(obj, numbers.Real):
            return json_safe(float(obj))
    except Exception:  # noqa: BLE001
        pass
    if hasattr(obj, "tolist"):
        return json_safe(obj.tolist())
    return str(obj)
