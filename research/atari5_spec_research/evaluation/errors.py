"""Out-of-sample errors of a coefficient version: held-out agents, leave-one-paper-out, nested CV.

Every error here is measured on agents the model being judged did not see:

* **held-out agents**: agents outside the version's training set (results after
  2022, Go-Explore, entries the inclusion rule left out, every budget
  checkpoint of a curve), scored with the version's own formula;
* **leave-one-paper-out** on the training set: all entries of one paper held
  out together, the subset's model refitted on the rest (its games fixed);
* **nested cross-validation** of the whole select-then-fit procedure: in each
  outer fold the five-game search is rerun on the other folds, so the error
  includes the optimism of picking the best of millions of subsets.

Errors are in the model's log space, ``phi(true median) - phi(estimate)``
(``phi(z) = log10(1 + max(0, z))``); ``10 ** -error`` is the ratio
(1 + estimate) / (1 + true median), and ``ln(10) x mean |error|`` is the
paper's "relative error".
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

from atari5_spec.method.fitting import N_SPLITS, SEED, fit_no_intercept, kfold_test_folds
from atari5_spec.method.reference import inverse_log_transform, log_transform

__all__ = ["ERROR_COLUMNS", "heldout_errors", "loso_errors", "NestedResult", "nested_cv", "relative_error_percent",
           "log_estimate"]

ERROR_COLUMNS = ["subset", "agent", "algorithm_id", "paper", "kind", "budget", "sticky", "regime", "estimate",
                 "true_median", "log_error", "ratio"]


def log_estimate(phi: np.ndarray, coefficients: Sequence[float]) -> np.ndarray:
    """The model's log-space estimate sum_i c_i phi(Z_i), row by row."""
    return np.asarray(phi, float) @ np.asarray(coefficients, float)


def relative_error_percent(log_errors) -> float:
    """The paper's relative error: ln(10) x mean absolute log10 error x 100."""
    errors = np.asarray(log_errors, float)
    return float(math.log(10) * np.mean(np.abs(errors)) * 100) if len(errors) else float("nan")


def _rows(subset: str, info: pd.DataFrame, kind: str, log_est: np.ndarray, log_true: np.ndarray) -> pd.DataFrame:
    estimate, true = inverse_log_transform(log_est), inverse_log_transform(log_true)
    out = pd.DataFrame({
        "subset": subset, "agent": info.index, "algorithm_id": info["algorithm_id"].to_numpy(),
        "paper": info["paper"].to_numpy(), "kind": kind, "budget": info["budget"].to_numpy(),
        "sticky": info["sticky"].to_numpy(), "regime": info["regime"].to_numpy(),
        "estimate": estimate, "true_median": true, "log_error": log_true - log_est,
        "ratio": (1.0 + estimate) / (1.0 + true)})
    return out[ERROR_COLUMNS]


def heldout_errors(agents, subset: str, games: Sequence[str], coefficients: Sequence[float],
                   training_algorithms: Sequence[str]) -> pd.DataFrame:
    """The version's formula on every agent whose algorithm is not in its training set and has the subset's games.

    ``ratio`` is (1 + estimate) / (1 + true median), the ratio the log-space error measures.
    """
    info = agents.info[~agents.info["algorithm_id"].isin(set(training_algorithms))]
    return _heldout(agents, info, subset, games, coefficients)


def _heldout(agents, info, subset, games, coefficients) -> pd.DataFrame:
    phi = agents.phi().loc[info.index, list(games)]
    complete = phi.notna().all(axis=1).to_numpy()
    info, phi = info[complete], phi[complete]
    return _rows(subset, info, "held-out", log_estimate(phi.to_numpy(), coefficients),
                 log_transform(info["true_median"].to_numpy()))


