"""The best subsets of a search, kept in bounded memory: a top-N per task, merged.

A subset's rank key is (fast CV MSE, its columns in ascending order): a
total order, so the merged top-N is the same set in the same order however
the tasks were cut, scheduled or merged (``merge_top`` is associative and
commutative). Ties at the cut-off are decided by the columns, as the final
selection does.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from atari5_spec_research.search.exhaustive import SubsetScores


class TopSubsets(NamedTuple):
    """The ``keep`` best subsets of a search by fast CV MSE (best first), with counts over all subsets searched."""

    subsets: np.ndarray    # (m, k) int16 column indices, ascending within each row
    cv_mse: np.ndarray     # (m,) finite
    n_rows: np.ndarray     # (m,) complete rows of each subset (with the always games)
    n_searched: int        # subsets evaluated
    n_failed: int          # of which without a CV MSE (too few rows, singular): never kept

    @property
    def complete(self) -> bool:
        """True when every subset with a CV MSE was kept (so the ranking beyond them is known to be empty)."""
        return len(self.cv_mse) == self.n_searched - self.n_failed


def empty_top(k: int) -> TopSubsets:
    return TopSubsets(np.empty((0, k), np.int16), np.empty(0), np.empty(0, np.int32), 0, 0)


def top_of(scores: SubsetScores, keep: int) -> TopSubsets:
    """The ``keep`` best of ``scores`` (any order, any column order within a row), as a TopSubsets."""
    mse = scores.cv_mse
    finite = np.flatnonzero(np.isfinite(mse))
    n_failed = len(mse) - len(finite)
    if len(finite) > keep:
        # every subset tied with the keep-th stays until the columns have decided the tie
        threshold = np.partition(mse[finite], keep - 1)[keep - 1]
        finite = finite[mse[finite] <= threshold]
    subsets = np.sort(scores.subsets[finite], axis=1).astype(np.int16)
    return _ranked(TopSubsets(subsets, mse[finite], scores.n_rows[finite].astype(np.int32), len(mse), n_failed),
                   keep)


def merge_top(tops: Iterable[TopSubsets], keep: int) -> TopSubsets:
    """One TopSubsets of the ``keep`` best over all of ``tops`` (searches of disjoint sets of subsets)."""
    tops = list(tops)
    merged = TopSubsets(np.concatenate([t.subsets for t in tops]), np.concatenate([t.cv_mse for t in tops]),
                        np.concatenate([t.n_rows for t in tops]), sum(t.n_searched for t in tops),
                        sum(t.n_failed for t in tops))
    return _ranked(merged, keep)


def rank_order(subsets: np.ndarray, cv_mse: np.ndarray) -> np.ndarray:
    """The order of the rank key: by CV MSE, ties by the columns (``subsets`` ascending within each row)."""
    columns = [subsets[:, j] for j in reversed(range(subsets.shape[1]))]
    return np.lexsort([*columns, cv_mse])                        # lexsort: the last key is the primary one


def _ranked(top: TopSubsets, keep: int) -> TopSubsets:
    """``top`` sorted by (CV MSE, columns) and cut to ``keep`` rows."""
    best = rank_order(top.subsets, top.cv_mse)[:keep]
    return top._replace(subsets=top.subsets[best], cv_mse=top.cv_mse[best], n_rows=top.n_rows[best])
