"""The version lifecycle of a question: drafts (create, update), publish, retire, unretire, and the
self-test report stored with each version.

A draft is stored with its report (:mod:`quizapp.authoring.validation`); a draft whose report has
failures cannot be published (publishing re-runs the checks). Every change commits once and rolls back
on any error, so a version never exists without its check.
"""

from __future__ import annotations

from typing import Any, Mapping

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from checkers.bank import content_hash, dump_question

from ..errors import Conflict, NotFound, ValidationError
from ..i18n import N_, Message
from ..storage.models import Attempt, Question, QuestionVersion, VersionCheck, utcnow
from ..services import questions as qsvc
from ..timeutil import iso_utc
from .validation import MIN_SEEDS, selftest_report, validate
from .yamltext import with_top_key


#: Why a version that is not a draft cannot be published, by its status (the message names the status).
NOT_A_DRAFT = {
    "published": N_("version %(n)s of '%(qid)s' is published, not a draft: save a new version first"),
    "retired": N_("version %(n)s of '%(qid)s' is retired, not a draft: save a new version first"),
}


def unknown_question(qid: str) -> NotFound:
    """The 404 for a question id that names no question (``unknown_question``, field ``question_id``)."""
    return NotFound(Message(N_("no question '%(qid)s'"), qid=qid), "question_id", code="unknown_question")


def store_check(session: Session, version: QuestionVersion, report: Mapping[str, Any]) -> None:
    """Keep ``report`` as the version's self-test result (replacing an older one); the caller commits."""
    row = session.get(VersionCheck, version.id)
    if row is None:
        row = VersionCheck(version_id=version.id)
        session.add(row)
    row.ok = bool(report["ok"])
    row.seeds = int(report["seeds"])
    row.failures = list(report["failures"])
    row.checked_at = utcnow()


def stored_check(session: Session, version_id: int) -> dict[str, Any] | None:
    """The self-test result stored with a version, or None when it was never checked."""
    row = session.get(VersionCheck, version_id)
    if row is None:
        return None
    return {"ok": row.ok, "seeds": row.seeds, "failures": row.failures,
            "checked_at": iso_utc(row.checked_at)}


def latest_version(session: Session, qid: str, *, non_draft: bool = False) -> QuestionVersion | None:
    """The newest version of ``qid`` (with ``non_draft``, the newest published or retired one)."""
    stmt = select(QuestionVersion).where(QuestionVersion.question_id == qid)
    if non_draft:
        stmt = stmt.where(QuestionVersion.status != "draft")
    return session.scalars(stmt.order_by(QuestionVersion.number.desc()).limit(1)).first()


def version_body(session: Session, v: QuestionVersion, *, data: bool = True) -> dict[str, Any]:
    """A version as the API shows it, with its stored self-test (and, with ``data``, its content and YAML)."""
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


def saved_body(session: Session, v: QuestionVersion, report: Mapping[str, Any], created: bool) -> dict[str, Any]:
    """The answer to a save: the version, this save's self-test ``report``, whether it can be published."""
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
    text = text if text is not None else dump_question(data)
    report = selftest_report(data, seeds, text)
    digest = content_hash(data)
    latest = latest_version(session, data["id"])
    if latest is not None and latest.status == "draft" and latest.content_hash == digest and (
            version_text(latest) == text):
        store_check(session, latest, report)
        session.commit()
        return saved_body(session, latest, report, False), False
    version = add_draft(session, data, text, report, source=source, author_id=author_id, digest=digest)
    return saved_body(session, version, report, True), True


def add_draft(session: Session, data: dict, text: str, report: Mapping[str, Any], *, source: str | None,
               author_id: str | None, digest: str | None = None) -> QuestionVersion:
    """Store ``data`` as a new draft version with the author's ``text`` and its self-test ``report``, in one
    commit (rolled back on any error, so a version never exists without its check)."""
    try:
        version = qsvc.add_version(session, data, content_hash=digest or content_hash(data), status="draft",
                                   source=source, created_by=author_id)
        version.yaml_text = text
        store_check(session, version, report)
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
        raise Conflict(Message(N_("a question with the id '%(qid)s' exists already: add a new version to it "
                                  "instead (in the editor, open it from the question list and save; in the API, "
                                  "PUT /api/v1/questions/%(qid)s)"), qid=data["id"]),
                       "id", code="question_exists")
    return _save(session, data, author_id, seeds, "api", text)[0]