def loso_errors(X: pd.DataFrame, y: pd.Series, info: pd.DataFrame, subset: str, games: Sequence[str],
                extra: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Leave-one-paper-out errors of the subset's model on the training matrix (X = phi, y = phi(median)).

    For each paper (``info["paper"]``, indexed like X), the model (no intercept,
    the subset's games fixed) is refitted on the training algorithms of every
    other paper and predicts the paper's own. ``extra`` = (phi, info with
    true_median) of further agents of the training algorithms (their learning-curve
    checkpoints): each is predicted by the same refit that left its paper out.
    """
    columns = list(games)
    complete = X[columns].notna().all(axis=1) & y.notna()
    Xc, yc = X.loc[complete, columns], y[complete]
    paper = info["paper"].reindex(Xc.index).astype(str)
    extra_phi, extra_info = extra if extra is not None else (pd.DataFrame(columns=columns), info.iloc[:0])
    extra_phi = extra_phi[columns]
    usable = extra_phi.notna().all(axis=1).to_numpy()
    extra_phi, extra_info = extra_phi[usable], extra_info[usable]
    extra_paper = extra_info["paper"].astype(str)
    Xn, yn, extra_n = Xc.to_numpy(), yc.to_numpy(), extra_phi.to_numpy()
    papers, extra_papers = paper.to_numpy(), extra_paper.to_numpy()
    log_est, extra_est = np.full(len(Xn), np.nan), np.full(len(extra_n), np.nan)
    for name in sorted(set(papers) | set(extra_papers)):
        held = papers == name
        if held.all():
            continue
        weights = fit_no_intercept(Xn[~held], yn[~held])
        log_est[held] = log_estimate(Xn[held], weights)
        mine = extra_papers == name
        extra_est[mine] = log_estimate(extra_n[mine], weights)
    rows = _rows(subset, info.loc[Xc.index], "leave-one-paper-out", log_est, yn)
    if len(extra_phi):
        rows = pd.concat([rows, _rows(subset, extra_info, "leave-one-paper-out", extra_est,
                                      log_transform(extra_info["true_median"].to_numpy()))], ignore_index=True)
    return rows


class NestedResult(NamedTuple):
    """Nested cross-validation of select-then-fit: per outer fold, the chosen games and the held-out errors."""

    errors: pd.DataFrame         # agent, fold, log_error (outer-fold predictions)
    chosen: list[tuple[str, ...]]  # the games the inner search picked in each outer fold
    k: int

    @property
    def rel_err_percent(self) -> float:
        return relative_error_percent(self.errors["log_error"])


def nested_cv(X: pd.DataFrame, y: pd.Series, k: int = 5, excluded: Sequence[str] = ("surround",),
              n_splits: int = N_SPLITS, seed: int = SEED, progress=None) -> NestedResult:
    """Outer ``n_splits``-fold CV (folds as the paper's KFold over the rows in fold order) around the whole
    search: in each outer fold, the best admissible ``k``-game subset is searched (inner ``n_splits``-fold CV)
    on the other folds, fitted there, and used to predict the fold's algorithms that have its games."""
    from atari5_spec_research.search import best_subset, searchable_games

    names = list(X.columns)
    pool = [names.index(g) for g in searchable_games(names, excluded)]
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    rows, chosen = [], []
    folds = kfold_test_folds(len(yn), n_splits, seed)
    for number, test in enumerate(folds):
        train = np.setdiff1d(np.arange(len(yn)), test)
        columns = list(best_subset(Xn[train], yn[train], pool, k, (), n_splits, seed))
        chosen.append(tuple(names[c] for c in columns))
        fit_rows = train[~np.isnan(Xn[train][:, columns]).any(axis=1)]
        weights = fit_no_intercept(Xn[fit_rows][:, columns], yn[fit_rows])
        usable = test[~np.isnan(Xn[test][:, columns]).any(axis=1)]
        for row in usable:
            rows.append(dict(agent=X.index[row], fold=number + 1,
                             log_error=float(yn[row] - Xn[row, columns] @ weights)))
        if progress is not None:
            progress(number + 1, len(folds))
    return NestedResult(pd.DataFrame(rows, columns=["agent", "fold", "log_error"]), chosen, k)
