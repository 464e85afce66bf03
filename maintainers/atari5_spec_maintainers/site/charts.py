"""Charts drawn at build time as inline SVG: an algorithm's scores at its training budgets; a game's best score by year.

The axes are logarithmic (training frames; 1 + human-normalised score, the
scale the Atari-5 model works on). Coordinates are rounded to 0.1 px and
every label is escaped, so the same points give the same bytes.
"""

from __future__ import annotations

import math
from html import escape

__all__ = ["budget_curve_svg", "best_over_time_svg", "records_svg"]

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


def _nice_ticks(low: float, high: float, n: int = 5) -> list[float]:
    """About ``n`` round values (1, 2 or 5 times a power of ten apart) within [low, high]."""
    span = high - low
    raw = span / n
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step)
    return [k * step for k in range(first, math.floor(high / step) + 1)]


def best_over_time_svg(points: list[dict], references: list[tuple[str, float | None]], title: str) -> str | None:
    """The best raw score published up to each year (a step line) with horizontal reference lines (human,
    random); None with fewer than 2 years. ``points``: {year, score, name} with the record rising."""
    if len(points) < 2:
        return None
    years = [p["year"] for p in points]
    values = [p["score"] for p in points] + [v for _, v in references if v is not None]
    x0, x1 = min(years), max(years) + 1
    y0, y1 = min(0.0, min(values)), max(values)
    if y1 == y0:
        y1 = y0 + 1
    y1 += (y1 - y0) * 0.05

    def px(x):
        return round(LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT), 1)

    def py(y):
        return round(HEIGHT - BOTTOM - (y - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM), 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="chart" '
           f'aria-label="{escape(title)}">', f"<title>{escape(title)}</title>",
           f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
           'fill="none" stroke="#999"/>']
    for year in range(x0, x1 + 1, max(1, (x1 - x0) // 8)):
        out.append(f'<line x1="{px(year)}" x2="{px(year)}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke="#ddd"/>'
                   f'<text x="{px(year)}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{year}</text>')
    for t in _nice_ticks(y0, y1):
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py(t)}" y2="{py(t)}" stroke="#ddd"/>'
                   f'<text x="{LEFT - 6}" y="{py(t) + 4}" text-anchor="end">{_label(abs(t)) if t >= 0 else "-" + _label(-t)}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 8}" text-anchor="middle">year published</text>')
    out.append(f'<text transform="rotate(-90)" x="{-(TOP + HEIGHT - BOTTOM) / 2}" y="14" text-anchor="middle">'
               'raw score</text>')
    for (name, value), (colour, dash) in zip(references, (("#2a7d2a", "6 3"), ("#777", "2 3"))):
        if value is None:
            continue
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{py(value)}" y2="{py(value)}" stroke="{colour}" '
                   f'stroke-dasharray="{dash}"/><text x="{WIDTH - RIGHT - 4}" y="{py(value) - 4}" text-anchor="end" '
                   f'fill="{colour}">{escape(name)}</text>')
    steps = []
    for i, p in enumerate(points):
        end = points[i + 1]["year"] if i + 1 < len(points) else x1
        steps += [f"{px(p['year'])},{py(p['score'])}", f"{px(end)},{py(p['score'])}"]
    out.append('<polyline fill="none" stroke="#1f5fbf" stroke-width="2" points="' + " ".join(steps) + '"/>')
    for p in points:
        out.append(f'<circle cx="{px(p["year"])}" cy="{py(p["score"])}" r="3" fill="#1f5fbf">'
                   f'<title>{p["year"]}: {escape(p["name"])}, {p["score"]:,.2f}</title></circle>')
    out.append(f'<line x1="{LEFT}" x2="{LEFT + 24}" y1="14" y2="14" stroke="#1f5fbf" stroke-width="2"/>'
               f'<text x="{LEFT + 30}" y="18">best published score so far</text>')
    out.append("</svg>")
    return "\n".join(out)


RECORD_STYLES = {("every budget", "Atari-5 estimate"): ("#1f5fbf", ""),
                 ("every budget", "57-game median"): ("#1f5fbf", "5 4"),
                 ("200M frames", "Atari-5 estimate"): ("#b5441b", ""),
                 ("200M frames", "57-game median"): ("#b5441b", "5 4")}


def records_svg(points: list[dict], title: str) -> str | None:
    """The state of the art over time (pages.state_of_the_art): one step line per (regime, metric), on the log
    scale of 1 + human-normalised score; None with fewer than 2 points."""
    if len(points) < 2:
        return None
    years = [p["year"] for p in points]
    x0, x1 = min(years), max(years) + 1
    ys = [math.log10(1 + max(0.0, p["value"])) for p in points]
    y0, y1 = 0.0, max(ys) + 0.1

    def px(x):
        return round(LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT), 1)

    def py(v):
        return round(HEIGHT - BOTTOM - (math.log10(1 + max(0.0, v)) - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM), 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT + 40}" role="img" class="chart" '
           f'aria-label="{escape(title)}">', f"<title>{escape(title)}</title>",
           f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
           'fill="none" stroke="#999"/>']
    for year in range(x0, x1 + 1, max(1, (x1 - x0) // 8)):
        out.append(f'<line x1="{px(year)}" x2="{px(year)}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke="#ddd"/>'
                   f'<text x="{px(year)}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{year}</text>')
    for t in _score_ticks(y0, y1):
        value = round(10 ** t - 1)
        y = round(HEIGHT - BOTTOM - (t - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM), 1)
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}" stroke="#ddd"/>'
                   f'<text x="{LEFT - 6}" y="{y + 4}" text-anchor="end">{_label(value)}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 8}" text-anchor="middle">year published</text>')
    out.append(f'<text transform="rotate(-90)" x="{-(TOP + HEIGHT - BOTTOM) / 2}" y="14" text-anchor="middle">'
               'human-normalised score, %</text>')
    series: dict[tuple, list[dict]] = {}
    for p in points:
        series.setdefault((p["regime"], p["metric"]), []).append(p)
    for i, (key, part) in enumerate(series.items()):
        colour, dash = RECORD_STYLES.get(key, ("#555", ""))
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        steps = []
        for j, p in enumerate(part):
            end = part[j + 1]["year"] if j + 1 < len(part) else x1
            steps += [f"{px(p['year'])},{py(p['value'])}", f"{px(end)},{py(p['value'])}"]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashes} points="' + " ".join(steps) + '"/>')
        for p in part:
            out.append(f'<circle cx="{px(p["year"])}" cy="{py(p["value"])}" r="3" fill="{colour}"><title>'
                       f'{escape(key[0])}, {escape(key[1])}: {p["year"]}, {escape(p["name"])}, {p["value"]:,.1f}'
                       '</title></circle>')
        lx, ly = LEFT + (i % 2) * 250, HEIGHT + 12 + (i // 2) * 18
        out.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2"{dashes}/>'
                   f'<text x="{lx + 30}" y="{ly + 4}">{escape(key[1])}, {escape(key[0])}</text>')
    out.append("</svg>")
    return "\n".join(out)
