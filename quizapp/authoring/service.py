"""Authoring logic over the versioned question tables (no Flask: the API, pages and CLI call it).

Every save validates the question against the schema (a schema error is refused: 422, nothing stored) and
runs the bank self-test over ``seeds`` variants (at least 20); a draft is stored with its report, and a
draft whose report has failures cannot be published (publishing re-runs the check). Each failure names
``part`` (None for the whole question), ``seed`` (None for a schema error) and ``reason``.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Mapping
import difflib

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from checkers import grading
from checkers.bank import (BankError, content_hash, distinct_failures, dump_question, params_for, public_view,
                           question_files, selftest, validate_question)
from checkers.bank.selftest import failure
from checkers.kinds import get_kind
from checkers.mathparse import evaluate_numeric
from checkers.params import resolve_value, substitute_text
from checkers.verdict import AnswerParseError, SpecError

from ..errors import Conflict, NotFound, ValidationError
from ..models import Attempt, AuthorCredential, Question, QuestionVersion, VersionCheck, utcnow
from ..services import questions as qsvc
from ..timeutil import iso_utc
from ..services.answers import json_safe
from ..services.attempts import grade_answers
from .yamlsafe import parse_yaml
from .failure_place import failure_field
from .yamltext import line_excerpt, locate, with_top_key

MIN_SEEDS = 20
MAX_IMPORT_FILES = 2000
MAX_IMPORT_BYTES = 16 * 1024 * 1024
_PART_FIELD = re.compile(r"^parts\[(\d+)\]")


# ------------------------------------------------------------------------------------------ checking

def _schema_failure(data: Any, exc: Exception) -> dict[str, Any]:
    field = getattr(exc, "field", None)
    problem = getattr(exc, "problem", None) or str(exc)
    part = None
    m = _PART_FIELD.match(field or "")
    if m and isinstance(data, Mapping) and isinstance(data.get("parts"), list):
        idx = int(m.group(1))
        if idx < len(data["parts"]) and isinstance(data["parts"][idx], Mapping):
            part = data["parts"][idx].get("id")
    return {"part": part, "seed": None, "field": field, "check": "schema", "reason": f"schema: {problem}"}


def validate(data: Any, file: Any = None, text: str | None = None) -> None:
    """Schema validation; raises ValidationError(422, code invalid_question, failures=[...]). With the
    author's ``text`` each failure also names its ``line`` and ``column`` there (:func:`locate_failures`)."""
    try:
        _validate(data, file)
    except ValidationError as exc:
        if text is not None:
            locate_failures(text, exc.extra.get("failures") or [])
        raise


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


def _expressions(data: Mapping[str, Any]) -> Iterable[tuple[str, Any, str]]:
    """(field path, part id, expression) of every ``expr`` in the parameters and the parts' value specs."""
    for name, spec in (data.get("params") or {}).items():
        if isinstance(spec, Mapping) and isinstance(spec.get("expr"), str):
            yield f"params.{name}.expr", None, spec["expr"]
    for i, part in enumerate(data.get("parts") or []):
        if not isinstance(part, Mapping):
            continue
        exp = part.get("expected")
        if isinstance(exp, Mapping) and isinstance(exp.get("expr"), str) and part.get("kind") != "symbolic":
            yield f"parts[{i}].expected.expr", part.get("id"), exp["expr"]
        for j, m in enumerate(part.get("mistakes") or []):
            if isinstance(m, Mapping) and isinstance(m.get("expr"), str) and part.get("kind") != "symbolic":
                yield f"parts[{i}].mistakes[{j}].expr", part.get("id"), m["expr"]


