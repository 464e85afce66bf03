"""Charts drawn at build time as inline SVG: an algorithm's scores at its training budgets.

The axes are logarithmic (training frames; 1 + human-normalised score, the
scale the Atari-5 model works on). Coordinates are rounded to 0.1 px and
every label is escaped, so the same points give the same bytes.
"""

from __future__ import annotations

import math
from html import escape

__all__ = ["budget_curve_svg"]

WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 34, 44
SERIES = (("estimate", "Atari-5 estimate", "#1f5fbf", ""), ("median", "57-game median", "#b5441b", "5 4"))


def _ticks(low: float, high: float) -> list[float]:
    """Powers of ten (and 1-2-5 steps when the range is short) within [low, high] of a log10 axis."""
    first, last = math.floor(low), math.ceil(high)
    steps = (1, 2, 5) if last - first <= 2 else (1,)
    return [e + math.log10(s) for e in range(first, last + 1) for s in steps if low <= e + math.log10(s) <= high]


def _score_ticks(low: float, high: float) -> list[float]:
    """Scores 0, 1, 2, 5, 10, 20, ... (fewer steps over a long range) whose log10(1 + z) lies in [low, high]."""
    steps = (1, 2, 5) if high - low <= 2 else (1,)
    values = [0.0] + [s * 10.0 ** e for e in range(0 if steps != (1,) else 1, math.ceil(high) + 1) for s in steps]
    return [math.log10(1 + v) for v in values if low <= math.log10(1 + v) <= high]


def _label(value: float) -> str:
    if value >= 1e9:
        return f"{value / 1e9:g}B"
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    if value >= 1e3:
        return f"{value / 1e3:g}k"
    return f"{value:g}"


def budget_curve_svg(points: list[dict], title: str) -> str | None:
    """An SVG of the estimate and the 57-game median against training frames (None with fewer than 2 budgets)."""
    usable = [p for p in points if p["estimate"] is not None or p["median"] is not None]
    if len(usable) < 2:
        return None
    xs = [math.log10(p["frames"]) for p in usable]
    ys = [math.log10(1 + max(0.0, p[k])) for p in usable for k, *_ in SERIES if p[k] is not None]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0.0, min(ys)), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    if y1 - y0 < 0.5:
        y1 = y0 + 0.5

    def px(x):
        return round(LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT), 1)

    def py(y):
        return round(HEIGHT - BOTTOM - (y - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM), 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="chart" '
           f'aria-label="{escape(title)}">', f"<title>{escape(title)}</title>",
           f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
           'fill="none" stroke="#999"/>']
    for t in _ticks(x0, x1):
        out.append(f'<line x1="{px(t)}" x2="{px(t)}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke="#ddd"/>'
                   f'<text x="{px(t)}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{_label(10 ** t)}</text>')
    for t in _score_ticks(y0, y1):
        value = round(10 ** t - 1)
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py(t)}" y2="{py(t)}" stroke="#ddd"/>'
                   f'<text x="{LEFT - 6}" y="{py(t) + 4}" text-anchor="end">{_label(value)}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 8}" text-anchor="middle">training frames</text>')
    out.append(f'<text transform="rotate(-90)" x="{-(TOP + HEIGHT - BOTTOM) / 2}" y="14" text-anchor="middle">'
               'human-normalised score, %</text>')
    legend_x = LEFT
    for key, name, colour, dash in SERIES:
        pts = [(px(math.log10(p["frames"])), py(math.log10(1 + max(0.0, p[key])))) for p in usable if p[key] is not None]
        if not pts:
            continue
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashes} points="'
                   + " ".join(f"{x},{y}" for x, y in pts) + '"/>')
        out += [f'<circle cx="{x}" cy="{y}" r="3" fill="{colour}"/>' for x, y in pts]
        out.append(f'<line x1="{legend_x}" x2="{legend_x + 24}" y1="14" y2="14" stroke="{colour}" '
                   f'stroke-width="2"{dashes}/><text x="{legend_x + 30}" y="18">{escape(name)}</text>')
        legend_x += 170
    out.append("</svg>")
    return "\n".join(out)
