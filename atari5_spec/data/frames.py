"""Training budgets in frames: reading the units people write and printing them back.

A budget is a whole number of emulator frames (the ALE's unit: 200M frames =
50M agent steps at frame skip 4). People write budgets as ``200M``, ``400k``
or ``200000000``; these two functions are the one place that reads and
prints them.
"""

from __future__ import annotations

import math

from .errors import InputError

STANDARD_EPISODE_FRAMES = 108_000  # 30 minutes at 60 frames per second: the standard evaluation episode cap

__all__ = ["format_frames", "parse_budget", "agent_steps_note"]

ATARI_100K_FRAMES = 400_000  # 100k agent steps at frame skip 4: the smallest budget published results use


def format_frames(frames: int) -> str:
    """200000000 -> '200M', 400000 -> '400k', 22800000000 -> '22.8B'."""
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if frames >= size:
            return f"{frames / size:g}{suffix}"
    return str(frames)


def parse_budget(text: str) -> int:
    """'10M' -> 10000000, '400k' -> 400000, '1.5B', '200e6' or '200000000' -> frames (an int)."""
    cleaned = str(text).strip().replace("_", "")  # 200_000_000, as Python and many configs write it
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


def agent_steps_note(frames: int) -> str | None:
    """A note when a budget looks like agent steps rather than frames (100000 for Atari 100k), else None.

    Budgets here count emulator frames (skipped frames included). Published budgets below Atari 100k's 400k
    frames do not exist in the data, and 50M is the usual agent-step count of a 200M-frame run.
    """
    if frames < ATARI_100K_FRAMES:
        return (f"{format_frames(frames)} frames is below Atari 100k's 400k frames: if it counts agent steps, "
                f"the budget in frames is {format_frames(frames * 4)} at frame skip 4")
    if frames == 50_000_000:
        return "50M is the agent-step count of a 200M-frame run; if it counts agent steps, the budget is 200M frames"
    return None
