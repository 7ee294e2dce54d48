"""Inline SVG line charts: no JavaScript, no image files, so they show on the page, in feed readers
and in mail clients that render SVG (the email also carries the figures as a small table).

Pure functions: series in, an SVG string out. Every label is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape

# Okabe–Ito colour-blind safe palette, then a few extra dark tones.
PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#000000",
    "#7F3C8D",
    "#11A579",
    "#3969AC",
    "#F2B701",
)
DASHES = ("", "6 3", "2 3", "8 3 2 3")


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[tuple[int, int], ...]  # (x, y), x ascending


def _nice_step(span: float, target: int = 5) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that cuts ``span`` into at most ``target`` steps."""
    raw = max(span / target, 1)
    for mag in (1, 10, 100, 1000, 10000):
        for base in (1, 2, 5):
            if base * mag >= raw:
                return base * mag
    return int(raw)


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 600,
    height: int = 280,
    zero_based: bool = True,
) -> str:
    """A line chart of integer series. Returns "" when there is nothing to draw."""
    series = [s for s in series if s.points]
    if not series:
        return ""
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    x_min, x_max = min(xs), max(xs)
    y_min, y_max = (min(0, min(ys)) if zero_based else min(ys)), max(ys)
    step = _nice_step(y_max - y_min)
    y_min = (y_min // step) * step
    y_max = max(y_min + step, -(-y_max // step) * step)
    legend_rows = (len(series) + 2) // 3
    left, right, top, bottom = 44, 12, 30, 40 + 18 * legend_rows
    plot_w, plot_h = width - left - right, height - top - bottom
    if plot_h < 60:
        height += 60 - plot_h
        plot_h = 60

    def px(x: int) -> float:
        return left + (plot_w * (x - x_min) / (x_max - x_min) if x_max > x_min else plot_w / 2)

    def py(y: int) -> float:
        return top + plot_h - plot_h * (y - y_min) / (y_max - y_min)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(title)}" style="max-width:100%;height:auto;font-family:sans-serif;font-size:11px">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="18" font-size="13" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    y = y_min
    while y <= y_max:
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + plot_w}" y2="{py(y):.1f}" stroke="#e3e3e3"/>')
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end" fill="#555">{y}</text>')
        y += step
    x_step = max(1, _nice_step(x_max - x_min, target=10)) if x_max > x_min else 1
    x = x_min
    while x <= x_max:
        out.append(f'<text x="{px(x):.1f}" y="{top + plot_h + 14}" text-anchor="middle" fill="#555">{x}</text>')
        x += x_step
    out.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888"/>')
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 28}" text-anchor="middle" fill="#333">{escape(x_label)}</text>'
    )
    out.append(
        f'<text x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle" fill="#333" '
        f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">{escape(y_label)}</text>'
    )
    for i, s in enumerate(series):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash_attr} points="{coords}">'
            f"<title>{escape(s.name)}</title></polyline>"
        )
        for x, y in s.points:
            out.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{colour}"><title>'
                f"{escape(s.name)}: {y}</title></circle>"
            )
        col, row = i % 3, i // 3
        lx, ly = left + col * (plot_w / 3), top + plot_h + 44 + 18 * row
        out.append(f'<rect x="{lx:.1f}" y="{ly - 9:.1f}" width="12" height="4" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16:.1f}" y="{ly - 4:.1f}" fill="#222">{escape(s.name[:28])}</text>')
    out.append("</svg>")
    return "".join(out)