def expression_failures(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Parse every numeric expression with the first variant's parameters: a syntax error is reported once,
    naming the part, the field and the column inside the expression (``expr_column``, 1-based), next to the
    self-test's per-seed "cannot be computed" that the same error causes."""
    try:
        params = params_for(data, 0)
    except Exception:  # noqa: BLE001 - parameters that do not generate are the self-test's to report
        params = None
    numeric = {k: float(v) for k, v in (params or {}).items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    failures = []
    for field, part, expr in _expressions(data):
        if len(expr) > 2000:
            continue  # the self-test bounds and reports it
        try:
            evaluate_numeric(substitute_text(expr, params or {}), numeric)
        except AnswerParseError as exc:
            if "{{" in expr or (params is None and getattr(exc, "column", None) is None):
                continue  # a placeholder or unknown parameter: the column would not be the author's
            col = exc.column + 1 if exc.column is not None else None
            where = f" at column {col}" if col is not None else ""
            failures.append({"part": part, "seed": None, "seeds": [], "field": field, "expr_column": col,
                             "check": "expression",
                             "reason": f"expression {expr!r} does not parse{where}: {exc.message}"})
        except Exception:  # noqa: BLE001 - an evaluation error (domain, engine) belongs to the self-test
            continue
    return failures


def _validate(data: Any, file: Any = None) -> None:
    if not isinstance(data, dict):
        raise ValidationError("a question must be a mapping (the structure of a question file)", None,
                              code="invalid_question",
                              extra={"failures": [{"part": None, "seed": None, "field": None,
                                                   "reason": "schema: not a mapping"}]})
    try:
        validate_question(data, file)
    except BankError as exc:
        failure = _schema_failure(data, exc)
        if file is not None:
            failure["file"] = str(file)
        raise ValidationError(f"the question does not follow the format: {exc.field}: {exc.problem}",
                              exc.field, code="invalid_question", extra={"failures": [failure]}) from None
    except Exception as exc:  # noqa: BLE001 - a checker's validate_spec may raise its own errors
        failure = _schema_failure(data, exc)
        raise ValidationError(f"the question does not follow the format: {exc}", None,
                              code="invalid_question", extra={"failures": [failure]}) from None


def selftest_report(data: Mapping[str, Any], seeds: int = MIN_SEEDS) -> dict[str, Any]:
    """The self-test over ``seeds`` (>= 20) variants: {"ok", "seeds", "checks", "failures"}."""
    seeds = max(int(seeds), MIN_SEEDS)
    report = selftest(data, seeds=range(seeds))
    failures = list(report.failures)
    same = _mistakes_equal_to_correct(data, range(seeds))
    if same:  # say why a known mistake was "not exercised" or "graded correct": it equals the correct answer
        explained = {(f["part"], f["seed"], f["args"]["note"]) for f in same}
        failures = [f for f in failures if not _explained_by(f, explained)]
        failures += same
        failures.sort(key=lambda f: (f["seed"] if f["seed"] is not None else -1, str(f["part"])))
    failures = expression_failures(data) + [_with_check(f, data) for f in distinct_failures(failures)]
    return {"ok": bool(report.ok) and not failures, "seeds": seeds, "checks": report.checks, "failures": failures}


def _explained_by(f: Mapping[str, Any], explained: set[tuple]) -> bool:
    """Whether a self-test failure is a known mistake of ``explained`` ((part, seed, note)) not showing up
    as a distinct mistake: not exercised by the kind's examples, or graded correct."""
    args = f.get("args") or {}
    if (f.get("part"), f.get("seed"), args.get("note")) not in explained:
        return False
    return f.get("message") == "mistake-not-exercised" or (
        f.get("message") == "incorrect-graded-wrong" and args.get("graded") == "correct")


def _with_check(f: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """A distinct failure as stored with the version: part, check, every seed, expected and computed, and
    the ``field`` it is about (its line and column in the author's text come from that field)."""
    out = {"part": f.get("part"), "seed": f.get("seed"), "seeds": f.get("seeds") or [], "count": f.get("count"),
           "check": f["status"], "reason": str(f.get("reason")), "field": failure_field(data, f)}
    if f.get("expected") is not None or f.get("computed") is not None:
        out["expected"], out["computed"] = f.get("expected"), f.get("computed")
    return out


def _mistakes_are_answers(kind: Any) -> bool:
    """Whether the kind's known mistakes are answers that can be graded (its ``mistake_answers``)."""
    try:
        return get_kind(kind).mistake_answers
    except SpecError:
        return False


def _mistakes_equal_to_correct(data: Mapping[str, Any], seeds: Iterable[int]) -> list[dict[str, Any]]:
    """Known mistakes that grade ``correct`` for a seed (so they can never give their feedback)."""
    out = []
    for seed in seeds:
        try:
            params = params_for(data, seed)
        except Exception:  # noqa: BLE001 - reported by the self-test
            continue
        for part in data.get("parts") or []:
            if not _mistakes_are_answers(part.get("kind")):
                continue
            for m in part.get("mistakes") or []:
                try:
                    if "answer" in m:
                        raw = m["answer"]
                    else:
                        raw = resolve_value({k: v for k, v in m.items() if k not in ("note", "feedback")}, params)
                        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                            raw = repr(float(raw))
                    verdict = grading.grade(raw, part, params)
                except Exception:  # noqa: BLE001 - a mistake that cannot be computed is the self-test's
                    continue
                if verdict.status == "correct":
                    out.append(failure(part.get("id"), seed, "mistake-equals-correct",
                                       f"known mistake {m.get('note')!r} equals the correct answer in this "
                                       f"variant (it grades correct, so its feedback can never show)",
                                       "known-mistake", expected="incorrect", computed="correct",
                                       note=m.get("note"), graded=verdict.status))
    return out


def _store_check(session: Session, version: QuestionVersion, report: Mapping[str, Any]) -> None:
    row = session.get(VersionCheck, version.id)
    if row is None:
        row = VersionCheck(version_id=version.id)
        session.add(row)
    row.ok = bool(report["ok"])
    row.seeds = int(report["seeds"])
    row.failures = list(report["failures"])
    row.checked_at = utcnow()


def stored_check(session: Session, version_id: int) -> dict[str, Any] | None:
    row = session.get(VersionCheck, version_id)
    if row is None:
        return None
    return {"ok": row.ok, "seeds": row.seeds, "failures": row.failures,
            "checked_at": iso_utc(row.checked_at)}


# ------------------------------------------------------------------------------------------ versions

def _latest(session: Session, qid: str, *, non_draft: bool = False) -> QuestionVersion | None:
    stmt = select(QuestionVersion).where(QuestionVersion.question_id == qid)
    if non_draft:
        stmt = stmt.where(QuestionVersion.status != "draft")
    return session.scalars(stmt.order_by(QuestionVersion.number.desc()).limit(1)).first()


def version_body(session: Session, v: QuestionVersion, *, data: bool = True) -> dict[str, Any]:
    body = {"question_id": v.question_id, "version": v.number, "version_id": v.id, "status": v.status,
            "content_hash": v.content_hash, "level": v.level, "ref": v.ref, "source": v.source,
            "created_by": v.created_by,
            "created_at": iso_utc(v.created_at),
            "published_at": iso_utc(v.published_at),
            "retired_at": iso_utc(v.retired_at),
            "selftest": stored_check(session, v.id)}
    if data:
        body["data"] = v.data
        body["yaml"] = version_text(v)
    return body


def _saved(session: Session, v: QuestionVersion, report: Mapping[str, Any], created: bool) -> dict[str, Any]:
    body = version_body(session, v)
    body["selftest"] = dict(report)
    body["publishable"] = bool(report["ok"]) and v.status == "draft"
    body["created"] = created
    return body


def version_text(v: QuestionVersion) -> str:
    """The YAML of a version: the author's text as written, or (stored from JSON) the bank's dump."""
    return v.yaml_text if v.yaml_text else dump_question(v.data)


def _save(session: Session, data: dict, author_id: str | None, seeds: int, source: str,
          text: str | None = None) -> tuple[dict, bool]:
    report = selftest_report(data, seeds)
    digest = content_hash(data)
    text = text if text is not None else dump_question(data)
    locate_failures(text, report["failures"])
    latest = _latest(session, data["id"])
    if latest is not None and latest.status == "draft" and latest.content_hash == digest and (
            version_text(latest) == text):
        _store_check(session, latest, report)
        session.commit()
        return _saved(session, latest, report, False), False
    version = _add_draft(session, data, text, report, source=source, author_id=author_id, digest=digest)
    return _saved(session, version, report, True), True


def _add_draft(session: Session, data: dict, text: str, report: Mapping[str, Any], *, source: str | None,
               author_id: str | None, digest: str | None = None) -> QuestionVersion:
    """Store ``data`` as a new draft version with the author's ``text`` and its self-test ``report``, in one
    commit (rolled back on any error, so a version never exists without its check)."""
    try:
        version = qsvc.add_version(session, data, content_hash=digest or content_hash(data), status="draft",
                                   source=source, created_by=author_id)
        version.yaml_text = text
        _store_check(session, version, report)
        session.commit()
    except Exception:
        session.rollback()
        raise
    return version


def create_question(session: Session, data: Any, author_id: str | None, *, seeds: int = MIN_SEEDS,
                    text: str | None = None) -> dict:
    """A new question whose version 1 is a draft; 409 if the id exists. ``text``: the YAML as the author
    wrote it (stored and exported as is)."""
    validate(data, text=text)
    if session.get(Question, data["id"]) is not None:
        raise Conflict(f"question {data['id']!r} exists: PUT /api/v1/questions/{data['id']} adds a version",
                       "id", code="question_exists")
    return _save(session, data, author_id, seeds, "api", text)[0]


def update_question(session: Session, qid: str, data: Any, author_id: str | None, *,
                    seeds: int = MIN_SEEDS, text: str | None = None) -> tuple[dict, bool]:
    """A new draft version of ``qid`` (an unchanged draft is returned as is)."""
    if session.get(Question, qid) is None:
        raise NotFound(f"no question {qid!r}", "question_id", code="unknown_question")
    if isinstance(data, dict):
        if "id" not in data and text is not None:
            try:
                text = with_top_key(text, "id", qid)
            except Exception:  # noqa: BLE001 - text the round-trip reader refuses: keep the structure only
                text = None
        data.setdefault("id", qid)
        if data["id"] != qid:
            raise ValidationError(f"the body's id {data['id']!r} differs from the URL's {qid!r}", "id",
                                  code="id_mismatch")
    validate(data, text=text)
    return _save(session, data, author_id, seeds, "api", text)


def list_versions(session: Session, qid: str) -> list[dict]:
    if session.get(Question, qid) is None:
        raise NotFound(f"no question {qid!r}", "question_id", code="unknown_question")
    rows = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid)
                           .order_by(QuestionVersion.number))
    return [version_body(session, v) for v in rows]


def get_version_row(session: Session, qid: str, number: int | None = None) -> QuestionVersion:
    if session.get(Question, qid) is None:
        raise NotFound(f"no question {qid!r}", "question_id", code="unknown_question")
    if number is None:
        v = _latest(session, qid)
    else:
        v = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid,
                                                          QuestionVersion.number == number)).first()
    if v is None:
        raise NotFound(f"question {qid!r} has no version {number}", "version", code="unknown_version")
    return v


