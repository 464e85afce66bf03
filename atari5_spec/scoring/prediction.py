"""Predicted scores for all 57 games from the Atari-5 or Atari-10 games (paper section 4.4, Appendix E).

Each target game has its own linear model in log space, with an intercept::

    s_log = c + sum_j x_j * log10(1 + max(0, Z_j))        over the subset's games j
    Z_est = 10 ** s_log - 1                                (human-normalised, %)
    raw   = random + (human - random) * Z_est / 100

The models come from the pinned coefficient version (``per_game_models.csv``)
with their R^2 (``per_game_metrics.csv``): a low R^2 means the subset says
little about that game (notably the hard-exploration games). No pandas here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..data.errors import InputError
from ..method.reference import human_normalised, inverse_log_transform, log_transform
from ..method.pinned import read_per_game_models
from .estimate import as_coefficient_set, games_table, load_aliases, resolve_subset, runs_from, signature

__all__ = ["predict", "GamePrediction", "PredictionResult", "PER_GAME_SUBSETS"]

PER_GAME_SUBSETS = ("Atari-5", "Atari-10")


class GamePrediction(NamedTuple):
    """One game's predicted score; for the subset's own games, the given score itself."""

    game_id: str
    name: str
    normalised: float                 # human-normalised score, %
    raw: float                        # in the game's own points
    r2: float | None                  # R^2 of the game's model (1 for the subset's own games)
    is_predictor: bool                # one of the subset's games: given, not predicted
    given_raw: float | None           # the mean raw score given for this game, if any


class PredictionResult(NamedTuple):
    """Result of :func:`predict`: every game's predicted score from the subset's games (no interval: R^2 per game)."""

    subset: str
    games: tuple[str, ...]            # the predictor games
    coefficients_version: str
    predictions: tuple[GamePrediction, ...]   # in game id order
    signature: str

    def __repr__(self) -> str:
        predicted = [p for p in self.predictions if not p.is_predictor]
        return (f"PredictionResult({self.subset} -> {len(predicted)} predicted games, coefficients "
                f"{self.coefficients_version!r}; no interval: each game's R^2 says how far to trust it; "
                ".to_frame() for every game)")

    def to_frame(self):
        """One row per game (game_id index): name, normalised %, raw, R^2, whether given, the given raw score."""
        import pandas as pd

        return pd.DataFrame([p._asdict() for p in self.predictions]).set_index("game_id")

    def _repr_html_(self) -> str:
        return f"<p><b>PredictionResult</b>: {self.subset}, signature {self.signature}</p>" + self.to_frame()._repr_html_()


def predict(scores: Any, subset: str = "Atari-5", coefficients=None) -> PredictionResult:
    """Estimated raw and normalised scores for every game with a per-game model of ``subset``.

    Parameters
    ----------
    scores : dict, records, Series, DataFrame or path
        The agent's raw scores, in any form :func:`atari5_spec.score` takes
        (several seeds: the mean raw score per game is used).
    subset : {"Atari-5", "Atari-10"}
        The games to predict from.
    coefficients : str, optional
        A pinned coefficient version (default: the package's default).

    Returns
    -------
    PredictionResult
        One :class:`GamePrediction` per game (``to_frame()`` for a table);
        each game's R^2 says how far to trust its prediction (there is no
        interval).

    Raises
    ------
    InputError
        When a game of the subset is missing.
    """
    coefficient_set = as_coefficient_set(coefficients)
    subset = resolve_subset(subset, [s for s in PER_GAME_SUBSETS if s in coefficient_set.subsets])
    predictors = coefficient_set.subsets[subset].games
    runs = runs_from(scores, load_aliases())
    missing = [g for g in predictors if g not in runs]
    if missing:
        raise InputError(f"{subset} predictions need {', '.join(missing)} (not given)")
    constants = coefficient_set.constants
    means = {g: sum(v) / len(v) for g, v in runs.items()}
    phi = {g: float(log_transform(human_normalised(means[g], *constants[g]))) for g in predictors}
    names = {row["game_id"]: row["name"] for row in games_table()}
    models = read_per_game_models(coefficient_set, subset)
    predictions = []
    for game in sorted(models):
        random, human = constants[game]
        model = models[game]
        if game in predictors:
            z, r2 = float(human_normalised(means[game], random, human)), 1.0
        else:
            z = float(inverse_log_transform(model.intercept + sum(w * phi[g] for g, w in model.weights.items())))
            r2 = model.r2
        predictions.append(GamePrediction(
            game_id=game, name=names.get(game, game), normalised=z, raw=random + (human - random) * z / 100.0,
            r2=r2, is_predictor=game in predictors, given_raw=means.get(game)))
    n_seeds = [len(runs[g]) for g in predictors]
    return PredictionResult(subset, predictors, coefficient_set.version, tuple(predictions),
                            signature(f"{subset} per-game", coefficient_set, n_seeds))
