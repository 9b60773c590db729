"""Ids of attempts and learners: a version-7 UUID (RFC 9562: the Unix time in milliseconds, then 74
random bits) written as 32 hex digits, its random bits from the operating system's source read in blocks.

Time first: the ids made at one moment sort together, so the attempts, learners, cards and summaries that a
group commit writes go into the same last pages of each index keyed by them (the attempts' and learners' own
keys, and every index that starts with a learner id), instead of one page of each index per row anywhere in
it. Measured with 3,000 earlier learners, a group commit of 40 new learners' submits appended 153 pages to the
WAL with random (version-4) ids and 41 with these (``tests/service/test_service_hot_paths.py``); under 64
clients a submit's writes to the WAL went from 16.5 to 7.5 calls. The 74 random bits keep an id
unguessable; it tells when it was made, which its row says anyway.

``uuid.uuid4()`` reads 16 bytes with ``os.urandom`` on every call, and that call (``getrandom``) gives up the
interpreter lock: under load each submit that makes an id (its attempt, and a new learner's) then waited
behind the worker's other threads to take the interpreter back, and came back to cold caches. The bytes
here come from the same source, 4 KiB at a time; a forked process reads its own (a child must never hand out
the ids its parent had buffered). Security tokens (sessions, API tokens, CSRF) keep ``secrets``.
"""

from __future__ import annotations

import os
import threading
import time

#: Bytes read from the operating system at a time: 256 ids.
BLOCK = 4096


class _Random:
    """Bytes of ``os.urandom`` handed out in order, each once, refilled when spent; a forked child starts
    empty (:meth:`forget`, run in the child by ``os.register_at_fork``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._block = b""
        self._at = 0

    def take(self, n: int) -> bytes:
        with self._lock:
            if self._at + n > len(self._block):
                self._block, self._at = os.urandom(max(BLOCK, n)), 0
            out = self._block[self._at:self._at + n]
            self._at += n
            return out

    def forget(self) -> None:
        self._lock = threading.Lock()  # a child forked while a thread held it must not wait forever
        self._block, self._at = b"", 0


_random = _Random()
if hasattr(os, "register_at_fork"):  # no fork, hence nothing to forget, where it is missing (Windows)
    os.register_at_fork(after_in_child=_random.forget)


def random_hex_id() -> str:
    """A version-7 UUID (RFC 9562 section 5.7) as 32 lower-case hex digits: 48 bits of Unix time in
    milliseconds, the version (7), 12 random bits, the variant (binary 10), 62 random bits."""
    rand = bytearray(_random.take(10))
    rand[0] = 0x70 | (rand[0] & 0x0F)  # version 7 in the high nibble of byte 6
    rand[2] = 0x80 | (rand[2] & 0x3F)  # variant 10 in the high bits of byte 8
    return (time.time_ns() // 1_000_000).to_bytes(6, "big").hex() + rand.hex()
