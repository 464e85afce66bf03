"""The papers' other analyses of the score data: structure, fairness, IRT and aggregates.

Small pure functions over the training matrix ``(X, y)`` of
:func:`atari5_spec.method.training.training_matrix` (phi(Z) per algorithm x game, NaN
where missing, and phi of the 57-game median) or over the Dataset:

* section 4.2 / 5.1 of the Atari-5 paper: how well each game alone predicts
  the median (:func:`single_game_ranking`);
* sections 4.4 / 5.5: how much of the variance of all 57 games' log-normalised
  scores the Atari-5 and Atari-10 per-game models explain
  (:func:`per_game_fit_summary`, :func:`variance_explained`);
* section 5.4: fairness of the Atari-5 estimate across tertiles of true median
  (:func:`fairness_by_tertile`);
* section 6: Pearson correlations between games (:func:`game_correlations`,
  :func:`ranked_pairs`);
* section 5.3: Go-Explore as an out-of-sample case (:func:`out_of_sample_case`);
* Martinez-Plumed & Hernandez-Orallo (2017): a 2PL IRT model of
  "at least human level" on the training algorithms (:func:`irt_analysis`),
  compared with that paper's Table 1 (:func:`difficulty_rank_correlation`);
* Bellemare et al. (2013) / rliable: aggregates of the training algorithms
  (:func:`aggregate_summary`).

:func:`paper_figures` gathers the numbers the Atari-5 paper prints in its
running text (published/text_figures.csv) and :func:`compare_with_paper` sets
them side by side at the printed precision.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
import scipy.stats

from atari5_spec.data.published import matches_printed, published_rows
from atari5_spec.method import fitting, training
from atari5_spec.method.reference import inverse_log_transform
from atari5_spec.method.reproduction import algorithm_estimates
from atari5_spec_research.analyses import aggregates, irt

__all__ = [
    "HUMAN_LEVEL", "WELL_PREDICTED_R2", "GO_EXPLORE_ID",
    "single_game_ranking", "subset_weights", "per_game_fit_summary", "variance_explained",
    "well_predicted_games", "subset_log_estimates", "out_of_fold_estimates", "FairnessCheck", "fairness_by_tertile",
    "game_correlations", "smallest_eigenvalue", "ranked_pairs", "OutOfSampleCase", "algorithm_score_rows", "out_of_sample_case",
    "normalised_matrix", "agents_only", "human_level_responses", "IrtResult", "irt_analysis",
    "IRT_ITEM_COLUMNS", "PUBLISHED_DISCRIMINATING_MIN", "published_irt_table", "RankCorrelation", "difficulty_rank_correlation", "TrainingIrt", "training_irt",
    "table8_medians", "aggregate_summary",
    "paper_figures", "compare_with_paper",
]

HUMAN_LEVEL = 100.0          # the IRT paper's success: human-normalised score at or above the average human
WELL_PREDICTED_R2 = 0.8      # section 5.5's threshold for a well-predicted game
GO_EXPLORE_ID = "go-explore-2021"
_ROUNDING_TOLERANCE = 1e-9   # normalised-score units: far below any printed precision


# --------------------------------------------------------------------------
# Section 4.2 / 5.1: single-game predictiveness
# --------------------------------------------------------------------------


def single_game_ranking(X: pd.DataFrame, y: pd.Series) -> pd.DataFrame:
    """Section 5.1 (Figure 2): every game alone predicting phi(median), most predictive first.

    One OLS with intercept per game on the rows having it, scored by in-sample
    R^2 (no cross-validation, as the paper: two parameters). Columns: rank (1
    = best), game, intercept, slope, r2, n. Ties (none in the data) by game id.
    """
    models = fitting.single_game_models(X, y)
    ranked = models.sort_values(["r2", "game"], ascending=[False, True]).reset_index(drop=True)
    ranked.insert(0, "rank", np.arange(1, len(ranked) + 1))
    return ranked


# --------------------------------------------------------------------------
# Sections 4.4 / 5.5: per-game models and the variance they explain
# --------------------------------------------------------------------------


def subset_weights(subset_coefficients: pd.DataFrame, subset: str) -> pd.Series:
    """A subset model's weights (game id -> coefficient, in printed order) from a subset_coefficients table."""
    model = subset_coefficients[subset_coefficients["subset"] == subset].sort_values("position")
    if model.empty:
        raise ValueError(f"no subset {subset!r} in the coefficients")
    return pd.Series(model["coefficient"].to_numpy(float), index=model["game_id"].tolist(), name=subset)


