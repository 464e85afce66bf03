"""Exhaustive subset search of the Atari-5 paper (section 4.3), fast enough to run in seconds.

The paper fits, for every subset of games, OLS without intercept of
y = phi(median) on the games' phi scores, and ranks subsets by 10-fold CV MSE
(see ``atari5_spec.fitting`` for the exact definitions). There are 3,819,816
five-game subsets of the 56 searchable games, i.e. 38 million small fits.
This module computes exactly the same numbers, organised so that work is
shared between subsets. Final models are always recomputed with
``fitting.fit_subset_model``; this module only decides which subsets win.

How one CV fold is computed (the "sweep")
-----------------------------------------
Keep, per fold, the train and test cross-product matrices S = Z_tr' Z_tr and
T = Z_te' Z_te of the columns Z = [x_1, ..., x_p, y]. Regressing every
column on x_1 over the train rows (coefficient a_j = S_1j / S_11) and
replacing x_j by x_j - a_j x_1 is a rank-one update of S and T
(``_sweep_first``). After sweeping in every game of a subset, y has become
y - X beta_train on every row, so the test entry T[y, y] IS that fold's
held-out sum of squared errors (Frisch-Waugh-Lovell). The order in which
games are swept does not matter.

How the work is shared
----------------------
Subsets are visited as a prefix tree, in a fixed column order: all subsets
starting with games (g1, g2) share the state after sweeping g1 and g2
(stored, ``_extend``, in a few large preallocated "buckets" per tree level,
so that the next level reads its batches of nodes as views). The last three
games of every subset are finished together in one vectorised step per
(node, g3) (``_pair_mse``): the sweep of g3 is folded into it row by row,
and the last two games are solved in closed form. So each five-game subset
costs a few dozen arithmetic operations per fold instead of a fresh 5x5
solve. Work is split over up to two threads by newest game; numpy releases
the GIL in its loops.

Small searches (``_DIRECT_UP_TO``, e.g. the 20,825 subsets of the
Atari-3-Val stage) skip the tree: every subset is fitted from its row set's
tables in one batched pass (``_direct_mse``), which costs more per subset
but has no per-node Python overhead.

Missing scores
--------------
A subset is fitted on the rows where all its games (and the "always" games)
have a score, and the KFold assignment is made over exactly those rows. Each
tree node therefore carries the row set of its prefix (``_RowSets`` builds
the fold tables once per distinct row set). Games are visited least-complete
first, so the row set is usually fixed early in the prefix. A node whose
newest game lacks rows of its parent's row set (3% of the Atari-5 nodes)
gets its state rebuilt from its own row set's tables, as a low-rank update
of them (``_fresh_states``). Of the pairs that would change the row set
(2% of the Atari-5 subsets), those whose first game does it are finished
together per node (``_single_mse``), the few others fitted one by one
(``_direct_mse``), by the task that met them.

Selection
---------
``best_subset`` walks up the CV-MSE ranking until it meets an admissible
model (no negative coefficient), then re-scores every subset within a
relative 1e-6 of it, whose coefficients are not clearly negative, with the
exact reference code, and picks the smallest exact CV MSE, ties going to the
lexicographically smallest column tuple. A rank-deficient subset (e.g. two
identical games) gets CV MSE NaN and is never chosen.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import threading
from contextlib import nullcontext
from concurrent.futures import ThreadPoolExecutor, as_completed
from collections import OrderedDict
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np
import pandas as pd

from .fitting import N_SPLITS, SEED, SubsetModel, cross_validate, fit_no_intercept, fit_subset_model, kfold_test_folds

__all__ = ["SubsetScores", "evaluate_subsets", "evaluate_all_subsets", "best_subset", "staged_search",
           "searchable_games"]

Progress = Callable[[int, int], None]

# Re-score exactly every subset whose fast CV MSE is within this relative
# distance of the best admissible one: far above the fast path's rounding
# error (~1e-13), so a near-tie can never be decided by rounding.
TIE_RTOL = 1e-6
# A coefficient from the fast solve above -COEFFICIENT_ATOL may still be >= 0 exactly: re-checked.
COEFFICIENT_ATOL = 1e-9
# Arrays processed in one numpy call are kept around this many elements so
# that the working set stays in the CPU cache.
_CHUNK_ELEMENTS = 1 << 17
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


# --------------------------------------------------------------------------
# The linear algebra: sweeps, the pair step, and a direct solve.

def _sweep_first(S: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Regress every other column on the first (train rows) and keep the residual columns.

    S, T: (c+1, c+1, ...) train / test cross products of [x_0, ..., x_{c-1}, y]
    with any trailing batch axes (nodes, folds). With a_j = S[0, j] / S[0, 0],
    the residual columns x_j - a_j x_0 have train cross products
    S_jl - S_0j S_0l / S_00 and test cross products
    T_jl - a_j T_0l - a_l T_0j + a_j a_l T_00. Returns the new (c, c, ...) pair.
    """
    a = S[0, 1:] / S[0, 0]
    S_new = S[0, 1:][:, None] * a[None, :]
    np.subtract(S[1:, 1:], S_new, out=S_new)
    u = T[0, 1:] - 0.5 * T[0, 0] * a          # so that a_j u_l + u_j a_l gives the three T terms
    au = a[:, None] * u[None, :]
    T_new = T[1:, 1:] - au
    T_new -= np.swapaxes(au, 0, 1)
    return S_new, T_new


