"""The learner's pages: History (``/history``), Progress (``/progress``) and Review (``/review``), and the
block of previous attempts that each question page shows (``learner/_question_memory.html``)."""

from __future__ import annotations

import secrets
from typing import Any
from datetime import date

from flask import Blueprint, redirect, render_template, request, url_for
from ..i18n import gettext as _
from checkers.bank import VARIANT_MAX

from ..storage.db import get_session
from ..httpkit.csrf import csrf_token
from ..errors import ServiceError
from ..learners import current_learner_id, learner_is_new
from .. import attempt_view
from . import charts, history, progress as progress_service
from ..httpkit import pagekit
from ..study import review
from .timetext import time_tag
from .. import page_data
from ..auth.identity import setup
from ..i18n import current_lang
from ..tags import tag_label

bp = Blueprint("learning", __name__, template_folder="../templates")
pagekit.install(bp)
bp.add_app_template_filter(time_tag, "local_time")  # every page's timestamps (static/localtime.js)


def _setup(state) -> None:
    setup(state.app)


bp.record_once(_setup)


def _fmt(x: float | None) -> str:
    if x is None:
        return "–"
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}".rstrip("0").rstrip(".")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{round(x * 100)}%"


@bp.app_context_processor
def _question_memory() -> dict[str, Any]:
    """``learner_memory(qid)`` for the question page: previous attempts, best and last score."""
    def learner_memory(qid: str) -> dict[str, Any]:
        learner = None if learner_is_new() else current_learner_id()  # a first visit has no history to read
        return history.question_summary(get_session(), learner, qid)

    def review_due(qid: str) -> bool:
        """Whether the learner's card of ``qid`` is due now (the page in review mode then offers a rating)."""
        return not learner_is_new() and review.is_due(get_session(), current_learner_id(), qid)

    return {"learner_memory": learner_memory, "fmt_score": _fmt, "review_due": review_due,
            "memory_csrf_token": csrf_token}


@bp.get("/history")
def history_page():
    lang = _lang()
    args = request.args
    error = None
    try:
        page = history.list_attempts(get_session(), current_learner_id(), lang=lang,
                                     question=args.get("question") or None, level=args.get("level") or None,
                                     tag=args.get("tag") or None, status=args.get("status") or None,
                                     since=args.get("since") or None, cursor=args.get("cursor") or None,
                                     limit=history.DEFAULT_LIMIT)
    except ServiceError as exc:
        page, error = {"attempts": [], "next_cursor": None}, exc
    filters = {k: args.get(k) or "" for k in ("question", "level", "tag", "status", "since")}
    next_url = (url_for("learning.history_page", **{k: v for k, v in filters.items() if v},
                        cursor=page["next_cursor"]) if page["next_cursor"] else None)
    return render_template("learner/history.html", page=page, filters=filters, error=error, next_url=next_url,
                           levels=history.LEVELS, statuses=history.STATUSES, fmt=_fmt), (422 if error else 200)


@bp.get("/history/<attempt_id>")
def attempt_page(attempt_id: str):
    """One of the learner's own attempts: the question at its variant, the answers given and the verdicts
    (404 for anyone else's attempt or an unknown id)."""
    try:
        view = attempt_view.attempt_page(get_session(), attempt_id, current_learner_id(), _lang())
    except ServiceError:
        return render_template("web/404.html", lang=_lang()), 404
    return render_template("learner/attempt.html", view=view, fmt=_fmt)


@bp.get("/questions/<qid>/memory")
def question_memory(qid: str):
    """The block "Your previous attempts" of ``qid``'s page alone, as it stands now: static/memory.js puts it
    in place after each answer, so the page need not be reloaded (``review=1`` as on the page)."""
    row = page_data.get_question(qid)
    if row is None:
        return render_template("web/404.html", lang=_lang()), 404
    q = {"id": qid, "parts": [{"kind": p.get("kind")} for p in row["data"].get("parts") or []]}
    return render_template("learner/_memory_section.html", q=q)


@bp.get("/progress")
def progress_page():
    data = progress_service.progress(get_session(), current_learner_id())
    today = date.fromisoformat(data["today"])
    lang = current_lang()
    names = {tg: tag_label(tg, lang) for tg in data["tags"]}  # topics by their names (tags.yml), not slugs
    pictures = {
        "mastery": charts.mastery_bars(
            data["tags"], title=_("Mastery per topic"),
            desc=_("For each tag, a bar of the questions you have seen, with the mastered ones filled: ")
            + "; ".join(f"{names[tg]} {v['mastered']}/{v['seen']}" for tg, v in data["tags"].items()),
            seen_word=_("seen"), mastered_word=_("mastered"), names=names),
        "accuracy": charts.accuracy_line(
            data["days"], title=_("Accuracy over time"),
            desc=_("Your accuracy on each practice day: ")
            + "; ".join(f"{d['date']} {_pct(d['accuracy'])}" for d in data["days"] if d["accuracy"] is not None)),
        "calendar": charts.calendar(
            data["days"], today, title=_("Practice calendar"),
            desc=_("One square per day of the last twelve weeks, darker with more attempts. Practice days: ")
            + (", ".join(d["date"] for d in data["days"][-84:]) or _("none yet"))),
    }
    return render_template("learner/progress.html", data=data, pictures=pictures, pct=_pct)


@bp.get("/review")
def review_page():
    data = review.queue(get_session(), current_learner_id(), lang=_lang())
    return render_template("learner/review.html", data=data)


@bp.get("/review/next")
def review_next():
    """The oldest due question, as a new random variant (recall the method, not the number)."""
    data = review.queue(get_session(), current_learner_id(), limit=1)
    if not data["due"]:
        return redirect(url_for("learning.review_page"))
    return redirect(url_for("web.question", qid=data["due"][0]["question_id"],
                            variant=secrets.randbelow(int(VARIANT_MAX)), review=1))


@bp.get("/review/open/<qid>")
def review_open(qid: str):
    """One question of the review list, as a new random variant in review mode."""
    return redirect(url_for("web.question", qid=qid, variant=secrets.randbelow(int(VARIANT_MAX)), review=1))


@bp.post("/review/rate")
def review_rate():
    qid = request.form.get("question_id", "")
    try:
        review.self_rate(get_session(), current_learner_id(), qid, request.form.get("rating", ""))
    except ServiceError as exc:
        return render_template("learner/review.html", data=review.queue(get_session(), current_learner_id(),
                                                                        lang=_lang()), error=exc), exc.status
    if request.form.get("next") == "review":
        return redirect(url_for("learning.review_next"))
    return redirect(url_for("learning.review_page"))


def _lang() -> str:
    return current_lang()