def per_game_fit_summary(X: pd.DataFrame, predictors: Sequence[str]) -> pd.DataFrame:
    """Sections 4.4 / 5.5: each game's per-game model (Tables 10, 11) with its sums of squares.

    For each game g, the OLS with intercept of X[g] on X[predictors]
    (:func:`atari5_spec.method.fitting.per_game_models`), over the rows having all
    predictors and g. Returns, indexed by game id: n, rss (residual sum of
    squares of that fit), tss (sum of squares of X[g] about its mean over the
    same rows) and r2 = 1 - rss / tss. A predictor game predicts itself
    exactly (rss 0, r2 1) and still counts, as in the paper's tables.
    """
    predictors = list(predictors)
    models = fitting.per_game_models(X, predictors)
    records = []
    for game, model in models.groupby("target_game", sort=False):
        terms = model.set_index("term")["coefficient"]
        rows = fitting.complete_rows(X, [*predictors, game])
        target = X.loc[rows, game].to_numpy(float)
        predicted = terms["intercept"] + X.loc[rows, predictors].to_numpy(float) @ terms[predictors].to_numpy(float)
        rss = 0.0 if game in predictors else float(np.sum((target - predicted) ** 2))
        tss = float(np.sum((target - target.mean()) ** 2))
        records.append((game, int(rows.sum()), rss, tss, 1.0 - rss / tss))
    return pd.DataFrame.from_records(records, columns=["game", "n", "rss", "tss", "r2"]).set_index("game")


def variance_explained(summary: pd.DataFrame) -> float:
    """Section 5.5: share of the variance of all games' log-normalised scores the per-game models explain.

    Pooled over the games: 1 - (sum of residual SS) / (sum of total SS), each
    game's sums taken over the rows its model was fitted on (see
    :func:`per_game_fit_summary`); equivalently the mean of the per-game R^2
    weighted by each game's total SS. This is the definition that reproduces
    both printed figures (71.5% for Atari-5, 80.0% for Atari-10); the plain
    mean of the 57 R^2 gives 67.7% and 77.6% instead.
    """
    return 1.0 - float(summary["rss"].sum() / summary["tss"].sum())


def well_predicted_games(summary: pd.DataFrame, threshold: float = WELL_PREDICTED_R2) -> list[str]:
    """Section 5.5: games whose per-game model has R^2 above ``threshold``, best first.

    The predictor games themselves are included (R^2 = 1): the paper's count
    of 17 for Atari-5 is 5 predictors plus 12 other games.
    """
    r2 = summary["r2"]
    return r2[r2 > threshold].sort_values(ascending=False, kind="stable").index.tolist()


# --------------------------------------------------------------------------
# Section 5.4: fairness across tertiles
# --------------------------------------------------------------------------


def subset_log_estimates(X: pd.DataFrame, weights: pd.Series) -> pd.Series:
    """A subset model's estimate of phi(median) for every row having all its games (no intercept)."""
    games = list(weights.index)
    rows = fitting.complete_rows(X, games)
    estimates = X.loc[rows, games].to_numpy(float) @ weights.to_numpy(float)
    return pd.Series(estimates, index=X.index[rows], name="log_estimate")


