"""The checkers' learner-facing text in every language, from gettext catalogs.

A message is written once, as its English text with named placeholders (``%(column)s``): that text is
the msgid. Two kinds of catalog hold each other language's translation:

* the shared catalog, ``checkers/translations/<lang>/LC_MESSAGES/checkers.po``, for the text of every
  module outside a kind's folder (compiled to ``checkers.mo`` by ``scripts/setup``; domain ``checkers``);
* each answer kind's own catalog in its folder, ``checkers/kinds/<kind>/<lang>.po`` beside the kind's
  template ``messages.pot``, read with Babel on first use (no build step), once the kind is registered
  (:func:`add_message_folder`, called by ``checkers.kinds.base.register_kind``).

The templates are extracted with pybabel (``docs/translations.md``). :func:`msg` renders a message in
every language of :data:`checkers.languages.LANGS` at once and returns the ``{lang: text}`` dict that
verdicts and parse errors carry, so the service picks the reader's language later without checkers
knowing who reads. Adding a language means adding its catalog, not editing code.

Values are formatted by the caller (``err=f"{x:.3g}"``) and given as strings or numbers; a value may
itself be a ``{lang: text}`` message, and is then rendered in each language.

Catalogs are read once per process, on first use, and merged into one table per language (a message is
one dict lookup on the feedback path); registering a kind's folder rebuilds the table, not the catalogs.
A shared catalog that is missing (not compiled) gives the English text of its messages;
``tests/i18n/test_checkers_catalog.py`` fails then.
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


#: Folders whose ``<lang>.po`` catalogs are served next to the shared one (the registered kinds' folders).
_MESSAGE_FOLDERS: list[Path] = []


class Table(gettext.NullTranslations):
    """One language's translations as one table: ``gettext(msgid)`` is a dict lookup (the msgid itself,
    English, when the table has no translation)."""

    def __init__(self, messages: dict[str, str]):
        super().__init__()
        self.messages = messages

    def gettext(self, message: str) -> str:
        return self.messages.get(message, message)


def add_message_folder(folder: Path) -> None:
    """Serve the catalogs of ``folder`` (``<lang>.po`` files, e.g. a kind's folder) from now on."""
    if folder not in _MESSAGE_FOLDERS:
        _MESSAGE_FOLDERS.append(folder)
        catalog.cache_clear()


def remove_message_folder(folder: Path) -> None:
    """Stop serving the catalogs of ``folder`` (a kind taken out of the registry)."""
    if folder in _MESSAGE_FOLDERS:
        _MESSAGE_FOLDERS.remove(folder)
        catalog.cache_clear()


def message_folders() -> list[Path]:
    """The folders whose catalogs are served, in the order they were added."""
    return list(_MESSAGE_FOLDERS)


def _translated(cat: Any) -> dict[str, str]:
    """A Babel catalog's translated, non-fuzzy singular messages as ``{msgid: text}``."""
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def shared_messages(lang: str) -> dict[str, str]:
    """The compiled shared catalog of ``lang`` (``checkers.mo``); nothing when it is not compiled."""
    from babel.messages.mofile import read_mo  # local: Babel only when the first catalog is built

    path = TRANSLATIONS / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.is_file():  # not compiled (scripts/setup not run): English rather than no answer at all
        return {}
    with open(path, "rb") as fh:
        return _translated(read_mo(fh))


@lru_cache(maxsize=None)
def folder_messages(folder: Path, lang: str) -> dict[str, str]:
    """The translations of ``folder/<lang>.po`` (a kind's catalog), read once per process; nothing when
    the folder has no catalog for ``lang``."""
    from babel.messages.pofile import read_po  # local: Babel only when the first catalog is built

    path = folder / f"{lang}.po"
    if not path.is_file():
        return {}
    with open(path, "rb") as fh:
        return _translated(read_po(fh, locale=lang))


@lru_cache(maxsize=None)
def catalog(lang: str) -> gettext.NullTranslations:
    """Every catalog of ``lang`` as one table: the shared catalog, then each message folder's (a msgid
    several catalogs hold has the same translation in each: ``tests/i18n/test_checkers_catalog.py``)."""
    if lang == DEFAULT_LANG:
        return gettext.NullTranslations()
    messages: dict[str, str] = {}
    for folder in reversed(_MESSAGE_FOLDERS):
        messages.update(folder_messages(folder, lang))
    messages.update(shared_messages(lang))
    return Table(messages)


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
