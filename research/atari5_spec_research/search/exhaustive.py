"""Every k-subset's CV MSE, in memory: the prefix tree's last levels and ``evaluate_all_subsets``.

This is the kernel one search task runs (``tasks``); its output holds
every subset, so its memory grows with their number: big searches are cut
into tasks by prefix and reduced to their best subsets (``topn``).
"""

from __future__ import annotations

import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import nullcontext
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np

from atari5_spec.method.fitting import N_SPLITS, SEED
from atari5_spec_research.search.kernels import _pair_mse
from atari5_spec_research.search.rowsets import _BoundRowSets, _direct_mse, _LeverageBoundRowSets, _fresh_states, _RowSets, _single_mse
from atari5_spec_research.search.tree import _before, _bucket_view, _buckets, _extend, _in_batches, _Pending, _Redo, _Single, _Stack

Progress = Callable[[int, int], None]

# The pair step's batches of nodes: (columns x nodes x folds) about this many
# elements. Smaller batches fit the cache better but cost more Python calls;
# on the paper's data this size was as fast as any, with one or two threads.
_PAIR_CHUNK = 1 << 17
# Searches with subsets x (k+1)^2 up to this fit every subset directly (no
# tree): a direct fit costs about (k+1)^2 operations per fold, the tree has a
# fixed Python overhead of tens of milliseconds (a loop step per node row).
# Measured crossovers: ~60,000 subsets of 3 games, ~20,000 of 5.
_DIRECT_UP_TO = 1_000_000
# Searches of fewer subsets than this run on one thread by default.
_THREADED_FROM = 100_000
# Stored tree levels are kept in buckets of at least this many nodes, so that
# the next level reads most of its batches as plain views of one array (a
# bucket's unused corners cost memory: 200 MB for the Atari-5 search).
_BUCKET_NODES = 256


class SubsetScores(NamedTuple):
    """Fast-path results for many subsets (one row each)."""

    subsets: np.ndarray                   # (m, k) column indices into X (see each function for the order)
    cv_mse: np.ndarray                    # (m,) NaN when the fit is impossible (too few rows, singular)
    n_rows: np.ndarray                    # (m,) complete rows of the subset (with the always games)
    coefficients: np.ndarray | None = None  # (m, k + len(always)) full-data fit, always games last
    admissible: np.ndarray | None = None    # (m,) no negative coefficient


def _write_pairs(batch: _Stack, pivot: bool, rowsets: _RowSets, out: SubsetScores, order: np.ndarray,
                 offset: int, pending: _Pending) -> int:
    """Store the CV MSE of every subset prefix + (start+a, start+b), a < b, of a batch of nodes.

    Results fill ``out`` from ``offset`` on, one block (b, node) per a, with
    the subsets' columns (``order`` maps pool positions to columns); returns
    the new offset. With ``pivot`` the prefixes end with the pivot column
    start - 1. Pairs with a game that lacks rows of the node's row set get
    NaN here and are added to ``pending``.
    """
    c = batch.S.shape[0] - 1 - pivot
    count, depth = len(batch.ids), batch.prefixes.shape[1]
    compatible = rowsets.compatible[batch.ids][:, batch.start:batch.start + c].T        # (c, nodes)
    everywhere = compatible.all()                                   # the usual case: no row set changes
    n_rows = rowsets.n_rows[batch.ids]
    # each node's subset row, copied whole (short rows written column by column are 5 times slower)
    template = np.empty((count, depth + 2), out.subsets.dtype)
    template[:, :depth] = order[batch.prefixes]
    for a, mse in enumerate(_pair_mse(batch.S, batch.T, rowsets.weights[batch.ids], pivot)):
        b = np.arange(a + 1, c)
        rows = slice(offset, offset + mse.size)
        subsets = out.subsets[rows].reshape(mse.shape + (depth + 2,))
        template[:, depth] = order[batch.start + a]
        subsets[...] = template
        subsets[..., depth + 1] = order[batch.start + b][:, None]
        out.n_rows[rows].reshape(mse.shape)[...] = n_rows
        valid = True if everywhere else compatible[a] & compatible[a + 1:]
        if everywhere or valid.all():
            out.cv_mse[rows] = mse.ravel()
        else:
            out.cv_mse[rows] = np.where(valid, mse, np.nan).ravel()
            # the pair's first game lacks rows (almost all cases): all its pairs later, in one go
            lacking = np.flatnonzero(~compatible[a])
            if len(lacking):
                swept = np.column_stack([batch.prefixes[lacking], np.full(len(lacking), batch.start + a)])
                pending.singles.append(_Single(offset + lacking, np.full(len(lacking), count), swept,
                                               rowsets.narrow(batch.ids[lacking], batch.start + a)))
            b_index, node = np.nonzero(~valid & compatible[a])       # only the second game lacks rows
            if len(node):
                positions = np.column_stack([batch.prefixes[node], np.full(len(node), batch.start + a),
                                             batch.start + b[b_index]])
                pending.redo.append(_Redo(offset + b_index * count + node, positions,
                                          rowsets.narrow(batch.ids[node], batch.start + b[b_index])))
        offset += mse.size
    return offset


