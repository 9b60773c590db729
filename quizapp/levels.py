"""The bank's levels and their labels in the interface language.

The README's three levels: L1 what every LLM engineer should know, L2 research and alignment roles,
L3 top-lab interviews. The home page groups questions by them and the question finder filters by them;
the label text lives in the gettext catalogs (:mod:`quizapp.i18n`).
"""

from __future__ import annotations

from checkers.bank.schema import LEVELS  # the levels, easiest first (the order of the home page's groups)

from .i18n import N_, gettext

LEVEL_LABELS = {"L1": N_("L1 · Every LLM engineer"), "L2": N_("L2 · Research and alignment"),
                "L3": N_("L3 · Top-lab interviews")}


def level_label(level: str) -> str:
    """The level's label in the current language; an unknown level is shown as it is written."""
    return gettext(LEVEL_LABELS[level]) if level in LEVEL_LABELS else level


__all__ = ["LEVELS", "LEVEL_LABELS", "level_label"]
