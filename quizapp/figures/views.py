"""Routes and template helper of the ``figures`` blueprint."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, abort, request, url_for
from markupsafe import Markup
from checkers.bank import VARIANT_MAX, params_for

from ..ascii_int import parse_ascii_uint
from ..i18n import current_lang
from ..httpkit import pagekit
from .catalog import FIGURES, Figure
from .svg import render
from .. import page_data

bp = Blueprint("figures", __name__, template_folder="../templates")
pagekit.install(bp)

_CACHE: OrderedDict[tuple, tuple[Figure, str]] = OrderedDict()
_CACHE_MAX = 256
_LOCK = threading.Lock()


def _figure(qid: str, variant: int) -> tuple[Figure, str] | None:
    """(figure, svg) of the published question ``qid`` at ``variant``; None without a figure or question."""
    if qid not in FIGURES:
        return None
    if not 0 <= variant < VARIANT_MAX:
        return None
    row = page_data.get_question(qid)
    if row is None:
        return None
    key = (qid, row.get("content_hash"), variant, current_lang())
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    figure = FIGURES[qid](params_for(row["data"], variant))
    out = (figure, render(figure.chart))
    with _LOCK:
        _CACHE[key] = out
        while len(_CACHE) > _CACHE_MAX:
            _CACHE.popitem(last=False)
    return out


@bp.get("/questions/<qid>/figure.svg")
def figure_svg(qid: str):
    variant = parse_ascii_uint(request.args.get("variant"), max_digits=7)
    if variant is None:
        abort(404)
    found = _figure(qid, variant)
    if found is None:
        abort(404)
    resp = Response(found[1], mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "private, max-age=3600"
    return resp


@bp.app_context_processor
def _helpers() -> dict[str, Any]:
    def figure_for(qid: str, variant: int) -> dict[str, Any] | None:
        if qid not in FIGURES or not isinstance(variant, int):
            return None
        found = _figure(qid, variant)
        if found is None:
            return None
        figure = found[0]
        return {"url": url_for("figures.figure_svg", qid=qid, variant=variant, lang=current_lang()),
                # drawn inline, so that quiz.css colours it in the page's scheme (its text is escaped)
                "svg": Markup(render(figure.chart, label=figure.alt)),
                "alt": figure.alt, "title": figure.chart.title, "summary": figure.chart.description,
                "columns": figure.columns, "rows": figure.rows}
    return {"figure_for": figure_for}
