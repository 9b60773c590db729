"""One past attempt as its pages show it (``/history/<attempt_id>``, a mock interview's report): the question at the attempt's variant
(the question version the attempt was graded against, not today's), and for each part the answer given,
its verdict, score and feedback.

The stored attempt comes from :func:`quizapp.services.attempts.get_attempt`, the service behind
``GET /api/v1/attempts/<id>``, so the page and the API read the same thing; only the attempt's owner
sees it (anyone else gets the same 404 as for an unknown id, so an id's existence stays secret).
"""

from __future__ import annotations

from typing import Any

import checkers.bank as bank
from checkers.kinds import find_kind
from sqlalchemy.orm import Session

from .errors import NotFound
from .storage.models import QuestionVersion
from .page_view import page_from_public_view
from .rendering import render_markdown
from .services import attempts as attempt_service
from .study.grades import grade_status


def attempt_page(session: Session, attempt_id: str, learner_id: str | None, lang: str) -> dict[str, Any]:
    """``{"attempt", "question", "parts", "status"}`` of the learner's own attempt; NotFound otherwise."""
    body = attempt_service.get_attempt(session, attempt_id, lang, solution=False)
    if not learner_id or body.get("learner_id") != learner_id:
        raise NotFound(f"no attempt {attempt_id!r}", "attempt_id", code="unknown_attempt")
    version = session.get(QuestionVersion, body["version_id"])
    question = page_from_public_view(bank.public_view(version.data, int(body["variant"]), lang))
    verdicts = body.get("parts") or {}
    answers = body.get("answers") or {}
    parts = [_part(p, answers.get(p["id"]), verdicts.get(p["id"]) or {}) for p in question["parts"]]
    return {"attempt": body, "question": question, "parts": parts,
            "status": grade_status(body["score"], body["max_score"], body["counted"])}


def _part(part: dict[str, Any], answer: Any, verdict: dict[str, Any]) -> dict[str, Any]:
    """A part of the page: its rendered prompt, the answer as it should be read, and its verdict."""
    shown = answer_view(part, answer)
    feedback = verdict.get("feedback")
    return {"id": part["id"], "kind": part.get("kind"), "title": part.get("title"),
            "prompt_html": part["prompt_html"], "answer": shown,
            "status": verdict.get("status") or "unanswered", "score": verdict.get("score"),
            "max_score": verdict.get("max_score"),
            "feedback_html": render_markdown(feedback) if isinstance(feedback, str) and feedback else None}


def answer_view(part: dict[str, Any], answer: Any) -> dict[str, Any]:
    """How one answer is shown, as its kind says (``Kind.answer_form``): ``{"form": "none"}``,
    ``{"form": "verbatim", "text"}`` (program text or lines of working, in a code block),
    ``{"form": "options", "choices": [html, ...]}`` (the texts of the chosen options) or
    ``{"form": "text", "text"}``."""
    if answer is None or (isinstance(answer, str) and not answer.strip()) or answer == []:
        return {"form": "none"}
    kind = find_kind(part.get("kind"))
    form = kind.answer_form if kind is not None else "text"
    if form == "verbatim":
        text = "\n".join(str(x) for x in answer) if isinstance(answer, list) else str(answer)
        return {"form": "verbatim", "text": text}
    options = part.get("options")
    if form == "options" and isinstance(options, list) and options:
        by_id = {o["id"]: o["text_html"] for o in options}
        chosen = answer if isinstance(answer, list) else [answer]
        return {"form": "options", "choices": [by_id.get(str(c), str(c)) for c in chosen]}
    if isinstance(answer, list):
        return {"form": "text", "text": ", ".join(str(x) for x in answer)}
    if isinstance(answer, dict):
        return {"form": "text", "text": "; ".join(f"{k}: {v}" for k, v in answer.items())}
    return {"form": "text", "text": str(answer)}
