"""The colour scheme: the pages follow the system (``prefers-color-scheme``) until the learner picks light
or dark with the header's switch, a plain link (no script) that cycles system -> dark -> light -> system
and keeps the choice in a cookie; ``web/base.html`` writes it as ``data-theme`` on ``<html>``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for

from .i18n import gettext as _, page_path
from .safe_redirect import safe_next

bp = Blueprint("appearance", __name__)

COOKIE = "quiz_theme"
THEMES = ("dark", "light")
CYCLE = {"": "dark", "dark": "light", "light": ""}
MAX_AGE = 365 * 24 * 3600


def current_theme() -> str:
    value = request.cookies.get(COOKIE, "")
    return value if value in THEMES else ""


def _safe_next(target: str | None) -> str:
    """Only a path of this site as the browser reads it: the switch is no open redirect."""
    return safe_next(target, "/")


@bp.get("/appearance")
def switch():
    chosen = request.args.get("theme", "")
    if chosen not in ("", *THEMES):
        chosen = ""
    resp = redirect(_safe_next(request.args.get("next")), code=303)
    if chosen:
        resp.set_cookie(COOKIE, chosen, max_age=MAX_AGE, samesite="Lax", httponly=True)
    else:
        resp.delete_cookie(COOKIE)
    return resp


@bp.app_context_processor
def _helpers() -> dict[str, Any]:
    def theme_switch() -> dict[str, str]:
        theme = current_theme()
        label = {"": _("Colours: as the system"), "dark": _("Colours: dark"), "light": _("Colours: light")}[theme]
        # the page as shown: a question at a variant drawn for this visit comes back at that variant
        path = page_path() if request.method == "GET" else url_for("web.home")
        return {"theme": theme, "label": label, "url": url_for("appearance.switch", theme=CYCLE[theme], next=path)}
    return {"theme_switch": theme_switch}
