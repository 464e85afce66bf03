"""Training budgets in frames: reading the units people write and printing them back.

A budget is a whole number of emulator frames (the ALE's unit: 200M frames =
50M agent steps at frame skip 4). People write budgets as ``200M``, ``400k``
or ``200000000``; these two functions are the one place that reads and
prints them.
"""

from __future__ import annotations

import math

from .errors import InputError

__all__ = ["format_frames", "parse_budget"]


def format_frames(frames: int) -> str:
    """200000000 -> '200M', 400000 -> '400k', 22800000000 -> '22.8B'."""
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if frames >= size:
            return f"{frames / size:g}{suffix}"
    return str(frames)


def parse_budget(text: str) -> int:
    """'10M' -> 10000000, '400k' -> 400000, '1.5B' or '200000000' -> frames (an int)."""
    cleaned = text.strip()
    factor = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000, "b": 1_000_000_000, "B": 1_000_000_000}
    try:
        if cleaned and cleaned[-1] in factor:
            value = float(cleaned[:-1]) * factor[cleaned[-1]]
        else:
            value = float(cleaned)
    except ValueError:
        raise InputError(f"budget {text!r} is not a number of frames: write e.g. 10M, 400k or 200000000") from None
    if not math.isfinite(value) or value < 1 or value != int(value):
        raise InputError(f"budget {text!r} must be a positive whole number of frames")
    return int(value)
