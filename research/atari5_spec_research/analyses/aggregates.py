"""Score normalisations and aggregate metrics over a set of games.

Arrays follow the rliable convention: a score matrix has shape
``(n_runs_or_algorithms, n_games)``; a 1-D array of length ``n_games`` is read
as a single row. NaN marks a missing score where that has a clear meaning
(normalisation, win/loss counts); the aggregates reject NaN, because silently
dropping a game changes which games are being averaged.

Definitions come from Bellemare et al., "The Arcade Learning Environment"
(JAIR 2013), section 4, and from rliable (Agarwal et al., 2021) for the
interquartile mean, optimality gap and stratified bootstrap.

Human-normalised scores live in :mod:`atari5_spec.method.reference`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import scipy.stats

__all__ = [
    "range_normalised",
    "reference_normalised",
    "baseline_normalised",
    "inter_algorithm_normalised",
    "mean_score",
    "median_score",
    "interquartile_mean",
    "optimality_gap",
    "score_distribution",
    "WinLoss",
    "paired_win_loss",
    "ConfidenceInterval",
    "stratified_bootstrap_ci",
]


# --------------------------------------------------------------------------
# Input validation (scikit-learn style: fail early, say what was wrong)
# --------------------------------------------------------------------------


def _as_score_matrix(x, name: str, *, allow_nan: bool) -> np.ndarray:
    """Return ``x`` as a float 2-D array, promoting 1-D input to one row."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 1:
        arr = arr[np.newaxis, :]
    if arr.ndim != 2:
        raise ValueError(
            f"Expected {name} as a 1-D or 2-D array of shape "
            f"(n_runs_or_algorithms, n_games), got {arr.ndim}-D array instead."
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}).")
    if np.isinf(arr).any():
        raise ValueError(f"Input {name} contains infinity.")
    if not allow_nan and np.isnan(arr).any():
        raise ValueError(
            f"Input {name} contains NaN; aggregates need a score for every "
            "run and game (drop or impute missing games first)."
        )
    return arr


