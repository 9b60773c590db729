"""Routes of the ``discover`` blueprint."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request, session, url_for

from ..httpkit.jsonapi import ok, request_lang
from ..storage.db import get_session
from ..errors import ValidationError
from ..httpkit.openapi import contribute
from ..i18n import current_lang, gettext as _
from ..learners import current_learner_id
from ..httpkit import pagekit
from . import openapi, walk, why
from ..tags import tag_label, tag_names
from ..levels import level_label
from ..rendering import render_inline

bp = Blueprint("discover", __name__, template_folder="../templates")
contribute(bp, openapi.fragment)
pagekit.install(bp)
# ``{{ title|inline_maths }}``: a question title (Markdown with $maths$) as every list shows it -- MathML with
# its spoken words, as on the question page -- never the raw LaTeX
bp.add_app_template_filter(render_inline, "inline_maths")

SESSION_KEY = "discover_filter"


def _title(row: dict[str, Any], lang: str) -> str:
    title = row.get("title") or {}
    return (title.get(lang) or title.get("en") or row["id"]) if isinstance(title, dict) else str(title)


def _item(row: dict[str, Any], lang: str) -> dict[str, Any]:
    return {"id": row["id"], "ref": row.get("ref"), "level": row.get("level"), "title": _title(row, lang),
            "tags": list(row.get("tags") or []), "status": row["status"]}


@bp.app_context_processor
def _tag_helpers() -> dict[str, Any]:
    """``tag_name(tag)`` for every page: a tag's name in the page's language."""
    return {"tag_name": lambda tag: tag_label(tag, current_lang()), "status_name": _status_name,
            "level_name": _level_name}


def _status_name(status: str) -> str:
    return {"new": _("New"), "wrong": _("Answered wrong"), "mastered": _("Mastered")}.get(status, status)


def _level_name(level: str | None) -> str:
    return level_label(level) if level else ""


@bp.get("/api/v1/search")
def api_search():
    """Questions matching a full-text query and filters, in walk order, with the caller's status."""
    tags = tag_names()
    flt = walk.parse_filter(request.args, tags)
    request_lang()  # a ?lang= outside the documented codes is a 422 naming it
    lang = current_lang()
    rows = walk.matching(get_session(), flt, current_learner_id(), tags)
    return ok({"questions": [_with_why(_item(r, lang), r, flt, tags) for r in rows], "total": len(rows),
               "filter": flt})


def _with_why(item: dict[str, Any], row: dict[str, Any], flt: dict[str, str],
              tags: dict[str, Any]) -> dict[str, Any]:
    """With a query: ``matched``, the fields that hold its terms (title, prompt, topic, id)."""
    if not flt.get("q"):
        return item
    return {**item, "matched": why.matched_fields(row.get("data") or {}, flt["q"], tags)}


@bp.get("/find")
def find():
    tags = tag_names()
    lang = current_lang()
    error = None
    try:
        flt = walk.parse_filter(request.args, tags)
    except ValidationError as exc:
        error, flt = exc, {}
    rows = walk.matching(get_session(), flt, current_learner_id(), tags)
    session[SESSION_KEY] = flt
    return (render_template("discover/find.html", lang=lang, flt=flt, error=error, tags=tags,
                           levels=walk.LEVELS, statuses=walk.STATUSES,
                           items=[_shown(_with_why(_item(r, lang), r, flt, tags), lang) for r in rows]),
                           (422 if error else 200))


def _shown(item: dict[str, Any], lang: str) -> dict[str, Any]:
    """A result as the page shows it: its title's ``$maths$`` drawn as MathML, like the question page."""
    return {**item, "title_html": render_inline(item["title"], lang)}


def _session_filter() -> dict[str, str]:
    try:
        return walk.parse_filter(session.get(SESSION_KEY) or {}, tag_names())
    except ValidationError:  # a tag list changed under an old cookie: walk the whole bank
        return {}


def _go(row: dict[str, Any] | None):
    if row is None:
        return redirect(url_for("discover.find", **_session_filter()), code=303)
    return redirect(url_for("web.question", qid=row["id"]), code=303)


@bp.get("/walk/<direction>")
def walk_step(direction: str):
    """Next, previous or a random question of the filter last used on the find page."""
    if direction not in ("next", "prev", "random"):
        return redirect(url_for("discover.find"), code=303)
    current = request.args.get("from")
    rows = walk.matching(get_session(), _session_filter(), current_learner_id(), tag_names())
    if direction == "random":
        return _go(walk.pick_random(rows, current))
    return _go(walk.neighbour(rows, current, 1 if direction == "next" else -1))


@bp.get("/continue")
def continue_():
    """Back to the question last worked on at the same variant (or the next one not mastered); without
    any attempt, or with everything mastered, a page that says so instead of silently opening a question."""
    place = walk.continue_place(get_session(), current_learner_id())
    if place.reason in ("latest", "next"):
        args = {"variant": place.variant} if place.variant is not None else {}
        return redirect(url_for("web.question", qid=place.qid, **args), code=303)
    return render_template("discover/continue.html", lang=current_lang(), place=place)


@bp.app_context_processor
def _walk_helpers() -> dict[str, Any]:
    """``walk_filter()``: the filter the walk links on a question page follow (empty: the whole bank)."""
    return {"walk_filter": _session_filter}
