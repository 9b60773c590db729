"""Markdown + maths -> safe HTML for authored content (prompts, feedback, solutions).

Pipeline: markdown-it-py (CommonMark + tables + strikethrough) with the mdit-py-plugins ``dollarmath``
plugin for ``$...$`` / ``$$...$$``; every maths span is converted on the server to MathML by latex2mathml
(offline: no CDN, no JavaScript renderer), and the whole fragment then goes through nh3 (ammonia) with an
allow-list of plain formatting tags and presentation-MathML elements. Scripts, event handlers, ``style``,
iframes, forms, SVG, ``javascript:``/``data:`` URLs, ``id``/``name`` (DOM clobbering), MathML ``href``,
``maction`` and ``annotation-xml`` never survive, whatever the author writes: authored content cannot run a
script in a learner's browser. Pages also send ``Content-Security-Policy: default-src 'self'``.

Every formula carries its spoken form for screen readers (:mod:`checkers.mathparse.spoken`): a visually
hidden ``<span class="sr-only">`` in the reader's language (the request's, or ``lang=``) before the MathML,
which sits in an ``aria-hidden`` span -- the page draws the same MathML as before, and a reader that cannot read
MathML still gets the formula.

Public functions return :class:`markupsafe.Markup` so Jinja does not escape them a second time.
"""

from __future__ import annotations

import contextvars
import html
import re
from functools import lru_cache

import latex2mathml.converter
from flask import has_request_context
import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup
from mdit_py_plugins.dollarmath import dollarmath_plugin

from checkers.languages import DEFAULT_LANG, LANGS
from checkers.mathparse.spoken import speak_mathml

from .i18n import current_lang
from .math_breaks import split_inline_mathml
from .math_signs import mark_prefix_signs

__all__ = [
    "render_markdown",
    "render_inline",
    "render_math",
    "plain_text",
    "sanitize_html",
    "ALLOWED_TAGS",
    "MATHML_TAGS",
]

MAX_SOURCE_CHARS = 100_000   # longer input is cut: rendering stays cheap whatever is stored
MAX_MATH_CHARS = 4_000       # one maths span

# Presentation MathML (no maction, no annotation-xml, no mglyph: those can carry links or foreign HTML).
MATHML_TAGS = frozenset({
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub",
    "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mlabeledtr",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "mfenced", "mmultiscripts", "mprescripts", "none",
})

HTML_TAGS = frozenset({
    "p", "br", "hr", "em", "strong", "b", "i", "u", "s", "del", "ins", "sub", "sup", "small", "mark", "kbd",
    "code", "pre", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "a", "img", "span", "div", "details",
    "summary", "abbr", "q", "cite", "wbr",
})

ALLOWED_TAGS = HTML_TAGS | MATHML_TAGS

_MATHML_ATTRS = {
    "math": {"display", "xmlns", "alttext"},
    "mo": {"stretchy", "fence", "separator", "lspace", "rspace", "form", "largeop", "movablelimits",
           "accent", "symmetric", "minsize", "maxsize"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    "mfrac": {"linethickness", "bevelled"},
    "mspace": {"width", "height", "depth", "linebreak"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mtable": {"columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame",
               "displaystyle", "align", "equalrows", "equalcolumns"},
    "mtr": {"columnalign", "rowalign"},
    "mtd": {"columnalign", "rowalign", "columnspan", "rowspan"},
    "mstyle": {"displaystyle", "scriptlevel", "mathcolor", "mathbackground", "mathsize"},
    "menclose": {"notation"},
    "mfenced": {"open", "close", "separators"},
    "annotation": {"encoding"},
}
_TOKEN_ATTRS = {"mathvariant", "mathsize", "mathcolor"}   # on mi, mn, mo, ms, mtext
for _tag in ("mi", "mn", "mo", "ms", "mtext"):
    _MATHML_ATTRS[_tag] = set(_MATHML_ATTRS.get(_tag, set())) | _TOKEN_ATTRS

ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan", "scope"},
    "ol": {"start"},
    "abbr": {"title"},
    "span": {"aria-hidden"},  # the drawn MathML of a formula whose words precede it
    **_MATHML_ATTRS,
}