def publish(session: Session, qid: str, number: int | None, author_id: str | None, *,
            seeds: int = MIN_SEEDS) -> dict:
    """Publish draft ``number`` (default: the newest version, which must be a draft). The schema check and
    the self-test run again; any failure -> 409 ``selftest_failed`` listing them, nothing changes."""
    v = get_version_row(session, qid, number)
    if v.status != "draft":
        raise Conflict(f"version {v.number} of {qid!r} is {v.status}, not a draft: save a new version first",
                       "version", code="not_a_draft")
    validate(v.data)
    report = selftest_report(v.data, seeds)
    locate_failures(version_text(v), report["failures"])
    if not report["ok"]:
        session.rollback()
        raise Conflict(f"version {v.number} of {qid!r} fails its self-test ({len(report['failures'])} "
                       "failure(s)); fix them and save a new draft", "version", code="selftest_failed",
                       extra={"failures": report["failures"]})
    try:
        qsvc.publish_version(session, v)
        _store_check(session, v, report)
        session.commit()
    except Exception:
        session.rollback()
        raise
    body = version_body(session, v)
    body["selftest"] = report
    return body


def retire(session: Session, qid: str) -> dict:
    """Hide ``qid`` from learners (its attempts stay); 409 when nothing is published."""
    if session.get(Question, qid) is None:
        raise NotFound(f"no question {qid!r}", "question_id", code="unknown_question")
    current = qsvc.published_version(session, qid)
    if current is None:
        raise Conflict(f"question {qid!r} has no published version", None, code="not_published")
    try:
        qsvc.retire_question(session, qid)
        session.commit()
    except Exception:
        session.rollback()
        raise
    kept = session.scalar(select(func.count()).select_from(Attempt).where(Attempt.question_id == qid))
    return {"question_id": qid, "retired_version": current.number, "status": "retired", "attempts_kept": kept}


