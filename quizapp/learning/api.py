"""The learner-memory API under ``/api/v1`` (for the cookie learner, a signed-in account or a personal
token alike):

    GET  /api/v1/attempts                 own attempts, newest first (cursor, limit, question, level, tag,
                                          status, since)
    POST /api/v1/attempts/<id>/share      a read-only link to one's own attempt
    GET  /api/v1/shared/<token>           the attempt behind such a link
    GET  /api/v1/progress                 per level and tag: seen, mastered, accuracy, attempts, time; streak
    GET  /api/v1/review/queue             due cards, oldest due first, with counts
    POST /api/v1/review/rate              {question_id, rating}: the learner's own rating of a free-text
                                          answer, or of a question due for review
"""

from __future__ import annotations

from flask import Blueprint, current_app, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer

from ..httpkit.jsonapi import check_unknown, field, json_body, limit_small_bodies, ok, query_int, request_lang
from ..storage.db import get_session
from ..errors import NotFound
from ..httpkit.openapi import contribute
from ..learners import current_learner_id
from ..services import attempts as attempt_service
from . import history, openapi, progress as progress_service
from ..study import review
from ..auth.identity import accept_tokens, setup

bp = Blueprint("learning_api", __name__, url_prefix="/api/v1")
accept_tokens(bp)
contribute(bp, openapi.fragment)
SHARE_SALT = "quizapp.shared-attempt"


def _setup(state) -> None:
    setup(state.app)


bp.record_once(_setup)


@bp.before_request
def _limit_body() -> None:
    limit_small_bodies(frozenset())


@bp.get("/attempts")
def list_attempts():
    args = request.args
    body = history.list_attempts(
        get_session(), current_learner_id(), lang=request_lang(), question=args.get("question") or None,
        level=args.get("level") or None, tag=args.get("tag") or None, status=args.get("status") or None,
        since=args.get("since") or None, cursor=args.get("cursor") or None, limit=query_int("limit"))
    return ok(body)


def _share_serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=SHARE_SALT)


@bp.post("/attempts/<attempt_id>/share")
def share_attempt(attempt_id: str):
    """Only the owner can make the link (others get 404, as for reading); the link never expires."""
    body = attempt_service.get_attempt(get_session(), attempt_id, solution=False)
    if body["learner_id"] != current_learner_id():
        raise NotFound(f"no attempt {attempt_id!r}", "attempt_id", code="unknown_attempt")
    token = _share_serializer().dumps(attempt_id)
    return ok({"attempt_id": attempt_id, "token": token,
               "url": url_for("learning_api.shared_attempt", token=token)}, 201)


@bp.get("/shared/<token>")
def shared_attempt(token: str):
    try:
        attempt_id = _share_serializer().loads(token) if len(token) <= 200 else None
    except BadSignature:
        attempt_id = None
    if not isinstance(attempt_id, str):
        raise NotFound("no shared attempt behind this link", "token", code="unknown_share")
    body = attempt_service.get_attempt(get_session(), attempt_id, request_lang())
    body.pop("learner_id", None)
    return ok(body)


@bp.get("/progress")
def get_progress():
    return ok(progress_service.progress(get_session(), current_learner_id()))


@bp.get("/review/queue")
def review_queue():
    return ok(review.queue(get_session(), current_learner_id(), lang=request_lang()))


@bp.post("/review/rate")
def rate():
    body = json_body()
    check_unknown(body, {"question_id", "rating"})
    qid = field(body, "question_id", str)
    if body.get("rating") is None:
        field(body, "rating", str)
    return ok(review.self_rate(get_session(), current_learner_id(), qid, body["rating"]))