def _pair_mse(S: np.ndarray, T: np.ndarray, weights: np.ndarray, pivot: bool) -> Iterable[np.ndarray]:
    """CV MSE of adding every pair of columns (a < b) to a batch of nodes: yields one block per a.

    S, T: (c+1, c+1, nodes, folds) states over [x_0, ..., x_{c-1}, y];
    weights (nodes, folds) = 1 / (folds * test rows). Block a has shape
    (c-a-1, nodes), for b = a+1..c-1. With ``pivot``, the states are first
    swept by their first column (which is then not part of the pairs), one
    row at a time inside the loop, so the swept states are never stored.

    Sweeping a, then b, written out for the entries that are needed:
      alpha = S_ab / S_aa, alpha_y = S_ay / S_aa       (x_b and y regressed on x_a)
      s_bb = S_bb - alpha S_ab,  s_by = S_by - alpha_y S_ab
      t_bb = T_bb + alpha (alpha T_aa - 2 T_ab)
      t_by = T_by - alpha (T_ay - alpha_y T_aa) - alpha_y T_ab
      t_yy = T_yy - alpha_y (2 T_ay - alpha_y T_aa)
      beta = s_by / s_bb,  held-out SSE = t_yy - beta (2 t_by - beta t_bb).
    The loop body does this in place on preallocated rows (with numpy
    temporaries it runs about 1.4 times slower).
    """
    if pivot:   # as _sweep_first: x_j -> x_j - p_j x_pivot
        x = S[0, 1:]
        p = x / S[0, 0]
        u = T[0, 1:] - 0.5 * T[0, 0] * p
        S, T = S[1:, 1:], T[1:, 1:]
    c = S.shape[0] - 1
    i = np.arange(c)
    S_d, S_y, T_d, T_y, T_yy = S[i, i], S[:c, c], T[i, i], T[:c, c], T[c, c]
    if pivot:
        S_d, S_y = S_d - x[:c] * p[:c], S_y - x[:c] * p[c]
        T_d, T_y, T_yy = T_d - 2 * p[:c] * u[:c], T_y - p[:c] * u[c] - u[:c] * p[c], T_yy - 2 * p[c] * u[c]
    inverse_d, half_T_d = 1.0 / S_d, 0.5 * T_d
    work = np.empty((4, c - 1) + S_d.shape[1:])
    for a in range(c - 1):
        b = slice(a + 1, c)
        s_ab, t_ab, alpha, v = work[:, :c - a - 1]
        if pivot:
            np.multiply(p[b], x[a], out=s_ab)
            np.subtract(S[a, b], s_ab, out=s_ab)                    # s_ab = S_ab
            np.multiply(u[b], p[a], out=t_ab)
            np.subtract(T[a, b], t_ab, out=t_ab)
            np.multiply(p[b], u[a], out=v)
            t_ab -= v                                               # t_ab = T_ab
        else:
            s_ab[...], t_ab[...] = S[a, b], T[a, b]
        alpha_y = S_y[a] * inverse_d[a]
        kappa = T_y[a] - alpha_y * T_d[a]
        t_yy = T_yy - alpha_y * (T_y[a] + kappa)
        np.multiply(s_ab, inverse_d[a], out=alpha)                  # alpha
        np.multiply(alpha, s_ab, out=v)
        np.subtract(S_d[b], v, out=v)                               # v = s_bb
        s_ab *= alpha_y
        np.subtract(S_y[b], s_ab, out=s_ab)                         # s_ab = s_by
        s_ab /= v                                                   # s_ab = beta
        np.multiply(alpha, half_T_d[a], out=v)
        v -= t_ab
        v *= alpha
        v += half_T_d[b]                                            # v = t_bb / 2
        t_ab *= alpha_y
        alpha *= kappa
        t_ab += alpha
        np.subtract(T_y[b], t_ab, out=t_ab)                         # t_ab = t_by
        v *= s_ab
        t_ab -= v
        t_ab *= s_ab                                                # t_ab = beta (t_by - beta t_bb / 2)
        # held-out SSE = t_yy - 2 t_ab; the fold average is taken on each term
        yield np.einsum("nf,nf->n", t_yy, weights) - 2 * np.einsum("bnf,nf->bn", t_ab, weights)


def _held_out_sse(S, T) -> np.ndarray:
    """Held-out SSE of each state (k+1, k+1, ...) over [x_1, ..., x_k, y], with nothing swept yet.

    Same number as sweeping all k columns, with half the arithmetic: beta
    solves S_xx beta = S_xy through the Cholesky factor S_xx = L L', and the
    test residual y - X beta has squared norm T_yy - 2 beta'T_xy + beta'T_xx beta.
    Only entries (r, j) with r >= j of S and r <= j of T are read, so
    ``_Triangle`` states work too.
    """
    k = S.shape[0] - 1
    L = {}
    for j in range(k):
        L[j, j] = np.sqrt(S[j, j] - sum(L[j, i] ** 2 for i in range(j)))
        for r in range(j + 1, k):
            L[r, j] = (S[r, j] - sum(L[r, i] * L[j, i] for i in range(j))) / L[j, j]
    z = []
    for r in range(k):
        z.append((S[r, k] - sum(L[r, i] * z[i] for i in range(r))) / L[r, r])
    beta = [None] * k
    for r in reversed(range(k)):
        beta[r] = (z[r] - sum(L[i, r] * beta[i] for i in range(r + 1, k))) / L[r, r]
    sse = T[k, k] - 2 * sum(beta[r] * T[r, k] for r in range(k))
    for r in range(k):
        sse = sse + beta[r] * (beta[r] * T[r, r] + 2 * sum(beta[i] * T[r, i] for i in range(r + 1, k)))
    return sse


