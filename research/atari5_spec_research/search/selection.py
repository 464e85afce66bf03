"""Choosing the best admissible subset from a search's ranking, and the searches that feed it.

``top_subsets`` runs an exhaustive search as tasks (``tasks``) wherever they
are sent (``engine``) and keeps the best ``keep`` subsets by fast CV MSE.
``search_best`` then walks up that ranking until it meets an admissible
model (no negative coefficient), re-scores every subset within a relative
1e-6 of it, whose coefficients are not clearly negative, with the exact
reference code, and picks the smallest exact CV MSE, ties going to the
lexicographically smallest column tuple. When the kept subsets are not
enough to decide (no admissible one among them, or near ties reaching past
the last one) it searches again keeping eight times more, so the choice is
always the one over all subsets. A rank-deficient subset (e.g. two
identical games) gets CV MSE NaN and is never chosen.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple, Sequence

import numpy as np

from atari5_spec.method.fitting import N_SPLITS, SEED, cross_validate, fit_no_intercept
from atari5_spec_research.search.engine import map_tasks
from atari5_spec_research.search.exhaustive import Progress, SubsetScores, evaluate_all_subsets
from atari5_spec_research.search.rowsets import _direct_mse, _RowSets
from atari5_spec_research.search.tasks import KEEP, make_problem, plan_tasks, run_task
from atari5_spec_research.search.topn import TopSubsets, empty_top, merge_top, rank_order

# Re-score exactly every subset whose fast CV MSE is within this relative
# distance of the best admissible one: far above the fast path's rounding
# error (~1e-13), so a near-tie can never be decided by rounding.
TIE_RTOL = 1e-6
# A coefficient from the fast solve above -COEFFICIENT_ATOL may still be >= 0 exactly: re-checked.
COEFFICIENT_ATOL = 1e-9


def evaluate_subsets(X: np.ndarray, y: np.ndarray, subsets: np.ndarray, always: Sequence[int] = (),
                     n_splits: int = N_SPLITS, seed: int = SEED, fitted_up_to: float = np.inf,
                     rowsets: _RowSets | None = None) -> SubsetScores:
    """CV MSE, full-data coefficients and admissibility of each given subset (m, k) of columns of X.

    Each subset is fitted on its own complete rows from scratch (no sharing),
    so any list of subsets works; coefficients follow the subset's column
    order with the always games appended. ``fitted_up_to``: coefficients only
    for the subsets whose CV MSE is at most this (the others' are NaN, and
    they count as not admissible): a caller that can never choose a subset
    above it saves most of the solves. ``rowsets``: the row sets' fold tables
    to read and add to, ``_RowSets(X, y, always, pool, n_splits, seed)`` with
    a sorted ``pool`` holding every column of ``subsets``: a caller that
    evaluates many batches passes one, and each row set's tables are built
    once (default: built here for these subsets).
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    subsets = np.asarray(subsets, np.intp)
    if rowsets is None:
        rowsets = _RowSets(X, y, always, np.unique(subsets), n_splits, seed)
    positions = np.searchsorted(rowsets.pool, subsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        mse, ids = _direct_mse(rowsets, positions)
    # coefficients: normal equations on all complete rows (Z columns: always, pool, y)
    n_always = len(always)
    columns = np.concatenate([positions + n_always, np.broadcast_to(np.arange(n_always), (len(ids), n_always))],
                             axis=1)
    fitted = np.flatnonzero(~(mse > fitted_up_to))                          # NaN CV MSE: fitted, as before
    grams = np.array(rowsets.grams)                                          # (row sets, q, q)
    lhs = grams[ids[fitted, None, None], columns[fitted, :, None], columns[fitted, None, :]]
    rhs = grams[ids[fitted, None], columns[fitted], -1]
    coefficients = np.full(columns.shape, np.nan)
    with np.errstate(all="ignore"):
        try:
            coefficients[fitted] = np.linalg.solve(lhs, rhs[..., None])[..., 0]
        except np.linalg.LinAlgError:   # a singular subset: fall back to one at a time
            coefficients[fitted] = [np.linalg.lstsq(l, r, rcond=None)[0] for l, r in zip(lhs, rhs)]
    return SubsetScores(subsets, mse, rowsets.n_rows[ids], coefficients, np.all(coefficients >= 0, axis=1))


def _exact(X: np.ndarray, y: np.ndarray, columns: Sequence[int], n_splits: int, seed: int):
    """(CV MSE, admissible) from the reference code, for the final decision."""
    columns = list(columns)
    rows = ~np.isnan(y) & ~np.isnan(X[:, columns]).any(axis=1)
    coefficients = fit_no_intercept(X[rows][:, columns], y[rows])
    return cross_validate(X[rows][:, columns], y[rows], n_splits, seed)[0], bool(np.all(coefficients >= 0))


def top_subsets(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int, always: Sequence[int] = (),
                n_splits: int = N_SPLITS, seed: int = SEED, keep: int = KEEP, *, progress: Progress | None = None,
                n_threads: int | None = None, processes: int = 0, scheduler: Any = None,
                depth: int | None = None) -> TopSubsets:
    """The ``keep`` best k-subsets of ``pool`` by fast CV MSE, in memory independent of how many there are.

    Same arguments as ``evaluate_all_subsets``. The search is cut into
    tasks by prefix (``tasks.plan_tasks``; ``depth`` overrides the prefix
    length, for tests). Tasks run here one after another with ``n_threads``
    threads each (default), on ``processes`` local processes, or on the
    Dask cluster at ``scheduler`` (an address or a ``distributed.Client``),
    one thread per task there. The result is the same wherever they run.
    """
    problem = make_problem(X, y, pool, k, always, n_splits, seed, keep)
    tasks = plan_tasks(problem, depth)
    total = sum(task.n_subsets for task in tasks)
    merged, done = empty_top(k), 0
    if scheduler is None and (processes <= 1 or len(tasks) == 1):
        for task in tasks:
            def report(count, _, done=done):
                if progress is not None:
                    progress(done + count, total)
            merged = merge_top([merged, run_task(problem, task, n_threads, report)], keep)
            done += task.n_subsets
        return merged

    def finished(index: int, top: TopSubsets) -> None:
        nonlocal merged, done          # merged as results come: the order does not change the merge
        merged = merge_top([merged, top], keep)
        done += tasks[index].n_subsets
        if progress is not None:
            progress(done, total)
    map_tasks(functools.partial(run_task, problem), tasks, scheduler=scheduler, processes=processes,
              on_done=finished, keep_results=False)
    return merged


class SearchResult(NamedTuple):
    """The chosen subset (column indices, ascending) and the ranking it was chosen from."""

    best: tuple[int, ...]
    top: TopSubsets


def search_best(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int, always: Sequence[int] = (),
                n_splits: int = N_SPLITS, seed: int = SEED, keep: int = KEEP, *, progress: Progress | None = None,
                n_threads: int | None = None, processes: int = 0, scheduler: Any = None,
                depth: int | None = None) -> SearchResult:
    """The admissible k-subset of ``pool`` with the lowest CV MSE (as ``best_subset``), any k, anywhere.

    Arguments as ``top_subsets``; raises ValueError when no subset is admissible.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    while True:
        top = top_subsets(X, y, pool, k, always, n_splits, seed, keep, progress=progress, n_threads=n_threads,
                          processes=processes, scheduler=scheduler, depth=depth)
        best = _choose(X, y, top, always, n_splits, seed)
        if best is not None:
            return SearchResult(best, top)
        keep *= 8


def _choose(X: np.ndarray, y: np.ndarray, top: TopSubsets, always: Sequence[int], n_splits: int,
            seed: int, checked: SubsetScores | None = None) -> tuple[int, ...] | None:
    """The best admissible subset, or None when ``top`` has too few subsets to be sure of it (``checked``:
    ``evaluate_subsets`` of ``top.subsets``, row for row, when the caller has it)."""
    if not len(top.cv_mse):
        raise ValueError("no admissible subset: no subset can be fitted (too few rows, or singular)")
    if checked is None:
        checked = evaluate_subsets(X, y, top.subsets, always, n_splits, seed)
    # 1. walk up the fast ranking until an admissible model turns up
    if not checked.admissible.any():
        if top.complete:
            raise ValueError("no admissible subset")
        return None
    best_fast = top.cv_mse[np.argmax(checked.admissible)]
    # 2. settle near ties, and any coefficient too close to zero to trust the fast solve's sign,
    #    with the exact reference code (subsets clearly inadmissible are left out)
    near = np.flatnonzero(top.cv_mse <= best_fast * (1 + TIE_RTOL))
    if len(near) == len(top.cv_mse) and not top.complete:
        return None                    # near ties may go on past the last subset kept
    near = near[checked.coefficients[near].min(axis=1) > -COEFFICIENT_ATOL]
    candidates = []
    for subset in top.subsets[near]:
        columns = tuple(int(c) for c in subset)
        exact_mse, admissible = _exact(X, y, list(columns) + list(always), n_splits, seed)
        if admissible:
            candidates.append((exact_mse, columns))
    if not candidates:   # the fast and exact admissibility disagreed on a zero coefficient
        raise ValueError("admissibility of the best subset is numerically ambiguous")
    return min(candidates)[1]


def best_subset(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int, always: Sequence[int] = (),
                n_splits: int = N_SPLITS, seed: int = SEED, progress: Progress | None = None,
                n_threads: int | None = None) -> tuple[int, ...]:
    """Column indices (ascending) of the admissible k-subset of ``pool`` with the lowest CV MSE.

    ``always`` games are part of every model (and of the admissibility
    check) but not of the returned tuple. Runs in this process with
    ``n_threads`` threads; ``search_best`` can send the work elsewhere.
    """
    return search_best(X, y, pool, k, always, n_splits, seed, progress=progress, n_threads=n_threads).best


# Margin on the bound's pruning threshold: the bound and the fast CV MSE are both computed with rounding
# errors near 1e-13; a subset is only left out when its bound is this far above the threshold.
BOUND_RTOL = 1e-6


def bounded_best(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int, always: Sequence[int] = (),
                 n_splits: int = N_SPLITS, seed: int = SEED, n_threads: int | None = None,
                 bounds: SubsetScores | None = None) -> tuple[int, ...]:
    """``best_subset``'s choice, cross-validating only the subsets that could be it (a third of the cost for Atari-5).

    Every subset's CV MSE is at least its full fit's residuals measured with a fold-aware metric
    (``evaluate_all_subsets(..., lower_bound="leverage")``, one pass of the tree instead of one per fold;
    at least its in-sample RSS / (n_splits * ceil(n / n_splits)), tighter with always games). The
    subsets are cross-validated in order of their bound (those without one first), and C, the lowest CV
    MSE of an admissible subset met so far, is never below the best admissible one's. Any subset
    ``_choose`` could look at (the ranking up to the best admissible subset and its near ties) has CV MSE
    at most C (1 + TIE_RTOL), so its bound is too: the walk stops at the first bound above that (with a
    margin, ``BOUND_RTOL``), and ``_choose`` decides among the subsets cross-validated as among all.
    When no subset of finite bound is admissible (the exhaustive search then says why nothing can be
    chosen), or the bound leaves more than a quarter of the subsets, the exhaustive search decides.

    ``bounds``: any other lower bound of every k-subset's CV MSE on these rows (every subset once, NaN where
    unknown), e.g. one pass shared by several leave-one-paper-out folds (``shared_bounds``); the choice is the
    same, a looser bound only cross-validates more subsets.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    if bounds is None:
        bounds = evaluate_all_subsets(X, y, pool, k, always, n_splits, seed, n_threads=n_threads,
                                      lower_bound="leverage")
    lower = bounds.cv_mse
    unbounded = np.flatnonzero(~np.isfinite(lower))
    n_finite = len(lower) - len(unbounded)
    checked: list[SubsetScores] = []
    tables = _RowSets(X, y, always, np.unique(pool), n_splits, seed)   # each row set's fold tables, built once

    def check(indices: np.ndarray, threshold: float = np.inf) -> float:
        """Cross-validate these subsets; the lowest CV MSE of an admissible one among them (inf if none). Those
        above ``threshold`` can never be chosen nor lower the ceiling: they are not fitted for admissibility."""
        scores = evaluate_subsets(X, y, bounds.subsets[indices], always, n_splits, seed, fitted_up_to=threshold,
                                  rowsets=tables)
        checked.append(scores)
        usable = scores.admissible & np.isfinite(scores.cv_mse)
        return float(scores.cv_mse[usable].min()) if usable.any() else np.inf

    ceiling = check(unbounded) if len(unbounded) else np.inf
    # 1. the subsets of lowest bound, more each round, until an admissible one sets a finite ceiling
    start, stop = 0, 256
    while not np.isfinite(ceiling) and start < n_finite:
        stop = min(stop, n_finite)
        lowest = _lowest(lower, stop)
        ceiling = min(ceiling, check(lowest[start:stop]))
        start, stop = stop, stop * 8
    if not np.isfinite(ceiling):
        return best_subset(X, y, pool, k, always, n_splits, seed, n_threads=n_threads)
    # 2. every other subset the ceiling leaves, lowest bound first, the ceiling lowered as they come
    left = np.flatnonzero(lower <= ceiling * (1 + TIE_RTOL) * (1 + BOUND_RTOL))
    left = left[np.isfinite(lower[left])]                     # the subsets without a bound were checked first
    if start:
        left = left[~np.isin(left, lowest[:start])]
    if len(left) > len(lower) // 4:    # the bound rules out too little: cross-validate every subset
        return best_subset(X, y, pool, k, always, n_splits, seed, n_threads=n_threads)
    left = left[np.argsort(lower[left], kind="stable")]
    position, size = 0, 1024
    while position < len(left):
        threshold = ceiling * (1 + TIE_RTOL) * (1 + BOUND_RTOL)
        chunk = left[position:position + size]
        chunk = chunk[~(lower[chunk] > threshold)]           # sorted: what is cut here is the walk's end
        if not len(chunk):
            break
        ceiling = min(ceiling, check(chunk, threshold))
        position, size = position + size, size * 2
    return _choose_among(X, y, checked, always, n_splits, seed)


