"""The structure analyses of the report, run once on the paper's training table (:func:`analyse`)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pandas as pd

from atari5_spec.data.published import matches_printed, published_rows
from atari5_spec.method import coefficients as coef
from atari5_spec.method import training
from atari5_spec_research.analyses import structure


class Analyses(NamedTuple):
    """Everything the report shows, computed once from the data."""

    X: pd.DataFrame
    y: pd.Series
    games: pd.DataFrame                  # the games table (names, categories)
    ranking: pd.DataFrame                # structure.single_game_ranking
    per_game: dict                       # subset -> structure.per_game_fit_summary
    fairness: structure.FairnessCheck
    correlations: pd.DataFrame
    pairs: pd.DataFrame
    go_explore: structure.OutOfSampleCase
    figures: pd.DataFrame                # structure.compare_with_paper
    irt: structure.IrtResult
    irt_published: pd.DataFrame
    rank_correlation: structure.RankCorrelation
    table8: pd.DataFrame                 # medians via aggregates.median_score beside Table 8
    aggregates: pd.DataFrame
    out_of_fold: pd.DataFrame            # structure.out_of_fold_estimates of Atari-5 (10-fold CV)
    algorithm_names: pd.Series           # algorithm id -> published name
    smallest_eigenvalue: float           # of the pairwise-complete correlation matrix
    # Agents outside the version's training set (atari5-spec evaluate), with columns
    # algorithm_id, median and estimate (%); Go-Explore is drawn on its own.
    held_out: pd.DataFrame | None = None


def analyse(dataset, version: str = coef.PAPER_VERSION) -> Analyses:
    """Run the papers' analyses on the Atari-5 paper's training table with coefficient version ``version``."""
    _, tables = coef.read_version_tables(dataset.root / "coefficients", version)
    subset_coefficients = tables["subset_coefficients"]
    rows = training.training_rows(dataset, pool_only=True)
    X, y = training.training_matrix(rows, dataset.games, dataset.algorithms)
    per_game = {subset: structure.per_game_fit_summary(X, structure.subset_weights(subset_coefficients, subset).index)
                for subset in ("Atari-5", "Atari-10")}
    go_explore = structure.out_of_sample_case(dataset, subset_coefficients, tables["normalisation"])
    normalised = structure.normalised_matrix(rows, dataset, X.index)
    irt_fit = structure.training_irt(dataset)
    correlations = structure.game_correlations(X)
    return Analyses(
        X=X, y=y, games=dataset.games,
        ranking=structure.single_game_ranking(X, y),
        per_game=per_game,
        fairness=structure.fairness_by_tertile(X, y, structure.subset_weights(subset_coefficients, "Atari-5")),
        correlations=correlations,
        pairs=structure.ranked_pairs(X, correlations),
        go_explore=go_explore,
        figures=structure.compare_with_paper(structure.paper_figures(X, y, subset_coefficients, go_explore),
                                             dataset.root),
        irt=irt_fit.result,
        irt_published=irt_fit.published,
        rank_correlation=irt_fit.rank_correlation,
        table8=_table8_check(structure.table8_medians(normalised), dataset.root),
        aggregates=structure.aggregate_summary(normalised),
        out_of_fold=structure.out_of_fold_estimates(
            X, y, structure.subset_weights(subset_coefficients, "Atari-5").index),
        algorithm_names=dataset.algorithms.set_index("algorithm_id")["name"].astype(str),
        smallest_eigenvalue=structure.smallest_eigenvalue(correlations),
        held_out=_held_out(dataset, version),
    )


def _table8_check(medians: pd.DataFrame, root: Path) -> pd.DataFrame:
    """Computed medians beside Table 8's printed ones, with whether they match at 1 decimal."""
    printed = {row["algorithm_id"]: row for row in published_rows("table08_algorithms", root)}
    out = medians.copy()
    out["paper_median"] = [printed[a]["median"] if a in printed else "" for a in out["algorithm_id"]]
    out["matches"] = [a in printed and matches_printed(m, printed[a]["median"]) and str(n) == printed[a]["games"]
                      for a, n, m in zip(out["algorithm_id"], out["games"], out["median"])]
    return out.sort_values(["median", "algorithm_id"], ascending=[False, True]).reset_index(drop=True)


def _held_out(dataset, version: str) -> pd.DataFrame:
    """The version's Atari-5 estimate of every held-out agent (atari5_spec_research.evaluation), Go-Explore aside."""
    from atari5_spec_research.evaluation import version_errors

    _, errors = version_errors(dataset, version)
    held = errors[(errors["subset"] == "Atari-5") & (errors["kind"] == "held-out")
                  & (errors["algorithm_id"] != structure.GO_EXPLORE_ID)]
    return pd.DataFrame({"algorithm_id": held["agent"].to_numpy(), "median": held["true_median"].to_numpy(),
                         "estimate": held["estimate"].to_numpy()})
