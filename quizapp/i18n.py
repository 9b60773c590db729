"""Interface language: Flask-Babel with gettext catalogs in ``quizapp/translations`` (msgids are the
English text, ``%(name)s`` placeholders; ``docs/translations.md``).

Pages pick the language from ``?lang=`` (remembered in a cookie), then that cookie, then
``Accept-Language``, else English. The JSON API answers in the request's ``lang`` (query, or the JSON
body's ``lang`` field), else English. The supported languages are :data:`checkers.languages.LANGS`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from babel.support import NullTranslations
from flask import Flask, g, has_app_context, request, url_for
from flask_babel import Babel, force_locale, get_locale, get_translations
from jinja2 import pass_context
from markupsafe import Markup

from checkers.languages import DEFAULT_LANG, HTML_LANG, LANGS, NATIVE_NAMES, norm_lang

TRANSLATIONS = Path(__file__).with_name("translations")
LANG_COOKIE = "quiz_lang"
LANG_COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers keep (RFC 6265bis, 400 days)

babel = Babel()


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction without translating it yet (gettext's ``gettext_noop``)."""
    return msgid


class Message:
    """Text to show in the reader's language, translated when it is shown rather than when it is made:
    a msgid (English, ``%(name)s`` placeholders) and its values, which may be Messages themselves.

    ``str(message)`` is the English text (logs, plain-text pages); :meth:`translate` follows the
    current locale. Write the msgid through :func:`N_` so ``pybabel extract`` finds it.
    """

    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, **params: Any):
        self.msgid = msgid
        self.params = params

    def translate(self) -> str:
        values = {k: (v.translate() if isinstance(v, Message) else v) for k, v in self.params.items()}
        return gettext(self.msgid, **values)

    def __str__(self) -> str:
        values = {k: str(v) for k, v in self.params.items()}
        return self.msgid % values if values else self.msgid

    def __repr__(self) -> str:
        return f"Message({self.msgid!r}, **{self.params!r})"


def in_language(code: str, msgid: str, **params: Any) -> str:
    """``msgid`` translated into language ``code`` whatever the request's language."""
    with force_locale(code):
        return gettext(msgid, **params)


def text(message: Any) -> str:
    """``message`` in the current locale when it is a :class:`Message`, else as it is."""
    return message.translate() if isinstance(message, Message) else str(message)


def localized(value: Any, lang: str) -> str:
    """A ``{lang: text}`` field of a question (its title) in ``lang``, else in English, else the first."""
    if isinstance(value, Mapping):
        return str(value.get(lang) or value.get("en") or next(iter(value.values()), ""))
    return "" if value is None else str(value)


# --------------------------------------------------------------------------- choosing the language

def _is_api() -> bool:
    return request.path.startswith("/api/")


def page_lang() -> str:
    """``?lang=`` (remembered in a cookie), then the cookie, then ``Accept-Language``, else English."""
    cached = g.get("_quiz_lang")
    if cached:
        return cached
    cookie = norm_lang(request.cookies.get(LANG_COOKIE))
    lang = norm_lang(request.args.get("lang"))
    if lang:
        g._quiz_lang_set_cookie = lang != cookie
    else:
        # best_match falls back to primary subtags: "zh-CN,zh;q=0.9" matches "zh".
        lang = cookie or norm_lang(request.accept_languages.best_match(LANGS)) or DEFAULT_LANG
    g._quiz_lang = lang
    return lang


def note_body_lang(value: Any) -> None:
    """The JSON body's ``lang`` field, kept for error messages of the same request."""
    lang = norm_lang(value)
    if lang:
        g._quiz_api_lang = lang


def api_lang() -> str:
    """The language of an API response's messages: ``?lang=``, then the body's ``lang``, else English."""
    return norm_lang(request.args.get("lang")) or g.get("_quiz_api_lang") or DEFAULT_LANG


def select_locale() -> str:
    """Flask-Babel's locale selector."""
    return api_lang() if _is_api() else page_lang()


def current_lang() -> str:
    """The language of the current request (a member of ``LANGS``)."""
    return _state()[2]


def remember_lang(response):
    """Set the language cookie when ``?lang=`` chose a language other than the cookie's; returns it."""
    if g.get("_quiz_lang_set_cookie"):
        response.set_cookie(LANG_COOKIE, g._quiz_lang, max_age=LANG_COOKIE_MAX_AGE, samesite="Lax",
                            httponly=False, secure=request.is_secure)
        g._quiz_lang_set_cookie = False
    return response


