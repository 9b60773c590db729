"""Timestamps on pages: ``<time class="local-time" datetime="ISO">2026-11-27 14:30 UTC</time>``.

The server does not know the learner's time zone, so a page states the time in UTC (readable without
scripts, and saying which zone it is in), and ``static/localtime.js`` rewrites each such element in the
browser's own zone with ``Intl.DateTimeFormat``, keeping the UTC text as its ``title``.
"""

from __future__ import annotations

from datetime import datetime

from markupsafe import Markup, escape

from ..timeutil import iso_utc


def utc_text(iso: str | None) -> str:
    """``2026-11-27T14:30:05.1Z`` -> ``2026-11-27 14:30 UTC`` (minutes are what a learner reads)."""
    if not iso:
        return ""
    return f"{iso[:16].replace('T', ' ')} UTC"


def time_tag(iso: str | datetime | None, element_id: str | None = None) -> Markup:
    """The ``<time>`` element of one ISO 8601 UTC timestamp (the service's ``...Z`` form, or a stored
    datetime); empty for None."""
    if isinstance(iso, datetime):
        iso = iso_utc(iso)
    if not iso:
        return Markup("")
    ident = Markup(' id="%s"') % element_id if element_id else Markup("")
    return Markup('<time class="local-time" datetime="%s"%s>%s</time>') % (escape(iso), ident, utc_text(iso))
