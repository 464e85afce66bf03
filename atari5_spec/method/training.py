"""The training table: which published numbers enter a fit, and the matrix built from them.

Following the Atari-5 paper (section 4.1): only the 57 canonical games count;
an algorithm enters when it has scores for at least 40 of them and a 57-game
median human-normalised score above 40; the target is phi(median Z) over the
games the algorithm has. Rows are the numbers marked ``use_in_fit`` and not
superseded by a later correction, of entries with no ``exclusion``.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..data.writing import frame_csv_text
from .reference import human_normalised, log_transform

__all__ = ["InclusionRule", "PAPER_RULE", "normalised_scores", "candidate_rows", "algorithm_summary",
           "training_rows", "training_matrix", "canonical_games", "rows_digest", "TRAINING_ROW_COLUMNS"]

TRAINING_ROW_COLUMNS = ["score_id", "algorithm_id", "game_id", "score"]


class InclusionRule(NamedTuple):
    """Which algorithms enter a fit: coverage of the 57 games and median normalised score."""

    min_games: int = 40
    min_median: float = 40.0  # strictly above

    def admits(self, n_games, median):
        return (np.asarray(n_games) >= self.min_games) & (np.asarray(median) > self.min_median)


PAPER_RULE = InclusionRule()


def canonical_games(games: pd.DataFrame) -> list[str]:
    """Ids of the 57 canonical games, in canonical (alphabetical id) order."""
    return sorted(games.loc[games["in_57"].astype(bool), "game_id"].tolist())


def normalised_scores(scores: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with the game's constants, Z (``normalised``) and phi(Z) (``log_normalised``)."""
    constants = games.set_index("game_id")[["random_score", "human_score"]]
    out = scores.join(constants, on="game_id")
    out["normalised"] = human_normalised(out["score"], out["random_score"], out["human_score"])
    out["log_normalised"] = log_transform(out["normalised"])
    return out


def candidate_rows(scores: pd.DataFrame, algorithms: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Rows new fits may use: marked use_in_fit, not superseded, a canonical game, entry not excluded."""
    superseded = set(scores["supersedes"].dropna().astype(int))
    allowed = set(algorithms.loc[algorithms["exclusion"].isna(), "algorithm_id"])
    keep = (scores["use_in_fit"].astype(bool)
            & ~scores["score_id"].isin(superseded)
            & scores["game_id"].isin(canonical_games(games))
            & scores["algorithm_id"].isin(allowed))
    return scores[keep]


def _one_value_per_pair(rows: pd.DataFrame, column: str) -> pd.Series:
    """One value per (algorithm, game). Rows of a pair must agree (validation checks it)."""
    grouped = rows.groupby(["algorithm_id", "game_id"])[column]
    first, spread = grouped.first(), grouped.max() - grouped.min()
    if (spread.abs() > 0).any():
        pair = spread[spread.abs() > 0].index[0]
        raise ValueError(f"scores disagree for algorithm {pair[0]!r} on game {pair[1]!r}: "
                         "mark one row use_in_fit=false or supersede it")
    return first


def algorithm_summary(rows: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm: number of canonical games and median human-normalised score over them."""
    z = _one_value_per_pair(normalised_scores(rows, games), "normalised")
    summary = z.groupby(level="algorithm_id").agg(n_games="size", median="median")
    return summary.sort_index()


def training_rows(dataset, rule: InclusionRule = PAPER_RULE, pool_only: bool = False) -> pd.DataFrame:
    """The score rows of the training table under ``rule`` (sorted by score_id).

    ``pool_only`` restricts the candidates to the paper's raw pool (entries with
    in_paper_pool), which is how the paper's own training table was made.
    """
    algorithms = dataset.algorithms
    if pool_only:
        algorithms = algorithms[algorithms["in_paper_pool"].astype(bool)]
    rows = candidate_rows(dataset.scores, algorithms, dataset.games)
    summary = algorithm_summary(rows, dataset.games)
    admitted = summary.index[rule.admits(summary["n_games"], summary["median"])]
    return rows[rows["algorithm_id"].isin(admitted)].sort_values("score_id")


def fold_order(algorithm_ids, algorithms: pd.DataFrame) -> list[str]:
    """Row order of the matrix: by published name in code-point order (the paper's pivot order).

    Cross-validation folds are assigned over rows in this order, so it is part
    of the method: changing it changes CV metrics (not coefficients).
    """
    names = algorithms.set_index("algorithm_id")["name"].astype(str)
    return sorted(algorithm_ids, key=lambda a: (names[a], a))


def training_matrix(rows: pd.DataFrame, games: pd.DataFrame, algorithms: pd.DataFrame):
    """(X, y): phi(Z) per algorithm x canonical game (NaN where missing), and phi(median Z).

    Rows of X are in fold order, columns in canonical game order.
    """
    phi = _one_value_per_pair(normalised_scores(rows, games), "log_normalised").unstack("game_id")
    order = fold_order(phi.index, algorithms)
    X = phi.reindex(index=order, columns=canonical_games(games))
    summary = algorithm_summary(rows, games)
    y = pd.Series(log_transform(summary["median"].reindex(order).to_numpy()), index=order, name="target")
    X.index.name = y.index.name = "algorithm_id"
    return X, y


def rows_digest(rows: pd.DataFrame) -> str:
    """sha256 of the training rows' canonical CSV text (score_id, algorithm_id, game_id, score)."""
    text = frame_csv_text(rows.sort_values("score_id"), TRAINING_ROW_COLUMNS)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