def _finish(rowsets: _RowSets, out: SubsetScores, pending: _Pending) -> None:
    """Recompute what ``_write_pairs`` left: one-column finishes (all at once), then direct fits."""
    redo = list(pending.redo)
    if pending.singles:
        base, stride, swept, ids = (np.concatenate(parts) for parts in zip(*pending.singles))
        b = swept[:, -1]
        # one call for all nodes, from the smallest b on: a node's columns c <= b are computed in vain
        first = int(b.min()) + 1
        mse = _single_mse(rowsets, ids, swept, first)                          # (n - first, nodes)
        c_index, node = np.nonzero(np.arange(first, rowsets.n_columns)[:, None] > b)
        c = first + c_index
        slots = base[node] + stride[node] * (c - b[node] - 1)
        still = rowsets.compatible[ids[node], c]
        out.cv_mse[slots] = np.where(still, mse[c_index, node], np.nan)
        out.n_rows[slots] = rowsets.n_rows[ids[node]]
        lost = ~still                                                          # c lacks rows too
        if lost.any():
            redo.append(_Redo(slots[lost], np.column_stack([swept[node[lost]], c[lost]]),
                              rowsets.narrow(ids[node[lost]], c[lost])))
    if redo:
        slots, ids = np.concatenate([r.slots for r in redo]), np.concatenate([r.ids for r in redo])
        out.cv_mse[slots], _ = _direct_mse(rowsets, np.concatenate([r.positions for r in redo]), ids)
        out.n_rows[slots] = rowsets.n_rows[ids]


