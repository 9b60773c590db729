"""The anonymous learner's cookie: the signer of its value and the shape of the id it carries.

One home for both, because three places read that cookie: the learner of a page or API request
(:mod:`quizapp.learners`), the account hook that decides whose attempts a request writes
(:mod:`quizapp.auth.identity`) and the rate limiter's per-learner key (:mod:`quizapp.ops.limits`).
A learner id is a random UUID written as 32 hex digits (``uuid.uuid4().hex``); the cookie holds it signed
with ``SECRET_KEY`` (itsdangerous ``URLSafeSerializer``, salt :data:`SALT`), so a client cannot pick
another learner's id.
"""

from __future__ import annotations

import functools
import uuid

from flask import current_app
from itsdangerous import URLSafeSerializer

#: Salt of the learner cookie's signature: a value signed for another purpose never reads as a learner id.
SALT = "quizapp.learner"


def learner_serializer() -> URLSafeSerializer:
    """The signer of the learner cookie under the running app's ``SECRET_KEY`` (one per key: every request
    reads or writes the cookie, and building a signer derives its key again)."""
    return _serializer(current_app.config["SECRET_KEY"])


@functools.lru_cache(maxsize=8)
def _serializer(secret_key: str | bytes) -> URLSafeSerializer:
    return URLSafeSerializer(secret_key, salt=SALT)


def is_learner_id(value: object) -> bool:
    """Whether ``value`` is a learner id: 32 hex digits of a UUID (anything else in a cookie is ignored)."""
    if not isinstance(value, str) or len(value) != 32:
        return False
    try:
        uuid.UUID(hex=value)
    except ValueError:
        return False
    return True


__all__ = ["SALT", "is_learner_id", "learner_serializer"]
