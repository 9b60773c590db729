"""Cookie signers kept per secret key instead of made again for every request: Flask's session cookie
(:class:`KeptSignerSessionInterface`) and the learner cookie (``quizapp.learner_cookie``) use them.

Flask's signed-cookie session builds a new ``URLSafeTimedSerializer`` each time it opens a session (every
request), and an itsdangerous serializer builds a new signer for every value it signs or checks, which
derives its key from the secret and the salt again (an HMAC) each time. All of it depends on the secret keys
and the salt only, so it is kept: what is signed and accepted is unchanged.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import Signer, TimestampSigner
from itsdangerous.url_safe import URLSafeTimedSerializer

#: Secret keys (or key sets) kept per process: a running app has one; tests make apps with others.
MAX_KEPT = 8


class _KeptKey:
    """A signer mixin whose key derived from each secret key is computed once."""

    def derive_key(self, secret_key: str | bytes | None = None) -> bytes:
        kept: dict[Any, bytes] = self.__dict__.setdefault("_derived", {})
        key = kept.get(secret_key)
        if key is None:
            key = super().derive_key(secret_key)  # type: ignore[misc]
            if len(kept) < MAX_KEPT:
                kept[secret_key] = key
        return key


class KeptKeySigner(_KeptKey, Signer):
    """itsdangerous' ``Signer``, its derived keys kept."""


class KeptKeyTimestampSigner(_KeptKey, TimestampSigner):
    """itsdangerous' ``TimestampSigner`` (Flask's session cookie), its derived keys kept."""


class KeptSigners:
    """A serializer mixin that makes its signer once per salt (``make_signer``) and keeps it; set the
    serializer's signer class to one of the kept-key signers above."""

    def make_signer(self, salt: str | bytes | None = None) -> Signer:
        kept: dict[Any, Signer] = self.__dict__.setdefault("_signers", {})
        if salt is None:  # the serializer's own salt, however it is asked for (signing asks with None)
            salt = self.salt  # type: ignore[attr-defined]
        signer = kept.get(salt)
        if signer is None:
            signer = super().make_signer(salt)  # type: ignore[misc]
            if len(kept) < MAX_KEPT:
                kept[salt] = signer
        return signer


class _KeptURLSafeTimedSerializer(KeptSigners, URLSafeTimedSerializer):
    pass


class KeptSignerSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session whose serializer is made once per set of secret keys (``SECRET_KEY``
    and ``SECRET_KEY_FALLBACKS``), with the same salt, serializer, digest and key derivation as Flask's."""

    def __init__(self) -> None:
        self._kept: dict[tuple, URLSafeTimedSerializer] = {}

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        if not app.secret_key:
            return None
        fallbacks = tuple(app.config.get("SECRET_KEY_FALLBACKS") or ())
        kept = self._kept.get((app.secret_key, fallbacks))
        if kept is None:
            kept = _KeptURLSafeTimedSerializer(
                [*fallbacks, app.secret_key], salt=self.salt, serializer=self.serializer,
                signer=KeptKeyTimestampSigner,
                signer_kwargs={"key_derivation": self.key_derivation, "digest_method": self.digest_method})
            if len(self._kept) < MAX_KEPT:
                self._kept[(app.secret_key, fallbacks)] = kept
        return kept
