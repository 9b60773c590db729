"""Routes of the ``web`` blueprint."""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from flask import jsonify, render_template, request, url_for
from markupsafe import Markup

from quizapp.httpkit.errors import envelope
from quizapp.httpkit.jsonapi import limit_small_bodies
from checkers.memo import Memo
from quizapp.config import RENDER_MAX_CHARS, RENDER_MAX_ITEMS, VIEW_CACHE_SIZE
from quizapp.httpkit.headers import set_security_headers
from quizapp.rendering import render_inline, render_markdown
from quizapp.unicode_text import encodable

from ..tags import tag_label
from ..ascii_int import parse_ascii_uint
from ..kind_assets import kind_scripts
from . import bp
from .. import page_data
from quizapp.i18n import gettext, page_args, set_page_args
from quizapp import inputhelp
from quizapp.study import policy
import checkers.bank as bank

from .i18n import LANGS, current_lang, js_strings, remember_lang, t
from quizapp.levels import LEVELS, level_label
from quizapp.page_view import page_from_public_view



# --------------------------------------------------------------------------- request hooks

@bp.before_request
def _pick_language() -> None:
    limit_small_bodies(frozenset())  # /render and any other body: at most SMALL_BODY_LIMIT
    current_lang()


@bp.after_request
def _security_headers(response):
    set_security_headers(response)
    remember_lang(response)
    if response.mimetype == "text/html":
        response.headers.setdefault("Cache-Control", "no-store")
    return response


@bp.context_processor
def _template_helpers() -> dict[str, Any]:
    return {"t": t, "lang_switch_url": _lang_switch_url, "level_label": level_label}


def _lang_switch_url(code: str) -> str:
    args = page_args()  # a variant drawn for this visit is kept (quizapp.i18n.set_page_args)
    args["lang"] = code
    endpoint = request.endpoint or "web.home"
    if not endpoint.startswith("web.") or endpoint == "web.static":
        endpoint = "web.home"
    return url_for(endpoint, **(request.view_args or {}), **args)


# --------------------------------------------------------------------------- home

def _title(question: dict[str, Any], lang: str) -> str:
    title = question.get("title")
    if isinstance(title, dict):
        return title.get(lang) or title.get("en") or next(iter(title.values()), "") or question["id"]
    return title or question["id"]


def _result_summary(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if not result:
        return None
    try:
        score = float(result.get("score"))
        max_score = float(result.get("max_score"))
    except (TypeError, ValueError):
        return None
    if max_score > 0 and score >= max_score - 1e-9:
        grade = "full"
    elif score > 0:
        grade = "partial"
    else:
        grade = "zero"
    return {"score": _fmt_num(score), "max_score": _fmt_num(max_score), "grade": grade}


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}".rstrip("0").rstrip(".")


@bp.get("/")
def home():
    lang = current_lang()
    level = request.args.get("level") or None
    tag = request.args.get("tag") or None
    if level not in LEVELS:
        level = None
    questions = page_data.list_questions()  # in list order: level, tutorial ref, id
    results = page_data.last_results()

    all_tags = sorted({tg for q in questions for tg in q.get("tags") or []})
    groups = []
    shown = 0
    for lvl in LEVELS:
        if level and lvl != level:
            continue
        items = []
        for q in questions:
            if q.get("level") != lvl or (tag and tag not in (q.get("tags") or [])):
                continue
            items.append({
                "id": q["id"],
                "ref": q.get("ref"),
                "title": render_inline(_title(q, lang)),
                "tags": list(q.get("tags") or []),
                "result": _result_summary(results.get(q["id"])),
            })
        shown += len(items)
        groups.append({"level": lvl, "label": level_label(lvl), "questions": items})
    return render_template(
        "web/home.html", lang=lang, groups=groups, all_tags=all_tags, level=level, tag=tag, levels=LEVELS,
        shown=shown,
    )


# --------------------------------------------------------------------------- question page

#: Rendered question pages by (question, version, seed, language): variants are deterministic, and
#: Markdown/MathML rendering is the expensive part of a page.
_VIEW_MEMO = Memo(VIEW_CACHE_SIZE)


def _bank():
    return bank


def _question_key(row: dict[str, Any]) -> str:
    for key in ("content_hash", "version_id", "version"):
        if row.get(key) is not None:
            return f"{key}:{row[key]}"
    blob = json.dumps(row.get("data"), sort_keys=True, default=str).encode()
    return "sha:" + hashlib.sha256(blob).hexdigest()


