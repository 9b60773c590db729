"""Verdicts of code that could not be judged: status ``error``, which costs no attempt.

Each has its own ``note``: ``syntax_error`` (with line and column), ``missing_function``, ``exception``
(raised while the module loaded, or in a case), ``wrong_signature``, ``timeout``, ``resource_limit``
(CPU, memory, output size, or the child exited) and ``sandbox_unavailable``.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...i18n import join
from ...verdict import Verdict, msg
from .cases import Case


def error_verdict(note: str, feedback: dict[str, str], rows: list | None = None, **details: Any) -> Verdict:
    return Verdict("error", 0.0, feedback, note, None, {"cases": rows or [], **details})


def fatal_verdict(fatal: Mapping[str, Any], function_name: str) -> Verdict:
    """The child could not run any case: the module did not compile, load, or define ``function_name``."""
    note = str(fatal.get("note", "exception"))
    if note == "syntax_error":
        line, col = fatal.get("line"), fatal.get("column")
        return error_verdict("syntax_error", msg("Syntax error on line %(line)s, column %(column)s: %(message)s.",
                                                 line=line, column=col, message=fatal.get("message")),
                             line=line, column=col)
    if note == "missing_function":
        return error_verdict("missing_function", msg("Define a function named %(name)s.", name=function_name))
    if note == "exception":
        err = fatal.get("error") or {}
        return error_verdict("exception", msg("Your module raised %(type)s: %(message)s (%(where)s).",
                                              type=err.get("type"), message=err.get("message"),
                                              where=join(list(err.get("where") or []))))
    return error_verdict("sandbox_unavailable", msg("Code cannot be graded on this server: %(reason)s.",
                                                    reason=fatal.get("message")))


def case_error_verdict(reply: Mapping[str, Any], case: Case, rows: list) -> Verdict:
    """The learner's function raised in ``case`` (or was called with parameters it does not take)."""
    err = reply.get("error") or {}
    where = "; ".join(err.get("where") or [])
    text_en = f"{err.get('type')}: {err.get('message')}" + (f" ({where})" if where else "")
    if reply.get("signature"):
        return error_verdict("wrong_signature", msg("The function's parameters do not match the exercise: "
                                                    "%(error)s.", error=text_en), rows)
    if reply.get("resource"):
        return error_verdict("resource_limit", msg("Out of memory in case “%(case)s”.", case=case.label), rows)
    return error_verdict("exception", msg("Case “%(case)s” raised %(error)s.", case=case.label, error=text_en),
                         rows)
