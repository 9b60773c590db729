"""The languages the service speaks, in one place: question files must carry text in each of them, the
API and the pages accept only these, and the pages' language switch lists them by their own names.

Adding a language means one entry here (plus its gettext catalog under ``quizapp/translations/`` and
its text in every question file); nothing else names a language.
"""

from __future__ import annotations

from typing import Any

#: Supported languages as the primary subtag of a BCP 47 tag; the first is the default.
LANGS: tuple[str, ...] = ("en", "zh")
DEFAULT_LANG = LANGS[0]

#: Each language's name written in that language (the language switch shows the target's own name).
#: Written as escapes: the names are data, not text to translate, and sources under checkers/ hold no CJK
#: text (learner-facing text lives in the gettext catalogs, checkers/translations).
NATIVE_NAMES: dict[str, str] = {"en": "English", "zh": "\u4e2d\u6587"}

#: The value of an HTML ``lang`` attribute for each language.
HTML_LANG: dict[str, str] = {"en": "en", "zh": "zh-CN"}

#: Tags people write that are not a language subtag but mean one ("cn" is a region code).
_ALIASES = {"cn": "zh"}


def norm_lang(value: Any) -> str | None:
    """A supported language for a tag such as ``"zh-CN"``, ``"zh_Hans"``, ``"EN-us"``; ``None`` otherwise.

    Only the primary subtag counts (RFC 5646 section 2.2.1): ``zh-TW`` is Chinese like ``zh-CN``.
    """
    if not isinstance(value, str):
        return None
    primary = value.strip().lower().replace("_", "-").split("-")[0]
    primary = _ALIASES.get(primary, primary)
    return primary if primary in LANGS else None
