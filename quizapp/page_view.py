"""A question variant as a page shows it: ``checkers.bank.public_view(...)`` with every text rendered.

One home because three pages show a question's public view: the practice page (``web/question.html``),
a mock interview's question and the author's live preview (a draft is shown as learners will see it).
Prompts and hints are Markdown with ``$...$`` maths, rendered to sanitised HTML with MathML
(:mod:`quizapp.rendering`); each part also gets its placeholder and syntax line
(:mod:`quizapp.inputhelp`), the templates of its kind's widgets (:mod:`quizapp.kind_assets`) and
the kind's own page fields (``Kind.page``).
The public view carries no expected answer, so nothing here can leak one.
"""

from __future__ import annotations

from typing import Any

from functools import partial

from checkers.kinds import find_kind

from .kind_assets import kind_form_template, kind_template
from . import inputhelp
from .rendering import plain_text, render_inline, render_markdown


def page_from_public_view(view: dict[str, Any], lang: str | None = None) -> dict[str, Any]:
    """``checkers.bank.public_view(...)`` -> what ``web/question.html`` shows, every text rendered to safe
    HTML, formulas spoken in ``lang`` (default: the request's). Also the author preview's entry point: a
    draft is shown exactly as learners see it, in the preview's own language."""
    return {
        "id": view["id"],
        "ref": view.get("ref"),
        "level": view.get("level"),
        "tags": list(view.get("tags") or []),
        "title_html": render_inline(view.get("title") or view["id"], lang),
        "title_text": plain_text(view.get("title") or view["id"]),
        "prompt_html": render_markdown(view.get("prompt") or "", lang),
        "parts": [page_part(p, lang) for p in view.get("parts") or []],
    }


def page_part(part: dict[str, Any], lang: str | None = None) -> dict[str, Any]:
    """One part of the public view with its prompt and hint rendered (formulas spoken in ``lang``), the
    kind's own page fields (``Kind.page``: its texts rendered the same way), its widget's help and
    templates, and whether the learner rates it (a part no machine grades)."""
    kind = find_kind(part.get("kind"))
    out = dict(part)
    out["prompt_html"] = render_markdown(part.get("prompt") or "", lang)
    out["hint_html"] = render_markdown(part["hint"], lang) if part.get("hint") else None
    out["placeholder"] = inputhelp.placeholder(part, lang)
    out["syntax_help"] = inputhelp.syntax_help(part, lang)
    # the kind's widgets, found by the kinds' template loader (quizapp.kind_assets)
    out["template"] = kind_template(part.get("kind"))
    out["form_template"] = kind_form_template(part.get("kind"))
    out["self_rated"] = kind is not None and not kind.machine_graded
    if kind is not None:
        out.update(kind.page(part, partial(render_inline, lang=lang)))
    return out


__all__ = ["page_from_public_view", "page_part"]