def overview(session: Session) -> list[dict]:
    """Every question (drafts included) for the author's list: newest version, published version."""
    out = []
    for q in session.scalars(select(Question).order_by(Question.id)):
        versions = list(session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == q.id)
                                        .order_by(QuestionVersion.number)))
        if not versions:
            continue
        latest = versions[-1]
        published = next((v for v in versions if v.status == "published"), None)
        title = latest.data.get("title") or {}
        out.append({"id": q.id, "level": latest.level, "ref": latest.ref,
                    "title": title.get("en") if isinstance(title, dict) else str(title),
                    "titles": dict(title) if isinstance(title, dict) else {"en": str(title)},
                    "latest": latest.number, "latest_status": latest.status,
                    "published": published.number if published else None,
                    "drafts": sum(1 for v in versions if v.status == "draft"),
                    "selftest": stored_check(session, latest.id)})
    return out


# ------------------------------------------------------------------------------------------ export / import

def export_question(session: Session, qid: str) -> tuple[str, str]:
    """(relative path, YAML text) of the published version of ``qid``."""
    v = qsvc.published_version(session, qid)
    if v is None:
        raise NotFound(f"no published question {qid!r}", "id", code="unknown_question")
    return _export_path(v), version_text(v)


def _export_path(v: QuestionVersion) -> str:
    rel = f"{v.level}/{v.question_id}.yaml"
    src = v.source or ""
    if src.startswith("bank:"):
        candidate = PurePosixPath(src[len("bank:"):])
        if candidate.parts and ".." not in candidate.parts and not candidate.is_absolute():
            rel = candidate.as_posix()
    return rel


