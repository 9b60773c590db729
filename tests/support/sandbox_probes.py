"""Tasks for the sandbox's tests: importable by name in every worker (tests/support is on the workers' path,
which the fork server copies from the test process), so they travel by pickle like grading functions.

The readiness check's own task, :func:`checkers.sandbox.probe_echo`, stays in the package: ``/readyz``
runs it in production."""

from __future__ import annotations

import os
import time


def probe_sleep(seconds: float) -> float:
    """Hold the worker for ``seconds`` (a task that can only end by being killed when long enough)."""
    time.sleep(seconds)
    return seconds


def probe_pid() -> int:
    """The worker's process id (whether a task ran in a worker, and in which)."""
    return os.getpid()
