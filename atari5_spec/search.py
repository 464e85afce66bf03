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
(stored, one array per group of nodes, ``_extend``). The last three games of
every subset are finished together in one vectorised step per (node, g3)
(``_pair_mse``): the sweep of g3 is folded into it row by row, and the last
two games are solved in closed form. So each five-game subset costs a few
dozen arithmetic operations per fold instead of a fresh 5x5 solve. Work is
split over up to two threads by g3; numpy releases the GIL in its loops.

Missing scores
--------------
A subset is fitted on the rows where all its games (and the "always" games)
have a score, and the KFold assignment is made over exactly those rows. Each
tree node therefore carries the row set of its prefix (``_RowSets`` builds
the fold tables once per distinct row set). Games are visited least-complete
first, so the row set is usually fixed early in the prefix; a child whose
game lacks rows of its parent starts from its own row set's tables
("fresh" node), and the few last pairs that would change the row set (2% of
the Atari-5 search) are fitted one by one (``_direct_mse``).

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
# Searches of fewer subsets than this run on one thread by default.
_THREADED_FROM = 100_000
# Nodes of the tree's second-last level are stored in buckets of at least this many.
_BUCKET_NODES = 64


class SubsetScores(NamedTuple):
    """Fast-path results for many subsets (one row each)."""

    subsets: np.ndarray                   # (m, k) column indices into X (see each function for the order)
    cv_mse: np.ndarray                    # (m,) NaN when the fit is impossible (too few rows, singular)
    n_rows: np.ndarray                    # (m,) complete rows of the subset (with the always games)
    coefficients: np.ndarray | None = None  # (m, k + len(always)) full-data fit, always games last
    admissible: np.ndarray | None = None    # (m,) no negative coefficient


# --------------------------------------------------------------------------
# The linear algebra: sweeps, the pair step, and a direct solve.

def _sweep_first(S: np.ndarray, T: np.ndarray, out: tuple[np.ndarray, np.ndarray] | None = None):
    """Regress every other column on the first (train rows) and keep the residual columns.

    S, T: (c+1, c+1, ...) train / test cross products of [x_0, ..., x_{c-1}, y]
    with any trailing batch axes (nodes, folds). With a_j = S[0, j] / S[0, 0],
    the residual columns x_j - a_j x_0 have train cross products
    S_jl - S_0j S_0l / S_00 and test cross products
    T_jl - a_j T_0l - a_l T_0j + a_j a_l T_00. Returns the (c, c, ...) pair,
    written into ``out`` when given.
    """
    a = S[0, 1:] / S[0, 0]
    if out is None:
        out = np.empty(S[1:, 1:].shape), np.empty(T[1:, 1:].shape)
    S_new, T_new = out
    np.multiply(S[0, 1:][:, None], a[None, :], out=S_new)
    np.subtract(S[1:, 1:], S_new, out=S_new)
    u = T[0, 1:] - 0.5 * T[0, 0] * a          # so that a_j u_l + u_j a_l gives the three T terms
    au = a[:, None] * u[None, :]
    np.subtract(T[1:, 1:], au, out=T_new)
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