def out_of_fold_estimates(X: pd.DataFrame, y: pd.Series, games: Sequence[str],
                          n_splits: int = fitting.N_SPLITS, seed: int = fitting.SEED) -> pd.DataFrame:
    """Each algorithm's subset estimate from the fold that did not train on it (the search's 10-fold CV).

    The rows having every game of the subset, in row order, are cut into the
    folds of :func:`atari5_spec.method.fitting.kfold_test_folds` (those the subset
    search cross-validates with); each fold is predicted by the no-intercept
    model fitted on the other folds. Columns: algorithm_id, median and
    estimate (human-normalised, %), fold, rel_err (estimate / median - 1).
    These are honest predictions for the training algorithms; the pinned
    coefficients' own estimates of them are in-sample.
    """
    games = list(games)
    rows = fitting.complete_rows(X, games) & y.notna().to_numpy()
    Xs, ys = X.loc[rows, games].to_numpy(float), y[rows].to_numpy(float)
    log_estimate, fold_of = np.empty(len(ys)), np.empty(len(ys), dtype=int)
    for fold, test in enumerate(fitting.kfold_test_folds(len(ys), n_splits, seed), start=1):
        train = np.ones(len(ys), bool)
        train[test] = False
        log_estimate[test] = Xs[test] @ fitting.fit_no_intercept(Xs[train], ys[train])
        fold_of[test] = fold
    frame = pd.DataFrame({"algorithm_id": X.index[rows], "median": inverse_log_transform(ys),
                          "estimate": inverse_log_transform(log_estimate), "fold": fold_of})
    frame["rel_err"] = frame["estimate"] / frame["median"] - 1.0
    return frame


class FairnessCheck(NamedTuple):
    """Section 5.4: per-algorithm errors, per-tertile means and pairwise Welch t-tests."""

    algorithms: pd.DataFrame   # algorithm_id, tertile, median, estimate, rel_err, abs_rel_err
    tertiles: pd.DataFrame     # tertile, n, min_median, max_median, mean_abs_rel_err, mean_rel_err
    tests: pd.DataFrame        # measure, tertile_a, tertile_b, t, p_value, significant


def fairness_by_tertile(X: pd.DataFrame, y: pd.Series, weights: pd.Series, n_groups: int = 3,
                        alpha: float = 0.05) -> FairnessCheck:
    """Section 5.4: is the subset estimate equally accurate and unbiased for weak and strong algorithms?

    The algorithms with every game of the subset are sorted by true median
    (ties by id) and cut into ``n_groups`` groups as equal as possible
    (1 = lowest medians). Relative error is estimate / median - 1 in
    human-normalised units (as Table 3), its absolute value measuring
    accuracy and its sign bias. Every pair of groups is compared on both
    measures with a two-sided Welch t-test (the paper's "Wilson's two-sided
    T-test" read as Welch's, unequal variances); ``significant`` is p < alpha.
    Estimates are in-sample (the coefficients were fitted on these rows).
    """
    log_estimate = subset_log_estimates(X, weights)
    median = pd.Series(inverse_log_transform(y[log_estimate.index].to_numpy(float)), index=log_estimate.index)
    estimate = pd.Series(inverse_log_transform(log_estimate.to_numpy()), index=log_estimate.index)
    frame = pd.DataFrame({"algorithm_id": log_estimate.index, "median": median.to_numpy(),
                          "estimate": estimate.to_numpy()})
    frame = frame.sort_values(["median", "algorithm_id"]).reset_index(drop=True)
    frame["rel_err"] = frame["estimate"] / frame["median"] - 1.0
    frame["abs_rel_err"] = frame["rel_err"].abs()
    groups = np.array_split(np.arange(len(frame)), n_groups)
    frame.insert(1, "tertile", np.concatenate([np.full(len(g), i + 1) for i, g in enumerate(groups)]))

    by_group = frame.groupby("tertile")
    tertiles = pd.DataFrame({
        "n": by_group.size(),
        "min_median": by_group["median"].min(),
        "max_median": by_group["median"].max(),
        "mean_abs_rel_err": by_group["abs_rel_err"].mean(),
        "mean_rel_err": by_group["rel_err"].mean(),
    }).reset_index()

    records = []
    for measure in ("abs_rel_err", "rel_err"):
        for a in range(1, n_groups + 1):
            for b in range(a + 1, n_groups + 1):
                test = scipy.stats.ttest_ind(frame.loc[frame["tertile"] == a, measure],
                                             frame.loc[frame["tertile"] == b, measure], equal_var=False)
                records.append((measure, a, b, float(test.statistic), float(test.pvalue)))
    tests = pd.DataFrame.from_records(records, columns=["measure", "tertile_a", "tertile_b", "t", "p_value"])
    tests["significant"] = tests["p_value"] < alpha
    return FairnessCheck(frame, tertiles, tests)


