"""A regime's own field: the games its papers all report, and the measured statistic its entries are ranked by.

Papers of the Atari 100k regime (100k agent steps, 400k frames; Kaiser et al. 2020) report 26 of the 57 games,
and only two of the Atari-5 games (Battle Zone, Q*bert) are among them, so no pinned subset can score that field.
Its papers compare agents by the median (and mean or IQM) human-normalised score over the 26 games; the
leaderboard ranks the regime by that median, measured from the data, not predicted: there is no model error to
state, and the 57-game Atari-5 score is shown beside it where an entry has the five games.

``data/benchmark_games.csv`` lists a field's games under the regime label of its entries (``atari-100k``); a
regime not listed there has no field and is ranked by the subset's score as every other regime.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

__all__ = ["Field", "regime_field", "field_medians", "user_field_median"]


class Field(NamedTuple):
    """The games a regime's papers all report, and what its ranking statistic is called."""

    regime: str                # "atari-100k"
    games: tuple[str, ...]     # game ids, alphabetical

    @property
    def statistic(self) -> str:
        return f"median human-normalised score over the {len(self.games)} {self.regime} games (measured)"

    @property
    def column_label(self) -> str:
        return f"{len(self.games)}-game median"


def regime_field(regime: str | None, benchmark_games: pd.DataFrame | None) -> Field | None:
    """The field of ``regime`` (case-insensitive) from ``data/benchmark_games.csv``, or None when the regime has
    none or the package has no such table (a package older than data 1.32.0)."""
    if regime is None or benchmark_games is None:
        return None
    key = regime.lower()
    games = benchmark_games.loc[benchmark_games["benchmark"].astype(str) == key, "game_id"]
    return Field(key, tuple(sorted(games.astype(str)))) if len(games) else None


def field_medians(normalised: pd.Series, field: Field) -> tuple[pd.Series, dict[str, tuple[str, ...]]]:
    """The field statistic of every entry with all of the field's games, and the missing games of the others.

    ``normalised``: one human-normalised score (in %) per (algorithm_id, game_id). Returns (median per
    algorithm_id, sorted by id; {algorithm_id: missing field games} for the entries holding some but not all).
    """
    if normalised.empty:
        return pd.Series(dtype=float), {}
    in_field = normalised[normalised.index.get_level_values("game_id").isin(field.games)]
    held = in_field.reset_index().groupby("algorithm_id")["game_id"].agg(frozenset)
    complete = [a for a, games in held.items() if len(games) == len(field.games)]
    missing = {a: tuple(g for g in field.games if g not in games) for a, games in held.items()
               if len(games) < len(field.games)}
    medians = in_field[in_field.index.get_level_values("algorithm_id").isin(complete)].groupby(
        level="algorithm_id").median().sort_index()
    return medians.astype(float), missing


def user_field_median(normalised: dict[str, float], field: Field) -> tuple[float | None, tuple[str, ...]]:
    """The user's field statistic from {game_id: normalised %} (None unless every field game is given), and the
    field games not given."""
    missing = tuple(g for g in field.games if g not in normalised)
    if missing:
        return None, missing
    return float(pd.Series([normalised[g] for g in field.games]).median()), ()