def _page_view(row: dict[str, Any], seed: int, lang: str) -> dict[str, Any]:
    """The learner's view of one variant with its Markdown rendered; cached (variants are deterministic)."""
    key = (row["id"], _question_key(row), seed, lang)
    return _VIEW_MEMO.get(key, lambda: page_from_public_view(_bank().public_view(row["data"], seed, lang)))


#: The learner-independent body of a question page (web/_question_body.html) by the same key, plus what
#: else it shows: the address prefix of its links and the names of its tags (the curated list can change).
_BODY_MEMO = Memo(VIEW_CACHE_SIZE)


def _body(row: dict[str, Any], page: dict[str, Any], seed: int, lang: str) -> Markup:
    """The page body every learner sees alike on this variant: Jinja renders it once per key, not per page
    (the widgets of the parts and the cheat sheet are most of a page's rendering)."""
    tags = tuple(tag_label(tg, lang) for tg in page.get("tags") or ())
    key = (row["id"], _question_key(row), seed, lang, request.script_root, tags)
    return _BODY_MEMO.get(key, lambda: Markup(render_template(
        "web/_question_body.html", lang=lang, q=page, variant=seed, cheat_sheet=inputhelp.cheat_sheet())))


def _parse_variant(raw: str | None, vmax: int) -> int | None:
    value = parse_ascii_uint(raw)
    return value if value is not None and value < vmax else None


@bp.get("/questions/<qid>")
def question(qid: str):
    lang = current_lang()
    row = page_data.get_question(qid)
    if row is None:
        return _not_found()
    vmax = int(_bank().VARIANT_MAX)
    seed = _parse_variant(request.args.get("variant"), vmax)
    address = None
    if seed is None:
        # A first visit, "New variant" (``prev``: any variant but that one) or a variant out of range is
        # served at once at a fresh random variant, and the page's script writes that variant's address into
        # the address bar, so that a reload or a shared link keeps these numbers. (A redirect to it cost one
        # more round trip on every question opened.)
        prev = _parse_variant(request.args.get("prev"), vmax)
        seed = secrets.randbelow(vmax)
        while seed == prev:
            seed = secrets.randbelow(vmax)
        address = url_for("web.question", qid=qid, variant=seed)
        set_page_args(variant=seed)  # the header's language and colour links reopen this variant
    page = _page_view(row, seed, lang)
    page = dict(page, tries=policy.tries_allowed(row["data"]))
    config = {
        "qid": qid,
        "variant": seed,
        "lang": lang,
        "api": "/api/v1",
        "render": url_for("web.render"),
        "i18n": js_strings(lang),
        "address": address,
    }
    # the page's script loads the scripts of the kinds it shows (checkers/kinds/<kind>/kind.js)
    config["kind_scripts"] = kind_scripts(p["kind"] for p in page["parts"])
    # ... and the page-wide helpers (a keyboard stop on boxes that scroll sideways), so the page keeps one tag
    config["page_scripts"] = [url_for("web.static", filename="scroll.js")]
    # A variant drawn for this visit is rendered in place: kept, the one-off variants of first visits would
    # push the variants learners come back to out of the bounded memo.
    body = _body(row, page, seed, lang) if address is None else None
    return render_template("web/question.html", lang=lang, q=page, variant=seed, config=config, body=body,
                           cheat_sheet=inputhelp.cheat_sheet())


# --------------------------------------------------------------------------- rendering for the script

@bp.post("/render")
def render():
    """``{"items": [markdown, ...]}`` -> ``{"html": [sanitised html, ...]}`` (feedback and solutions)."""
    body = request.get_json(silent=True)
    items = body.get("items") if isinstance(body, dict) else None
    if not isinstance(items, list) or len(items) > RENDER_MAX_ITEMS:
        return envelope(422, "invalid_field", gettext("items must be a list of strings"), "items")
    total = 0
    out = []
    for i, item in enumerate(items):
        text = item if isinstance(item, str) else ("" if item is None else str(item))
        if not encodable(text):
            message = gettext("items must be valid Unicode text")
            return envelope(422, "invalid_field", message, f"items[{i}]")
        total += len(text)
        if total > RENDER_MAX_CHARS:
            message = gettext("too much text to render")
            return envelope(413, "payload_too_large", message, "items")
        out.append(str(render_markdown(text)))
    return jsonify({"html": out})


# --------------------------------------------------------------------------- errors

def _not_found():
    return render_template("web/404.html", lang=current_lang()), 404


@bp.errorhandler(404)
def _handle_404(_err):
    return _not_found()


__all__ = ["LANGS"]
