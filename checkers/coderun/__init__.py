"""Running learner code: a warm template process forks one sealed child per submission.

``run(source, function, cases, limits)`` -> :class:`RunOutcome`; see ``docs/sandbox.md`` for the
threat model and each defence. Grading (which cases, how outputs compare) lives with the ``code`` answer
kind; this package only runs code and brings plain numbers back.
"""

from .limits import MAX_SOURCE_BYTES, CodeLimits
from .runner import RunOutcome, SandboxUnavailable, run, shutdown

__all__ = ["MAX_SOURCE_BYTES", "CodeLimits", "RunOutcome", "SandboxUnavailable", "run", "shutdown"]
