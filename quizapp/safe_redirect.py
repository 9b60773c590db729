"""Where a ``next=`` parameter may send the browser: a path of this site, judged as the browser will read it.

A browser parsing a ``Location`` header (WHATWG URL standard, "basic URL parser") first strips leading and
trailing C0 controls and spaces and removes every ASCII tab and newline anywhere in the string, and treats
``\\`` like ``/``. So ``/\\t/evil.example`` reaches it as ``//evil.example`` (another host). The check therefore
refuses any control character, space or backslash outright instead of judging the raw string, and then accepts
only an absolute path with no scheme and no host. A newline would also make the header itself invalid (a 500).
"""

from __future__ import annotations

from urllib.parse import urlsplit


def _has_unsafe_char(target: str) -> bool:
    return any(ord(c) <= 0x20 or ord(c) == 0x7F or c == "\\" for c in target)


def safe_next(target: str | None, default: str, *, prefix: str = "/") -> str:
    """``target`` if it is a path of this site under ``prefix`` as a browser would read it, else ``default``."""
    if not target or len(target) > 2048 or _has_unsafe_char(target):
        return default
    if not target.startswith(prefix) or target.startswith("//"):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    return target
