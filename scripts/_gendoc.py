"""The command line every generated docs page shares (``scripts/gen_*.py``).

    python scripts/gen_<page>.py          # write the page
    python scripts/gen_<page>.py --check  # exit 1 (and say which script to run) if the page is out of date

A generator gives the page's path and a function returning the page's text as its sources describe it now;
the page is then either written or compared byte for byte, so a stale committed page fails in CI.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent


def run(argv: Sequence[str], page: Path, text_now: Callable[[], str], script: str) -> int:
    """Write ``page`` with ``text_now()``, or with ``--check`` in ``argv`` compare and return 1 when stale."""
    text = text_now()
    shown = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    if "--check" in argv:
        current = page.read_text(encoding="utf-8") if page.exists() else ""
        if current != text:
            print(f"{shown} is out of date: run scripts/{script}", file=sys.stderr)
            return 1
        return 0
    page.write_text(text, encoding="utf-8")
    print(f"wrote {shown} ({len(text)} bytes)")
    return 0
