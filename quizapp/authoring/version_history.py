"""A question's version history for authors: who made each version and when, diffs between two versions
(the YAML and the prompt learners see), and restoring an old version as a new draft."""

from __future__ import annotations

import difflib
import json
from typing import Any, Iterable, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from checkers.bank import public_view

from ..storage.models import AuthorCredential, QuestionVersion
from .validation import MIN_SEEDS, selftest_report
from .versions import add_draft, get_version_row, list_versions, saved_body, version_text

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
    report = selftest_report(data, seeds, text)
    v = add_draft(session, data, text, report, source=old.source, author_id=author_id)
    body = saved_body(session, v, report, True)
    body["restored_from"] = old.number
    return body

