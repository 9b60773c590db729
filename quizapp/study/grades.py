"""An attempt's grade from its score: what history, progress, the review rating and the stored summary
agree to call full marks.

``status = uncounted`` when nothing could be graded, else ``correct`` when ``score >= max_score - EPS``
(with ``max_score > 0``), ``partial`` when ``score > EPS``, else ``incorrect``; :data:`EPS` absorbs the
rounding of weighted part scores (each stored rounded to 10 decimals).
"""

from __future__ import annotations

EPS = 1e-9
STATUSES = ("correct", "partial", "incorrect", "uncounted")


def grade_status(score: float, max_score: float, counted: bool) -> str:
    """correct (full marks), partial, incorrect (no points) or uncounted (nothing could be graded)."""
    if not counted:
        return "uncounted"
    if max_score > 0 and score >= max_score - EPS:
        return "correct"
    return "partial" if score > EPS else "incorrect"
