"""The regression models of the Atari-5 paper, written to be checked line by line.

Paper sections 4.2-4.4 and Appendix E (Aitchison, Sweetser & Hutter 2023):

* subset models: ordinary least squares WITHOUT intercept of y = phi(57-game
  median) on the log-normalised scores of the games in a subset, fitted on the
  algorithms that have a score for every game in the subset;
* ranked by 10-fold cross-validated mean squared error, the folds being those
  of scikit-learn's ``KFold(10, shuffle=True, random_state=1982)`` over the
  subset's own complete rows (so they depend on how many rows the subset has);
* reported with CV R^2 = 1 - CV MSE / Var(y) and the relative error
  ln(10) * CV MAE (Appendix G), and admissible only if no coefficient is
  negative;
* per-game models (Tables 10, 11) and single-game models (section 5.1) are
  OLS WITH intercept, scored by in-sample R^2.

Everything here is plain numpy (no scikit-learn at run time); the tests check
each function against scikit-learn. The fast exhaustive search lives in
``atari5_spec_research.search`` and reports its final models through this module.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "N_SPLITS", "SEED", "kfold_test_folds", "fit_no_intercept", "fit_with_intercept",
    "cross_validate", "SubsetFit", "fit_subset_model", "complete_rows",
    "per_game_models", "single_game_models",
]

N_SPLITS = 10
SEED = 1982


def kfold_test_folds(n_rows: int, n_splits: int = N_SPLITS, seed: int = SEED) -> list[np.ndarray]:
    """Test-row positions of each fold, exactly as ``KFold(n_splits, shuffle=True, random_state=seed)``.

    scikit-learn shuffles ``arange(n_rows)`` with ``RandomState(seed).shuffle``
    and cuts the result into ``n_splits`` consecutive pieces, the first
    ``n_rows % n_splits`` of them one row longer; each piece is then used in
    row order (``split`` yields sorted indices). Train rows are the rest.
    """
    if not 2 <= n_splits <= n_rows:
        raise ValueError(f"cannot make {n_splits} folds from {n_rows} rows")
    order = np.arange(n_rows)
    np.random.RandomState(seed).shuffle(order)
    sizes = np.full(n_splits, n_rows // n_splits)
    sizes[: n_rows % n_splits] += 1
    return [np.sort(piece) for piece in np.split(order, np.cumsum(sizes)[:-1])]


def fit_no_intercept(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """OLS coefficients of y on the columns of X, no intercept (minimum-norm least squares, as sklearn)."""
    coefficients, *_ = np.linalg.lstsq(np.asarray(X, float), np.asarray(y, float), rcond=None)
    return coefficients


def fit_with_intercept(X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """(intercept, coefficients) of OLS with intercept: fit on centred data, as scikit-learn does."""
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    x_mean, y_mean = X.mean(axis=0), y.mean()
    coefficients = fit_no_intercept(X - x_mean, y - y_mean)
    return float(y_mean - x_mean @ coefficients), coefficients


def cross_validate(X: np.ndarray, y: np.ndarray, n_splits: int = N_SPLITS,
                   seed: int = SEED) -> tuple[float, float]:
    """(CV MSE, CV MAE) of the no-intercept model: the mean over folds of each fold's mean error.

    Equals ``-cross_val_score(LinearRegression(fit_intercept=False), X, y,
    cv=KFold(n_splits, shuffle=True, random_state=seed), scoring=...).mean()``
    with ``neg_mean_squared_error`` and ``neg_mean_absolute_error``. Folds of
    unequal size are weighted equally, as there.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    squared, absolute = [], []
    for test in kfold_test_folds(len(y), n_splits, seed):
        train = np.ones(len(y), bool)
        train[test] = False
        residual = y[test] - X[test] @ fit_no_intercept(X[train], y[train])
        squared.append(np.mean(residual ** 2))
        absolute.append(np.mean(np.abs(residual)))
    return float(np.mean(squared)), float(np.mean(absolute))