class _Triangle:
    """Symmetric (size, size, ...) matrices stored as their upper triangles (entries, ...), read as S[i, j].

    The direct fits gather only these entries: 21 instead of 36 per
    five-game subset and fold.
    """

    def __init__(self, entries: np.ndarray, size: int):
        self.entries, self.shape = entries, (size, size) + entries.shape[1:]
        self.index = {pair: e for e, pair in enumerate(_upper_pairs(size))}

    def __getitem__(self, key: tuple[int, int]) -> np.ndarray:
        return self.entries[self.index[min(key), max(key)]]


def _upper_pairs(size: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(size) for j in range(i, size)]


# --------------------------------------------------------------------------
# Row sets: everything that depends on which rows a subset is fitted on.

class _RowSets:
    """The distinct sets of complete rows met in a search, each with its fold tables.

    Columns are numbered by position in ``pool`` (the search order); the
    root state of row set i is ``S_roots[i], T_roots[i]``, of shape
    (n+1, n+1, folds) over [pool..., y], built from that row set's KFold
    split, with the always games already swept out. NaNs are zero-filled: a
    column is only used with row sets on which it is complete
    (``compatible[i]``). Tables are added on first use, all those met by one
    call together (``_add``); arrays are only appended to or replaced, so
    worker threads may read them while another adds.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, always: Sequence[int], pool: Sequence[int],
                 n_splits: int, seed: int):
        always, pool = list(always), list(pool)
        self.n_splits, self.seed, self.n_always = n_splits, seed, len(always)
        self.n_columns = len(pool)
        self.base = ~np.isnan(y) & ~np.isnan(X[:, always]).any(axis=1)
        self.present = ~np.isnan(X[:, pool])                      # (rows, n)
        self.Z = np.nan_to_num(np.column_stack([X[:, always], X[:, pool], y]))
        self.ids_by_mask: dict[bytes, int] = {}
        self.masks = np.empty((0, len(self.Z)), bool)
        self._narrowed = np.empty((0, self.n_columns), np.intp)    # row set x column -> row set, -1: unknown
        self.S_roots: list[np.ndarray] = []                      # per row set, (n+1, n+1, folds)
        self.T_roots: list[np.ndarray] = []
        self.grams: list[np.ndarray] = []                        # all-rows Z'Z, for coefficients
        self.weights = np.empty((0, n_splits))                   # 1 / (folds * test rows)
        self.compatible = np.empty((0, self.n_columns), bool)
        self.n_rows = np.empty(0, np.intp)
        self._lock = threading.Lock()

    def ids(self, columns: np.ndarray) -> np.ndarray:
        """Row-set id of each row of ``columns`` (m, d): rows where base and all d columns are present."""
        columns = np.asarray(columns, dtype=np.intp).reshape(len(columns), -1)
        return self._ids(self.base[None, :] & self.present[:, columns].all(axis=-1).T)

    def narrow(self, ids: np.ndarray, columns) -> np.ndarray:
        """Row sets ``ids`` each intersected with the rows where pool column ``columns`` (one or one each)
        is present."""
        ids = np.asarray(ids, np.intp)
        columns = np.broadcast_to(np.asarray(columns, np.intp), ids.shape)
        result = self._narrowed[ids, columns]     # the table covers every id handed out so far
        unknown = result < 0
        if unknown.any():
            keys, inverse = np.unique(ids[unknown] * self.n_columns + columns[unknown], return_inverse=True)
            row_sets, new_columns = np.divmod(keys, self.n_columns)
            found = self._ids(self.masks[row_sets] & self.present[:, new_columns].T)
            with self._lock:
                self._narrowed[row_sets, new_columns] = found
            result[unknown] = found[inverse.ravel()]
        return result

    def _ids(self, masks: np.ndarray) -> np.ndarray:
        """Row-set id of each row mask (m, rows), adding the tables of new ones."""
        packed = np.packbits(masks, axis=1)
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        with self._lock:
            new = [i for i in first if keys[i].tobytes() not in self.ids_by_mask]
            if new:
                self._add(masks[new])
                for offset, i in enumerate(new):
                    self.ids_by_mask[keys[i].tobytes()] = len(self.masks) - len(new) + offset
            table = np.array([self.ids_by_mask[keys[i].tobytes()] for i in first], dtype=np.intp)
        return table[inverse.ravel()]

    def _add(self, masks: np.ndarray) -> None:
        """Tables of new row sets (one mask each), all built together: call with the lock held."""
        m, (folds, q) = len(masks), (self.n_splits, self.Z.shape[1])
        counts = masks.sum(axis=1)
        usable = np.flatnonzero(counts >= folds)                     # enough rows to cross-validate
        # each fold's test rows, padded with zero rows to the largest fold: then T is one small
        # product per fold (a few big products would wake up, and leave spinning, the BLAS threads)
        tests = np.zeros((m, folds, -(-counts.max(initial=0) // folds), q))
        weights = np.full((m, folds), np.nan)
        for i in usable:
            fold, place = _fold_places(int(counts[i]), folds, self.seed)
            tests[i, fold, place] = self.Z[masks[i]]
            weights[i] = 1.0 / (folds * np.bincount(fold, minlength=folds))
        T = np.matmul(tests.transpose(0, 1, 3, 2), tests)                  # (m, folds, q, q)
        grams = T.sum(axis=1)                                              # the folds cover all rows
        T = np.ascontiguousarray(np.moveaxis(T, 1, -1))                    # (m, q, q, folds)
        S = grams[..., None] - T                                           # train = all rows - test rows
        for i in np.flatnonzero(counts < folds):
            grams[i] = self.Z[masks[i]].T @ self.Z[masks[i]]
            S[i] = T[i] = np.nan
        for i in range(m):
            S_root, T_root = S[i], T[i]
            for _ in range(self.n_always):
                S_root, T_root = _sweep_first(S_root, T_root)
            self.S_roots.append(S_root)
            self.T_roots.append(T_root)
            self.grams.append(grams[i])
        compatible = ~(masks[:, :, None] & ~self.present[None, :, :]).any(axis=1)
        narrowed = np.full((len(self.masks) + len(masks), self.n_columns), -1, np.intp)
        narrowed[:len(self._narrowed)] = self._narrowed
        # small per-row-set arrays are replaced, never modified in place (except the -1 entries of
        # ``_narrowed``), so readers always see a consistent one
        self.masks = np.vstack([self.masks, masks])
        self.weights = np.vstack([self.weights, weights])
        self.compatible = np.vstack([self.compatible, compatible])
        self.n_rows = np.append(self.n_rows, counts)
        self._narrowed = narrowed


@functools.lru_cache(maxsize=None)
def _fold_places(n_rows: int, n_splits: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(fold, place within the fold's test rows) of each of n_rows rows, as ``kfold_test_folds``.

    The split depends only on the row count, and is asked for again by
    every search: kept (a few kilobytes).
    """
    fold, place = np.empty(n_rows, np.intp), np.empty(n_rows, np.intp)
    for f, test in enumerate(kfold_test_folds(n_rows, n_splits, seed)):
        fold[test], place[test] = f, np.arange(len(test))
    fold.flags.writeable = place.flags.writeable = False
    return fold, place


