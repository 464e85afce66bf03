"""An agent against its leaderboard neighbours: a ratio interval per neighbour, with the per-pair guarantee.

>>> import atari5_spec.scoring.comparison
>>> my_scores = {"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 9000, "qbert": 15000}
>>> comparisons = atari5_spec.scoring.comparison.neighbour_comparisons(my_scores, k=2)
>>> [(c.row.name, c.relative.prediction_interval.decision) for c in comparisons]  # doctest: +ELLIPSIS
[('C51 (standard CNN, Dopamine)', 'cannot tell'), ...]

Each neighbour is a dataset algorithm ranked just above or below the agent on
the leaderboard (its published per-game numbers, scored with the same pinned
formula). The ratio interval is :func:`atari5_spec.relative_score`'s, with its
measured coverage on pairs; the intervals are per pair, not simultaneous.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..method import training
from .estimate import as_coefficient_set, resolve_subset
from .baselines import algorithm_baseline
from .ranking import LeaderboardRow, leaderboard
from .relative import RelativeResult, relative_score

__all__ = ["Comparison", "neighbour_comparisons"]


class Comparison(NamedTuple):
    row: LeaderboardRow        # the neighbour on the leaderboard
    relative: RelativeResult   # the agent relative to that neighbour (ratio = agent / neighbour)


def neighbour_comparisons(scores: Any, k: int = 2, subset: str = "Atari-5", coefficients=None, dataset=None,
                          n_bootstrap: int = 10000, confidence: float = 0.95, seed: int = 0,
                          max_episode_frames: int | None = None) -> list[Comparison]:
    """The agent against the ``k`` agents ranked just above it and the ``k`` just below (reference entries such as
    the human reference are skipped), best first; ``max_episode_frames``: the agent's evaluation episode cap."""
    if dataset is None:
        from ..data.loading import load

        dataset = load()
    coefficient_set = as_coefficient_set(coefficients)
    subset = resolve_subset(subset, coefficient_set.subsets)
    board = leaderboard(scores, subset, coefficient_set, dataset)
    if board.user_rank is None:
        return []
    agents = [row for row in board.rows if row.kind == "agent"]
    above = [row for row in agents if row.estimate > board.user_estimate][-k:]
    below = [row for row in agents if row.estimate <= board.user_estimate][:k]
    games = coefficient_set.subsets[subset].games
    rows = training.candidate_rows(dataset.scores, dataset.algorithms, dataset.games)
    raw = rows[rows["game_id"].isin(games)].groupby(["algorithm_id", "game_id"])["score"].first()
    out = []
    for row in above + below:
        # the neighbour as a package entry: its provenance, and its recorded episode cap (no direction is stated
        # against an entry evaluated with a non-standard cap)
        entry = algorithm_baseline(row.algorithm_id, dataset.root)
        neighbour = entry._replace(scores={game: float(raw[(row.algorithm_id, game)]) for game in games})
        out.append(Comparison(row, relative_score(scores, neighbour, subset, coefficient_set, n_bootstrap,
                                                  confidence, seed, max_episode_frames=max_episode_frames)))
    return out
