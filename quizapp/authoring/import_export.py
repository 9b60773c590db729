"""Question files in and out of the database: export (one file, every file, a zip in the layout of
``questions/``) and import (files, a zip or a folder; all or nothing, every new or changed file validated
and self-tested first).
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

from sqlalchemy.orm import Session

from checkers.bank import BankError, content_hash, question_files

from ..errors import NotFound, ValidationError
from ..i18n import N_, Message
from ..storage.models import Question, QuestionVersion
from ..services import questions as qsvc
from .validation import MIN_SEEDS, selftest_report, validate
from .versions import latest_version, store_check, version_text
from .yamlsafe import parse_yaml

MAX_IMPORT_FILES = 2000
MAX_IMPORT_BYTES = 16 * 1024 * 1024


def export_question(session: Session, qid: str) -> tuple[str, str]:
    """(relative path, YAML text) of the published version of ``qid``."""
    v = qsvc.published_version(session, qid)
    if v is None:
        raise NotFound(Message(N_("no published question '%(qid)s'"), qid=qid), "id", code="unknown_question")
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


def _too_many() -> Message:
    """The refusal of an import over :data:`MAX_IMPORT_FILES` files."""
    return Message(N_("at most %(n)s files"), n=MAX_IMPORT_FILES)


def _safe_rel(path: Any) -> str:
    if not isinstance(path, str) or not path or len(path) > 300:
        raise ValidationError(Message(N_("each file needs a relative path")), "files.path")
    p = PurePosixPath(path.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or p.suffix not in (".yaml", ".yml"):
        raise ValidationError(Message(N_("'%(path)s': a file path must be relative, without '..', ending in "
                                         ".yaml"), path=path), "files.path")
    return p.as_posix()


def files_from_zip(raw: bytes) -> list[tuple[str, str]]:
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, EOFError, ValueError, OSError):
        raise ValidationError(Message(N_("the body is not a zip archive")), None, code="bad_archive") from None
    items, total = [], 0
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        if len(infos) > MAX_IMPORT_FILES:
            raise ValidationError(_too_many(), None, code="bad_archive")
        for info in infos:
            if not info.filename.endswith((".yaml", ".yml")):
                continue
            total += info.file_size
            if total > MAX_IMPORT_BYTES:
                raise ValidationError(Message(N_("the archive is too large once unpacked")), None,
                                      code="bad_archive")
            rel = _safe_rel(info.filename)
            try:
                with zf.open(info) as fh:
                    data = fh.read(MAX_IMPORT_BYTES + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
                    ValueError, OSError) as exc:  # corrupt, encrypted or an unsupported method
                raise ValidationError(Message(N_("%(file)s: cannot be unpacked (%(error)s)"), file=rel,
                                              error=type(exc).__name__), "files.content",
                                      code="bad_archive") from None
            try:
                items.append((rel, data.decode("utf-8")))
            except UnicodeDecodeError:
                raise ValidationError(Message(N_("%(file)s: not UTF-8"), file=rel), "files.content") from None
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
    latest = latest_version(session, data["id"], non_draft=publish_now)
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
        raise ValidationError(_too_many(), "files", code="too_many_files")
    if sum(len(text) for _, text in items) > MAX_IMPORT_BYTES:
        raise ValidationError(Message(N_("the files are too large together")), "files", code="too_large")
    if not items:
        raise ValidationError(Message(N_("no question files to import")), "files", code="missing_field")
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
            report = selftest_report(data, seeds, text)
            failures.extend(dict(f, file=rel) for f in report["failures"])
        parsed.append((rel, data, text, unchanged))
    if failures:
        raise ValidationError(Message(N_("%(n)s problem(s) in the imported files; nothing was imported"),
                                      n=len(failures)), "files", code="import_failed", extra={"failures": failures})
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
            store_check(session, v, {"ok": True, "seeds": max(seeds, MIN_SEEDS), "failures": []})
            summary["updated" if existed else "added"].append(data["id"])
        session.commit()
    except Exception:
        session.rollback()
        raise
    return summary

