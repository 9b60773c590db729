"""Routes of the ``mock`` blueprint: set-up, one question at a time, the report."""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from checkers.bank import VARIANT_MAX, public_view, solution_view
from checkers.kinds import find_kind

from ..ascii_int import parse_ascii_uint
from ..storage.db import get_session
from ..errors import ServiceError
from ..i18n import current_lang, gettext as _
from ..learners import current_learner_id
from .. import attempt_view
from ..httpkit import pagekit
from ..services import attempts, questions
from . import draw, store, timing
from ..tags import tag_names
from ..rendering import render_markdown
from .. import page_data
from ..page_view import page_from_public_view
from ..levels import LEVELS

bp = Blueprint("mock", __name__, template_folder="../templates")
pagekit.install(bp)

def _now() -> float:
    """The server's clock: ``MOCK_CLOCK`` in the app config when set (tests advance it by hand)."""
    return float((current_app.config.get("MOCK_CLOCK") or time.time)())


def _grace() -> float:
    return float(current_app.config["MOCK_GRACE_SECONDS"])


def _tags() -> dict[str, dict[str, str]]:
    return tag_names()


def _state() -> dict[str, Any] | None:
    return store.load()


def _save(state: dict[str, Any]) -> None:
    store.save(state)


def _row(qid: str) -> dict[str, Any] | None:
    return page_data.get_question(qid)


def _next_open(state: dict[str, Any]) -> int | None:
    for i, item in enumerate(state["items"]):
        if item.get("attempt") is None and not item.get("skipped"):
            return i + 1
    return None


def _setup(error: str | None = None, status: int = 200, chosen: dict[str, Any] | None = None):
    return render_template("mock/setup.html", lang=current_lang(), levels=LEVELS, tags=_tags(),
                           lengths=draw.LENGTHS, error=error, chosen=chosen or {}, state=_state()), status


@bp.get("/mock")
def setup():
    return _setup()


@bp.post("/mock")
def start():
    levels = [v for v in request.form.getlist("level") if v]
    tags = [v for v in request.form.getlist("tag") if v]
    chosen = {"levels": levels, "tags": tags, "length": request.form.get("length")}
    if any(v not in LEVELS for v in levels):
        return _setup(_("Pick levels from the list."), 422, chosen)
    if any(v not in _tags() for v in tags):
        return _setup(_("Pick topics from the list."), 422, chosen)
    length = parse_ascii_uint(request.form.get("length"), max_digits=3)
    if length is None or length not in draw.LENGTHS:
        return _setup(_("Pick a length from the list."), 422, chosen)
    rows = draw.eligible(questions.list_questions(get_session()), levels, tags)
    items = draw.draw(rows, length, int(VARIANT_MAX))
    if not items:
        return _setup(_("No questions match these levels and topics."), 422, chosen)
    by_level = current_app.config["MOCK_SECONDS_BY_LEVEL"]
    for item in items:
        row = next(r for r in rows if r["id"] == item["qid"])
        item["max"] = sum(float(p.get("weight", 1)) for p in row["data"].get("parts") or [])
        item["limit"] = timing.budget_seconds(row.get("level"), by_level)
    store.start({"items": items})
    return redirect(url_for("mock.question", n=1), code=303)


def _page(state: dict[str, Any], n: int, error: str | None = None, status: int = 200):
    item = state["items"][n - 1]
    row = _row(item["qid"])
    if row is None:  # retired since the draw: it counts as skipped
        item["skipped"] = True
        _save(state)
        return redirect(url_for("mock.question", n=n + 1) if n < len(state["items"]) else url_for("mock.report"),
                        code=303)
    page = page_from_public_view(public_view(row["data"], item["variant"], current_lang()))
    limit = int(item.get("limit") or 0)
    return render_template("mock/question.html", lang=current_lang(), q=page, n=n, total=len(state["items"]),
                           error=error, answers=request.form if error else {}, limit=limit,
                           remaining=timing.remaining_seconds(item, _now()) if limit else None), status


@bp.get("/mock/<int:n>")
def question(n: int):
    state = _state()
    if state is None:
        return redirect(url_for("mock.setup"), code=303)
    if n != _next_open(state):  # one question at a time, in order; answered ones stay closed
        target = _next_open(state)
        return redirect(url_for("mock.question", n=target) if target else url_for("mock.report"), code=303)
    item = state["items"][n - 1]
    if item.get("started") is None:  # the question's clock starts when the server first shows it
        item["started"] = _now()
        _save(state)
    return _page(state, n)


def _answers(parts: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in parts:
        pid = part["id"]
        kind = find_kind(part.get("kind"))
        values = request.form.getlist(f"a-{pid}")
        # the kind reads its own fields (check boxes send several values); an unknown kind, the first
        out[pid] = kind.form_answer(values, part) if kind is not None else (values[0] if values else "")
    return out


@bp.post("/mock/<int:n>")
def answer(n: int):
    state = _state()
    if state is None or n != _next_open(state):
        return redirect(url_for("mock.setup"), code=303)
    item = state["items"][n - 1]
    if item.get("started") is None:  # answered without the page ever being shown: no time was used
        item["started"] = _now()
    if request.form.get("skip"):
        item["skipped"] = True
    else:
        row = _row(item["qid"])
        if row is None:
            return redirect(url_for("mock.question", n=n), code=303)
        try:
            result = attempts.submit_attempt(get_session(), item["qid"], item["variant"],
                                             _answers(row["data"].get("parts") or []), current_learner_id(),
                                             current_lang())
        except ServiceError as exc:  # a malformed answer: the same question again, with the message
            return _page(state, n, str(getattr(exc, "message", exc)), 422)
        item.update(attempt=result["attempt_id"], score=result["score"], max=result["max_score"])
    timing.close(item, _now(), _grace())
    _save(state)
    nxt = _next_open(state)
    return redirect(url_for("mock.question", n=nxt) if nxt else url_for("mock.report"), code=303)


@bp.post("/mock/finish")
def finish():
    state = _state()
    if state is not None:
        now = _now()
        for item in state["items"]:
            if item.get("attempt") is None:
                item["skipped"] = True
                if item.get("started") is not None and item.get("seconds") is None:  # the one on screen
                    timing.close(item, now, _grace())
        _save(state)
    return redirect(url_for("mock.report"), code=303)


@bp.get("/mock/report")
def report():
    state = _state()
    if state is None:
        return redirect(url_for("mock.setup"), code=303)
    if _next_open(state) is not None:  # solutions are held back until every question is answered or skipped
        return redirect(url_for("mock.question", n=_next_open(state)), code=303)
    lang = current_lang()
    rows = []
    for item in state["items"]:
        row = _row(item["qid"])
        title = (row["title"].get(lang) or row["title"].get("en") or row["id"]) if row else item["qid"]
        sol = solution_view(row["data"], item["variant"], lang) if row else {}
        rows.append({**item, "title": title, "worked_html": render_markdown(sol.get("worked") or ""),
                     "key_points_html": [render_markdown(k) for k in sol.get("key_points") or []],
                     "view": _attempt(item.get("attempt"), lang)})
    return render_template("mock/report.html", lang=lang, items=rows, summary=draw.report(state["items"]))


def _attempt(attempt_id: str | None, lang: str) -> dict[str, Any] | None:
    """The answers given to one item of the interview and each part's verdict (as History shows an attempt,
    :mod:`quizapp.attempt_view`); None for a skipped item."""
    if not attempt_id:
        return None
    try:
        return attempt_view.attempt_page(get_session(), attempt_id, current_learner_id(), lang)
    except ServiceError:  # an attempt since deleted with its account: the report keeps its score only
        return None