def update_question(session: Session, qid: str, data: Any, author_id: str | None, *,
                    seeds: int = MIN_SEEDS, text: str | None = None) -> tuple[dict, bool]:
    """A new draft version of ``qid`` (an unchanged draft is returned as is)."""
    if session.get(Question, qid) is None:
        raise unknown_question(qid)
    if isinstance(data, dict):
        if "id" not in data and text is not None:
            try:
                text = with_top_key(text, "id", qid)
            except Exception:  # noqa: BLE001 - text the round-trip reader refuses: keep the structure only
                text = None
        data.setdefault("id", qid)
        if data["id"] != qid:
            raise ValidationError(Message(N_("the question's id '%(got)s' differs from '%(qid)s', the question "
                                             "being saved (the id in the URL)"), got=data["id"], qid=qid),
                                  "id", code="id_mismatch")
    validate(data, text=text)
    return _save(session, data, author_id, seeds, "api", text)


def list_versions(session: Session, qid: str) -> list[dict]:
    if session.get(Question, qid) is None:
        raise unknown_question(qid)
    rows = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid)
                           .order_by(QuestionVersion.number))
    return [version_body(session, v) for v in rows]


def get_version_row(session: Session, qid: str, number: int | None = None) -> QuestionVersion:
    if session.get(Question, qid) is None:
        raise unknown_question(qid)
    if number is None:
        v = latest_version(session, qid)
    else:
        v = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid,
                                                          QuestionVersion.number == number)).first()
    if v is None:
        message = (Message(N_("question '%(qid)s' has no version yet"), qid=qid) if number is None else
                   Message(N_("question '%(qid)s' has no version %(n)s"), qid=qid, n=number))
        raise NotFound(message, "version", code="unknown_version")
    return v


def publish(session: Session, qid: str, number: int | None, author_id: str | None, *,
            seeds: int = MIN_SEEDS) -> dict:
    """Publish draft ``number`` (default: the newest version, which must be a draft). The schema check and
    the self-test run again; any failure -> 409 ``selftest_failed`` listing them, nothing changes."""
    v = get_version_row(session, qid, number)
    if v.status != "draft":
        msgid = NOT_A_DRAFT.get(v.status, NOT_A_DRAFT["published"])
        raise Conflict(Message(msgid, n=v.number, qid=qid), "version", code="not_a_draft")
    validate(v.data)
    report = selftest_report(v.data, seeds, version_text(v))
    if not report["ok"]:
        session.rollback()
        raise Conflict(Message(N_("version %(n)s of '%(qid)s' fails its self-test (%(f)s failure(s)); fix them "
                                  "and save a new draft"), n=v.number, qid=qid, f=len(report["failures"])),
                       "version", code="selftest_failed", extra={"failures": report["failures"]})
    try:
        qsvc.publish_version(session, v)
        store_check(session, v, report)
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
        raise unknown_question(qid)
    current = qsvc.published_version(session, qid)
    if current is None:
        raise Conflict(Message(N_("question '%(qid)s' has no published version"), qid=qid), None,
                       code="not_published")
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



def unretire(session: Session, qid: str) -> dict:
    """Publish again the version retired most recently; 409 when a version is published or none is retired."""
    if session.get(Question, qid) is None:
        raise unknown_question(qid)
    if qsvc.published_version(session, qid) is not None:
        raise Conflict(Message(N_("question '%(qid)s' is published already"), qid=qid), None,
                       code="already_published")
    v = session.scalars(select(QuestionVersion).where(QuestionVersion.question_id == qid,
                                                      QuestionVersion.status == "retired")
                        .order_by(QuestionVersion.retired_at.desc(), QuestionVersion.number.desc())
                        .limit(1)).first()
    if v is None:
        raise Conflict(Message(N_("question '%(qid)s' has no retired version"), qid=qid), None,
                       code="not_retired")
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
    report = selftest_report(v.data, seeds, version_text(v))
    store_check(session, v, report)
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

