"""A small line chart as SVG text: axes with ticks, one polyline per series, vertical markers.

Everything drawn is numbers and escaped labels (no script, no external reference), so the image can be
served with the strict CSP. Series differ by colour *and* dash pattern, and the legend names them, so
colour is never the only cue. The chart carries its own ``<title>``/``<desc>`` for assistive tools.

Colours: each element carries a class (``fig-bg``, ``fig-ink``, ``fig-axis``, ``fig-grid``, ``fig-guide``,
``fig-s0``...) besides its presentation attribute. The question page draws the SVG inline, where
``quiz.css`` maps those classes to the page's colour variables, so the figure follows the light or dark
scheme (and the scheme switch); the stand-alone ``figure.svg`` keeps the attributes' light colours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Sequence

WIDTH, HEIGHT = 560, 340
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 44, 52
# dark enough on white for 3:1 against the background (WCAG 1.4.11 non-text contrast)
COLOURS = ("#1f5fbf", "#b3261e", "#1b7f3b", "#7a3fb0")
DASHES = ("", "8 4", "2 3", "10 3 2 3")


@dataclass
class Series:
    label: str
    xs: Sequence[float]
    ys: Sequence[float]


@dataclass
class Chart:
    title: str
    x_label: str
    y_label: str
    series: list[Series]
    markers: list[tuple[float, str]] = field(default_factory=list)  # (x, label): a vertical line
    description: str = ""
    points: bool = False  # dots at the data (a few discrete steps) as well as the line


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if not math.isfinite(lo) or not math.isfinite(hi) or hi <= lo:
        return [lo]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
    start = math.ceil(lo / step) * step
    out, v = [], start
    while v <= hi + step * 1e-9 and len(out) < 20:
        out.append(round(v, 10))
        v += step
    return out


def _fmt(v: float) -> str:
    return f"{v:.3g}"


def render(chart: Chart, label: str | None = None) -> str:
    """The chart as SVG text. ``label``: the accessible name (the figure's one-sentence ``alt``) when the SVG
    is drawn inline in a page; without it the name is the chart's own ``<title>`` and ``<desc>``."""
    xs = [x for s in chart.series for x in s.xs] + [m[0] for m in chart.markers]
    ys = [y for s in chart.series for y in s.ys if math.isfinite(y)]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys + [0.0]), max(ys + [0.0])
    if y1 - y0 < 1e-12:
        y1 = y0 + 1.0
    pad = (y1 - y0) * 0.06
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0 or 1.0) * pw

    def sy(y: float) -> float:
        return TOP + (1 - (y - y0) / (y1 - y0)) * ph

    named = f'aria-label="{escape(label)}"' if label else 'aria-labelledby="fig-t fig-d"'
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
           f'height="{HEIGHT}" role="img" {named} class="fig-chart" font-family="sans-serif" font-size="12">',
           f'<title id="fig-t">{escape(chart.title)}</title><desc id="fig-d">{escape(chart.description)}</desc>',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff" class="fig-bg"/>']
    for t in _ticks(x0, x1):
        out.append(f'<line x1="{sx(t):.1f}" y1="{TOP + ph}" x2="{sx(t):.1f}" y2="{TOP + ph + 5}" stroke="#333" class="fig-axis"/>'
                   f'<text x="{sx(t):.1f}" y="{TOP + ph + 18}" text-anchor="middle" fill="#222" class="fig-ink">{_fmt(t)}</text>')
    for t in _ticks(y0, y1):
        out.append(f'<line x1="{LEFT}" y1="{sy(t):.1f}" x2="{LEFT + pw}" y2="{sy(t):.1f}" stroke="#e2e2e2" class="fig-grid"/>'
                   f'<text x="{LEFT - 8}" y="{sy(t) + 4:.1f}" text-anchor="end" fill="#222" class="fig-ink">{_fmt(t)}</text>')
    if y0 < 0 < y1:
        out.append(f'<line x1="{LEFT}" y1="{sy(0):.1f}" x2="{LEFT + pw}" y2="{sy(0):.1f}" stroke="#767676" class="fig-guide"/>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333" class="fig-axis"/>')
    for k, (x, label) in enumerate(chart.markers):
        out.append(f'<line x1="{sx(x):.1f}" y1="{TOP}" x2="{sx(x):.1f}" y2="{TOP + ph}" stroke="#444" '
                   f'stroke-dasharray="3 3" class="fig-guide"/><text x="{sx(x) + 3:.1f}" y="{TOP + 12 + 13 * (k % 3)}" '
                   f'fill="#222" class="fig-ink">'
                   f'{escape(label)}</text>')
    for i, s in enumerate(chart.series):
        colour, dash = COLOURS[i % len(COLOURS)], DASHES[i % len(DASHES)]
        cls = f'class="fig-s{i % len(COLOURS)}"'
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(s.xs, s.ys) if math.isfinite(y))
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2.5"{dash_attr} {cls}/>')
        if chart.points:
            out += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="{colour}" {cls}/>'
                    for x, y in zip(s.xs, s.ys) if math.isfinite(y)]
        lx, ly = LEFT + 8 + 150 * (i % 3), 16 + 16 * (i // 3)
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{colour}" stroke-width="2.5"'
                   f'{dash_attr} {cls}/><text x="{lx + 30}" y="{ly + 4}" fill="#222" class="fig-ink">{escape(s.label)}</text>')
    out.append(f'<text x="{LEFT + pw / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle" fill="#222" class="fig-ink">'
               f'{escape(chart.x_label)}</text>')
    out.append(f'<text transform="translate(16 {TOP + ph / 2:.1f}) rotate(-90)" text-anchor="middle" '
               f'fill="#222" class="fig-ink">{escape(chart.y_label)}</text></svg>')
    return "".join(out)
