"""The authoring preview's expected answers, shown as a learner reads them on the question page.

``solution_view(...)["expected"]`` holds the values the grader compares with: floats with the noise of
the arithmetic that produced them, option ids, a symbolic part's ``{"text", "latex", "mathml", ...}``, a
code part's reference solution, ``None`` for a part with no fixed answer. The preview shows instead
(as HTML, every text escaped or rendered by :mod:`quizapp.rendering`):

* numbers and arrays as :func:`checkers.bank.shown.shown_value` writes them (``-0.018``, ``[0.4, -0.07]``);
* option ids (a kind whose ``answer_form`` is ``options``) by the text of each correct option, drawn as on
  the page (maths as MathML);
* a formula as MathML with its spoken form (from its LaTeX), a derivation's reference steps one per line,
  a code part's reference solution as code;
* a part without an expected value (free text, self-assessed) as a sentence saying so.
"""

from __future__ import annotations

from typing import Any, Mapping

from markupsafe import Markup

from checkers.bank.shown import shown_value
from checkers.kinds import find_kind

from ..i18n import gettext
from ..rendering import render_math

__all__ = ["expected_html"]


def _code(text: str) -> Markup:
    return Markup("<code>{}</code>").format(text)


def _choice(part: Mapping[str, Any], value: Any) -> Markup:
    texts = {o["id"]: o["text_html"] for o in part.get("options") or []}
    ids = value if isinstance(value, list) else [value]
    items = [texts.get(str(i), _code(str(i))) for i in ids]
    return Markup('<ul class="expected-options">{}</ul>').format(
        Markup("").join(Markup("<li>{}</li>").format(t) for t in items))


def _lines(lines: list[Any]) -> Markup:
    return Markup('<ol class="expected-lines">{}</ol>').format(
        Markup("").join(Markup("<li>{}</li>").format(_code(shown_value(x))) for x in lines))


def expected_html(part: Mapping[str, Any], value: Any, lang: str) -> Markup:
    """The expected answer of one part of the preview (``part``: the page's part, options rendered) as
    safe HTML (every text escaped by ``Markup.format``), formulas spoken in ``lang``. Call inside the
    preview's locale: the sentence for a part with no expected value is translated."""
    kind = find_kind(part.get("kind"))
    if value is None:
        return Markup('<span class="muted">{}</span>').format(gettext("No fixed answer (not machine-graded)"))
    if kind is not None and kind.answer_form == "options":  # option ids, shown by their texts
        return _choice(part, value)
    if isinstance(value, Mapping):
        if isinstance(value.get("latex"), str) and value["latex"].strip():
            return render_math(value["latex"], lang=lang)
        if isinstance(value.get("solution"), str):
            return Markup('<pre class="code-solution"><code>{}</code></pre>').format(value["solution"])
        if isinstance(value.get("reference"), list) and value["reference"]:
            return _lines(value["reference"])
    return _code(shown_value(value))

