"""How results show themselves in a notebook: a small HTML table for Jupyter's ``_repr_html_``.

Each result type's ``repr`` is one line (the number, its interval and what
the interval covers); ``_repr_html_`` is the same facts as a two-column
table, built here by :func:`result_html` from the result's fields (duck-typed,
so this module imports no result or interval type and every one of them may import it).
"""

from __future__ import annotations

import html
import math
from typing import Any, Iterable


__all__ = ["html_table", "result_html", "interval_cell"]


def interval_cell(interval, missing: str = "none") -> str:
    """'95% (72.7, 187.6) [57-game median]' or ``missing``."""
    if interval is None:
        return missing
    level = getattr(interval, "level", None)
    level = f"{level:.0%} " if isinstance(level, float) else ""
    if _is_interval(interval):
        return f"{level}{interval.text()} [{interval.short_covers()}]"
    return f"({interval[0]:.1f}, {interval[1]:.1f})"


def _is_interval(value) -> bool:
    """An :class:`~atari5_spec.scoring.intervals.Interval` (duck-typed: this module imports no type)."""
    return isinstance(value, tuple) and hasattr(value, "short_covers") and hasattr(value, "text")


def _cell(value) -> str:
    if _is_interval(value):
        return html.escape(interval_cell(value))
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            return html.escape(str(value))
        return html.escape(f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}")
    if isinstance(value, (tuple, list)):
        return "<br>".join(html.escape(str(v)) for v in value) if value else ""
    if isinstance(value, dict):
        return html.escape(", ".join(f"{k}: {f'{v:.1f}' if isinstance(v, float) else v}" for k, v in value.items()))
    return html.escape("" if value is None else str(value))


def html_table(title: str, rows: Iterable[tuple[str, Any]]) -> str:
    """A small two-column HTML table (field, value) for Jupyter; every value escaped."""
    body = "".join(f"<tr><th style=\"text-align:left\">{html.escape(name)}</th>"
                   f"<td style=\"text-align:left\">{_cell(value)}</td></tr>" for name, value in rows)
    return (f"<table class=\"atari5-spec-result\"><caption style=\"text-align:left\"><b>{html.escape(title)}</b>"
            f"</caption><tbody>{body}</tbody></table>")


def _score_rows(result) -> list[tuple[str, Any]]:
    pi = result.prediction_interval
    rows = [("subset", result.subset), ("estimate", result.estimate),
            ("prediction interval", interval_cell(pi)),
            ("seed interval", interval_cell(result.interval, "unknown (needs 2 or more seeds per game)"))]
    if pi is not None:
        rows.append(("coverage", pi.coverage))
    if hasattr(result, "other_subsets"):
        rows += [(s.subset, f"{s.estimate:.1f} {interval_cell(s.prediction_interval, '')}".strip())
                 for s in result.other_subsets]
        rows += [(f"{name} (not computable)", "needs " + ", ".join(games))
                 for name, games in result.not_computable.items()]
        rows.append(("coefficients", result.coefficients_version))
    rows.append(("signature", result.signature))
    for name in ("warnings", "notes"):
        if getattr(result, name, ()):
            rows.append((name, tuple(getattr(result, name))))
    return rows


def _relative_rows(result) -> list[tuple[str, Any]]:
    pi = result.prediction_interval
    rows = [("ratio", result.ratio), ("prediction interval", interval_cell(pi)),
            ("seed interval", interval_cell(result.interval, "unknown (needs 2 or more seeds per game for both)"))]
    if pi is not None:
        rows += [("decision", pi.statement), ("coverage", pi.coverage)]
    rows += [("agent", f"{result.agent.estimate:.1f}" if result.agent.estimate is not None else "not computable"),
             ("baseline", f"{result.baseline.estimate:.1f}" if result.baseline.estimate is not None
              else "not computable"),
             ("signature", result.signature)]
    m = getattr(result, "measured", None)
    if m is not None:
        rows += [(f"measured ratio ({m.label})", m.ratio),
                 ("measured seed interval", interval_cell(m.interval, m.note or "none")),
                 ("measured decision", m.decision)]
    return rows


def result_html(result) -> str:
    """The result's facts as a small HTML table (the ``_repr_html_`` of every result type)."""
    if hasattr(result, "ratio"):
        rows = _relative_rows(result)
    elif hasattr(result, "estimate"):
        rows = _score_rows(result)
    else:
        rows = [(name, getattr(result, name)) for name in result._fields]
    return html_table(type(result).__name__, rows)