def _lowest(values: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` lowest finite ``values`` (all of them if fewer), in order of value, then of index:
    so that a call with a larger ``count`` extends a smaller one's.

    A cut from a strided sample first keeps the values below it: a comparison pass over the values instead of a
    partition of all of them (millions of Atari-5 bounds, once per fold).
    """
    sample = values[::64]
    sample = np.sort(sample[np.isfinite(sample)])
    if len(sample) > 4 * count // 64:
        under = np.flatnonzero(values <= sample[4 * count // 64])
        under = under[np.isfinite(values[under])]
        if len(under) >= count:       # every finite value left out is above all of these
            return under[np.argsort(values[under], kind="stable")][:count]
    finite = np.flatnonzero(np.isfinite(values))
    return finite[np.argsort(values[finite], kind="stable")][:count]


def _choose_among(X: np.ndarray, y: np.ndarray, checked: list[SubsetScores], always: Sequence[int],
                  n_splits: int, seed: int) -> tuple[int, ...]:
    """``_choose`` over every subset cross-validated (each of ``checked`` from ``evaluate_subsets``), ranked as
    ``top_of`` ranks, without cross-validating them again."""
    scores = SubsetScores(*(np.concatenate([getattr(c, field) for c in checked]) for field in SubsetScores._fields))
    finite = np.flatnonzero(np.isfinite(scores.cv_mse))
    columns = np.sort(scores.subsets, axis=1).astype(np.int16)
    order = finite[rank_order(columns[finite], scores.cv_mse[finite])]
    top = TopSubsets(columns[order], scores.cv_mse[order], scores.n_rows[order].astype(np.int32),
                     len(scores.cv_mse), len(scores.cv_mse) - len(finite))
    best = _choose(X, y, top, always, n_splits, seed, SubsetScores(*(field[order] for field in scores)))
    if best is None:      # cannot happen: every subset cross-validated is kept, so the ranking is complete
        raise AssertionError("bounded search: the candidates do not decide the choice")
    return best


def searchable_games(columns: Sequence[str], excluded: Sequence[str] = ("surround",)) -> list[str]:
    """Game columns whose id contains none of the ``excluded`` substrings (the paper drops Surround)."""
    return [c for c in columns if not any(e in c for e in excluded)]

