"""The limits of one code submission, in one place (overridable per call)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_SOURCE_BYTES = 64 * 1024   # a larger submission is refused before it reaches a child (HTTP 413)


@dataclass(frozen=True)
class CodeLimits:
    wall_seconds: float = 5.0        # the child and everything it started are killed at this point
    cpu_seconds: int = 4             # RLIMIT_CPU of the child
    memory_bytes: int = 1 << 30      # RLIMIT_DATA of the child (heap; torch's mapped libraries excluded)
    reply_bytes: int = 8 << 20       # more JSON than this from a child is a resource-limit error
    template_start_seconds: float = 60.0   # the template imports torch once; slow machines need time
