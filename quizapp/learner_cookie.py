"""The anonymous learner's cookie: the signer of its value and the shape of the id it carries.

One home for both, because three places read that cookie: the learner of a page or API request
(:mod:`quizapp.learners`), the account hook that decides whose attempts a request writes
(:mod:`quizapp.auth.identity`) and the rate limiter's per-learner key (:mod:`quizapp.ops.limits`).
A learner id is a UUID (version 7: the time, then random bits) written as 32 hex digits
(:func:`quizapp.storage.ids.random_hex_id`); the cookie holds it signed with ``SECRET_KEY`` (itsdangerous
``URLSafeSerializer``, salt :data:`SALT`), so a client cannot pick another learner's id.
"""

from __future__ import annotations

import functools
import uuid

from flask import current_app
from itsdangerous import Serializer, URLSafeSerializer
from itsdangerous.encoding import base64_encode

from .httpkit.signers import KeptKeySigner, KeptSigners

#: Salt of the learner cookie's signature: a value signed for another purpose never reads as a learner id.
SALT = "quizapp.learner"


class LearnerSerializer(KeptSigners, URLSafeSerializer):
    """itsdangerous' ``URLSafeSerializer`` without the zlib attempt its ``dump_payload`` makes on every value
    (it keeps the compressed form only when that is shorter). A learner id's JSON, 34 bytes of hex digits,
    never is: the cookie is byte for byte the one ``URLSafeSerializer`` writes, and reading is unchanged. The
    attempt cost a new learner's submit a call into zlib, which gives up the interpreter lock: under load the
    thread then waited behind the worker's other threads to take it back. Its signer is kept
    (:mod:`quizapp.httpkit.signers`)."""

    default_signer = KeptKeySigner

    def dump_payload(self, obj: object) -> bytes:
        return base64_encode(Serializer.dump_payload(self, obj))


def learner_serializer() -> URLSafeSerializer:
    """The signer of the learner cookie under the running app's ``SECRET_KEY`` (one per key: every request
    reads or writes the cookie, and building a signer derives its key again)."""
    return _serializer(current_app.config["SECRET_KEY"])


@functools.lru_cache(maxsize=8)
def _serializer(secret_key: str | bytes) -> URLSafeSerializer:
    return LearnerSerializer(secret_key, salt=SALT)


def is_learner_id(value: object) -> bool:
    """Whether ``value`` is a learner id: 32 hex digits of a UUID (anything else in a cookie is ignored)."""
    if not isinstance(value, str) or len(value) != 32:
        return False
    try:
        uuid.UUID(hex=value)
    except ValueError:
        return False
    return True


__all__ = ["SALT", "LearnerSerializer", "is_learner_id", "learner_serializer"]