def _last_level(buckets: list[_Stack], a: int, rowsets: _RowSets, out: SubsetScores, order: np.ndarray,
                offset: int, count: int) -> None:
    """Every subset whose games before the last two are a stored node plus a: ``count`` of them,
    written from ``offset`` on, including those that change the row set.

    The sweep of a is folded into the pair step (``_pair_mse(..., pivot=True)``), so
    these nodes' states are never stored. Nodes for which a lacks rows of
    their row set are left out of the batches (which are made of the
    stretches of nodes between them) and done last, from states rebuilt on
    their smaller row set (``_fresh_states``); pairs that change the row set
    are done at the end (``_finish``).
    """
    c = rowsets.n_columns - a - 1
    size = max(1, _PAIR_CHUNK // (c * rowsets.n_splits))
    runs, lost = [], []
    for run in _before(buckets, a):
        run = run._replace(prefixes=np.column_stack([run.prefixes, np.full(len(run.ids), a)]))
        keeps_rows = rowsets.compatible[run.ids, a]
        kept = np.flatnonzero(keeps_rows)
        # in stretches of consecutive nodes, so that every piece of a batch is a view
        stretches = np.split(kept, np.flatnonzero(np.diff(kept) != 1) + 1)
        runs += [(run, stretch) for stretch in stretches if len(stretch)]
        lost.append((run.prefixes[~keeps_rows], run.ids[~keeps_rows]))
    pending, end = _Pending([], []), offset + count
    for batch in _in_batches(runs, size):
        offset = _write_pairs(batch._replace(start=a + 1), True, rowsets, out, order, offset, pending)
    prefixes = np.concatenate([prefixes for prefixes, _ in lost])
    if len(prefixes):
        ids = rowsets.narrow(np.concatenate([ids for _, ids in lost]), a)
        by_row_set = np.argsort(ids, kind="stable")
        for lo in range(0, len(ids), size):
            nodes = by_row_set[lo:lo + size]
            blocks = [(_Stack(a + 1, S, T, prefixes[nodes][part], ids[nodes][part]), np.arange(S.shape[2]))
                      for part, S, T in _fresh_states(rowsets, ids[nodes], prefixes[nodes, :-1], a)]
            for batch in _in_batches(blocks, size):
                offset = _write_pairs(batch, True, rowsets, out, order, offset, pending)
    if offset != end:                       # would overwrite another task's slots
        raise AssertionError(f"column {a}: wrote {offset - end + count} subsets, expected {count}")
    _finish(rowsets, out, pending)


def _search_order(X: np.ndarray, y: np.ndarray, pool: Sequence[int], always: Sequence[int]) -> list[int]:
    """Pool columns least-complete first (on the rows the always games allow), then in given order.

    Visiting restrictive games first fixes a subset's row set early in the
    tree, so fewer nodes need fresh tables and fewer leaves a direct fit.
    """
    base = ~np.isnan(y) & ~np.isnan(X[:, list(always)]).any(axis=1)
    observed = [int((base & ~np.isnan(X[:, g])).sum()) for g in pool]
    return [g for _, _, g in sorted(zip(observed, range(len(pool)), pool))]


def _quietly(function: Callable) -> Callable:
    """``function`` with numpy's divide/invalid warnings off, in whichever thread runs it.

    A rank-deficient fit gives inf/NaN, which the ranking treats as unusable.
    """
    def run(*args):
        with np.errstate(divide="ignore", invalid="ignore"):
            return function(*args)
    return run


def _each(executor: ThreadPoolExecutor | None, function: Callable, arguments: list[tuple]) -> Iterable:
    """(arguments, function(*arguments)) for each, in completion order, on the executor if any."""
    function = _quietly(function)
    if executor is None:
        return ((args, function(*args)) for args in arguments)
    futures = {executor.submit(function, *args): args for args in arguments}
    return ((futures[future], future.result()) for future in as_completed(futures))


def evaluate_all_subsets(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int,
                         always: Sequence[int] = (), n_splits: int = N_SPLITS, seed: int = SEED,
                         progress: Progress | None = None, n_threads: int | None = None,
                         lower_bound: str | None = None) -> SubsetScores:
    """CV MSE of every k-subset of ``pool`` (column indices of X), each fitted together with ``always``.

    X: (algorithms, games) with NaN for missing scores; y: (algorithms,).
    Returns all C(len(pool), k) subsets in a fixed order (not sorted), each
    row listing its games in search order; coefficients are not computed
    (see ``evaluate_subsets``). Work is spread over ``n_threads`` threads
    (default: up to 2); the results do not depend on it. Small searches
    (``_DIRECT_UP_TO``) fit each subset directly instead (same numbers to
    rounding, less fixed cost). With ``lower_bound`` the numbers are not CV
    MSEs but a lower bound of each, at a third to a tenth of the cost:
    ``"leverage"`` the tightest (the full fit's residuals under a metric that
    counts the always games' leverage in each fold,
    ``rowsets._LeverageBoundRowSets``), ``"rss"`` in-sample RSS / (n_splits *
    ceil(n / n_splits)) (``rowsets._BoundRowSets``; the form
    ``shared_bounds`` can carry to other rows).
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    order = np.array(_search_order(X, y, pool, always), np.intp)
    n = len(order)
    if not 1 <= k <= n:
        raise ValueError(f"cannot choose {k} of {n} games")
    kinds = {None: _RowSets, "rss": _BoundRowSets, "leverage": _LeverageBoundRowSets}
    if lower_bound not in kinds:
        raise ValueError(f"lower_bound must be one of {sorted(k for k in kinds if k)} or None, not {lower_bound!r}")
    rowsets = kinds[lower_bound](X, y, always, order, n_splits, seed)
    total = math.comb(n, k)
    if total * (k + 1) ** 2 <= _DIRECT_UP_TO or k == 1:
        positions = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), k)), np.intp,
                                total * k).reshape(total, k)
        mse, ids = _quietly(_direct_mse)(rowsets, positions)
        if progress is not None:
            progress(total, total)
        return SubsetScores(order[positions].astype(np.int16), mse, rowsets.n_rows[ids].astype(np.int32))
    out = SubsetScores(np.empty((total, k), np.int16), np.empty(total), np.empty(total, np.int32))
    root_id = rowsets.ids(np.empty((1, 0), np.intp))
    T_root = rowsets.T_roots[root_id[0]]                     # None in an RSS pass: the states carry no T
    root = _Stack(0, rowsets.S_roots[root_id[0]][:, :, None], None if T_root is None else T_root[:, :, None],
                  np.empty((1, 0), np.intp), root_id)
    # threads pay off only on big searches (numpy releases the GIL, but small calls contend for it)
    threads = n_threads or (min(2, os.cpu_count() or 1) if total >= _THREADED_FROM else 1)
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as executor:
        if k == 2:
            pending = _Pending([], [])
            _quietly(_write_pairs)(root, False, rowsets, out, order, 0, pending)
            _quietly(_finish)(rowsets, out, pending)
        else:
            # the stored levels: nodes holding 1..k-3 games, in buckets, one task per newest game a
            # (at depth d, a must leave k-d games after it)
            upper = [root]
            for depth in range(1, k - 2):
                games = range(depth - 1, n - (k - depth))
                placement = _buckets(games, depth, n, rowsets.n_splits, _BUCKET_NODES, T_root is not None)
                biggest_first = sorted(games, key=lambda a: -math.comb(a, depth - 1) * (n - a) ** 2)
                tasks = [(upper, a, rowsets, _bucket_view(*placement[a], a)) for a in biggest_first]
                for _ in _each(executor, _extend, tasks):
                    pass
                upper = list({id(bucket): bucket for bucket, _ in placement.values()}.values())
            # the last level, one task per newest game a, each writing its own slice of the output
            starts = range(k - 3, n - 2)
            sizes = {a: math.comb(a, k - 3) * math.comb(n - a - 1, 2) for a in starts}
            offsets = dict(zip(starts, np.cumsum([0] + [sizes[a] for a in starts][:-1]).tolist()))
            biggest_first = sorted(starts, key=lambda a: -sizes[a])
            tasks = [(upper, a, rowsets, out, order, offsets[a], sizes[a]) for a in biggest_first]
            done = 0
            for args, _ in _each(executor, _last_level, tasks):
                done += sizes[args[1]]
                if progress is not None:
                    progress(done, total)
    if progress is not None and k < 3:
        progress(total, total)
    return out