def export_files(session: Session) -> list[dict[str, str]]:
    """[{"path", "content", "content_hash"}] of every published question (the layout of questions/)."""
    out = []
    for row in qsvc.list_questions(session):
        v = session.get(QuestionVersion, row["version_id"])
        out.append({"path": _export_path(v), "content": version_text(v), "content_hash": v.content_hash})
    out.sort(key=lambda f: f["path"])
    return out


def export_zip(session: Session) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in export_files(session):
            # a fixed timestamp: the same bank gives the same archive bytes
            info = zipfile.ZipInfo(f["path"], date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, f["content"])
    return buf.getvalue()


def _safe_rel(path: Any) -> str:
    if not isinstance(path, str) or not path or len(path) > 300:
        raise ValidationError("each file needs a relative path", "files.path")
    p = PurePosixPath(path.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or p.suffix not in (".yaml", ".yml"):
        raise ValidationError(f"{path!r}: a file path must be relative, without '..', ending in .yaml",
                              "files.path")
    return p.as_posix()


def files_from_zip(raw: bytes) -> list[tuple[str, str]]:
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, EOFError, ValueError, OSError):
        raise ValidationError("the body is not a zip archive", None, code="bad_archive") from None
    items, total = [], 0
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        if len(infos) > MAX_IMPORT_FILES:
            raise ValidationError(f"at most {MAX_IMPORT_FILES} files", None, code="bad_archive")
        for info in infos:
            if not info.filename.endswith((".yaml", ".yml")):
                continue
            total += info.file_size
            if total > MAX_IMPORT_BYTES:
                raise ValidationError("the archive is too large once unpacked", None, code="bad_archive")
            rel = _safe_rel(info.filename)
            try:
                with zf.open(info) as fh:
                    data = fh.read(MAX_IMPORT_BYTES + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
                    ValueError, OSError) as exc:  # corrupt, encrypted or an unsupported method
                raise ValidationError(f"{rel}: cannot be unpacked ({type(exc).__name__})", "files.content",
                                      code="bad_archive") from None
            try:
                items.append((rel, data.decode("utf-8")))
            except UnicodeDecodeError:
                raise ValidationError(f"{rel}: not UTF-8", "files.content") from None
    return items


