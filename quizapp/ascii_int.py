"""Small non-negative integers from query strings and forms (a variant, a mock interview's length).

``str.isdigit`` accepts characters ``int`` refuses (superscripts such as ``²``) and ``int`` accepts digits of
every script (``٣``), and a 5,000-digit string costs a quadratic conversion: only ASCII digits, and at most
``max_digits`` of them, are read as a number.
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]+")


def parse_ascii_uint(raw: str | None, *, max_digits: int = 9) -> int | None:
    """The integer written by ``raw`` (surrounding spaces allowed), or ``None`` when it is anything else."""
    if raw is None:
        return None
    raw = raw.strip()
    if not raw or len(raw) > max_digits or not _DIGITS.fullmatch(raw):
        return None
    return int(raw, 10)