# --------------------------------------------------------------------------
# Section 6: structure within the ALE
# --------------------------------------------------------------------------


def game_correlations(X: pd.DataFrame) -> pd.DataFrame:
    """Section 6: Pearson correlation of every pair of games' log-normalised scores.

    Each pair uses the algorithms that have both games (pairwise complete
    observations), so different cells rest on different algorithms.
    """
    return X.corr(method="pearson")


def smallest_eigenvalue(correlations: pd.DataFrame) -> float:
    """The smallest eigenvalue of a correlation matrix (NaN cells as 0).

    Pairwise-complete correlations rest on different algorithms cell by
    cell, so the matrix need not be positive semi-definite (a negative
    eigenvalue says it is not), and then it is no covariance of anything:
    no PCA or factor analysis on it.
    """
    matrix = correlations.fillna(0.0).to_numpy(float)
    return float(np.linalg.eigvalsh((matrix + matrix.T) / 2.0).min())


def ranked_pairs(X: pd.DataFrame, correlations: pd.DataFrame | None = None) -> pd.DataFrame:
    """Section 6 (Figure 5): every pair of distinct games, most correlated first.

    Columns: game_a, game_b (in column order of X), pcc, n (algorithms having both).
    """
    correlations = game_correlations(X) if correlations is None else correlations
    present = X.notna().astype(float)
    counts = present.T @ present
    games = list(X.columns)
    records = [(a, b, float(correlations.loc[a, b]), int(counts.loc[a, b]))
               for i, a in enumerate(games) for b in games[i + 1:]]
    pairs = pd.DataFrame.from_records(records, columns=["game_a", "game_b", "pcc", "n"]).dropna(subset=["pcc"])
    return pairs.sort_values(["pcc", "game_a", "game_b"], ascending=[False, True, True]).reset_index(drop=True)


# --------------------------------------------------------------------------
# Section 5.3: an algorithm outside the training table (Go-Explore)
# --------------------------------------------------------------------------


class OutOfSampleCase(NamedTuple):
    """Section 5.3: a subset's estimate of an algorithm's median beside the true median."""

    algorithm_id: str
    n_games: int                 # canonical games with a score
    median: float                # true median human-normalised score over them
    estimate: float              # the subset model's estimate
    overestimate_percent: float  # 100 (estimate / median - 1)


def algorithm_score_rows(dataset, algorithm_id: str) -> pd.DataFrame:
    """One algorithm's usable score rows (use_in_fit, not superseded, canonical games), ignoring its exclusion.

    Excluded algorithms never enter a fit, but the paper still evaluates some
    of them (Go-Explore, excluded for its 400,000-frame episode limit).
    """
    scores = dataset.scores
    superseded = set(scores["supersedes"].dropna().astype(int))
    keep = ((scores["algorithm_id"] == algorithm_id) & scores["use_in_fit"].astype(bool)
            & ~scores["score_id"].isin(superseded)
            & scores["game_id"].isin(training.canonical_games(dataset.games)))
    return scores[keep.fillna(False).astype(bool)]


def out_of_sample_case(dataset, subset_coefficients: pd.DataFrame, normalisation: pd.DataFrame,
                       algorithm_id: str = GO_EXPLORE_ID, subset: str = "Atari-5") -> OutOfSampleCase:
    """Section 5.3: ``subset``'s estimate and the true 57-game median of one algorithm."""
    rows = algorithm_score_rows(dataset, algorithm_id)
    if rows.empty:
        raise ValueError(f"no usable scores for algorithm {algorithm_id!r}")
    summary = training.algorithm_summary(rows, dataset.games).loc[algorithm_id]
    estimates = algorithm_estimates(rows, subset_coefficients, normalisation, subset)
    if algorithm_id not in estimates.index:
        raise ValueError(f"algorithm {algorithm_id!r} lacks a game of {subset}")
    estimate, median = float(estimates[algorithm_id]), float(summary["median"])
    return OutOfSampleCase(algorithm_id, int(summary["n_games"]), median, estimate,
                           100.0 * (estimate / median - 1.0))


# --------------------------------------------------------------------------
# Martinez-Plumed & Hernandez-Orallo (2017): item response theory on "at least human level"
# --------------------------------------------------------------------------


