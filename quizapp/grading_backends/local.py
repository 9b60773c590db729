"""The single-host path: grade in the calling worker (the sandbox pool and code-run children of this host)."""

from __future__ import annotations

from typing import Any, Mapping

from checkers import grading  # importing it registers every answer kind
from checkers.kinds.base import Kind, get_kind
from checkers.verdict import Verdict


class LocalBackend:
    name = "local"

    def grade(self, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *,
              timeout: float | None = None, kind: Kind | None = None) -> Verdict:
        return grading.grade(raw, part, params, timeout=timeout, kind=kind)

    def check(self, raw: Any, part: Mapping[str, Any], params: Mapping[str, Any], *,
              kind: Kind | None = None) -> Verdict | None:
        return (kind or get_kind(part["kind"])).check(raw, part, params)

    def readiness(self) -> None:
        return None  # this host's grader pool is /readyz's own check