def files_from_dir(root: str | Path) -> list[tuple[str, str]]:
    root = Path(root)
    out = []
    for path in question_files(root):
        rel = path.resolve().relative_to(root.resolve()).as_posix() if root.is_dir() else path.name
        out.append((rel, path.read_text(encoding="utf-8")))
    return out


def _unchanged(session: Session, data: dict, publish_now: bool) -> bool:
    """Whether importing ``data`` would leave its question as it is (the rule of :func:`import_files`)."""
    latest = _latest(session, data["id"], non_draft=publish_now)
    return latest is not None and latest.content_hash == content_hash(data) and (
        not publish_now or latest.status == "published")


def import_files(session: Session, items: Iterable[tuple[str, str]], author_id: str | None, *,
                 publish_now: bool = True, seeds: int = MIN_SEEDS) -> dict[str, Any]:
    """Import question files, all or nothing: every file is parsed and validated, and every new or changed
    one self-tested, first (any failure -> 422 listing them all, nothing stored); then an unchanged question
    is left alone (it goes live as it is, so it is not self-tested again: re-importing the bank costs a
    parse per file) and a new or changed one becomes a new version (published unless ``publish_now`` is
    False), remembering its path."""
    items = [(_safe_rel(rel), text) for rel, text in items]
    if len(items) > MAX_IMPORT_FILES:
        raise ValidationError(f"at most {MAX_IMPORT_FILES} files", "files", code="too_many_files")
    if sum(len(text) for _, text in items) > MAX_IMPORT_BYTES:
        raise ValidationError("the files are too large together", "files", code="too_large")
    if not items:
        raise ValidationError("no question files to import", "files", code="missing_field")
    failures: list[dict] = []
    parsed: list[tuple[str, dict, str]] = []
    seen: dict[str, str] = {}
    for rel, text in items:
        try:
            data = parse_yaml(text, rel)
        except BankError as exc:
            failures.append({"file": rel, "part": None, "seed": None, "field": exc.field, "reason": exc.problem})
            continue
        try:
            validate(data, rel, text=text)
        except ValidationError as exc:
            failures.extend(dict(f, file=rel) for f in exc.extra["failures"])
            continue
        if data["id"] in seen:
            failures.append({"file": rel, "part": None, "seed": None, "field": "id",
                             "reason": f"duplicate id {data['id']!r} (also in {seen[data['id']]})"})
            continue
        seen[data["id"]] = rel
        unchanged = _unchanged(session, data, publish_now)
        if not unchanged:  # an unchanged file is left alone: no need to test it
            report = selftest_report(data, seeds)
            failures.extend(dict(f, file=rel) for f in report["failures"])
        parsed.append((rel, data, text, unchanged))
    if failures:
        raise ValidationError(f"{len(failures)} problem(s) in the imported files; nothing was imported",
                              "files", code="import_failed", extra={"failures": failures})
    summary: dict[str, list] = {"added": [], "updated": [], "unchanged": []}
    try:
        for rel, data, text, unchanged in parsed:
            if unchanged:
                summary["unchanged"].append(data["id"])
                continue
            digest = content_hash(data)
            existed = session.get(Question, data["id"]) is not None
            v = qsvc.add_version(session, data, content_hash=digest,
                                 status="published" if publish_now else "draft",
                                 source=f"bank:{rel}", created_by=author_id)
            v.yaml_text = text
            _store_check(session, v, {"ok": True, "seeds": max(seeds, MIN_SEEDS), "failures": []})
            summary["updated" if existed else "added"].append(data["id"])
        session.commit()
    except Exception:
        session.rollback()
        raise
    return summary


