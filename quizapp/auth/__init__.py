"""Authors: accounts (a ``learners`` row with ``role = author`` plus a password credential), browser
sessions (their CSRF tokens: :mod:`quizapp.httpkit.csrf`), API bearer tokens (stored as sha256, shown once,
revocable), who the learner of a request is (:mod:`.identity`) and signed-in sessions (:mod:`.sessions`).

``current_principal()`` resolves who makes an API request; ``require_author()`` raises
:class:`Unauthorized` (401: no, invalid or revoked credentials) or :class:`Forbidden` (403: not an author,
or a browser session without its CSRF token) before anything is written.
"""

from __future__ import annotations

from .accounts import (AccountError, Principal, authenticate_password, create_author, create_token,
                       list_tokens, resolve_token, revoke_token, set_password)
from ..errors import Conflict, Forbidden, Unauthorized
from .guard import current_principal, require_author

__all__ = ["AccountError", "Conflict", "Forbidden", "Principal", "Unauthorized", "authenticate_password",
           "create_author", "create_token", "current_principal", "list_tokens", "require_author",
           "resolve_token", "revoke_token", "set_password"]
