"""The agent's own 57-game median, when enough games are given, and how far the estimate is from it.

When a user gives at least 40 of the 57 games (the paper's inclusion rule for a true median), the quantity
the estimate predicts can be computed directly: the median human-normalised score over the given games of
the 57. ``score`` prints it beside the estimate with the estimate's error against it, in the measure the
version's errors use, (1 + estimate) / (1 + median), and says whether the prediction interval holds it.

No pandas (``score`` must start fast).
"""

from __future__ import annotations

import statistics
from typing import NamedTuple

__all__ = ["OwnMedian", "own_median", "median_over", "MIN_GAMES"]

MIN_GAMES = 40  # the paper's inclusion rule: a 57-game median needs at least 40 of the 57 games


class OwnMedian(NamedTuple):
    """The median over the given games of the 57, and the estimate against it."""

    median: float                  # human-normalised, in %
    n_games: int                   # of the 57
    missing: tuple[str, ...]       # games of the 57 not given
    estimate: float | None
    ratio: float | None            # (1 + estimate) / (1 + median): the measure of the version's errors
    in_prediction_interval: bool | None

    @property
    def label(self) -> str:
        """What the median is over: '57-game median' only with all 57 games, else 'median over 44 of the 57 games'."""
        return "57-game median" if not self.missing else f"median over {self.n_games} of the 57 games"

    def text(self) -> str:
        missing = "" if not self.missing else (f" (not given: {', '.join(self.missing[:5])}"
                                               + (", ..." if len(self.missing) > 5 else "") + ")")
        line = f"your agent's own {self.label}: {self.median:,.1f}{missing}"
        if self.ratio is not None:
            line += (f"; the estimate is {self.ratio:.2f} times it, as (1 + estimate) / (1 + median)"
                     + ("" if self.in_prediction_interval is None else
                        "; the prediction interval holds it" if self.in_prediction_interval else
                        "; the prediction interval does NOT hold it"))
        return line


def own_median(result, game_table: list[dict] | None = None) -> OwnMedian | None:
    """The agent's own median from a :class:`~atari5_spec.scoring.estimate.ScoreResult`, or None with fewer than
    MIN_GAMES of the 57 games given: the result's ``own_median`` (``score`` computes it), or computed again
    over the 57 games of ``game_table`` (rows of data/games.csv) when one is given."""
    if game_table is None:
        return getattr(result, "own_median", None)
    canonical = [r["game_id"] for r in game_table if str(r.get("in_57", "")).lower() == "true"]
    return median_over(canonical, result.normalised, result.estimate, result.prediction_interval)


def median_over(canonical, normalised, estimate, prediction_interval) -> OwnMedian | None:
    """The :class:`OwnMedian` over the ``canonical`` games given in ``normalised`` (game -> %), or None with fewer
    than MIN_GAMES of them."""
    given = [g for g in canonical if g in normalised]
    if len(given) < MIN_GAMES:
        return None
    median = float(statistics.median(normalised[g] for g in given))
    ratio = (1 + estimate) / (1 + median) if estimate is not None and median > -1 else None
    pi = prediction_interval
    inside = (pi.low <= median <= pi.high) if pi is not None else None
    return OwnMedian(median, len(given), tuple(g for g in canonical if g not in normalised), estimate, ratio,
                     inside)