# ------------------------------------------------------------------------------------------ re-grading

VERDICT_KEYS = ("status", "score", "note", "counted")


def regrade(session: Session, attempt_id: str) -> dict[str, Any]:
    """Grade the attempt's stored answers again against the version it answered (never the latest one);
    nothing is written. ``matches`` says whether every part's status, score, note and counted agree."""
    attempt = session.get(Attempt, attempt_id) if isinstance(attempt_id, str) and len(attempt_id) <= 64 else None
    if attempt is None:
        raise NotFound(f"no attempt {attempt_id!r}", "attempt_id", code="unknown_attempt")
    version = session.get(QuestionVersion, attempt.question_version_id)
    fresh = json_safe(grade_answers(version.data, attempt.variant, attempt.answers))
    stored = attempt.verdicts or {}
    differences = []
    parts: dict[str, dict] = {}
    for pid in sorted(set(fresh) | set(stored)):
        new = {k: (fresh.get(pid) or {}).get(k) for k in VERDICT_KEYS}
        old = {k: (stored.get(pid) or {}).get(k) for k in VERDICT_KEYS}
        parts[pid] = {"regraded": new, "stored": old}
        for k in VERDICT_KEYS:
            a, b = new[k], old[k]
            same = (abs(float(a) - float(b)) <= 1e-9) if k == "score" and a is not None and b is not None else a == b
            if not same:
                differences.append({"part": pid, "key": k, "stored": b, "regraded": a})
    return {"attempt_id": attempt.id, "question_id": attempt.question_id, "version_id": version.id,
            "version": version.number, "variant": attempt.variant, "parts": parts,
            "matches": not differences, "differences": differences}


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)


# ------------------------------------------------------------------------------------------ history

def authors(session: Session, learner_ids: Iterable[str | None]) -> dict[str, str]:
    """learner id -> author username, for the history's "who"."""
    ids = {i for i in learner_ids if i}
    if not ids:
        return {}
    rows = session.execute(select(AuthorCredential.learner_id, AuthorCredential.username)
                           .where(AuthorCredential.learner_id.in_(ids)))
    return {lid: name for lid, name in rows}


def history(session: Session, qid: str) -> list[dict[str, Any]]:
    """Every version, newest first, with who made it (username) and when."""
    rows = list_versions(session, qid)
    names = authors(session, [r["created_by"] for r in rows])
    for r in rows:
        r["author"] = names.get(r["created_by"] or "", None)
    return list(reversed(rows))


def prompt_text(data: Mapping[str, Any], seed: int = 0, lang: str = "en") -> str:
    """The learner-visible text of one variant (title, prompt, each part's prompt and options) as lines,
    for a readable diff of what learners see."""
    view = public_view(data, seed, lang)
    lines = [f"# {view.get('title') or view.get('id')}", "", str(view.get("prompt") or "")]
    for p in view.get("parts") or []:
        lines += ["", f"## {p.get('id')} ({p.get('kind')})", str(p.get("prompt") or "")]
        lines += [f"- {o.get('id')}: {o.get('text')}" for o in p.get("options") or []]
    return "\n".join(lines) + "\n"


