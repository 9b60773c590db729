"""The outcome of one comparison (:class:`EquivalenceResult`) and the JSON form of the values it reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .constants import Outcome


@dataclass
class EquivalenceResult:
    outcome: Outcome
    method: str                         # structural | numeric | symbolic | refuted | ... | timeout
    reason: str = ""                    # English, for logs and feedback building
    details: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False

    @property
    def equal(self) -> bool:
        return self.outcome == "equal"


def jsonable(v):
    """A sample value as JSON can carry it: complex numbers become ``{"re", "im"}``."""
    if isinstance(v, complex):
        return {"re": v.real, "im": v.imag}
    return v