def normalised_matrix(rows: pd.DataFrame, dataset, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Human-normalised score Z per algorithm x canonical game (NaN where missing).

    Rows in ``order`` (e.g. the training matrix's index), else sorted by id.
    Duplicate rows of a pair agree (validation checks it); the first is used.
    """
    z = training.normalised_scores(rows, dataset.games).groupby(["algorithm_id", "game_id"])["normalised"].first()
    matrix = z.unstack("game_id").reindex(columns=training.canonical_games(dataset.games))
    matrix = matrix.reindex(index=list(order) if order is not None else sorted(matrix.index))
    matrix.index.name = "algorithm_id"
    return matrix


def human_level_responses(normalised: pd.DataFrame, threshold: float = HUMAN_LEVEL) -> pd.DataFrame:
    """The IRT paper: 1.0 where the human-normalised score is at least ``threshold``, 0.0 below, NaN if missing.

    The IRT paper's text says "above 100"; with ``>=`` the Human Ref row (the
    human score itself) counts as solving the game, as a human would.
    """
    # A raw score equal to the human score normalises to 100 only up to
    # rounding (e.g. 100 - 1.4e-14 for Up n Down): compare with a tolerance.
    responses = (normalised >= threshold - _ROUNDING_TOLERANCE).astype(float)
    return responses.where(normalised.notna())


def agents_only(normalised: pd.DataFrame, algorithms: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``normalised`` that are agents, leaving out human (and random) reference entries.

    The training table holds "Human Ref" as if it were an algorithm. For an
    IRT of "at least human level" it is no test taker: its scores *are* the
    threshold (100 on every game up to rounding; 99.8 on Surround, whose
    constants come from another source), so it would only add ties at the
    cut and push the fit to infinitely steep items.
    """
    kind = algorithms.set_index("algorithm_id")["kind"].astype(str)
    return normalised[[kind.get(a) == "agent" for a in normalised.index]]


class IrtResult(NamedTuple):
    """A 2PL fit of :func:`irt_analysis`."""

    items: pd.DataFrame        # per kept game, see irt_analysis
    abilities: pd.Series       # EAP ability per algorithm
    dropped: list              # games without both outcomes, left out of the fit
    converged: bool
    log_likelihood: float
    estimation: str = "bayes-modal"   # or "maximum-likelihood" (no priors)
    n_quadrature: int = irt.DEFAULT_N_QUADRATURE
    ability_sd: pd.Series | None = None  # posterior SD of each ability


IRT_ITEM_COLUMNS = ["difficulty", "difficulty_se", "discrimination", "discrimination_se", "intercept",
                    "intercept_se", "discriminating", "discrimination_p_value", "separated", "success_rate", "n"]


def irt_analysis(responses: pd.DataFrame, regularised: bool = True,
                 n_quadrature: int = irt.DEFAULT_N_QUADRATURE) -> IrtResult:
    """Martinez-Plumed & Hernandez-Orallo (2017), section 4: a 2PL model fitted to binary responses (algorithms x games).

    ``regularised`` (default): Bayes modal estimation with
    :data:`atari5_spec_research.analyses.irt.DEFAULT_PRIOR`; otherwise marginal maximum
    likelihood as the IRT paper (``ltm``), which has no finite estimate for
    games that split the agents perfectly (``separated``).
    Games answered all 0 or all 1 (or never) carry no information and are
    dropped and named first (:func:`atari5_spec_research.analyses.irt.drop_uninformative_items`).
    Items are indexed by game id in column order; abilities by the row index.
    A game that does not discriminate (``discriminating`` False: the
    likelihood-ratio test of a = 0 does not reject at 5%, or the curve
    falls) gets no difficulty: ``difficulty`` and ``difficulty_se`` are NaN,
    as its b = -c / a is no location on the ability scale.
    """
    selection = irt.drop_uninformative_items(responses.to_numpy(float), list(responses.columns))
    fit = irt.fit_2pl(selection.responses, n_quadrature=n_quadrature,
                      prior=irt.DEFAULT_PRIOR if regularised else None)
    kept = responses[selection.kept]
    located = fit.discriminating
    items = pd.DataFrame({
        "difficulty": np.where(located, fit.difficulty, np.nan),
        "difficulty_se": np.where(located, fit.difficulty_se, np.nan),
        "discrimination": fit.discrimination,
        "discrimination_se": fit.discrimination_se,
        "intercept": fit.intercept,
        "intercept_se": fit.intercept_se,
        "discriminating": fit.discriminating,
        "discrimination_p_value": fit.discrimination_p_value,
        "separated": fit.separated,
        "success_rate": kept.mean().to_numpy(),
        "n": kept.notna().sum().to_numpy(),
    }, index=pd.Index(selection.kept, name="game_id"))
    abilities = pd.Series(fit.ability, index=responses.index, name="ability")
    return IrtResult(items, abilities, selection.dropped, fit.converged, fit.log_likelihood,
                     "bayes-modal" if regularised else "maximum-likelihood", n_quadrature,
                     pd.Series(fit.ability_sd, index=responses.index, name="ability_sd"))


def published_irt_table(root: Path | None = None) -> pd.DataFrame:
    """The IRT paper's Table 1 (published/irt_martinez_plumed_2017_table1.csv) as numbers, indexed by game id; NaN where '-'."""
    frame = pd.DataFrame(published_rows("irt_martinez_plumed_2017_table1", root)).set_index("game_id")
    for column in ("difficulty", "discrimination"):
        frame[column] = pd.to_numeric(frame[column].replace("", np.nan))
    return frame


class RankCorrelation(NamedTuple):
    """Spearman rank correlation over the games two tables share."""

    rho: float
    p_value: float
    n: int
    games: list


#: Without standard errors for the IRT paper's Table 1, a game counts as discriminating there when
#: its printed discrimination is at least Baker's (2001) "low" level; below it ("very low", or
#: negative) its difficulty is no location either.
PUBLISHED_DISCRIMINATING_MIN = 0.35


def difficulty_rank_correlation(items: pd.DataFrame, published: pd.DataFrame,
                                column: str = "difficulty",
                                published_min_discrimination: float | None = PUBLISHED_DISCRIMINATING_MIN,
                                ) -> RankCorrelation:
    """Spearman correlation of ``column`` between our IRT items and the IRT paper's, over games both locate.

    A game enters when our fit gives it a value (non-discriminating games
    have NaN difficulty) and the paper's printed discrimination is at least
    ``published_min_discrimination`` (None: any printed value). The datasets
    differ (the IRT paper: ~40 techniques of 2013-2017 on 49 games; here the
    Atari-5 training table on 57 games), so agreement is reported, not
    expected.
    """
    theirs = published.dropna(subset=[column])
    if published_min_discrimination is not None:
        theirs = theirs[theirs["discrimination"] >= published_min_discrimination]
    ours = items[column].dropna()
    games = [g for g in ours.index if g in theirs.index]
    test = scipy.stats.spearmanr(ours[games], theirs.loc[games, column])
    return RankCorrelation(float(test.statistic), float(test.pvalue), len(games), games)


class TrainingIrt(NamedTuple):
    """:func:`training_irt`: our fit, the IRT paper's Table 1 and the rank correlation of difficulties."""

    result: IrtResult
    published: pd.DataFrame
    rank_correlation: RankCorrelation


def training_irt(dataset, threshold: float = HUMAN_LEVEL, regularised: bool = True,
                 n_quadrature: int = irt.DEFAULT_N_QUADRATURE) -> TrainingIrt:
    """The IRT paper's analysis on the Atari-5 training table: agents x 57 games, "at least human level".

    Persons are the paper's training algorithms except the human reference
    (:func:`agents_only`), items the 57 games; missing scores stay missing.
    ``regularised`` and ``n_quadrature`` as in :func:`irt_analysis`.
    """
    rows = training.training_rows(dataset, pool_only=True)
    X, _ = training.training_matrix(rows, dataset.games, dataset.algorithms)
    normalised = agents_only(normalised_matrix(rows, dataset, X.index), dataset.algorithms)
    result = irt_analysis(human_level_responses(normalised, threshold), regularised, n_quadrature)
    published = published_irt_table(dataset.root)
    return TrainingIrt(result, published, difficulty_rank_correlation(result.items, published))


# --------------------------------------------------------------------------
# Bellemare et al. (2013) / rliable: aggregates of the training algorithms
# --------------------------------------------------------------------------


def table8_medians(normalised: pd.DataFrame) -> pd.DataFrame:
    """Table 8 through :func:`atari5_spec_research.analyses.aggregates.median_score`: each algorithm's median Z over its games.

    The aggregates reject missing scores, so each algorithm is aggregated
    over the games it has, which is the paper's definition.
    """
    records = [(algorithm, int(values.notna().sum()), aggregates.median_score(values.dropna().to_numpy()))
               for algorithm, values in normalised.iterrows()]
    return pd.DataFrame.from_records(records, columns=["algorithm_id", "games", "median"])


def aggregate_summary(normalised: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm over the games it has: mean, median, IQM and optimality gap, best median first.

    Scores enter as fractions of human (Z / 100), rliable's convention, so the
    optimality gap is measured against human level (gamma = 1); mean, median
    and IQM are then given back in percent. One number per game (no runs), so
    no bootstrap interval.
    """
    records = []
    for algorithm, values in normalised.iterrows():
        fraction = values.dropna().to_numpy() / 100.0
        records.append((algorithm, len(fraction), 100 * aggregates.mean_score(fraction),
                        100 * aggregates.median_score(fraction), 100 * aggregates.interquartile_mean(fraction),
                        aggregates.optimality_gap(fraction, gamma=1.0)))
    frame = pd.DataFrame.from_records(records, columns=["algorithm_id", "games", "mean", "median", "iqm",
                                                        "optimality_gap"])
    return frame.sort_values(["median", "algorithm_id"], ascending=[False, True]).reset_index(drop=True)


# --------------------------------------------------------------------------
# The paper's running-text figures
# --------------------------------------------------------------------------


def paper_figures(X: pd.DataFrame, y: pd.Series, subset_coefficients: pd.DataFrame,
                  go_explore: OutOfSampleCase) -> dict[str, float]:
    """Every text figure of sections 5.1, 5.3, 5.5 and 6 computed from the data, keyed by figure_id.

    The keys are those of published/text_figures.csv; percentages in percent.
    """
    ranking = single_game_ranking(X, y).set_index("game")
    figures = {
        "single_game_r2_zaxxon": ranking.loc["zaxxon", "r2"],
        "single_game_r2_surround": ranking.loc["surround", "r2"],
        "single_game_intercept_name_this_game": ranking.loc["name_this_game", "intercept"],
        "single_game_slope_name_this_game": ranking.loc["name_this_game", "slope"],
        "go_explore_atari5_estimate": go_explore.estimate,
        "go_explore_median": go_explore.median,
        "go_explore_overestimate_percent": go_explore.overestimate_percent,
    }
    for subset in ("Atari-5", "Atari-10"):
        summary = per_game_fit_summary(X, subset_weights(subset_coefficients, subset).index)
        prefix = subset.lower().replace("-", "")
        figures[f"{prefix}_per_game_variance_explained_percent"] = 100 * variance_explained(summary)
        if subset == "Atari-5":
            figures["atari5_per_game_r2_gt_0_8_count"] = len(well_predicted_games(summary))
    correlations = game_correlations(X)
    for game in ("alien", "frostbite", "ms_pacman", "riverraid"):
        figures[f"skiing_pcc_{game}"] = correlations.loc["skiing", game]
    return {key: float(value) for key, value in figures.items()}


def compare_with_paper(figures: dict[str, float], root: Path | None = None) -> pd.DataFrame:
    """Computed figures beside the printed ones (published/text_figures.csv), for the ids in ``figures``.

    ``rounded`` says whether the value prints as the paper at its precision;
    ``truncated`` whether it does when cut toward zero instead (the paper
    truncates in Table 3, and the Skiing correlations match only that way).
    """
    printed = {row["figure_id"]: row for row in published_rows("text_figures", root)}
    records = []
    for figure_id, value in figures.items():
        row = printed[figure_id]
        records.append((figure_id, row["where"], row["value"], value, matches_printed(value, row["value"]),
                        matches_printed(value, row["value"], truncate=True)))
    return pd.DataFrame.from_records(records, columns=["figure_id", "where", "paper", "computed", "rounded",
                                                       "truncated"])
