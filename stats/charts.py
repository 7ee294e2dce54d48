"""Server-side SVG charts of rates with their 95% intervals (as the newsletters draw theirs): no
JavaScript, no image files. Pure functions: rows in, an SVG string out; every label is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from stats.intervals import Rate

BAR = "#0072B2"  # Okabe-Ito blue, as the newsletters' first series
THIN_BAR = "#9a9a9a"


def rate_chart(rows: Sequence[tuple[str, Rate]], *, title: str, width: int = 600) -> SafeString:
    """Horizontal bars of each row's win rate, a whisker for its 95% Wilson interval and a line at
    50%; rows with too few games are grey. "" when no row has a game."""
    rows = [(label, rate) for label, rate in rows if rate.n]
    if not rows:
        return mark_safe("")
    left, right, top, row_h = 170, 70, 30, 22
    plot_w = width - left - right
    height = top + row_h * len(rows) + 26

    def px(value: float) -> float:
        return left + plot_w * value

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="stats-chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" font-family="sans-serif" '
        f'font-size="11">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="4" y="16" font-size="13" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = px(tick)
        colour = "#888" if tick == 0.5 else "#e3e3e3"
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - 22}" stroke="{colour}"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 8}" text-anchor="middle" fill="#555">{int(tick * 100)}%</text>')
    for i, (label, rate) in enumerate(rows):
        y = top + i * row_h
        colour = THIN_BAR if rate.thin else BAR
        low, high = rate.interval
        summary = f"{label}: {rate.rate:.0%} of {rate.n} (95% interval {low:.0%}-{high:.0%})"
        out.append(f"<g><title>{escape(summary)}</title>")
        out.append(
            f'<text x="{left - 6}" y="{y + 14}" text-anchor="end" fill="#222">{escape(label[:28])}</text>'
            f'<rect x="{left}" y="{y + 4}" width="{plot_w * rate.rate:.1f}" height="12" fill="{colour}"/>'
            f'<line x1="{px(low):.1f}" y1="{y + 10}" x2="{px(high):.1f}" y2="{y + 10}" stroke="#222" stroke-width="1.5"/>'
            f'<line x1="{px(low):.1f}" y1="{y + 5}" x2="{px(low):.1f}" y2="{y + 15}" stroke="#222"/>'
            f'<line x1="{px(high):.1f}" y1="{y + 5}" x2="{px(high):.1f}" y2="{y + 15}" stroke="#222"/>'
            f'<text x="{left + plot_w + 6}" y="{y + 14}" fill="#222">n={rate.n}</text>'
        )
        out.append("</g>")
    out.append("</svg>")
    return mark_safe("".join(out))