ALLOWED_CLASSES = {
    "span": {"math", "inline", "display", "math-error", "sr-only"},
    "div": {"math", "block", "display"},
    "code": {"math-error"},
}

URL_SCHEMES = {"http", "https", "mailto"}

# Attribute values are checked again by value: a MathML length or colour is a short plain token.
_SAFE_TOKEN = re.compile(r"^[#A-Za-z0-9.%+\- ]{0,64}$")
_FREE_TEXT_ATTRS = {"title", "alt", "alttext", "href", "src"}   # nh3 checks URL schemes itself


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    if tag == "math" and attr == "xmlns":
        return value if value == "http://www.w3.org/1998/Math/MathML" else None
    if attr in _FREE_TEXT_ATTRS:
        return value
    if attr == "aria-hidden":
        return value if value == "true" else None
    if attr == "encoding":
        return value if value in {"TeX", "application/x-tex"} else None
    if tag in MATHML_TAGS or tag in {"td", "th", "ol", "img"}:
        return value if _SAFE_TOKEN.match(value) else None
    return value


def sanitize_html(fragment: str) -> str:
    """Clean an HTML fragment with the allow-list (also used for MathML coming from elsewhere)."""
    return nh3.clean(
        fragment,
        tags=set(ALLOWED_TAGS),
        clean_content_tags={"script", "style", "iframe", "object", "embed", "noscript", "template", "svg",
                            "textarea", "select", "title", "xmp", "noembed", "noframes", "plaintext"},
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        url_schemes=URL_SCHEMES,
        allowed_classes=ALLOWED_CLASSES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


#: The language of the spoken forms while one text renders (the Markdown plugin's callback has no argument
#: for it); a context variable, so concurrent requests in threads do not mix languages.
_LANG: contextvars.ContextVar[str] = contextvars.ContextVar("render_lang", default=DEFAULT_LANG)


def _math_to_html(latex: str, display: bool) -> str:
    latex = latex.strip()
    if len(latex) > MAX_MATH_CHARS:
        latex = latex[:MAX_MATH_CHARS]
    try:
        mathml = latex2mathml.converter.convert(latex, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any converter failure shows the source as code, never a 500
        return f'<code class="math-error">{html.escape(latex)}</code>'
    spoken = speak_mathml(mathml).get(_LANG.get()) or _latex_to_plain(latex)
    # the words for screen readers, then the drawing, hidden from them; a sign is drawn as one, not spaced as a
    # binary minus (quizapp/math_signs.py); an inline formula is drawn in pieces a line may break between
    # (quizapp/math_breaks.py), a display formula scrolls in its own box
    mathml = mark_prefix_signs(mathml)
    drawing = mathml if display else "".join(split_inline_mathml(mathml))
    return f'<span class="sr-only">{html.escape(spoken)}</span><span aria-hidden="true">{drawing}</span>'


def _lang(lang) -> str:
    """``lang`` when it is a supported language, else the current request's, else the default."""
    if lang in LANGS:
        return lang
    if has_request_context():
        return current_lang()
    return DEFAULT_LANG


def _in_lang(lang: str, fn, *args):
    token = _LANG.set(lang)
    try:
        return fn(*args)
    finally:
        _LANG.reset(token)


def _dollar_renderer(content: str, options: dict) -> str:
    return _math_to_html(content, bool(options.get("display_mode")))


#: Inline code at least this long may break a line after ``_ . / = ,`` (``<wbr>``), so that a long identifier
#: such as ``compute_rollout_importance_weights`` wraps between its words on a phone, never inside one.
CODE_BREAK_MIN_CHARS = 20
_CODE_BREAK = re.compile(r"(?<=[_./=,])(?=[^_./=,])")


def _code_inline(self, tokens, idx, options, env) -> str:
    text = tokens[idx].content
    if len(text) < CODE_BREAK_MIN_CHARS:
        return f"<code>{html.escape(text, quote=False)}</code>"
    return "<code>" + "<wbr>".join(html.escape(p, quote=False) for p in _CODE_BREAK.split(text)) + "</code>"


def _build_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    dollarmath_plugin(
        md,
        allow_labels=False,
        allow_space=True,
        allow_digits=False,       # "$5 and $6" stays money
        allow_blank_lines=False,
        double_inline=True,
        renderer=_dollar_renderer,
    )

    # $$...$$ inside a paragraph: a span (a div inside <p> would break the paragraph apart).
    def _inline_double(self, tokens, idx, options, env):
        return f'<span class="math display">{_math_to_html(tokens[idx].content, True)}</span>'

    md.add_render_rule("math_inline_double", _inline_double)
    md.add_render_rule("code_inline", _code_inline)
    return md


_MD = _build_parser()


def _clip(text) -> str:
    if text is None:
        return ""
    text = str(text)
    return text[:MAX_SOURCE_CHARS]


@lru_cache(maxsize=4096)
def _render_block(text: str, lang: str = DEFAULT_LANG) -> str:
    return sanitize_html(_in_lang(lang, _MD.render, text))


@lru_cache(maxsize=4096)
def _render_inline(text: str, lang: str = DEFAULT_LANG) -> str:
    out = sanitize_html(_in_lang(lang, _MD.render, text)).strip()
    # A single paragraph loses its <p> wrapper so it can sit inside a heading, label or list item.
    if out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
        out = out[3:-4]
    return out


def render_markdown(text, lang: str | None = None) -> Markup:
    """Markdown with ``$maths$`` -> sanitised HTML (block level); formulas spoken in ``lang``."""
    return Markup(_render_block(_clip(text), _lang(lang)))


def render_inline(text, lang: str | None = None) -> Markup:
    """Like :func:`render_markdown` but without the paragraph wrapper for one-line text (titles, options)."""
    return Markup(_render_inline(_clip(text), _lang(lang)))


@lru_cache(maxsize=2048)
def _render_math(latex: str, display: bool, lang: str = DEFAULT_LANG) -> str:
    return sanitize_html(_in_lang(lang, _math_to_html, latex, display))


def render_math(latex, display: bool = False, lang: str | None = None) -> Markup:
    """One LaTeX expression -> sanitised MathML, with its spoken form in ``lang``."""
    return Markup(_render_math(_clip(latex), bool(display), _lang(lang)))


_GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
    ("varepsilon", 0x3B5), ("eta", 0x3B7), ("theta", 0x3B8), ("lambda", 0x3BB), ("mu", 0x3BC),
    ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("phi", 0x3C6), ("chi", 0x3C7),
    ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398), ("Lambda", 0x39B),
    ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Omega", 0x3A9))}
_SYMBOLS = {"cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
            "to": "→", "infty": "∞", "sum": "Σ", "approx": "≈", "|": "‖", "mid": "|", "propto": "∝"}
_WRAPPERS = re.compile(r"\\(?:text|mathrm|mathbf|mathit|operatorname|mathbb)\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+|\|)")


def _latex_to_plain(latex: str) -> str:
    out = _WRAPPERS.sub(r"\1", latex)
    out = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", out)  # x_{ref} -> x_ref, so \frac's groups are flat
    out = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"\1/\2", out)
    out = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", out)
    out = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)\b", "", out)
    out = re.sub(r"\\[,;:! ]", " ", out)
    out = _COMMAND.sub(lambda m: _GREEK.get(m.group(1)) or _SYMBOLS.get(m.group(1)) or m.group(1), out)
    return re.sub(r"\s+", " ", out.replace("{", "").replace("}", "")).strip()


def plain_text(text) -> str:
    """One line of authored Markdown as plain text (a page's ``<title>``, where markup cannot go):
    ``$\\pi_{\\text{ref}}$`` becomes ``π_ref``; emphasis and code marks are dropped."""
    source = _clip(text)
    source = re.sub(r"\$\$?(.+?)\$?\$", lambda m: _latex_to_plain(m.group(1)), source)
    return re.sub(r"[*`]+", "", source).strip()
