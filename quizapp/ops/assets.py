"""The built files the product serves that are not in the source tree: the compiled gettext catalogs and the
code editor bundle (``scripts/setup`` builds them in a checkout; the package build puts them in the wheel).

Without them the service still answers, worse: pages and feedback fall back to English, code answers to a plain
text box. So a missing one does not make ``/readyz`` fail; ``/readyz`` and ``quizapp serve`` name it with its
effect and what builds it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import checkers
from checkers.languages import DEFAULT_LANG, LANGS

_QUIZAPP = Path(__file__).resolve().parent.parent
_CHECKERS = Path(checkers.__file__).resolve().parent
EDITOR_BUNDLE = _QUIZAPP / "static" / "vendor" / "code-editor.js"
BUILD_HINT = "run scripts/setup in a checkout, or install the built wheel"


def _expected() -> list[tuple[Path, str]]:
    out = [(EDITOR_BUNDLE, "code answers use a plain text box instead of the code editor")]
    for lang in LANGS:
        if lang == DEFAULT_LANG:
            continue
        out.append((_QUIZAPP / "translations" / lang / "LC_MESSAGES" / "messages.mo",
                    f"the interface shows English instead of {lang}"))
        out.append((_CHECKERS / "translations" / lang / "LC_MESSAGES" / "checkers.mo",
                    f"grading feedback is in English instead of {lang}"))
    return out


def missing_assets() -> list[dict[str, Any]]:
    """Each built file that is absent: its path and what a learner loses without it."""
    return [{"path": str(path), "effect": effect} for path, effect in _expected() if not path.is_file()]


def check() -> dict[str, Any]:
    """The ``assets`` entry of ``/readyz``: always ok (the service answers), with what is missing."""
    missing = missing_assets()
    entry: dict[str, Any] = {"ok": True, "complete": not missing}
    if missing:
        entry["missing"] = missing
        entry["fix"] = BUILD_HINT
    return entry
