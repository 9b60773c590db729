"""Interface text of the learner pages that Python hands out: the strings table the browser script
receives and the answer widgets' labels (looked up by key until each widget's
template writes its own ``_()``). The text itself lives in the gettext catalogs (:mod:`quizapp.i18n`).
"""

from __future__ import annotations

from flask import current_app

from checkers.languages import LANGS
from quizapp.i18n import LANG_COOKIE, LANG_COOKIE_MAX_AGE, N_, current_lang, gettext, remember_lang

#: Labels of the per-kind answer widgets, by the keys their templates use.
WIDGET_TEXT = {
    "your_answer": N_("Your answer"),
    "variables": N_("Variables"),
    "functions": N_("Functions"),
    "start_from": N_("Start from"),
    "reach": N_("Reach"),
    "derivation_help": N_("One step per line; each line must follow from the previous one."),
    "array_help": N_("One row per line, numbers separated by spaces or commas — "
                     "or JSON such as [[1, 2], [3, 4]]."),
    "freetext_help": N_("Self-assessed: compare your answer with the key points after submitting."),
    "choose_one": N_("Choose one"),
    "choose_any": N_("Choose all that apply"),
}

# Strings the browser script needs (sent as a JSON data attribute: no inline script under the CSP).
# The script fills "{n}" itself, so placeholders are rendered as that literal.
JS_TEXT = {
    "interpreted_as": N_("Interpreted as"),
    "checking": N_("Checking…"),
    "column": N_("column %(n)s"),
    "line": N_("line %(n)s"),
    "array_bad": N_("Not a list of numbers"),
    "array_ragged": N_("Rows have different lengths"),
    "array_shape": N_("Shape"),
    "submit": N_("Submit"),
    "submitting": N_("Submitting…"),
    "try_again": N_("Try again"),
    "score": N_("Score"),
    "status_correct": N_("Correct"),
    "status_incorrect": N_("Incorrect"),
    "status_invalid": N_("Could not read"),
    "status_undecided": N_("Undecided"),
    "status_partial": N_("Partly correct"),
    "status_ungraded": N_("Self-assessed"),
    "status_error": N_("Could not run"),
    "status_unanswered": N_("No answer"),
    "solution": N_("Solution"),
    "key_points": N_("Key points"),
    "pitfalls": N_("Pitfalls"),
    "worked": N_("Worked solution"),
    "expected": N_("Expected answers"),
    "network_error": N_("The server could not be reached. Your answers are still here; try again."),
    "server_error": N_("The server refused the answer"),
    "step": N_("Step %(n)s"),
    "first_error": N_("First step that does not follow: %(n)s"),
    "part": N_("Part"),
    "step_ok": N_("follows"),
    "step_error": N_("does not follow"),
    # the attempt policy and hints (quizapp.practice)
    "tries_left": N_("Not yet. Tries left before the solution: %(n)s."),
    "tries_left_hint": N_("A hint may help: each one shown lowers this part's credit."),
    "solution_after_correct": N_("Correct. Here is the solution."),
    "solution_after_tries": N_("No tries left: here is the solution."),
    "solution_requested": N_("You asked for the solution; this question will come back for review soon."),
    "show_hint": N_("Show a hint"),
    "next_hint": N_("Show the next hint"),
    "no_more_hints": N_("No more hints"),
    "hint_credit": N_("Credit for this part now: %(n)s"),
    "edit_answer": N_("Your answers are kept: edit them and submit again."),
}


def t(key: str) -> str:
    """A widget label in the current language (the key itself when unknown, so a typo shows)."""
    msgid = WIDGET_TEXT.get(key)
    return gettext(msgid) if msgid else key


def js_strings(lang: str | None = None) -> dict[str, str]:
    """The script's strings in the current language (``lang`` is the page's, already selected).

    Every question page sends the whole table, and translating it costs ~70 catalog lookups, so each
    app keeps the table per language (the catalogs do not change while the app runs; a dict per app
    object is created in the worker that uses it, so nothing is shared across a fork)."""
    lang = lang or current_lang()
    tables = current_app.extensions.setdefault("quiz.js_strings", {})
    table = tables.get(lang)
    if table is None:
        table = {key: gettext(msgid, n="{n}") if "%(n)s" in msgid else gettext(msgid)
                 for key, msgid in JS_TEXT.items()}
        tables[lang] = table
    return table


__all__ = ["LANGS", "LANG_COOKIE", "LANG_COOKIE_MAX_AGE", "current_lang", "js_strings",
           "remember_lang", "t"]