def _runs(ids: np.ndarray) -> list[tuple[int, int]]:
    """(lo, hi) of each run of equal values in ``ids``."""
    starts = np.flatnonzero(np.diff(ids, prepend=-1) != 0) if len(ids) else np.empty(0, np.intp)
    return list(zip(starts.tolist(), [*starts[1:].tolist(), len(ids)]))


def _swept_rows(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, first: int):
    """The sweeps of the columns ``swept`` (m, d) of each node out of its row set's root, as vectors.

    Sweeping d columns P out of a root is a rank-d update of what remains:
    with x_i the row of column P_i after the first i - 1 sweeps,
    p_i = x_i / x_i[P_i] and u_i as in ``_sweep_first``,
      S = S_root - sum_i x_i p_i',   T = T_root - sum_i (p_i u_i' + u_i p_i').
    Only the d rows of P need sweeping one after another. Returns (order,
    vectors): nodes in order of row set, and the d triples (x_i, p_i, u_i)
    over the columns first..n-1 and y, each (n + 1 - first, m, folds).
    Only the gathers are done per row set (nodes sharing one are few).
    """
    n, d = rowsets.n_columns, swept.shape[1]
    order = np.argsort(ids, kind="stable")
    S_rows, T_rows = [], []
    for lo, hi in _runs(ids[order]):
        nodes = order[lo:hi]
        S_root, T_root = rowsets.S_roots[ids[nodes[0]]], rowsets.T_roots[ids[nodes[0]]]
        P = swept[nodes].T                                                       # (d, nodes)
        columns = np.concatenate([P, np.broadcast_to(np.arange(first, n + 1)[:, None], (n + 1 - first, hi - lo))])
        S_rows.append(S_root[P[:, None, :], columns[None, :, :]])                # (d, d + size, nodes, folds)
        T_rows.append(T_root[P[:, None, :], columns[None, :, :]])
    S_rows, T_rows = np.concatenate(S_rows, axis=2), np.concatenate(T_rows, axis=2)
    vectors = []
    for i in range(d):
        x, t = S_rows[i], T_rows[i]
        p = x / x[i]
        u = t - 0.5 * t[i] * p
        for later in range(i + 1, d):                                            # sweep the other rows of P
            S_rows[later] -= x[later] * p
            T_rows[later] -= p[later] * u + u[later] * p
        vectors.append((x[d:], p[d:], u[d:]))
    return order, vectors


