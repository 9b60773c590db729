"""Shapes of learners' answers, checked by each part's kind before any checker sees them (422 otherwise),
and the localisation of checker output ({"en","zh"} dicts -> the requested language)."""

from __future__ import annotations

from dataclasses import is_dataclass
from typing import Any

from checkers.kinds import Kind
from checkers.kinds.shape import MAX_ARRAY_ELEMENTS, MAX_LINES, MAX_TEXT, type_name  # noqa: F401  (one place)
from checkers.verdict import AnswerShapeError
from checkers.languages import LANGS, norm_lang as supported

from ..errors import PayloadTooLarge, ValidationError
from ..httpkit.jsonio import shallow_fields
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


def localize(obj: Any, lang: str) -> Any:
    """Replace every {"en": ..., "zh": ...} message by the requested language, recursively."""
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = shallow_fields(obj)
    if isinstance(obj, dict):
        if obj and set(obj) <= {"en", "zh"} and all(isinstance(v, str) for v in obj.values()):
            return obj.get(lang) if obj.get(lang) is not None else next(iter(obj.values()))
        return {str(k): localize(v, lang) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [localize(v, lang) for v in obj]
    return obj
