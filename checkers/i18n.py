"""The checkers' learner-facing text in every language, from gettext catalogs.

A message is written once, as its English text with named placeholders (``%(column)s``): that text is
the msgid. ``checkers/translations/<lang>/LC_MESSAGES/checkers.po`` holds each other language's
translation, compiled to ``checkers.mo`` by ``scripts/setup`` (domain ``checkers``; the template
``checkers.pot`` is extracted with pybabel, ``docs/translations.md``). :func:`msg` renders a message in
every language of :data:`checkers.languages.LANGS` at once and returns the ``{lang: text}`` dict that
verdicts and parse errors carry, so the service picks the reader's language later without checkers
knowing who reads. Adding a language means adding its catalog, not editing code.

Values are formatted by the caller (``err=f"{x:.3g}"``) and given as strings or numbers; a value may
itself be a ``{lang: text}`` message, and is then rendered in each language.

Catalogs are read once per process, on first use. A catalog that is missing (not compiled) gives the
English text; ``tests/i18n/test_checkers_catalog.py`` fails then.
"""

from __future__ import annotations

import gettext
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from .languages import DEFAULT_LANG, LANGS

DOMAIN = "checkers"
TRANSLATIONS = Path(__file__).with_name("translations")

#: A user-facing message in every language of the service: ``{"en": ..., "zh": ...}``.
Message = dict[str, str]


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction where it is defined and render it later (gettext's ``gettext_noop``)."""
    return msgid


@lru_cache(maxsize=None)
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang``; the msgids themselves (English) when there is none."""
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, str(TRANSLATIONS), languages=[lang])
    except OSError:  # not compiled (scripts/setup not run): English rather than no answer at all
        return gettext.NullTranslations()


def in_language(lang: str, msgid: str, **params: Any) -> str:
    """``msgid`` translated into ``lang`` with ``params`` filled in (``%`` formatting by name)."""
    if not msgid:
        return ""  # gettext("") is the catalog's header, never a message
    text = catalog(lang).gettext(msgid)
    if not params:
        return text
    values = {k: (v.get(lang, v.get(DEFAULT_LANG, "")) if isinstance(v, dict) else v) for k, v in params.items()}
    return text % values


def empty() -> Message:
    """No text, in every language (a verdict without feedback)."""
    return {lang: "" for lang in LANGS}


def msg(msgid: str, /, **params: Any) -> Message:
    """``msgid`` rendered in every supported language: ``{"en": ..., "zh": ...}``."""
    return {lang: in_language(lang, msgid, **params) for lang in LANGS}


def join(items: Sequence[str | Message]) -> str | Message:
    """``items`` as one list in every language ("a; b; c", each language with its own separator)."""
    if not items:
        return ""
    joined = items[0]
    for item in items[1:]:
        joined = msg("%(first)s; %(second)s", first=joined, second=item)
    return joined