def diff_versions(session: Session, qid: str, a: int, b: int, *, seed: int = 0, lang: str = "en") -> dict:
    """Unified diffs from version ``a`` to version ``b``: their YAML texts and the prompts learners see for
    variant ``seed`` (a version whose prompt cannot render shows the error instead)."""
    va, vb = get_version_row(session, qid, a), get_version_row(session, qid, b)

    def rendered(v: QuestionVersion) -> str:
        try:
            return prompt_text(v.data, seed, lang)
        except Exception as exc:  # noqa: BLE001 - a broken draft still diffs by its YAML
            return f"(cannot render: {type(exc).__name__}: {exc})\n"

    def udiff(x: str, y: str) -> list[str]:
        return [line.rstrip("\n") for line in difflib.unified_diff(
            x.splitlines(keepends=True), y.splitlines(keepends=True), f"v{va.number}", f"v{vb.number}", n=3)]

    return {"question_id": qid, "from": va.number, "to": vb.number, "seed": seed, "lang": lang,
            "yaml": udiff(version_text(va), version_text(vb)), "prompt": udiff(rendered(va), rendered(vb))}


def restore(session: Session, qid: str, number: int, author_id: str | None, *, seeds: int = MIN_SEEDS) -> dict:
    """Version ``number`` again as a new draft (its YAML text as stored), self-tested; the old version and
    the attempts that point at it are unchanged."""
    old = get_version_row(session, qid, number)
    data = json.loads(json.dumps(old.data))
    text = version_text(old)
    report = selftest_report(data, seeds)
    locate_failures(text, report["failures"])
    v = _add_draft(session, data, text, report, source=old.source, author_id=author_id)
    body = _saved(session, v, report, True)
    body["restored_from"] = old.number
    return body


def unretire(session: Session, qid: str) -> dict:
    """Publish again the version retired most recently; 409 when a version is published or none is retired."""
    if session.get(Question, qid) is None:
        raise NotFound(f"no question {qid!r}", "question_id", code="unknown_question")
    if qsvc.published_version(session, qid) is not None:
        raise Conflict(f"question {qid!r} is published", None, code="already_published")
    v = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid,
                                                      QuestionVersion.status == "retired")
                        .order_by(QuestionVersion.retired_at.desc(), QuestionVersion.number.desc())
                        .limit(1)).first()
    if v is None:
        raise Conflict(f"question {qid!r} has no retired version", None, code="not_retired")
    try:
        qsvc.publish_version(session, v)
        v.retired_at = None
        session.commit()
    except Exception:
        session.rollback()
        raise
    return {"question_id": qid, "version": v.number, "status": v.status}


def selftest_version(session: Session, v: QuestionVersion, *, seeds: int = MIN_SEEDS) -> dict[str, Any]:
    """Run and store the self-test of one stored version (its failures located in its YAML)."""
    report = selftest_report(v.data, seeds)
    locate_failures(version_text(v), report["failures"])
    _store_check(session, v, report)
    session.commit()
    return report


def selftest_unchecked(session: Session, *, seeds: int = MIN_SEEDS, only_published: bool = True) -> list[dict]:
    """Run and store the self-test of every version (published ones by default) that has no stored report,
    e.g. questions loaded from the bank's files: [{"question_id", "version", "ok", "failures"}]."""
    stmt = select(QuestionVersion).outerjoin(VersionCheck, VersionCheck.version_id == QuestionVersion.id) \
        .where(VersionCheck.version_id.is_(None))
    if only_published:
        stmt = stmt.where(QuestionVersion.status == "published")
    out = []
    for v in list(session.scalars(stmt.order_by(QuestionVersion.question_id, QuestionVersion.number))):
        report = selftest_version(session, v, seeds=seeds)
        out.append({"question_id": v.question_id, "version": v.number, "ok": report["ok"],
                    "failures": len(report["failures"])})
    return out