def _fresh_states(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, first: int) -> list[tuple]:
    """States over [first..n-1, y] after sweeping ``swept`` (m, d), each node on its row set ``ids``.

    Returns (nodes, S, T) blocks, each for some of the m nodes, of shape
    (size, size, nodes, folds), the root's entries broadcast over the nodes
    of a row set (see ``_swept_rows``). The blocks are computed as new
    contiguous arrays, a few nodes at a time so that the passes over them
    stay in the CPU cache: numpy is much slower writing into a slice of a
    bigger node axis, and assembling the blocks would cost another pass.
    """
    size, d = rowsets.n_columns + 1 - first, swept.shape[1]
    order, vectors = _swept_rows(rowsets, ids, swept, first)
    step = max(1, _CHUNK_ELEMENTS // (size * size * rowsets.n_splits))
    blocks = []
    for run_lo, hi in _runs(ids[order]):
        S_root, T_root = rowsets.S_roots[ids[order[run_lo]]], rowsets.T_roots[ids[order[run_lo]]]
        for lo in range(run_lo, hi, step):
            part = slice(lo, min(hi, lo + step))
            if d == 0:
                count = part.stop - part.start
                S = np.repeat(S_root[first:, first:, None], count, axis=2)
                T = np.repeat(T_root[first:, first:, None], count, axis=2)
            else:
                for i, (x, p, u) in enumerate(vectors):
                    x, p, u = x[:, part], p[:, part], u[:, part]
                    if i == 0:
                        S, T = x[:, None] * p[None, :], p[:, None] * u[None, :]
                    else:
                        S += x[:, None] * p[None, :]
                        T += p[:, None] * u[None, :]
                np.subtract(S_root[first:, first:, None], S, out=S)
                np.subtract(T_root[first:, first:, None], T + np.swapaxes(T, 0, 1), out=T)
            blocks.append((order[part], S, T))
    return blocks


def _single_mse(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, first: int) -> np.ndarray:
    """CV MSE (n - first, m) of each node (row set ``ids``, swept columns (m, d)) plus one column c >= first.

    The sweeps of ``_swept_rows``, but forming only what a one-column finish
    needs: for each c the swept s_cc, s_cy, t_cc, t_cy, and t_yy. Then
    beta = s_cy / s_cc and the held-out SSE is t_yy - beta (2 t_cy - beta t_cc).
    This costs O(d^2 n) per node, not O(n^2): about half a direct fit per subset.
    """
    n, m, folds = rowsets.n_columns, len(ids), rowsets.n_splits
    c = np.arange(first, n)
    order, vectors = _swept_rows(rowsets, ids, swept, first)
    entries = []                                       # the roots' s_cc, s_cy, t_cc, t_cy, t_yy, per node
    for lo, hi in _runs(ids[order]):
        S_root, T_root = rowsets.S_roots[ids[order[lo]]], rowsets.T_roots[ids[order[lo]]]
        run = np.concatenate([S_root[c, c], S_root[c, n], T_root[c, c], T_root[c, n], T_root[n, n][None]])
        entries.append(np.broadcast_to(run[:, None], (len(run), hi - lo, folds)))
    entries = np.concatenate(entries, axis=1)
    s_cc, s_cy, t_cc, t_cy = entries[:-1].reshape(4, len(c), m, folds)
    t_yy = entries[-1]
    for x, p, u in vectors:
        (x_c, x_y), (p_c, p_y), (u_c, u_y) = ((v[:-1], v[-1]) for v in (x, p, u))
        s_cc, s_cy = s_cc - x_c * p_c, s_cy - x_c * p_y
        t_cc, t_cy, t_yy = t_cc - 2 * p_c * u_c, t_cy - (p_c * u_y + u_c * p_y), t_yy - 2 * p_y * u_y
    beta = s_cy / s_cc
    sse = t_yy - beta * (2 * t_cy - beta * t_cc)
    mse = np.empty((n - first, m))
    mse[:, order] = np.einsum("cnf,nf->cn", sse, rowsets.weights[ids[order]])
    return mse


def _direct_mse(rowsets: _RowSets, positions: np.ndarray, ids: np.ndarray | None = None):
    """(CV MSE, row-set ids) of arbitrary subsets (m, k) of pool positions, each fitted from scratch."""
    positions = np.asarray(positions, np.intp)
    ids = rowsets.ids(positions) if ids is None else np.asarray(ids, np.intp)
    by_row_set = np.argsort(ids, kind="stable")
    q, folds = rowsets.n_columns + 1, rowsets.n_splits
    size = positions.shape[1] + 1
    upper = np.array(_upper_pairs(size)).T                                       # (2, entries)
    mse = np.empty(len(positions))
    step = max(1, 4 * _CHUNK_ELEMENTS // (folds * upper.shape[1]))
    for lo in range(0, len(positions), step):
        part = by_row_set[lo:lo + step]
        part_ids = ids[part]
        columns = np.column_stack([positions[part], np.full(len(part), q - 1)])
        flat = (columns[:, upper[0]] * q + columns[:, upper[1]]).T                # (entries, part)
        S = np.concatenate([np.take(rowsets.S_roots[part_ids[a]].reshape(-1, folds), flat[:, a:b], axis=0)
                            for a, b in _runs(part_ids)], axis=1)
        T = np.concatenate([np.take(rowsets.T_roots[part_ids[a]].reshape(-1, folds), flat[:, a:b], axis=0)
                            for a, b in _runs(part_ids)], axis=1)
        sse = _held_out_sse(_Triangle(S, size), _Triangle(T, size))
        mse[part] = np.einsum("nf,nf->n", sse, rowsets.weights[part_ids])
    return mse, ids


# --------------------------------------------------------------------------
# The prefix tree.

class _Stack(NamedTuple):
    """Tree nodes that have swept the games ``prefixes``, with states over columns start..n-1 and y.

    A node may add any column after its last game (which is before start).
    """

    start: int
    S: np.ndarray          # (n-start+1, n-start+1, nodes, folds)
    T: np.ndarray
    prefixes: np.ndarray   # (nodes, depth) pool positions
    ids: np.ndarray        # (nodes,) row set of the prefix


def _before(buckets: list[_Stack], a: int) -> list[_Stack]:
    """The nodes of a stored level that may take column a (those whose last game is before a).

    One view per bucket, with states restricted to columns a..n-1 and y: a
    bucket's nodes are in order of their last game, so they are a leading
    run of it.
    """
    runs = []
    for bucket in buckets:
        if bucket.start > a:
            break
        depth = bucket.prefixes.shape[1]
        before = len(bucket.ids) if depth == 0 else int(np.searchsorted(bucket.prefixes[:, -1], a))
        j = a - bucket.start
        runs.append(_Stack(a, bucket.S[j:, j:, :before], bucket.T[j:, j:, :before], bucket.prefixes[:before],
                           bucket.ids[:before]))
    return runs


def _extend(buckets: list[_Stack], a: int, rowsets: _RowSets, into: _Stack) -> None:
    """Every node of a stored level that may take column a, extended by a and swept, written ``into``.

    ``into`` is the slice of the next level's bucket for game a. Nodes for
    which column a lacks rows of their row set are swept too (cheaper than
    leaving them out, which would copy the others) and then overwritten
    with their state on the smaller row set.
    """
    size, folds = rowsets.n_columns - a, rowsets.n_splits      # columns a+1..n-1 and y
    # swept a few nodes at a time into new arrays, then copied: see _fresh_states
    step = max(1, _CHUNK_ELEMENTS // (size * size * folds))
    first = 0
    for run in _before(buckets, a):
        for lo in range(0, len(run.ids), step):
            nodes = slice(first + lo, first + min(len(run.ids), lo + step))
            into.S[:, :, nodes], into.T[:, :, nodes] = _sweep_first(run.S[:, :, lo:lo + step],
                                                                    run.T[:, :, lo:lo + step])
        chosen = slice(first, first + len(run.ids))
        into.prefixes[chosen, :-1], into.prefixes[chosen, -1] = run.prefixes, a
        into.ids[chosen] = run.ids
        first = chosen.stop
    lacking = np.flatnonzero(~rowsets.compatible[into.ids, a])
    if len(lacking):
        ids = rowsets.narrow(into.ids[lacking], a)
        by_row_set = np.argsort(ids, kind="stable")
        lacking, ids = lacking[by_row_set], ids[by_row_set]
        for nodes, S, T in _fresh_states(rowsets, ids, into.prefixes[lacking], a + 1):
            into.S[:, :, lacking[nodes]], into.T[:, :, lacking[nodes]] = S, T
        into.ids[lacking] = ids


def _buckets(games: range, depth: int, n: int, folds: int, min_nodes: int) -> dict[int, tuple[_Stack, slice]]:
    """Preallocated storage for tree level ``depth`` (>= 1): for each newest game a, (bucket, its nodes).

    Level ``depth`` has C(a, depth-1) nodes ending with game a (every prefix
    is a node). Consecutive games share a bucket until it holds
    ``min_nodes``; a bucket's states cover the columns from its first
    game's start, so a later game's nodes leave the leading corner of their
    slice unused: it is never read (a node only takes columns after its last
    game), hence left uninitialised.
    """
    placement, group = {}, []
    for a in games:
        group.append(a)
        if sum(math.comb(g, depth - 1) for g in group) >= min_nodes or a == games[-1]:
            count, size = sum(math.comb(g, depth - 1) for g in group), n - group[0]
            bucket = _Stack(group[0] + 1, np.empty((size, size, count, folds)), np.empty((size, size, count, folds)),
                            np.empty((count, depth), np.intp), np.empty(count, np.intp))
            first = 0
            for g in group:
                nodes = slice(first, first + math.comb(g, depth - 1))
                placement[g] = bucket, nodes
                first = nodes.stop
            group = []
    return placement


def _bucket_view(bucket: _Stack, nodes: slice, a: int) -> _Stack:
    """The slice of ``bucket`` that holds the nodes ending with game a (states from column a+1)."""
    j = a + 1 - bucket.start
    return _Stack(a + 1, bucket.S[j:, j:, nodes], bucket.T[j:, j:, nodes], bucket.prefixes[nodes], bucket.ids[nodes])


class _Joined:
    """Arrays (c, c, nodes_i, folds), each restricted to some of its nodes, seen as one along the node axis.

    Parts are (array, nodes) with nodes a slice or an index array. The pair
    step reads each state row by row; picking and joining those rows just
    before use copies half of each state (the part it reads) while it is in
    cache, instead of merging whole states up front.
    """

    def __init__(self, parts: list[tuple[np.ndarray, slice | np.ndarray]]):
        self.parts = parts

    @property
    def shape(self) -> tuple[int, ...]:
        first = self.parts[0][0]
        return first.shape[:2] + (sum(_count(nodes, part.shape[2]) for part, nodes in self.parts),) + first.shape[3:]

    def __getitem__(self, key):
        if all(isinstance(k, slice) for k in (key if isinstance(key, tuple) else (key,))):
            return _Joined([(part[key], nodes) for part, nodes in self.parts])   # slicing columns stays lazy
        rows = [part[key][..., nodes, :] for part, nodes in self.parts]
        return rows[0] if len(rows) == 1 else np.concatenate(rows, axis=-2)


def _count(nodes: slice | np.ndarray, length: int) -> int:
    return len(range(length)[nodes]) if isinstance(nodes, slice) else len(nodes)


def _as_slice(nodes: np.ndarray) -> slice | np.ndarray:
    """A slice for a contiguous run of node indices (so that it selects a view), else the indices."""
    if len(nodes) and nodes[-1] - nodes[0] == len(nodes) - 1:
        return slice(int(nodes[0]), int(nodes[-1]) + 1)
    return nodes


def _gather(pieces: list[tuple[_Stack, np.ndarray]]) -> _Stack:
    """One stack of the given nodes of the given stacks: a view of one contiguous run, else lazily joined."""
    pieces = [(stack, _as_slice(nodes)) for stack, nodes in pieces]
    prefixes = np.concatenate([stack.prefixes[nodes] for stack, nodes in pieces])
    ids = np.concatenate([stack.ids[nodes] for stack, nodes in pieces])
    stack, nodes = pieces[0]
    if len(pieces) == 1 and isinstance(nodes, slice):
        return _Stack(stack.start, stack.S[:, :, nodes], stack.T[:, :, nodes], prefixes, ids)
    return _Stack(stack.start, _Joined([(stack.S, nodes) for stack, nodes in pieces]),
                  _Joined([(stack.T, nodes) for stack, nodes in pieces]), prefixes, ids)


def _in_batches(parts: list[tuple[_Stack, np.ndarray]], size: int) -> Iterable[_Stack]:
    """The chosen nodes of ``parts`` in batches of at most ``size``.

    Big parts are cut into near-equal slices, each a batch of its own: a
    plain view. Only pieces under a quarter of ``size`` share batches, read
    joined (copying the rows read): joining big pieces would copy more than
    it saves in per-batch Python overhead.
    """
    batch, count = [], 0
    for stack, nodes in parts:
        for piece in np.array_split(nodes, -(-len(nodes) // size)):
            if 4 * len(piece) >= size:
                yield _gather([(stack, piece)])
                continue
            if count + len(piece) > size:
                yield _gather(batch)
                batch, count = [], 0
            batch.append((stack, piece))
            count += len(piece)
    if batch:
        yield _gather(batch)


class _Redo(NamedTuple):
    """Subsets whose last games change the row set: output slots, pool positions (m, k), row sets."""

    slots: np.ndarray
    positions: np.ndarray
    ids: np.ndarray


class _Single(NamedTuple):
    """Nodes whose pair's first game b (their last swept column) lacks rows of their row set.

    All their pairs (b, c), c > b, are refitted on the smaller row set
    ``ids``; pair (b, c) goes to output slot base + stride * (c - b - 1).
    """

    base: np.ndarray
    stride: np.ndarray
    swept: np.ndarray      # (nodes, depth): the node's games, b last
    ids: np.ndarray


class _Pending(NamedTuple):
    """What a task still has to recompute once its pair steps are done."""

    singles: list[_Single]
    redo: list[_Redo]


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


# --------------------------------------------------------------------------
# Public functions.

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
                         progress: Progress | None = None, n_threads: int | None = None) -> SubsetScores:
    """CV MSE of every k-subset of ``pool`` (column indices of X), each fitted together with ``always``.

    X: (algorithms, games) with NaN for missing scores; y: (algorithms,).
    Returns all C(len(pool), k) subsets in a fixed order (not sorted), each
    row listing its games in search order; coefficients are not computed
    (see ``evaluate_subsets``). Work is spread over ``n_threads`` threads
    (default: up to 2); the results do not depend on it. Small searches
    (``_DIRECT_UP_TO``) fit each subset directly instead (same numbers to
    rounding, less fixed cost).
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    order = np.array(_search_order(X, y, pool, always), np.intp)
    n = len(order)
    if not 1 <= k <= n:
        raise ValueError(f"cannot choose {k} of {n} games")
    rowsets = _RowSets(X, y, always, order, n_splits, seed)
    total = math.comb(n, k)
    if total * (k + 1) ** 2 <= _DIRECT_UP_TO or k == 1:
        positions = np.array(list(itertools.combinations(range(n), k)), np.intp).reshape(total, k)
        mse, ids = _quietly(_direct_mse)(rowsets, positions)
        if progress is not None:
            progress(total, total)
        return SubsetScores(order[positions].astype(np.int16), mse, rowsets.n_rows[ids].astype(np.int32))
    out = SubsetScores(np.empty((total, k), np.int16), np.empty(total), np.empty(total, np.int32))
    root_id = rowsets.ids(np.empty((1, 0), np.intp))
    root = _Stack(0, rowsets.S_roots[root_id[0]][:, :, None], rowsets.T_roots[root_id[0]][:, :, None],
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
                placement = _buckets(games, depth, n, n_splits, _BUCKET_NODES)
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


def evaluate_subsets(X: np.ndarray, y: np.ndarray, subsets: np.ndarray, always: Sequence[int] = (),
                     n_splits: int = N_SPLITS, seed: int = SEED) -> SubsetScores:
    """CV MSE, full-data coefficients and admissibility of each given subset (m, k) of columns of X.

    Each subset is fitted on its own complete rows from scratch (no sharing),
    so any list of subsets works; coefficients follow the subset's column
    order with the always games appended.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    subsets = np.asarray(subsets, np.intp)
    pool = np.unique(subsets)
    rowsets = _RowSets(X, y, always, pool, n_splits, seed)
    positions = np.searchsorted(pool, subsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        mse, ids = _direct_mse(rowsets, positions)
    # coefficients: normal equations on all complete rows (Z columns: always, pool, y)
    n_always = len(always)
    columns = np.concatenate([positions + n_always, np.broadcast_to(np.arange(n_always), (len(ids), n_always))],
                             axis=1)
    grams = np.array(rowsets.grams)                                          # (row sets, q, q)
    lhs = grams[ids[:, None, None], columns[:, :, None], columns[:, None, :]]
    rhs = grams[ids[:, None], columns, -1]
    with np.errstate(all="ignore"):
        try:
            coefficients = np.linalg.solve(lhs, rhs[..., None])[..., 0]
        except np.linalg.LinAlgError:   # a singular subset: fall back to one at a time
            coefficients = np.array([np.linalg.lstsq(l, r, rcond=None)[0] for l, r in zip(lhs, rhs)])
    return SubsetScores(subsets, mse, rowsets.n_rows[ids], coefficients, np.all(coefficients >= 0, axis=1))


def _exact(X: np.ndarray, y: np.ndarray, columns: Sequence[int], n_splits: int, seed: int):
    """(CV MSE, admissible) from the reference code, for the final decision."""
    columns = list(columns)
    rows = ~np.isnan(y) & ~np.isnan(X[:, columns]).any(axis=1)
    coefficients = fit_no_intercept(X[rows][:, columns], y[rows])
    return cross_validate(X[rows][:, columns], y[rows], n_splits, seed)[0], bool(np.all(coefficients >= 0))


def best_subset(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int, always: Sequence[int] = (),
                n_splits: int = N_SPLITS, seed: int = SEED, progress: Progress | None = None,
                n_threads: int | None = None) -> tuple[int, ...]:
    """Column indices (ascending) of the admissible k-subset of ``pool`` with the lowest CV MSE.

    ``always`` games are part of every model (and of the admissibility
    check) but not of the returned tuple.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    scores = evaluate_all_subsets(X, y, pool, k, always, n_splits, seed, progress, n_threads)
    mse = np.where(np.isfinite(scores.cv_mse), scores.cv_mse, np.inf)
    # 1. walk up the fast ranking until an admissible model turns up
    shortlist = 64
    while True:
        top = np.argpartition(mse, shortlist - 1)[:shortlist] if shortlist < len(mse) else np.arange(len(mse))
        top = top[np.argsort(mse[top], kind="stable")]
        top = top[np.isfinite(mse[top])]
        checked = evaluate_subsets(X, y, scores.subsets[top], always, n_splits, seed)
        if checked.admissible.any() or shortlist >= len(mse):
            break
        shortlist *= 8
    if not checked.admissible.any():
        raise ValueError("no admissible subset")
    best_fast = mse[top[np.argmax(checked.admissible)]]
    # 2. settle near ties, and any coefficient too close to zero to trust the fast solve's sign,
    #    with the exact reference code (subsets clearly inadmissible are left out)
    near = np.flatnonzero(mse <= best_fast * (1 + TIE_RTOL))
    smallest = evaluate_subsets(X, y, scores.subsets[near], always, n_splits, seed).coefficients.min(axis=1)
    near = near[smallest > -COEFFICIENT_ATOL]
    candidates = []
    for slot in near:
        columns = tuple(sorted(int(c) for c in scores.subsets[slot]))
        exact_mse, admissible = _exact(X, y, list(columns) + list(always), n_splits, seed)
        if admissible:
            candidates.append((exact_mse, columns))
    if not candidates:   # the fast and exact admissibility disagreed on a zero coefficient
        raise ValueError("admissibility of the best subset is numerically ambiguous")
    return min(candidates)[1]


def searchable_games(columns: Sequence[str], excluded: Sequence[str] = ("surround",)) -> list[str]:
    """Game columns whose id contains none of the ``excluded`` substrings (the paper drops Surround)."""
    return [c for c in columns if not any(e in c for e in excluded)]


STAGES = ("Atari-5", "Atari-3", "Atari-1", "Atari-3-Val", "Atari-5-Val", "Atari-10")


def staged_search(X: pd.DataFrame, y: pd.Series, excluded: Sequence[str] = ("surround",),
                  progress: Progress | None = None, n_splits: int = N_SPLITS, seed: int = SEED,
                  n_threads: int | None = None) -> "OrderedDict[str, SubsetModel]":
    """The paper's nested searches (section 4.3), returning the six models in the order of Table 9.

    Atari-5 = best 5 of all searchable games; Atari-3 = best 3 of Atari-5;
    Atari-1 = best 1 of Atari-3; Atari-3-Val = best 3 of the games outside
    Atari-5; Atari-5-Val = Atari-3-Val plus the best 2 more of those games;
    Atari-10 = Atari-5 plus the best 5 games outside Atari-5 and Atari-5-Val.
    Games inside a model are in column order, the kept games appended last.
    ``progress(done, total)`` counts subsets evaluated over all stages.
    """
    games = list(X.columns)
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    pool = [games.index(g) for g in searchable_games(games, excluded)]
    n = len(pool)
    if n < 15:                  # Atari-5, Atari-5-Val and the 5 new games of Atari-10 are disjoint
        raise ValueError(f"the staged search needs at least 15 searchable games, got {n}")
    total = sum(math.comb(size, k) for size, k in [(n, 5), (5, 3), (3, 1), (n - 5, 3), (n - 8, 2), (n - 10, 5)])
    done = 0

    def search(candidates, k, always=()):
        nonlocal done

        def report(count, _):
            if progress is not None:
                progress(done + count, total)
        chosen = best_subset(Xn, yn, candidates, k, always, n_splits, seed, report, n_threads)
        done += math.comb(len(candidates), k)
        return chosen

    atari5 = search(pool, 5)
    atari3 = search(atari5, 3)
    atari1 = search(atari3, 1)
    outside = [g for g in pool if g not in atari5]
    val3 = search(outside, 3)
    val5 = search([g for g in outside if g not in val3], 2, val3) + val3
    atari10 = search([g for g in outside if g not in val5], 5, atari5) + atari5
    chosen = dict(zip(STAGES, [atari5, atari3, atari1, val3, val5, atari10]))
    return OrderedDict((name, fit_subset_model(X, y, [games[c] for c in columns], n_splits, seed))
                       for name, columns in chosen.items())
