"""Random ids (attempts, learners): a version-4 UUID written as 32 hex digits, from the operating system's
random source read in blocks.

``uuid.uuid4()`` reads 16 bytes with ``os.urandom`` on every call, and that call (``getrandom``) gives up the
interpreter lock: under load each submit that makes an id (its attempt, and a new learner's) then waited
behind the worker's other threads to take the interpreter back, and came back to cold caches. The bytes
here come from the same source, 4 KiB at a time; a forked process reads its own (a child must never hand out
the ids its parent had buffered). Security tokens (sessions, API tokens, CSRF) keep ``secrets``.
"""

from __future__ import annotations

import os
import threading
import uuid

#: Bytes read from the operating system at a time: 256 ids.
BLOCK = 4096


class _Random:
    """Bytes of ``os.urandom`` handed out in order, each once, refilled when spent or in a new process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1
        self._block = b""
        self._at = 0

    def take(self, n: int) -> bytes:
        with self._lock:
            if self._pid != os.getpid() or self._at + n > len(self._block):
                self._pid, self._block, self._at = os.getpid(), os.urandom(max(BLOCK, n)), 0
            out = self._block[self._at:self._at + n]
            self._at += n
            return out

    def forget(self) -> None:
        self._lock = threading.Lock()  # a child forked while a thread held it must not wait forever
        self._pid, self._block, self._at = -1, b"", 0


_random = _Random()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_random.forget)


def random_hex_id() -> str:
    """A random version-4 UUID as 32 lower-case hex digits (what ``uuid.uuid4().hex`` gives)."""
    return uuid.UUID(bytes=_random.take(16), version=4).hex
