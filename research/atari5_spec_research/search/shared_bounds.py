"""One lower-bound pass shared by the leave-one-paper-out folds of a group of papers.

``bounded_best`` rules subsets out by a lower bound of their CV MSE: the
in-sample RSS on the subset's complete rows over K ceil(n / K)
(``rowsets._BoundRowSets``), one pass of the prefix tree over every subset,
which is most of the cost of a fold's Atari-5 search. The folds differ by
one paper's rows, so one pass can serve several of them:

leave out a whole *group* g of papers. For the fold without a paper p of g,
a subset's complete rows without g are among the fold's complete rows, so
its RSS there is no larger (a least-squares fit on fewer rows leaves no more
residual), and the fold's row count n_f is at most n_g + e, with e the rows
of g's other papers. Hence

    RSS_g / (K ceil((n_g + e) / K))  <=  RSS_f / (K ceil(n_f / K))  <=  the fold's CV MSE,

a lower bound for every fold of the group. It is looser than the fold's own
bound, so ``bounded_best`` cross-validates a few more subsets (thousands of
millions on the paper's data) and chooses exactly as before: any lower bound
decides the same. A bound is only used where the group's rows leave at
least ``MIN_ROWS_PER_COLUMN`` rows per fitted column and it is finite:
elsewhere (few rows, a near-singular fit whose sweeps could overflow) it is
NaN, and NaN-bounded subsets are always cross-validated.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from atari5_spec.method.fitting import N_SPLITS, SEED
from atari5_spec_research.search.exhaustive import SubsetScores, evaluate_all_subsets

__all__ = ["paper_groups", "group_bound", "fold_bound", "fold_factors", "GROUP_ROWS", "MIN_ROWS_PER_COLUMN"]

# A group of papers holds at most this many rows (a paper with more is a group alone): on the paper's 62 training
# agents, 8 gives 9 bound passes for 31 folds and about four times the candidates of a fold's own bound.
GROUP_ROWS = 8
# The group's bound of a subset is used only with at least this many complete rows per fitted column.
MIN_ROWS_PER_COLUMN = 2


def paper_groups(papers: np.ndarray, chosen: Sequence[str], max_rows: int = GROUP_ROWS) -> list[list[str]]:
    """The ``chosen`` papers in groups of at most ``max_rows`` rows of ``papers`` (one paper code per row): papers
    taken fewest rows first (ties by name), a group closed when the next paper would overflow it."""
    rows = {p: int(np.sum(papers == p)) for p in chosen}
    groups: list[list[str]] = []
    size = 0
    for paper in sorted(chosen, key=lambda p: (rows[p], p)):
        if not groups or size + rows[paper] > max_rows:
            groups.append([])
            size = 0
        groups[-1].append(paper)
        size += rows[paper]
    return groups


def group_bound(X: np.ndarray, y: np.ndarray, keep: np.ndarray, pool: Sequence[int], k: int,
                always: Sequence[int] = (), n_splits: int = N_SPLITS, seed: int = SEED,
                n_threads: int | None = None) -> SubsetScores:
    """Every k-subset of ``pool`` with its RSS bound RSS_g / (K ceil(n_g / K)) (``cv_mse`` holds it) and its
    complete-row count n_g on the rows ``keep`` (a boolean mask: the rows without the group). NaN where the sweeps
    did not give a finite RSS >= 0 (a near-singular fit): no fold can trust it, so each fold's bound is NaN there."""
    X, y = np.asarray(X, float)[keep], np.asarray(y, float)[keep]
    bound = evaluate_all_subsets(X, y, pool, k, always, n_splits, seed, n_threads=n_threads, lower_bound="rss")
    np.putmask(bound.cv_mse, ~((bound.cv_mse >= 0) & (bound.cv_mse <= np.finfo(float).max)), np.nan)
    return bound


def fold_bound(group: SubsetScores, extra_rows: int, n_columns: int, n_splits: int = N_SPLITS) -> SubsetScores:
    """The lower bound of every subset's CV MSE in one fold of the group: ``group`` from :func:`group_bound`,
    ``extra_rows`` the rows the fold has beyond the group's (its group's other papers' rows), ``n_columns`` the
    columns each fit has (k plus the always games). NaN where the group's bound is not trusted."""
    # millions of subsets but few row counts: one factor per count, taken by count (each temporary array of
    # that length costs as much as the arithmetic)
    factors = fold_factors(int(group.n_rows.max(initial=0)), extra_rows, n_columns, n_splits)
    bound = factors.take(group.n_rows)
    bound *= group.cv_mse              # NaN where the factor or the group's bound is: a finite factor is positive
    return group._replace(cv_mse=bound)


def fold_factors(max_rows: int, extra_rows: int, n_columns: int, n_splits: int = N_SPLITS) -> np.ndarray:
    """By a subset's complete-row count n on the group's rows (0..max_rows), what its group bound is multiplied by
    to bound its CV MSE in the fold: (K ceil(n / K)) / (K ceil((n + extra_rows) / K)), which turns RSS_g over the
    first into RSS_g over the second; NaN below ``MIN_ROWS_PER_COLUMN`` rows per fitted column."""
    factors = np.full(max_rows + 1, np.nan)
    trusted = np.arange(max(MIN_ROWS_PER_COLUMN * n_columns, 1), max_rows + 1)
    factors[trusted] = -(-trusted // n_splits) / -(-(trusted + extra_rows) // n_splits)
    return factors
