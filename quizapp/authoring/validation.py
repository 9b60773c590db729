"""A question's checks in the authoring tool and ``quizapp selftest``: the schema (a schema error is
refused: 422, nothing stored) and the report of :func:`checkers.bank.report.question_report` (schema,
expressions, bank self-test), each failure placed at its ``line`` and ``column`` in the author's text.

Saving, publishing and importing self-test over at least :data:`MIN_SEEDS` variants; ``quizapp selftest``
runs the same report over the seeds it is given (:func:`file_reports`), so both report the same failures
for the same file. No database here: :mod:`quizapp.authoring.versions` stores the report with the version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from checkers.bank import BankError, question_files
from checkers.bank.report import DEFAULT_SEEDS, question_report, schema_failures
from checkers.bank.tags import check_tags, load_tag_list

from ..errors import ValidationError
from ..i18n import N_, Message
from .yamlsafe import parse_yaml
from .yamltext import line_excerpt, locate

#: The fewest seeds a save, publish or import self-tests over (a request for fewer gets this many).
MIN_SEEDS = DEFAULT_SEEDS


def validate(data: Any, file: Any = None, text: str | None = None) -> None:
    """Schema validation; raises ValidationError(422, code invalid_question, failures=[...]). With the
    author's ``text`` each failure also names its ``line`` and ``column`` there (:func:`locate_failures`)."""
    failures = schema_failures(data, file)
    if not failures:
        return
    if text is not None:
        locate_failures(text, failures)
    first = failures[0]
    # the reason is the checkers' English text (schema rules); the sentence around it is translated
    reason = str(first.get("reason", "")).removeprefix("schema: ")
    if not isinstance(data, dict):
        message = Message(N_("a question must be a mapping (the structure of a question file)"))
    elif first.get("field"):
        message = Message(N_("the question does not follow the format: %(field)s: %(reason)s"),
                          field=first["field"], reason=reason)
    else:
        message = Message(N_("the question does not follow the format: %(reason)s"), reason=reason)
    raise ValidationError(message, first.get("field"), code="invalid_question", extra={"failures": failures})


def locate_failures(text: str, failures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add ``line``/``column`` (1-based, in ``text``) to each failure with a ``field``; an expression's
    failure (``expr_column``) points at the character inside the expression."""
    for f in failures:
        where = locate(text, f.get("field")) if f.get("field") else None
        if where is None:
            continue
        f["line"], f["column"] = where["line"], where["column"]
        if f.get("expr_column") is not None and where.get("value_column") is not None:
            f["line"], f["column"] = where["value_line"], where["value_column"] + int(f["expr_column"]) - 1
        f["source_line"] = line_excerpt(text, f["line"])
    return failures


def located_report(data: Any, seeds: int, text: str | None = None, file: Any = None) -> dict[str, Any]:
    """:func:`checkers.bank.report.question_report` over exactly ``seeds`` variants, its failures placed in
    ``text`` when given: {"ok", "seeds", "checks", "failures"}."""
    report = question_report(data, seeds, file)
    if text is not None:
        locate_failures(text, report["failures"])
    return {k: report[k] for k in ("ok", "seeds", "checks", "failures")}


def selftest_report(data: Mapping[str, Any], seeds: int = MIN_SEEDS, text: str | None = None) -> dict[str, Any]:
    """The report a save, publish or import keeps: :func:`located_report` over ``seeds`` variants, at least
    :data:`MIN_SEEDS`."""
    return located_report(data, max(int(seeds), MIN_SEEDS), text)


def file_reports(root: str | Path, seeds: int = DEFAULT_SEEDS) -> list[dict[str, Any]]:
    """The report of every question file under ``root`` (``quizapp selftest``), sorted by path: each is a
    :func:`located_report` over exactly ``seeds`` variants with the file's ``question`` id and ``file``
    path. A file that is not YAML has its parse error as its one failure; the bank's own rules come first
    in the failures: ids unique across the files, tags from the folder's ``tags.yml`` when it has one."""
    root = Path(root)
    curated = load_tag_list(root) if root.is_dir() else None
    seen: dict[str, str] = {}
    out = []
    for path in question_files(root):
        rel = path.relative_to(root).as_posix() if root.is_dir() else str(path)
        try:
            text = path.read_text(encoding="utf-8")
            data = parse_yaml(text, rel)
        except (BankError, OSError, UnicodeDecodeError) as exc:
            problem = getattr(exc, "problem", None) or f"cannot read: {exc}"
            out.append({"question": None, "file": rel, "ok": False, "seeds": int(seeds), "checks": 0,
                        "failures": [{"part": None, "seed": None, "field": getattr(exc, "field", None),
                                      "check": "schema", "reason": f"schema: {problem}"}]})
            continue
        report = located_report(data, seeds, text, rel)
        bank = [] if any(f.get("check") == "schema" for f in report["failures"]) else _bank_rules(
            data, rel, seen, curated)
        locate_failures(text, bank)
        out.append({"question": data.get("id") if isinstance(data, dict) else None, "file": rel, **report,
                    "ok": report["ok"] and not bank, "failures": bank + report["failures"]})
    return out


def _bank_rules(data: dict, rel: str, seen: dict[str, str], curated: Mapping[str, Any] | None) -> list[dict]:
    """The rules of a bank of files (not of one question): the id is unique across the files (``seen``:
    id -> file, updated), every tag is in the folder's curated list when it has one."""
    failures = []
    if data["id"] in seen:
        failures.append({"part": None, "seed": None, "field": "id", "check": "schema",
                         "reason": f"schema: duplicate id {data['id']!r} (also in {seen[data['id']]})"})
    else:
        seen[data["id"]] = rel
    if curated:
        try:
            check_tags(data, curated, rel)
        except BankError as exc:
            failures.append({"part": None, "seed": None, "field": exc.field, "check": "schema",
                             "reason": f"schema: {exc.problem}"})
    return failures