class SubsetFit(NamedTuple):
    """A subset model as fitted on a training table: one row of the paper's Tables 2 and 9 (a pinned version's subset, as
    scoring reads it, is :class:`atari5_spec.method.pinned.SubsetModel`)."""

    games: tuple[str, ...]            # in the order the coefficients are given
    coefficients: tuple[float, ...]
    n: int                            # algorithms with a score for every game
    cv_mse: float
    cv_mae: float
    cv_r2: float                      # 1 - cv_mse / Var(y) over the n rows (ddof=0)
    rel_err_percent: float            # ln(10) * cv_mae * 100 (Appendix G)
    admissible: bool                  # no negative coefficient


def complete_rows(X: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Boolean mask of the rows with a value in every one of ``columns``."""
    return X[list(columns)].notna().all(axis=1).to_numpy()


def fit_subset_model(X: pd.DataFrame, y: pd.Series, games: Sequence[str],
                     n_splits: int = N_SPLITS, seed: int = SEED) -> SubsetFit:
    """The paper's model for one subset of games: fitted on its complete rows, kept in row order."""
    games = tuple(games)
    rows = complete_rows(X, games) & y.notna().to_numpy()
    Xs = X.loc[rows, list(games)].to_numpy(float)
    ys = y[rows].to_numpy(float)
    coefficients = fit_no_intercept(Xs, ys)
    cv_mse, cv_mae = cross_validate(Xs, ys, n_splits, seed)
    return SubsetFit(
        games=games,
        coefficients=tuple(float(c) for c in coefficients),
        n=len(ys),
        cv_mse=cv_mse,
        cv_mae=cv_mae,
        cv_r2=1.0 - cv_mse / float(np.var(ys)),
        rel_err_percent=math.log(10) * cv_mae * 100,
        admissible=bool(np.all(coefficients >= 0)),
    )


def _r2(y: np.ndarray, predicted: np.ndarray) -> float:
    """In-sample coefficient of determination, as sklearn's r2_score."""
    return 1.0 - float(np.sum((y - predicted) ** 2) / np.sum((y - y.mean()) ** 2))


def per_game_models(X: pd.DataFrame, predictors: Sequence[str]) -> pd.DataFrame:
    """Tables 10 and 11: for each game g, OLS with intercept of X[g] on X[predictors].

    Fitted on the rows having all predictors and g. When g is itself a
    predictor the model is the identity (intercept 0, coefficient 1 on g, 0
    elsewhere, R^2 1), returned exactly rather than fitted.

    Returns a tidy frame with one row per (target_game, term), term being
    "intercept" or a predictor game id in the given order, and the target's
    in-sample r2 and row count n repeated on each of its rows.
    """
    predictors = list(predictors)
    terms = ["intercept", *predictors]
    records = []
    for target in X.columns:
        rows = complete_rows(X, [*predictors, target])
        if target in predictors:
            values = [0.0] + [1.0 if game == target else 0.0 for game in predictors]
            r2 = 1.0
        else:
            Xs = X.loc[rows, predictors].to_numpy(float)
            ys = X.loc[rows, target].to_numpy(float)
            intercept, coefficients = fit_with_intercept(Xs, ys)
            values = [intercept, *coefficients]
            r2 = _r2(ys, intercept + Xs @ coefficients)
        n = int(rows.sum())
        records += [(target, term, float(value), r2, n) for term, value in zip(terms, values)]
    return pd.DataFrame.from_records(records, columns=["target_game", "term", "coefficient", "r2", "n"])


def single_game_models(X: pd.DataFrame, y: pd.Series) -> pd.DataFrame:
    """Section 5.1: OLS with intercept of y on each game alone (rows having it), in-sample R^2, no CV."""
    records = []
    for game in X.columns:
        rows = X[game].notna().to_numpy() & y.notna().to_numpy()
        xs = X.loc[rows, [game]].to_numpy(float)
        ys = y[rows].to_numpy(float)
        intercept, (slope,) = fit_with_intercept(xs, ys)
        records.append((game, intercept, float(slope), _r2(ys, intercept + slope * xs[:, 0]), int(rows.sum())))
    return pd.DataFrame.from_records(records, columns=["game", "intercept", "slope", "r2", "n"])