# --------------------------------------------------------------------------- page helpers

def other_langs() -> list[str]:
    """The languages the page's switch offers (all but the current one)."""
    lang = current_lang()
    return [code for code in LANGS if code != lang]


def switch_label(code: str) -> str:
    """The switch's tooltip, written in the target language ("Switch to English", in Chinese for zh)."""
    with force_locale(code):
        return gettext("Switch to %(language)s", language=NATIVE_NAMES[code])


def set_page_args(**args: Any) -> None:
    """Name the page actually shown when the request's query does not: a question page served at a variant
    drawn for this visit (a first visit, or "New variant" with ``?prev=``) names it as ``variant=N``, so that
    the language and colour links reopen that variant instead of drawing another one."""
    g._quiz_page_args = {key: str(value) for key, value in args.items()}


def page_args() -> dict[str, str]:
    """The query arguments naming the current page: those :func:`set_page_args` gave, else the request's."""
    chosen = g.get("_quiz_page_args")
    return dict(chosen) if chosen is not None else request.args.to_dict()


def page_path() -> str:
    """The current page's path and query as a link back to it (:func:`page_args` when they were set)."""
    if g.get("_quiz_page_args") is None or not request.endpoint:
        return request.full_path.rstrip("?")
    return url_for(request.endpoint, **(request.view_args or {}), **page_args())


def template_helpers() -> dict[str, Any]:
    return {"lang": current_lang(), "all_langs": LANGS, "other_langs": other_langs, "switch_label": switch_label,
            "native_name": NATIVE_NAMES.__getitem__, "html_lang": HTML_LANG.__getitem__}


_NO_REQUEST = NullTranslations()


def _state() -> tuple[Any, Any, str]:
    """(locale, catalog, language code) of the current request, found once per request and locale.

    A page asks for its language and calls gettext a hundred times or more; Flask-Babel finds the locale,
    its domain and the catalog again on each call (several context lookups and the locale's name each time).
    The locale is read where Flask-Babel keeps it for the request (``g._flask_babel.babel_locale``); when it
    is not there yet, :func:`flask_babel.get_locale` chooses it. ``force_locale`` sets a new locale object,
    so a block under it finds its own catalog, and the request's again after it."""
    if not has_app_context():
        return None, _NO_REQUEST, DEFAULT_LANG
    state = g._get_current_object()
    locale = getattr(getattr(state, "_flask_babel", None), "babel_locale", None) or get_locale()
    kept = getattr(state, "_quiz_translations", None)
    if kept is None or kept[0] is not locale:
        kept = state._quiz_translations = (locale, get_translations(), norm_lang(str(locale)) or DEFAULT_LANG)
    return kept


def _translations() -> Any:
    return _state()[1]


def gettext(msgid: str, **params: Any) -> str:
    """``msgid`` in the current locale, ``%``-formatted with ``params`` when there are any (Flask-Babel's
    ``gettext``, with the catalog found once per request: :func:`_state`)."""
    text_ = _state()[1].ugettext(msgid)
    return text_ % params if params else text_


@pass_context
def _template_gettext(context: Any, msgid: str, **variables: Any) -> str:
    """``_()`` and ``gettext()`` in templates: Jinja's new-style gettext (the translation made Markup under
    autoescape, then always ``%``-formatted, so that ``%%`` means the same with or without variables), in
    one call instead of the three layers of aliases Jinja's i18n extension goes through on each of the
    dozens of strings a page shows."""
    rv = _state()[1].ugettext(msgid)
    if context.eval_ctx.autoescape:
        rv = Markup(rv)
    return rv % variables


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT_LANG)
    babel.init_app(app, locale_selector=select_locale)
    # Flask-Babel's own callables, with the catalog looked up once per request (:func:`_translations`).
    app.jinja_env.install_gettext_callables(
        gettext=lambda s: _translations().ugettext(s),
        ngettext=lambda s, p, n: _translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: _translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: _translations().unpgettext(c, s, p, n))
    app.jinja_env.globals.update({"_": _template_gettext, "gettext": _template_gettext})
    app.context_processor(template_helpers)


__all__ = ["LANGS", "LANG_COOKIE", "Message", "N_", "api_lang", "current_lang", "force_locale", "gettext",
           "in_language", "init_app", "note_body_lang", "page_args", "page_lang", "page_path", "remember_lang",
           "set_page_args", "text"]