def _held_out_sse(S: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Held-out SSE of each state (k+1, k+1, ...) over [x_1, ..., x_k, y], with nothing swept yet.

    Same number as sweeping all k columns, with half the arithmetic: beta
    solves S_xx beta = S_xy through the Cholesky factor S_xx = L L', and the
    test residual y - X beta has squared norm T_yy - 2 beta'T_xy + beta'T_xx beta.
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


# --------------------------------------------------------------------------
# Row sets: everything that depends on which rows a subset is fitted on.

class _RowSets:
    """The distinct sets of complete rows met in a search, each with its fold tables.

    Columns are numbered by position in ``pool`` (the search order); the
    root state of row set i is ``S_roots[i], T_roots[i]``, of shape
    (n+1, n+1, folds) over [pool..., y], built from that row set's KFold
    split, with the always games already swept out. NaNs are zero-filled: a
    column is only used with row sets on which it is complete
    (``compatible[i]``). Tables are added on first use; arrays are only
    appended to, so worker threads may read them while another adds.
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
        self.masks: list[np.ndarray] = []
        self._narrowed_ids: dict[tuple[int, int], int] = {}
        self._folds_by_size: dict[int, list[np.ndarray]] = {}
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
        masks = self.base[None, :] & self.present[:, columns].all(axis=-1).T        # (m, rows)
        packed = np.packbits(masks, axis=1)
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        with self._lock:
            table = np.array([self._id(masks[i]) for i in first], dtype=np.intp)
        return table[inverse.ravel()]

    def narrow(self, ids: np.ndarray, column) -> np.ndarray:
        """Row sets ``ids`` each intersected with the rows where pool column ``column`` is present."""
        keys = np.asarray(ids, np.intp) * self.n_columns + column
        unique, inverse = np.unique(keys, return_inverse=True)
        with self._lock:
            table = np.array([self._narrowed(*divmod(int(key), self.n_columns)) for key in unique], np.intp)
        return table[inverse]

    def _narrowed(self, i: int, column: int) -> int:
        if (i, column) not in self._narrowed_ids:
            self._narrowed_ids[i, column] = self._id(self.masks[i] & self.present[:, column])
        return self._narrowed_ids[i, column]

    def _id(self, mask: np.ndarray) -> int:
        key = np.packbits(mask).tobytes()
        if key not in self.ids_by_mask:
            self._add(mask)
            self.ids_by_mask[key] = len(self.masks) - 1
        return self.ids_by_mask[key]

    def _folds(self, n_rows: int) -> list[np.ndarray]:
        if n_rows not in self._folds_by_size:                    # the split depends only on the row count
            self._folds_by_size[n_rows] = kfold_test_folds(n_rows, self.n_splits, self.seed)
        return self._folds_by_size[n_rows]

    def _add(self, mask: np.ndarray) -> None:
        rows = np.flatnonzero(mask)
        Z = self.Z[rows]
        gram = Z.T @ Z
        if len(rows) >= self.n_splits:
            in_test = np.zeros((self.n_splits, len(rows)))
            for f, test in enumerate(self._folds(len(rows))):
                in_test[f, test] = 1.0
            T = (Z.T[None] * in_test[:, None, :]) @ Z               # (folds, q, q) test cross products
            S = gram - T                                             # train = all rows - test rows
            weights = 1.0 / (self.n_splits * in_test.sum(axis=1))
        else:                                                        # too few rows to cross-validate
            S = T = np.full((self.n_splits,) + gram.shape, np.nan)
            weights = np.full(self.n_splits, np.nan)
        S, T = np.moveaxis(S, 0, -1), np.moveaxis(T, 0, -1)      # folds last: (q, q, folds)
        for _ in range(self.n_always):
            S, T = _sweep_first(S, T)
        self.S_roots.append(np.ascontiguousarray(S))
        self.T_roots.append(np.ascontiguousarray(T))
        self.grams.append(gram)
        self.masks.append(mask)
        # small per-row-set arrays are replaced, never modified, so readers always see a consistent one
        self.weights = np.vstack([self.weights, weights])
        self.compatible = np.vstack([self.compatible, self.present[rows].all(axis=0)])
        self.n_rows = np.append(self.n_rows, len(rows))


def _root_states(rowsets: _RowSets, ids: np.ndarray, columns: np.ndarray):
    """(S, T) of shape (size, size, m, folds): root entries of ``columns`` (m, size) on row sets ``ids``."""
    by_row_set = np.argsort(ids, kind="stable")
    ids, columns = ids[by_row_set], columns[by_row_set]
    q, folds = rowsets.n_columns + 1, rowsets.n_splits
    flat = columns.T[:, None, :] * q + columns.T[None, :, :]                       # (size, size, m)
    groups = list(zip(np.flatnonzero(np.diff(ids, prepend=-1)), [*np.flatnonzero(np.diff(ids)) + 1, len(ids)]))
    S = np.concatenate([np.take(rowsets.S_roots[ids[lo]].reshape(-1, folds), flat[:, :, lo:hi], axis=0)
                        for lo, hi in groups], axis=2)
    T = np.concatenate([np.take(rowsets.T_roots[ids[lo]].reshape(-1, folds), flat[:, :, lo:hi], axis=0)
                        for lo, hi in groups], axis=2)
    if np.any(np.diff(by_row_set) < 0):                      # back to the given order
        given = np.argsort(by_row_set)
        S, T = S[:, :, given], T[:, :, given]
    return S, T


def _fresh_states(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, future: Sequence[int]):
    """States over [future..., y] after sweeping the columns ``swept`` (m, d), each on its own row set."""
    m, d = swept.shape
    columns = np.concatenate([swept, np.broadcast_to(np.asarray(future, np.intp), (m, len(future))),
                              np.full((m, 1), rowsets.n_columns)], axis=1)
    S, T = _root_states(rowsets, ids, columns)
    for _ in range(d):
        S, T = _sweep_first(S, T)
    return S, T


def _direct_mse(rowsets: _RowSets, positions: np.ndarray, ids: np.ndarray | None = None):
    """(CV MSE, row-set ids) of arbitrary subsets (m, k) of pool positions, each fitted from scratch."""
    positions = np.asarray(positions, np.intp)
    ids = rowsets.ids(positions) if ids is None else ids
    by_row_set = np.argsort(ids, kind="stable")
    mse = np.empty(len(positions))
    step = max(1, 4 * _CHUNK_ELEMENTS // (rowsets.n_splits * (positions.shape[1] + 1) ** 2))
    for lo in range(0, len(positions), step):
        part = by_row_set[lo:lo + step]
        columns = np.column_stack([positions[part], np.full(len(part), rowsets.n_columns)])
        S, T = _root_states(rowsets, ids[part], columns)
        mse[part] = np.einsum("nf,nf->n", _held_out_sse(S, T), rowsets.weights[ids[part]])
    return mse, ids


def _direct_into(rowsets: _RowSets, out: SubsetScores, slots: np.ndarray, ids: np.ndarray) -> None:
    """Recompute the given output slots (row sets ``ids``) with ``_direct_mse``."""
    out.cv_mse[slots], _ = _direct_mse(rowsets, out.subsets[slots], ids)
    out.n_rows[slots] = rowsets.n_rows[ids]


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


def _nodes(stack: _Stack, chosen: np.ndarray) -> _Stack:
    """The chosen nodes of a stack: a view when they are a contiguous run, else a copy."""
    if len(chosen) and chosen[-1] - chosen[0] == len(chosen) - 1:
        chosen = slice(chosen[0], chosen[-1] + 1)
    return _Stack(stack.start, stack.S[:, :, chosen], stack.T[:, :, chosen], stack.prefixes[chosen],
                  stack.ids[chosen])


def _with(prefixes: np.ndarray, a: int) -> np.ndarray:
    return np.column_stack([prefixes, np.full(len(prefixes), a)])


def _before_sweeping(stacks: list[_Stack], a: int, rowsets: _RowSets) -> list[tuple[_Stack, np.ndarray]]:
    """Every node of ``stacks`` (start <= a) extended by column a, before a is swept.

    Returns (stack, nodes) parts: a stack restricted to columns a..n-1 (start
    a, prefixes including a) and which of its nodes take part. A node whose
    row set is complete in column a keeps its state (a view); a node for
    which a lacks rows moves to a smaller row set, with other folds, so its
    state is rebuilt from that row set's tables ("fresh", the last part).
    """
    parts, lost = [], []
    for stack in stacks:
        if stack.start > a:
            continue
        j = a - stack.start
        before_a = np.all(stack.prefixes < a, axis=1)                  # nodes that may add column a
        keeps_rows = rowsets.compatible[stack.ids, a]
        parts.append((_Stack(a, stack.S[j:, j:], stack.T[j:, j:], _with(stack.prefixes, a), stack.ids),
                      np.flatnonzero(before_a & keeps_rows)))
        lost.append((stack.prefixes[before_a & ~keeps_rows], stack.ids[before_a & ~keeps_rows]))
    swept = np.concatenate([prefixes for prefixes, _ in lost])
    if len(swept):
        ids = rowsets.narrow(np.concatenate([ids for _, ids in lost]), a)
        S, T = _fresh_states(rowsets, ids, swept, range(a, rowsets.n_columns))
        parts.append((_Stack(a, S, T, _with(swept, a), ids), np.arange(len(ids))))
    return [(stack, nodes) for stack, nodes in parts if len(nodes)]


def _bucketed(stacks: list[_Stack], min_nodes: int) -> list[_Stack]:
    """Consecutive stacks (sorted by start) copied into shared arrays of at least ``min_nodes`` nodes.

    A bucket's states cover the columns from its first stack's start; the
    extra leading columns of later stacks' nodes are never read (a node only
    takes columns after its last game). The last tree level can then read
    the nodes of many stacks as one array instead of joining them.
    """
    buckets, group = [], []
    for stack in stacks:
        group.append(stack)
        if sum(len(g.ids) for g in group) >= min_nodes or stack is stacks[-1]:
            first = group[0]
            S = np.zeros(first.S.shape[:2] + (sum(len(g.ids) for g in group), first.S.shape[3]))
            T = np.zeros_like(S)
            filled = 0
            for g in group:
                j, nodes = g.start - first.start, slice(filled, filled + len(g.ids))
                S[j:, j:, nodes], T[j:, j:, nodes] = g.S, g.T
                filled = nodes.stop
            buckets.append(_Stack(first.start, S, T, np.concatenate([g.prefixes for g in group]),
                                  np.concatenate([g.ids for g in group])))
            group = []
    return buckets


def _extend(stacks: list[_Stack], a: int, rowsets: _RowSets) -> _Stack:
    """All nodes of ``stacks`` extended by column a, swept and merged into one stack (start a+1)."""
    parts = [_nodes(stack, nodes) for stack, nodes in _before_sweeping(stacks, a, rowsets)]
    count, size = sum(len(part.ids) for part in parts), rowsets.n_columns - a     # columns a+1..n-1 and y
    S = np.empty((size, size, count, rowsets.n_splits))
    T = np.empty_like(S)
    first = 0
    for part in parts:                                 # sweep each part straight into its slice
        chosen = slice(first, first + len(part.ids))
        _sweep_first(part.S, part.T, out=(S[:, :, chosen], T[:, :, chosen]))
        first = chosen.stop
    return _Stack(a + 1, S, T, np.concatenate([p.prefixes for p in parts]), np.concatenate([p.ids for p in parts]))


class _Joined:
    """Arrays (c, c, nodes_i, folds) seen as one along the node axis, joined only where read.

    The pair step reads each state row by row; joining those rows just
    before use copies half of each state (the part it reads) while it is in
    cache, instead of merging whole states up front.
    """

    def __init__(self, parts: list[np.ndarray]):
        self.parts = parts

    @property
    def shape(self) -> tuple[int, ...]:
        first = self.parts[0]
        return first.shape[:2] + (sum(part.shape[2] for part in self.parts),) + first.shape[3:]

    def __getitem__(self, key):
        if all(isinstance(k, slice) for k in (key if isinstance(key, tuple) else (key,))):
            return _Joined([part[key] for part in self.parts])          # slicing columns stays lazy
        return np.concatenate([part[key] for part in self.parts], axis=-2)


def _gather(pieces: list[tuple[_Stack, np.ndarray]]) -> _Stack:
    """One stack of the given nodes of the given stacks (no copy of states unless nodes are scattered)."""
    pieces = [_nodes(stack, nodes) for stack, nodes in pieces]
    if len(pieces) == 1:
        return pieces[0]
    return _Stack(pieces[0].start, _Joined([piece.S for piece in pieces]), _Joined([piece.T for piece in pieces]),
                  np.concatenate([piece.prefixes for piece in pieces]), np.concatenate([piece.ids for piece in pieces]))


def _in_batches(parts: list[tuple[_Stack, np.ndarray]], size: int) -> Iterable[_Stack]:
    """The chosen nodes of ``parts`` in batches of about ``size`` (big parts sliced, small ones merged)."""
    batch, count = [], 0
    for stack, nodes in parts:
        for lo in range(0, len(nodes), size):
            batch.append((stack, nodes[lo:lo + size]))
            count += len(batch[-1][1])
            if count >= size:
                yield _gather(batch)
                batch, count = [], 0
    if batch:
        yield _gather(batch)


def _write_pairs(batch: _Stack, pivot: bool, rowsets: _RowSets, out: SubsetScores,
                 offset: int) -> tuple[int, list[tuple[np.ndarray, np.ndarray]]]:
    """Store the CV MSE of every subset prefix + (start+a, start+b), a < b, of a batch of nodes.

    Pairs with a game that lacks rows of the prefix's row set get NaN here;
    their output slots and row sets are returned for ``_direct_mse``, with
    the new offset.
    """
    c = batch.S.shape[0] - 1 - pivot
    depth = batch.prefixes.shape[1]
    compatible = rowsets.compatible[batch.ids][:, batch.start:batch.start + c].T        # (c, nodes)
    redo = []
    for a, mse in enumerate(_pair_mse(batch.S, batch.T, rowsets.weights[batch.ids], pivot)):
        rows = slice(offset, offset + mse.size)
        subsets = out.subsets[rows].reshape(mse.shape + (depth + 2,))
        subsets[..., :depth] = batch.prefixes
        subsets[..., depth] = batch.start + a
        subsets[..., depth + 1] = batch.start + np.arange(a + 1, c)[:, None]
        valid = compatible[a] & compatible[a + 1:]
        out.cv_mse[rows] = np.where(valid, mse, np.nan).ravel()
        out.n_rows[rows] = np.broadcast_to(rowsets.n_rows[batch.ids], mse.shape).ravel()
        if not valid.all():
            lacking = np.nonzero(~valid)                                 # (b - a - 1, node) of each
            ids = rowsets.narrow(rowsets.narrow(batch.ids[lacking[1]], batch.start + a),
                                 batch.start + a + 1 + lacking[0])
            redo.append((offset + np.flatnonzero(~valid.ravel()), ids))
        offset += mse.size
    return offset, redo


def _last_level(upper: list[_Stack], a: int, rowsets: _RowSets, out: SubsetScores, offset: int,
                count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every subset whose games before the last two are a node of ``upper`` plus a: ``count`` of them,
    written from ``offset`` on. Returns ``_write_pairs``'s (slots, row sets) to redo directly.

    The sweep of a is folded into the pair step (``_pair_mse(..., pivot=True)``), so
    these nodes' states are never stored.
    """
    c = rowsets.n_columns - a - 1
    size = max(1, _CHUNK_ELEMENTS // (c * rowsets.n_splits))
    redo, end = [], offset + count
    for batch in _in_batches(_before_sweeping(upper, a, rowsets), size):
        batch = batch._replace(start=a + 1)
        offset, more = _write_pairs(batch, True, rowsets, out, offset)
        redo += more
    if offset != end:                       # would overwrite another task's slots
        raise AssertionError(f"column {a}: wrote {offset - end + count} subsets, expected {count}")
    return redo


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
    (default: up to 2); the results do not depend on it.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    order = np.array(_search_order(X, y, pool, always), np.intp)
    n = len(order)
    if not 1 <= k <= n:
        raise ValueError(f"cannot choose {k} of {n} games")
    rowsets = _RowSets(X, y, always, order, n_splits, seed)
    total = math.comb(n, k)
    out = SubsetScores(np.empty((total, k), np.int16), np.empty(total), np.empty(total, np.int32))
    root_id = rowsets.ids(np.empty((1, 0), np.intp))
    root = _Stack(0, rowsets.S_roots[root_id[0]][:, :, None], rowsets.T_roots[root_id[0]][:, :, None],
                  np.empty((1, 0), np.intp), root_id)
    # threads pay off only on big searches (numpy releases the GIL, but small calls contend for it)
    threads = n_threads or (min(2, os.cpu_count() or 1) if total >= _THREADED_FROM else 1)
    redo = []
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as executor:
        if k == 1:
            out.subsets[:, 0] = np.arange(n)
            redo.append((np.arange(n), rowsets.narrow(np.repeat(root_id, n), np.arange(n))))
        elif k == 2:
            redo += _quietly(_write_pairs)(root, False, rowsets, out, 0)[1]
        else:
            # nodes holding 1..k-3 games, one stack per start: at depth d the newest game a
            # must leave k-d games after it, and stacks of start <= a give children to start a+1
            upper = [root]
            for depth in range(1, k - 2):
                levels = _each(executor, _extend, [(upper, a, rowsets) for a in range(depth - 1, n - (k - depth))])
                upper = sorted((stack for _, stack in levels), key=lambda stack: stack.start)
            upper = _bucketed(upper, _BUCKET_NODES)
            # the last level, one task per newest game a, each writing its own slice of ``out``
            starts = range(k - 3, n - 2)
            sizes = {a: math.comb(a, k - 3) * math.comb(n - a - 1, 2) for a in starts}
            offsets = dict(zip(starts, np.cumsum([0] + [sizes[a] for a in starts][:-1]).tolist()))
            tasks = [(upper, a, rowsets, out, offsets[a], sizes[a]) for a in sorted(starts, key=lambda a: -sizes[a])]
            done = 0
            for args, more in _each(executor, _last_level, tasks):
                redo += more
                done += sizes[args[1]]
                if progress is not None:
                    progress(done, total)
            del upper, tasks                                   # free the tree before the direct fits
        if redo:   # subsets whose last games change the row set: fitted directly, in parallel pieces
            slots = np.concatenate([slots for slots, _ in redo])
            ids = np.concatenate([ids for _, ids in redo])
            pieces = [(rowsets, out, slots[part], ids[part]) for part in np.array_split(np.arange(len(ids)), threads)]
            for _ in _each(executor, _direct_into, pieces):
                pass
    if progress is not None and k < 3:
        progress(total, total)
    return out._replace(subsets=order.astype(out.subsets.dtype)[out.subsets])


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
