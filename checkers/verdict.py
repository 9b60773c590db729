"""The verdict every checker returns, and the typed parse error every checker raises."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from . import i18n
from .i18n import Message
from .languages import DEFAULT_LANG, LANGS

Status = Literal["correct", "incorrect", "invalid", "undecided", "error"]


def msg(msgid: str, zh: str | None = None, /, **params: Any) -> Message:
    """A user-facing message in every language: ``msgid`` (English, ``%(name)s`` placeholders) rendered
    from the checkers' gettext catalogs (:mod:`checkers.i18n`).

    ``msg(en, zh)`` with both texts given literally stays for kinds outside ``checkers/`` that carry their
    own text; nothing under ``checkers/`` writes it.
    """
    if zh is not None:
        return {"en": msgid, "zh": zh}
    return i18n.msg(msgid, **params)


@dataclass
class Interpretation:
    """How the service read an answer: shown as a preview before grading."""

    text: str
    latex: str = ""
    mathml: str = ""
    #: What a screen reader reads instead of the MathML, in every language (:mod:`checkers.mathparse.spoken`);
    #: read from ``mathml`` when not given.
    spoken: Message = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.spoken:
            from .mathparse.spoken import speak_mathml  # local: mathparse imports this module (a cycle), loads sympy

            self.spoken = speak_mathml(self.mathml) if self.mathml else {lang: self.text for lang in LANGS}


@dataclass
class Verdict:
    status: Status
    score: float = 0.0              # in [0, 1]; the part's weight is applied by the caller
    feedback: Message = field(default_factory=i18n.empty)
    note: str | None = None         # id of a known mistake, or a checker note such as "timeout"
    interpreted_as: Interpretation | None = None
    details: dict[str, Any] = field(default_factory=dict)  # kind-specific: steps, first_error, mismatches...

    @property
    def consumes_attempt(self) -> bool:
        """Invalid and undecided answers never cost the learner an attempt."""
        return self.status in ("correct", "incorrect")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class AnswerParseError(ValueError):
    """An answer that cannot be read. ``column`` is 0-based into the raw text (None if not textual).

    ``message`` is a msgid (English, ``%(name)s`` placeholders filled from ``params``) rendered in every
    language from the checkers' catalogs, or an already rendered ``{lang: text}`` message. ``texts`` holds
    every language; ``message`` (English) and ``message_zh`` are what the API reports. ``zh=`` with the
    English text given literally stays for kinds outside ``checkers/`` that carry their own text.
    """

    def __init__(self, message: str | Message, column: int | None = None, /, *, zh: str | None = None,
                 field: str | None = None, **params: Any):
        if isinstance(message, dict):
            texts = dict(message)
        elif zh is not None:
            texts = {"en": message, "zh": zh}
        else:
            texts = i18n.msg(message, **params)
        english = texts.get(DEFAULT_LANG, "")
        super().__init__(english)
        self.texts: Message = texts
        self.message = english
        self.message_zh = texts.get("zh") or english
        self.column = column
        self.field = field  # e.g. "answer[2]" for the third line of a derivation

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "message_zh": self.message_zh, "column": self.column,
                "field": self.field}


class SpecError(ValueError):
    """A question part (authored data) is malformed; raised at load/validation time, never for learners.

    ``field`` optionally names the part's key at fault (the bank schema then reports ``parts[i].<field>``).
    """

    def __init__(self, message: str = "", *args: Any, field: str | None = None):
        super().__init__(message, *args)
        self.field = field


class AnswerShapeError(ValueError):
    """An answer whose JSON shape its kind cannot take (a number where lines are expected, too long...).

    Raised by a kind's ``accept`` before any checker sees the answer; the web service answers it with
    its validation error envelope naming ``field`` (422), or 413 when ``status`` says the answer is too
    large to take at all.
    """

    def __init__(self, message: str, field: str | None = None, status: int = 422):
        super().__init__(message)
        self.message = message
        self.field = field
        self.status = status
