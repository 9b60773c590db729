"""Errors raised by the reference engine (contract §1)."""

from __future__ import annotations


class ReferenceError_(Exception):
    """Base class of every error the engine raises on purpose."""


class UnknownFunction(ReferenceError_, KeyError):
    """``call``/``describe`` got a name that is not registered."""

    def __init__(self, name: str, known: list[str] | None = None):
        self.name = name
        self.known = list(known or [])
        super().__init__(name)

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return f"unknown reference function {self.name!r}"


class ReferenceInputError(ReferenceError_, ValueError):
    """A missing, extra or ill-typed argument, a shape mismatch or a value outside its domain.

    ``argument`` names the offending argument (``None`` only when no single argument is at fault).
    """

    def __init__(self, argument: str | None, reason: str):
        self.argument = argument
        self.reason = reason
        super().__init__(f"{argument}: {reason}" if argument else reason)
