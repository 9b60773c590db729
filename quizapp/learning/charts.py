"""The Progress page's pictures as small hand-made SVG (no library, nothing from other sites).

Every chart is ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says in words what it shows
(the page also lists the same figures as text). Colours come from CSS classes (``learner.css``), so the
charts follow the page's light or dark scheme; no inline style (the CSP forbids it).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Mapping

from markupsafe import Markup, escape

import unicodedata

BAR_W, ROW_H, LABEL_W = 200, 26, 150
MAX_LABEL_W = 320
#: Width of one character of a 12 px label (learner.css), wide (CJK) or narrow, a little generous: the SVG
#: is laid out on the server, which cannot measure text, and a label wider than its room is clipped.
WIDE_CHAR_W, NARROW_CHAR_W = 13.0, 7.2


def label_width(text: str) -> float:
    """About how wide ``text`` is drawn at the charts' 12 px: its room in the layout."""
    return sum(WIDE_CHAR_W if unicodedata.east_asian_width(ch) in "WF" else NARROW_CHAR_W for ch in text)


def _fit(text: str, room: float) -> str:
    """``text`` cut with an ellipsis so that it fits ``room`` (the full name stays in the bar's title)."""
    if label_width(text) <= room:
        return text
    while text and label_width(text + "…") > room:
        text = text[:-1]
    return text + "…"


def _svg(width: int, height: int, title: str, desc: str, body: list[str], cls: str) -> Markup:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {cls}" role="img" viewBox="0 0 {width} {height}"'
            f' width="100%" preserveAspectRatio="xMinYMin meet" aria-label="{escape(title)}">'
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>")
    return Markup(head + "".join(body) + "</svg>")


def mastery_bars(tags: Mapping[str, Mapping[str, Any]], *, title: str, desc: str, seen_word: str,
                 mastered_word: str, names: Mapping[str, str] | None = None) -> Markup:
    """Per tag: a bar of questions seen, the mastered part filled, labelled with the topic's name
    (``names[tag]``, else the tag); the label column is as wide as the longest name needs, up to
    :data:`MAX_LABEL_W` (a longer name is cut, and read in full in the bar's title)."""
    items = [((names or {}).get(tag) or tag, v) for tag, v in tags.items()]
    top = max((v["seen"] for _, v in items), default=0) or 1
    height = max(ROW_H * len(items) + 8, ROW_H)
    label_w = min(MAX_LABEL_W, max([LABEL_W] + [label_width(name) + 12 for name, _ in items]))
    body = []
    for i, (name, v) in enumerate(items):
        y = 4 + i * ROW_H
        seen_w = BAR_W * v["seen"] / top
        mastered_w = BAR_W * v["mastered"] / top
        body.append(f'<text class="chart-label" x="{label_w - 6:.0f}" y="{y + 16}" text-anchor="end">'
                    f'{escape(_fit(name, label_w - 8))}</text>'
                    f'<rect class="bar-seen" x="{label_w:.0f}" y="{y + 4}" width="{seen_w:.1f}" height="16" rx="3">'
                    f'<title>{escape(name)}: {v["seen"]} {escape(seen_word)}</title></rect>'
                    f'<rect class="bar-mastered" x="{label_w:.0f}" y="{y + 4}" width="{mastered_w:.1f}" height="16" rx="3">'
                    f'<title>{escape(name)}: {v["mastered"]} {escape(mastered_word)}</title></rect>'
                    f'<text class="chart-value" x="{label_w + seen_w + 6:.1f}" y="{y + 16}">'
                    f'{v["mastered"]}/{v["seen"]}</text>')
    return _svg(round(label_w) + BAR_W + 60, height, title, desc, body, "chart-mastery")


def accuracy_line(days: list[Mapping[str, Any]], *, title: str, desc: str) -> Markup:
    """Accuracy (0-100 %) per practice day, oldest to newest, as points joined by a line."""
    points = [(d["date"], d["accuracy"]) for d in days if d.get("accuracy") is not None][-30:]
    # the left margin holds the axis' widest label, "100%", right-aligned: a narrower one clips it ("00%")
    left, bottom, height = round(label_width("100%")) + 10, 30, 160
    width = left + 330
    body = [f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - 8}" y2="{height - bottom}"/>',
            f'<line class="axis" x1="{left}" y1="8" x2="{left}" y2="{height - bottom}"/>',
            f'<text class="chart-label" x="{left - 4}" y="12" text-anchor="end">100%</text>',
            f'<text class="chart-label" x="{left - 4}" y="{height - bottom}" text-anchor="end">0%</text>']
    if points:
        step = (width - left - 20) / max(len(points) - 1, 1)
        coords = [(left + 10 + i * step, 8 + (1 - acc) * (height - bottom - 8)) for i, (_, acc) in enumerate(points)]
        if len(coords) > 1:
            body.append('<polyline class="line" fill="none" points="'
                        + " ".join(f"{x:.1f},{y:.1f}" for x, y in coords) + '"/>')
        for (x, y), (day, acc) in zip(coords, points):
            body.append(f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="4"><title>{escape(day)}: '
                        f'{round(acc * 100)}%</title></circle>')
        body.append(f'<text class="chart-label" x="{left + 10}" y="{height - 10}">{escape(points[0][0])}</text>')
        if len(points) > 1:
            body.append(f'<text class="chart-label" x="{width - 8}" y="{height - 10}" text-anchor="end">'
                        f'{escape(points[-1][0])}</text>')
    return _svg(width, height, title, desc, body, "chart-accuracy")


def calendar(days: list[Mapping[str, Any]], today: date, *, title: str, desc: str, weeks: int = 12) -> Markup:
    """A GitHub-style calendar: one square per day of the last ``weeks`` weeks, darker with more attempts."""
    counts = {d["date"]: d["attempts"] for d in days}
    start = today - timedelta(days=today.weekday() + 7 * (weeks - 1))
    size, gap = 12, 3
    body = []
    for w in range(weeks):
        for wd in range(7):
            day = start + timedelta(days=7 * w + wd)
            if day > today:
                continue
            n = counts.get(day.isoformat(), 0)
            level = 0 if n == 0 else 1 if n < 3 else 2 if n < 6 else 3
            body.append(f'<rect class="day day-{level}" x="{w * (size + gap)}" y="{wd * (size + gap)}" '
                        f'width="{size}" height="{size}" rx="2"><title>{day.isoformat()}: {n}</title></rect>')
    return _svg(weeks * (size + gap), 7 * (size + gap), title, desc, body, "chart-calendar")
