"""The paper's printed values (published/), and comparison at printed precision.

Published numbers are stored as the strings the paper prints, so the printed
precision is part of the data: ``"0.100"`` has three decimals. A computed
value *matches* a printed one when it prints the same at that precision.
"""

from __future__ import annotations

import math
from pathlib import Path

from .datapackage import package_root

__all__ = ["published_rows", "decimals", "as_printed", "matches_printed"]


def published_rows(name: str, root: Path | None = None) -> list[dict]:
    """Rows of published/<name>.csv as dicts of strings (e.g. name='table09_subset_coefficients')."""
    from .paths import read_package_rows

    return read_package_rows(package_root(root) / "published" / f"{name}.csv", package_root(root))


def decimals(printed: str) -> int:
    """Number of decimals a printed number shows."""
    return len(printed.split(".")[1]) if "." in printed else 0


def as_printed(value: float, places: int, truncate: bool = False) -> str:
    """``value`` printed with ``places`` decimals (rounded, or truncated toward zero)."""
    if truncate:
        scale = 10 ** places
        value = math.trunc(value * scale) / scale
    text = f"{value:.{places}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def matches_printed(value: float, printed: str, truncate: bool = False) -> bool:
    """True when ``value`` prints as ``printed`` at the precision ``printed`` shows."""
    return as_printed(value, decimals(printed), truncate) == printed.lstrip("+")