def _as_per_game(x, name: str, n_games: int) -> np.ndarray:
    """Return ``x`` as a finite float 1-D array of length ``n_games``."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1 or arr.shape[0] != n_games:
        raise ValueError(
            f"Expected {name} with shape ({n_games},) (one value per game), "
            f"got shape {arr.shape}."
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"Input {name} contains NaN or infinity.")
    return arr


def _restore_shape(z: np.ndarray, original) -> np.ndarray:
    """Give 1-D inputs 1-D outputs."""
    return z[0] if np.ndim(original) == 1 else z


# --------------------------------------------------------------------------
# Normalisation (Bellemare et al. 2013, section 4.1)
# --------------------------------------------------------------------------


def range_normalised(scores, r_min, r_max) -> np.ndarray:
    """Normalise scores to a per-game score range (section 4.1).

    ``z[g] = (s[g] - r_min[g]) / (r_max[g] - r_min[g])``

    This is the common formula behind the three normalisations below.
    NaN scores stay NaN. Raises ``ValueError`` if any range has zero width,
    since the formula is then undefined.
    """
    s = _as_score_matrix(scores, "scores", allow_nan=True)
    n_games = s.shape[1]
    lo = _as_per_game(r_min, "r_min", n_games)
    hi = _as_per_game(r_max, "r_max", n_games)
    width = hi - lo
    degenerate = np.flatnonzero(width == 0)
    if degenerate.size:
        raise ValueError(
            "Score range has zero width (r_max == r_min) for game column(s) "
            f"{degenerate.tolist()}; normalised scores are undefined there."
        )
    return _restore_shape((s - lo) / width, scores)


def reference_normalised(scores, reference) -> np.ndarray:
    """Normalise to a single reference score per game (section 4.1.1).

    The ALE paper's range is ``r_min = 0`` and ``r_max = |reference|``, e.g. the
    random agent's average score, so ``z = s / |reference|``. Note this is not
    translation invariant and explodes when the reference is near zero (the
    seed's FREEWAY example); prefer the other normalisations for aggregation.
    """
    s = _as_score_matrix(scores, "scores", allow_nan=True)
    ref = _as_per_game(reference, "reference", s.shape[1])
    return range_normalised(scores, np.zeros_like(ref), np.abs(ref))


def baseline_normalised(scores, baseline_scores) -> np.ndarray:
    """Normalise to the range of a set of baseline scores (section 4.1.2).

    For game ``g`` with baseline scores ``b[0, g], ..., b[k-1, g]``:
    ``r_min = min_i b[i, g]`` and ``r_max = max_i b[i, g]``.

    ``baseline_scores`` has shape ``(n_baselines, n_games)``; missing
    baseline scores (NaN) are ignored, but every game needs at least one.
    """
    s = _as_score_matrix(scores, "scores", allow_nan=True)
    b = _as_score_matrix(baseline_scores, "baseline_scores", allow_nan=True)
    if b.shape[1] != s.shape[1]:
        raise ValueError(
            f"scores has {s.shape[1]} games but baseline_scores has "
            f"{b.shape[1]}; columns must be the same games."
        )
    no_baseline = np.flatnonzero(np.isnan(b).all(axis=0))
    if no_baseline.size:
        raise ValueError(
            f"No baseline score for game column(s) {no_baseline.tolist()}."
        )
    return range_normalised(scores, np.nanmin(b, axis=0), np.nanmax(b, axis=0))


def inter_algorithm_normalised(scores) -> np.ndarray:
    """Normalise by the range of the algorithms compared (section 4.1.3).

    ``scores`` has shape ``(n_algorithms, n_games)``; for game ``g``,
    ``r_min = min_i s[i, g]`` and ``r_max = max_i s[i, g]``, so every result
    lies in ``[0, 1]`` with the worst algorithm at 0 and the best at 1.
    Missing scores (NaN) stay NaN and do not enter the range.

    A game on which all algorithms tie has no defined inter-algorithm score;
    this raises ``ValueError`` naming the game columns so the caller can
    drop them explicitly.
    """
    s = _as_score_matrix(scores, "scores", allow_nan=True)
    if s.shape[0] < 2:
        raise ValueError(
            "inter_algorithm_normalised needs scores from at least 2 "
            f"algorithms (rows), got {s.shape[0]}."
        )
    too_few = np.flatnonzero((~np.isnan(s)).sum(axis=0) < 2)
    if too_few.size:
        raise ValueError(
            "Fewer than 2 algorithms have a score for game column(s) "
            f"{too_few.tolist()}."
        )
    return range_normalised(s, np.nanmin(s, axis=0), np.nanmax(s, axis=0))


# --------------------------------------------------------------------------
# Point aggregates of one algorithm's (n_runs, n_games) score matrix
# --------------------------------------------------------------------------


def mean_score(normalised) -> float:
    """Average normalised score (section 4.2.1).

    Mean over games of the per-game mean over runs; with one run per game
    this is the ALE paper's plain average. Equal to the mean of all entries.
    """
    x = _as_score_matrix(normalised, "normalised", allow_nan=False)
    return float(np.mean(x.mean(axis=0)))


def median_score(normalised) -> float:
    """Median normalised score (section 4.2.2).

    Median over games of the per-game mean over runs (as rliable does); an
    even number of games gives the average of the two middle values.
    """
    x = _as_score_matrix(normalised, "normalised", allow_nan=False)
    return float(np.median(x.mean(axis=0)))


def interquartile_mean(normalised) -> float:
    """Interquartile mean (IQM), rliable's definition.

    ``scipy.stats.trim_mean(x, 0.25)`` over all runs x games flattened:
    sort the ``n`` values, drop ``floor(0.25 * n)`` from each end and average
    the rest. When ``n`` is not a multiple of 4 slightly more than the middle
    50% is kept (no fractional weighting of boundary values).
    """
    x = _as_score_matrix(normalised, "normalised", allow_nan=False)
    return float(scipy.stats.trim_mean(x, proportiontocut=0.25, axis=None))


def optimality_gap(normalised, gamma: float = 1.0) -> float:
    """Optimality gap (rliable): how far scores fall short of ``gamma``.

    ``mean over runs and games of max(gamma - x, 0)``; scores above
    ``gamma`` count as exactly ``gamma``. Lower is better. Computed as
    rliable writes it, ``gamma - mean(min(x, gamma))``, so that the two give
    the same floating-point number.
    """
    x = _as_score_matrix(normalised, "normalised", allow_nan=False)
    if not np.isfinite(gamma):
        raise ValueError(f"gamma must be finite, got {gamma!r}.")
    return float(gamma - np.mean(np.minimum(x, gamma)))


def score_distribution(normalised, thresholds) -> np.ndarray:
    """Score distribution (section 4.2.3): fraction of scores >= each threshold.

    ``F(t) = (1 / (n_runs * n_games)) * #{(r, g) : x[r, g] >= t}``

    With one run this is the ALE paper's fraction of games at or above ``t``; with
    several runs it is rliable's run-score distribution (the average over runs
    of that fraction). Returns one value per threshold, non-increasing in
    ``t``.
    """
    x = _as_score_matrix(normalised, "normalised", allow_nan=False)
    t = np.asarray(thresholds, dtype=float)
    if t.ndim > 1:
        raise ValueError(f"thresholds must be a scalar or 1-D, got {t.ndim}-D.")
    if np.isnan(t).any():
        raise ValueError("thresholds contains NaN.")
    return np.mean(x.reshape(-1, 1) >= np.atleast_1d(t), axis=0).reshape(t.shape)


# --------------------------------------------------------------------------
# Paired comparison of two algorithms (section 4.3)
# --------------------------------------------------------------------------


class WinLoss(NamedTuple):
    """Number of games algorithm A wins, loses and ties against B."""

    wins: int
    losses: int
    ties: int


def paired_win_loss(a, b, alpha: float | None = None) -> WinLoss:
    """Count games where algorithm ``a`` beats, loses to or ties with ``b``.

    ``a`` and ``b`` have shape ``(n_games,)`` or ``(n_runs, n_games)`` over
    the same games (run counts may differ).

    * ``alpha=None``: compare per-game mean scores directly; equal means are
      a tie.
    * ``alpha`` given: the ALE paper's paired test (section 4.3, which used
      ``alpha=0.01``): per game a two-sided Welch t-test; a difference with
      p-value ``< alpha`` is a win or loss by the sign of the mean difference,
      anything else is a tie. Needs at least 2 runs per algorithm and game.

    Missing scores (NaN) are ignored; a game with no usable scores for either
    algorithm counts as none of win, loss or tie, so
    ``wins + losses + ties`` may be less than ``n_games``.
    """
    x = _as_score_matrix(a, "a", allow_nan=True)
    y = _as_score_matrix(b, "b", allow_nan=True)
    if x.shape[1] != y.shape[1]:
        raise ValueError(
            f"a has {x.shape[1]} games but b has {y.shape[1]}; "
            "columns must be the same games."
        )
    if alpha is not None and not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    min_runs = 1 if alpha is None else 2

    wins = losses = ties = 0
    for g in range(x.shape[1]):
        xg = x[:, g][~np.isnan(x[:, g])]
        yg = y[:, g][~np.isnan(y[:, g])]
        if xg.size < min_runs or yg.size < min_runs:
            continue
        diff = xg.mean() - yg.mean()
        if diff == 0:
            ties += 1  # also avoids a 0/0 t statistic for constant equal samples
            continue
        # Two constant samples with different means differ for certain; the
        # t-test would divide by a zero variance, so skip it.
        constant = np.ptp(xg) == 0 and np.ptp(yg) == 0
        if alpha is not None and not constant:
            p = scipy.stats.ttest_ind(xg, yg, equal_var=False).pvalue
            if not p < alpha:
                ties += 1
                continue
        if diff > 0:
            wins += 1
        else:
            losses += 1
    return WinLoss(wins, losses, ties)


# --------------------------------------------------------------------------
# Stratified bootstrap confidence intervals (rliable)
# --------------------------------------------------------------------------


class ConfidenceInterval(NamedTuple):
    """Point estimate and percentile bootstrap interval of a statistic."""

    estimate: np.ndarray | float
    low: np.ndarray | float
    high: np.ndarray | float


def stratified_bootstrap_ci(
    scores_per_seed,
    statistic: Callable[[np.ndarray], float | np.ndarray],
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ConfidenceInterval:
    """Percentile confidence interval by stratified bootstrap over runs.

    ``scores_per_seed`` has shape ``(n_runs, n_games)`` for one algorithm.
    Each resample draws ``n_runs`` runs with replacement independently within
    every game (the game is the stratum, as in rliable), so each game keeps
    its weight. ``statistic`` maps such a matrix to a scalar or 1-D array,
    e.g. :func:`interquartile_mean`. The interval is the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the
    resampled statistic.

    Randomness comes only from ``numpy.random.default_rng(seed)``, so the
    same seed gives identical intervals.
    """
    x = _as_score_matrix(scores_per_seed, "scores_per_seed", allow_nan=False)
    n_runs, n_games = x.shape
    if n_runs < 2:
        raise ValueError(
            "stratified_bootstrap_ci needs at least 2 runs per game to "
            f"resample, got {n_runs}."
        )
    if not callable(statistic):
        raise ValueError("statistic must be callable.")
    if not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(
            f"n_resamples must be a positive integer, got {n_resamples!r}."
        )
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}.")

    rng = np.random.default_rng(seed)
    run_index = rng.integers(0, n_runs, size=(n_resamples, n_runs, n_games))
    resampled = x[run_index, np.arange(n_games)]  # (n_resamples, n_runs, n_games)
    replicates = np.array([np.asarray(statistic(r), dtype=float) for r in resampled])

    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(replicates, [tail, 100.0 - tail], axis=0)
    estimate = np.asarray(statistic(x), dtype=float)
    if estimate.ndim == 0:
        return ConfidenceInterval(float(estimate), float(low), float(high))
    return ConfidenceInterval(estimate, low, high)
