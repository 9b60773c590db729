"""Questions: the published version of each question, and syncing the bank files into the database.

A question dict returned here::

    {"id", "ref", "level", "tags", "title": {"en", "zh"}, "data": <question dict of the published
     version>, "version_id": int, "version": int, "content_hash": str}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session
from checkers.bank import (BankError, content_hash, dump_question, question_files, read_question_file,
                           validate_question)
from checkers.bank.tags import check_tags, load_tag_list

from ..errors import NotFound
from ..storage.models import Question, QuestionVersion, utcnow
from ..levels import LEVELS

BANK_LOCK_KEY = 7_402_115_002  # PostgreSQL advisory lock: one bank sync at a time


def _level_key(level: str) -> int:
    try:
        return LEVELS.index(level)
    except ValueError:
        return len(LEVELS)


def _row(version: QuestionVersion) -> dict[str, Any]:
    data = version.data
    return {
        "id": version.question_id,
        "ref": data.get("ref"),
        "level": data.get("level", version.level),
        "tags": list(data.get("tags") or []),
        "title": dict(data.get("title") or {}),
        "data": data,
        "version_id": version.id,
        "version": version.number,
        "content_hash": version.content_hash,
    }


def _ref_key(ref: str | None) -> tuple[int, int]:
    if isinstance(ref, str) and ref[:1] == "Q" and ref[1:].isdigit():
        return (0, int(ref[1:]))
    return (1, 0)


def list_questions(session: Session, level: str | None = None, tag: str | None = None) -> list[dict]:
    """Every question with a published version, ordered by level, tutorial ref and id (from the
    per-process cache of :mod:`quizapp.services.question_cache`; each row a copy a caller may annotate,
    its ``data`` shared and read-only)."""
    from .question_cache import published_rows  # local: question_cache imports this module's row helpers

    rows = published_rows(session)
    if level:
        rows = [r for r in rows if r["level"] == level]
    if tag:
        rows = [r for r in rows if tag in r["tags"]]
    return [dict(r) for r in rows]


def get_question(session: Session, qid: str) -> dict:
    """The published version of question ``qid`` (a copy a caller may annotate, its ``data`` shared and
    read-only, from the per-process cache as for :func:`list_questions`); raises :class:`NotFound`."""
    from .question_cache import published_row  # local: question_cache imports this module's row helpers

    row = published_row(session, qid) if isinstance(qid, str) and len(qid) <= 80 else None
    if row is None:
        raise NotFound(f"no question {qid!r}", "question_id", code="unknown_question")
    return dict(row)


def published_version(session: Session, qid: str) -> QuestionVersion | None:
    """The published version of ``qid``, looked up once per session: a request that checks the question
    exists and then grades against it reads it once. The memo is trusted only while the version is still
    in the session and still published (publishing another version retires this one through the ORM)."""
    if not isinstance(qid, str) or len(qid) > 80:
        return None
    memo = session.info.setdefault("quizapp.published_versions", {})
    hit = memo.get(qid)
    if hit is not None and hit in session and hit.status == "published":
        return hit
    version = session.scalars(select(QuestionVersion).where(
        QuestionVersion.question_id == qid, QuestionVersion.status == "published")).first()
    if version is not None:
        memo[qid] = version
    return version


def get_version(session: Session, version_id: int) -> QuestionVersion | None:
    return session.get(QuestionVersion, version_id)


# ------------------------------------------------------------------------------------------------
# Versions (also the base of authoring: drafts, publish, retire)

def add_version(session: Session, data: dict, *, content_hash: str, status: str = "draft",
                source: str | None = None, created_by: str | None = None) -> QuestionVersion:
    """Append version n+1 of ``data["id"]`` (creating the question row if needed), in the caller's
    transaction. ``status="published"`` retires the currently published version first."""
    qid = data["id"]
    question = session.get(Question, qid)
    if question is None:
        question = Question(id=qid, created_by=created_by)
        session.add(question)
        session.flush()
    last = session.scalar(select(func.max(QuestionVersion.number)).where(QuestionVersion.question_id == qid))
    version = QuestionVersion(question_id=qid, number=(last or 0) + 1, status="draft",
                              content_hash=content_hash, level=data["level"], ref=data.get("ref"),
                              data=data, source=source, created_by=created_by)
    session.add(version)
    session.flush()
    if status == "published":
        publish_version(session, version)
    return version


def publish_version(session: Session, version: QuestionVersion) -> None:
    """Make ``version`` the published one (the previous published version, if any, is retired)."""
    now = utcnow()
    current = published_version(session, version.question_id)
    if current is not None and current.id != version.id:
        current.status = "retired"
        current.retired_at = now
        session.flush()  # the partial unique index allows one published version per question
    version.status = "published"
    version.published_at = now
    version.retired_at = None
    session.flush()


def retire_question(session: Session, qid: str) -> bool:
    """Hide ``qid`` from learners (attempts are kept). Returns False when nothing was published."""
    current = published_version(session, qid)
    if current is None:
        return False
    current.status = "retired"
    current.retired_at = utcnow()
    session.flush()
    return True


# ------------------------------------------------------------------------------------------------
# Bank files <-> database

@dataclass
class SyncSummary:
    added: list[str] = field(default_factory=list)      # new questions
    updated: list[str] = field(default_factory=list)    # a changed file: a new published version
    unchanged: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)     # files skipped: "file: field: problem"

    def text(self) -> str:
        lines = [f"bank: {len(self.added)} added, {len(self.updated)} updated, "
                 f"{len(self.unchanged)} unchanged" + (f", {len(self.errors)} skipped" if self.errors else "")]
        lines += [f"  ! {e}" for e in self.errors]
        lines += [f"  + {q}" for q in self.added]
        lines += [f"  ~ {q}" for q in self.updated]
        return "\n".join(lines)


def _latest_hashes(session: Session) -> dict[str, tuple[str, str | None]]:
    """``{question id: (content hash, source)}`` of each question's latest non-draft version, in one query
    of three columns (no document is read or decoded)."""
    v = QuestionVersion.__table__.c
    out: dict[str, tuple[int, str, str | None]] = {}
    for qid, number, digest, source in session.connection().execute(
            select(v.question_id, v.number, v.content_hash, v.source).where(v.status != "draft")):
        if qid not in out or number > out[qid][0]:
            out[qid] = (number, digest, source)
    return {qid: (digest, source) for qid, (_n, digest, source) in out.items()}


def sync_bank(session: Session, items: Iterable[tuple[str, dict]],
              digests: dict[str, str] | None = None) -> SyncSummary:
    """Load (source, question) pairs: same content hash as the latest non-draft version -> nothing;
    changed -> a new published version; new id -> a new question. Commits once at the end. ``digests``:
    content hashes the caller already computed, by question id (not computed again)."""
    summary = SyncSummary()
    if session.get_bind().dialect.name == "postgresql":  # workers starting together load one at a time
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": BANK_LOCK_KEY})
    latest = _latest_hashes(session)  # read under the lock: what another loader committed is seen
    digests = digests or {}
    for source, data in items:
        digest = digests.get(data["id"]) or content_hash(data)
        known = latest.get(data["id"])
        if known is not None and known[0] == digest:
            summary.unchanged.append(data["id"])
            continue
        add_version(session, data, content_hash=digest, status="published", source=source)
        (summary.updated if known is not None else summary.added).append(data["id"])
    session.commit()
    return summary


def _loaded_before(data: Any, source: str, latest: dict[str, tuple[str, str | None]]) -> str | None:
    """The content hash of ``data`` (parsed, not validated) when it is exactly what its latest version was
    loaded from, from the same file, else None: it was validated then, and validating it again (which runs
    its generators, importing the reference engine) would only repeat that."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return None
    try:
        digest = content_hash(data)
    except (TypeError, ValueError):  # not JSON-able: validation names the problem
        return None
    return digest if latest.get(data["id"]) == (digest, source) else None


