"""The Progress page's pictures as small hand-made SVG (no library, nothing from other sites).

Every chart is ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says in words what it shows
(the page also lists the same figures as text). Colours come from CSS classes (``learner.css``), so the
charts follow the page's light or dark scheme; no inline style (the CSP forbids it).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Mapping

from markupsafe import Markup, escape

BAR_W, ROW_H, LABEL_W = 200, 26, 150


def _svg(width: int, height: int, title: str, desc: str, body: list[str], cls: str) -> Markup:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {cls}" role="img" viewBox="0 0 {width} {height}"'
            f' width="100%" preserveAspectRatio="xMinYMin meet" aria-label="{escape(title)}">'
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>")
    return Markup(head + "".join(body) + "</svg>")


def mastery_bars(tags: Mapping[str, Mapping[str, Any]], *, title: str, desc: str, seen_word: str,
                 mastered_word: str) -> Markup:
    """Per tag: a bar of questions seen, the mastered part filled."""
    items = list(tags.items())
    top = max((v["seen"] for _, v in items), default=0) or 1
    height = max(ROW_H * len(items) + 8, ROW_H)
    body = []
    for i, (tag, v) in enumerate(items):
        y = 4 + i * ROW_H
        seen_w = BAR_W * v["seen"] / top
        mastered_w = BAR_W * v["mastered"] / top
        body.append(f'<text class="chart-label" x="{LABEL_W - 6}" y="{y + 16}" text-anchor="end">{escape(tag)}</text>'
                    f'<rect class="bar-seen" x="{LABEL_W}" y="{y + 4}" width="{seen_w:.1f}" height="16" rx="3">'
                    f'<title>{escape(tag)}: {v["seen"]} {escape(seen_word)}</title></rect>'
                    f'<rect class="bar-mastered" x="{LABEL_W}" y="{y + 4}" width="{mastered_w:.1f}" height="16" rx="3">'
                    f'<title>{escape(tag)}: {v["mastered"]} {escape(mastered_word)}</title></rect>'
                    f'<text class="chart-value" x="{LABEL_W + seen_w + 6:.1f}" y="{y + 16}">'
                    f'{v["mastered"]}/{v["seen"]}</text>')
    return _svg(LABEL_W + BAR_W + 60, height, title, desc, body, "chart-mastery")


def accuracy_line(days: list[Mapping[str, Any]], *, title: str, desc: str) -> Markup:
    """Accuracy (0-100 %) per practice day, oldest to newest, as points joined by a line."""
    points = [(d["date"], d["accuracy"]) for d in days if d.get("accuracy") is not None][-30:]
    width, height, pad = 360, 160, 30
    body = [f'<line class="axis" x1="{pad}" y1="{height - pad}" x2="{width - 8}" y2="{height - pad}"/>',
            f'<line class="axis" x1="{pad}" y1="8" x2="{pad}" y2="{height - pad}"/>',
            f'<text class="chart-label" x="{pad - 4}" y="12" text-anchor="end">100%</text>',
            f'<text class="chart-label" x="{pad - 4}" y="{height - pad}" text-anchor="end">0</text>']
    if points:
        step = (width - pad - 20) / max(len(points) - 1, 1)
        coords = [(pad + 10 + i * step, 8 + (1 - acc) * (height - pad - 8)) for i, (_, acc) in enumerate(points)]
        if len(coords) > 1:
            body.append('<polyline class="line" fill="none" points="'
                        + " ".join(f"{x:.1f},{y:.1f}" for x, y in coords) + '"/>')
        for (x, y), (day, acc) in zip(coords, points):
            body.append(f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="4"><title>{escape(day)}: '
                        f'{round(acc * 100)}%</title></circle>')
        body.append(f'<text class="chart-label" x="{pad + 10}" y="{height - 10}">{escape(points[0][0])}</text>')
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
