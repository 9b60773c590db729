"""What the author's editor page shows next to the YAML: the preview of one variant (the learner's view
with every hint, the solution and the expected answers, rendered as the practice page renders it), or the
error that stops it; the self-test failures placed at their line in the author's text; a YAML syntax
error as a failure. No routes here: :mod:`quizapp.authoring.pages` serves the page.
"""

from __future__ import annotations

from typing import Any

from checkers.bank import params_for, public_view, solution_view
from checkers.bank.failure_place import failure_field
from checkers.bank.variants import part_hints

from ..errors import ServiceError
from ..i18n import force_locale, gettext
from ..page_view import page_from_public_view
from ..rendering import render_markdown
from . import validation
from .expected_view import expected_html


def seed_arg(raw: Any) -> int:
    """A variant number from a form or query (0 for anything that is not one from 0 to 999999)."""
    try:
        value = int(str(raw))
    except (TypeError, ValueError):
        return 0
    return value if 0 <= value < 1_000_000 else 0


def render_preview(data: dict, seed: int, lang: str) -> dict[str, Any]:
    """The learner's view of variant ``seed`` plus the solution, every text through quizapp.rendering."""
    view = public_view(data, seed, lang)
    params = params_for(data, seed)
    # the author sees every hint at once (learners get them one at a time, on request)
    hints = {dp["id"]: part_hints(dp, lang, params) for dp in data.get("parts") or []}
    sol = solution_view(data, seed, lang)
    with force_locale(lang):  # the preview's labels follow its own language, not the page's
        labels = {"expected": gettext("Expected:"), "solution": gettext("Solution"),
                  "pitfalls": gettext("Pitfalls")}
        part_labels = [p.get("title") or gettext("Part %(n)s", n=i + 1) for i, p in enumerate(view.get("parts") or [])]
    page = page_from_public_view(view, lang)  # the draft rendered as the practice page renders it, in its language
    parts = []
    for p, label in zip(page["parts"], part_labels):
        parts.append({
            "id": p.get("id"), "kind": p.get("kind"), "label": label, "prompt_html": p["prompt_html"],
            "hints_html": [render_markdown(h, lang) for h in hints.get(p.get("id"), [])],
            "options": p["options"] if isinstance(p.get("options"), list) else [],
        })
    expected = sol.get("expected") or {}
    with force_locale(lang):
        shown = {p["id"]: expected_html(p, expected[p["id"]], lang) for p in page["parts"] if p.get("id") in expected}
    return {
        "seed": seed, "lang": lang, "labels": labels,
        "title_html": page["title_html"], "prompt_html": page["prompt_html"],
        "parts": parts,
        "key_points": [render_markdown(x, lang) for x in sol.get("key_points") or []],
        "pitfalls": [render_markdown(x, lang) for x in sol.get("pitfalls") or []],
        "worked_html": render_markdown(sol.get("worked") or "", lang) if sol.get("worked") else None,
        "expected": shown,
    }


def preview_or_error(data: Any, seed: int, lang: str) -> tuple[dict | None, str | None]:
    """(the preview, None), or (None, why it cannot be shown): the schema first, then the rendering."""
    try:
        validation.validate(data)
        return render_preview(data, seed, lang), None
    except ServiceError as exc:
        return None, exc.message
    except Exception as exc:  # noqa: BLE001 - a broken draft must still show its editor
        return None, f"{type(exc).__name__}: {exc}"


def placed_report(report: dict | None, data: Any, text: str) -> dict | None:
    """``report`` with every failure that has no line yet (one stored before failures named their field)
    placed in ``text``: its field from its part and check (:mod:`checkers.bank.failure_place`), then line and
    column."""
    if not report or not report.get("failures"):
        return report
    failures = []
    for f in report["failures"]:
        f = dict(f)
        if not f.get("line"):
            f["field"] = failure_field(data, f)
            if f["field"]:
                validation.locate_failures(text, [f])
        failures.append(f)
    return {**report, "failures": failures}


def yaml_error(exc) -> dict[str, Any]:
    """A YAML syntax error as a failure with its line and column (the loader's ``BankError.line/column``)."""
    failure: dict[str, Any] = {"part": None, "seed": None, "check": "yaml", "reason": f"{exc.field}: {exc.problem}"}
    if getattr(exc, "line", None) is not None:
        failure["line"], failure["column"] = exc.line, exc.column
    return failure