def load_bank_dir(session: Session, root: str | Path) -> SyncSummary:
    """Validate every file under ``root`` and sync the valid ones. A file that fails validation (or
    repeats another file's id) is skipped and listed in ``summary.errors``; the others still load. A file
    whose content and path are those of its question's latest version is not validated again
    (:func:`_loaded_before`): a restart with an unchanged bank parses the files and hashes them, no more."""
    root = Path(root)
    if not root.exists():
        raise FileNotFoundError(f"no question folder at {root}")
    curated = load_tag_list(root)  # a folder with tags.yml admits only its tags
    latest = _latest_hashes(session)
    items: list[tuple[str, dict]] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    unchanged: dict[str, str] = {}  # question id -> content hash, for files loaded before
    for path in question_files(root):
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            rel = path.name
        try:
            data = read_question_file(path)
            digest = _loaded_before(data, f"bank:{rel}", latest)
            if digest is None:
                validate_question(data, path)
            if curated:
                check_tags(data, curated, path)
        except BankError as exc:
            errors.append(str(exc))
            continue
        if data["id"] in seen:
            errors.append(f"{path}: id: duplicate id {data['id']!r} (also in {seen[data['id']]})")
            continue
        seen[data["id"]] = rel
        if digest is not None:
            unchanged[data["id"]] = digest
        items.append((f"bank:{rel}", data))
    summary = sync_bank(session, items, unchanged)
    summary.errors = errors
    return summary


def export_bank(session: Session, out: str | Path) -> list[Path]:
    """Write every published question as the bank holds it: its original path for questions loaded
    from files, else ``<level>/<id>.yaml`` (the layout of ``questions/``)."""
    out = Path(out)
    written = []
    for row in list_questions(session):
        version = session.get(QuestionVersion, row["version_id"])
        rel = f"{row['level']}/{row['id']}.yaml"
        if version is not None and (version.source or "").startswith("bank:"):
            candidate = version.source[len("bank:"):]
            if candidate and ".." not in Path(candidate).parts and not Path(candidate).is_absolute():
                rel = candidate
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dump_question(row["data"]), encoding="utf-8")
        written.append(target)
    return written
