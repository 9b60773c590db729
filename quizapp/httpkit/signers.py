"""Cookie signers kept per secret key instead of made again for every request: Flask's session cookie
(:class:`KeptSignerSessionInterface`) and the learner cookie (``quizapp.learner_cookie``) use them.

Flask's signed-cookie session builds a new ``URLSafeTimedSerializer`` each time it opens a session (every
request), and an itsdangerous serializer builds a new signer for every value it signs or checks, which
derives its key from the secret and the salt again (an HMAC) each time. All of it depends on the secret keys
and the salt only, so it is kept: what is signed and accepted is unchanged.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import Signer, TimestampSigner
from itsdangerous.url_safe import URLSafeTimedSerializer

#: Secret keys (or key sets) kept per process: a running app has one; tests make apps with others.
MAX_KEPT = 8


def _kept(store: dict, key: Any, make: Callable[[], Any]) -> Any:
    """``store[key]``, made by ``make()`` the first time (kept while ``store`` holds fewer than
    :data:`MAX_KEPT`)."""
    value = store.get(key)
    if value is None:
        value = make()
        if len(store) < MAX_KEPT:
            store[key] = value
    return value


class _KeptKey:
    """A signer mixin whose key derived from each secret key is computed once."""

    def derive_key(self, secret_key: str | bytes | None = None) -> bytes:
        derive = super().derive_key  # type: ignore[misc]
        return _kept(self.__dict__.setdefault("_derived", {}), secret_key, lambda: derive(secret_key))


class KeptKeySigner(_KeptKey, Signer):
    """itsdangerous' ``Signer``, its derived keys kept."""


class KeptKeyTimestampSigner(_KeptKey, TimestampSigner):
    """itsdangerous' ``TimestampSigner`` (Flask's session cookie), its derived keys kept."""


class KeptSigners:
    """A serializer mixin that makes its signer once per salt (``make_signer``) and keeps it; set the
    serializer's signer class to one of the kept-key signers above."""

    def make_signer(self, salt: str | bytes | None = None) -> Signer:
        if salt is None:  # the serializer's own salt, however it is asked for (signing asks with None)
            salt = self.salt  # type: ignore[attr-defined]
        make = super().make_signer  # type: ignore[misc]
        return _kept(self.__dict__.setdefault("_signers", {}), salt, lambda: make(salt))


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
        return _kept(self._kept, (app.secret_key, fallbacks), lambda: _KeptURLSafeTimedSerializer(
            [*fallbacks, app.secret_key], salt=self.salt, serializer=self.serializer, signer=KeptKeyTimestampSigner,
            signer_kwargs={"key_derivation": self.key_derivation, "digest_method": self.digest_method}))
