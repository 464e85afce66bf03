"""Row sets: everything that depends on which rows a subset is fitted on.

A subset is fitted on its complete rows, with KFold over exactly those rows;
``RowSets`` builds each distinct row set's fold tables once, and the
functions below rebuild tree states or finish subsets on a smaller row set.
"""

from __future__ import annotations

import functools
import threading
from typing import Sequence

import numpy as np

from atari5_spec.method.fitting import kfold_test_folds
from atari5_spec_research.search.kernels import _held_out_sse, _sweep_leading, _sweep_rows, _Triangle, _upper_pairs

# Arrays processed in one numpy call are kept around this many elements so
# that the working set stays in the CPU cache.
_CHUNK_ELEMENTS = 1 << 17


class _RowSets:
    """The distinct sets of complete rows met in a search, each with its fold tables.

    Columns are numbered by position in ``pool`` (the search order); the
    root state of row set i is ``S_roots[i], T_roots[i]``, of shape
    (n+1, n+1, folds) over [pool..., y], built from that row set's KFold
    split, with the always games already swept out. NaNs are zero-filled: a
    column is only used with row sets on which it is complete
    (``compatible[i]``). Tables are added on first use, all those met by one
    call together (``_add``); arrays are only appended to or replaced, so
    worker threads may read them while another adds. Where the test rows are
    the train rows (``_BoundRowSets``) T would be S: ``T_roots`` holds None,
    and so does every state's T derived from them.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, always: Sequence[int], pool: Sequence[int],
                 n_splits: int, seed: int):
        always, pool = list(always), list(pool)
        self.pool = np.array(pool, np.intp)                      # column of X of each pool position
        self.n_splits, self.seed, self.n_always = n_splits, seed, len(always)
        self.n_columns = len(pool)
        self.base = ~np.isnan(y) & ~np.isnan(X[:, always]).any(axis=1)
        self.present = ~np.isnan(X[:, pool])                      # (rows, n)
        self.Z = np.nan_to_num(np.column_stack([X[:, always], X[:, pool], y]))
        self.ids_by_mask: dict[bytes, int] = {}
        self.masks = np.empty((0, len(self.Z)), bool)
        self._narrowed = np.empty((0, self.n_columns), np.intp)    # row set x column -> row set, -1: unknown
        self.S_roots: list[np.ndarray] = []                      # per row set, (n+1, n+1, folds)
        self.T_roots: list[np.ndarray | None] = []
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
        counts = masks.sum(axis=1)
        S, T, grams, weights = self._tables(masks, counts)
        for i in range(len(masks)):
            T_i = None if T is None else T[i]
            S_root, T_root = _sweep_leading(S[i], T_i, self.n_always) if self.n_always else (S[i], T_i)
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

    def _tables(self, masks: np.ndarray, counts: np.ndarray):
        """(S, T, grams, weights) of new row sets: (m, q, q, folds) train / test cross products of each fold,
        (m, q, q) all-rows Z'Z, (m, folds) 1 / (folds * test rows); NaN states below ``n_splits`` rows."""
        m, (folds, q) = len(masks), (self.n_splits, self.Z.shape[1])
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
        return S, T, grams, weights


class _BoundRowSets(_RowSets):
    """Row sets whose one "fold" trains and tests on every row: a lower bound of each subset's CV MSE.

    Swept through the same tree, a subset's "held-out" SSE is then its
    in-sample residual sum of squares RSS on its complete rows. For OLS, the
    residuals of fold k's test rows under the fit without them are
    (I - H_kk)^-1 e_k, with e_k the full fit's residuals there and H_kk the
    hat matrix's block (eigenvalues in [0, 1)): never shorter than e_k. So
    each fold's held-out SSE is at least its rows' share of RSS, and with
    at most ceil(n / K) test rows per fold,
        CV MSE = mean over folds of SSE_k / n_k >= RSS / (K ceil(n / K)),
    which is what ``weights`` make of it. Row sets too small for K folds get
    NaN, as in the CV search. T, being S, is not carried (None): the tree
    sweeps and pairs S alone (``kernels._pair_rss``).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, always: Sequence[int], pool: Sequence[int],
                 n_splits: int, seed: int):
        super().__init__(X, y, always, pool, n_splits, seed)
        self.cv_splits, self.n_splits = n_splits, 1           # the fold axis has one entry: all rows
        self.weights = np.empty((0, 1))

    def _tables(self, masks: np.ndarray, counts: np.ndarray):
        grams = np.stack([self.Z[mask].T @ self.Z[mask] for mask in masks])     # (m, q, q)
        S = grams[..., None].copy()                                               # train = test = all rows
        with np.errstate(divide="ignore"):
            weights = (1.0 / (self.cv_splits * -(-counts // self.cv_splits)))[:, None]
        small = counts < self.cv_splits
        S[small] = np.nan
        weights[small] = np.nan
        return S, None, grams, weights


class _LeverageBoundRowSets(_BoundRowSets):
    """Row sets whose one "fold" fits on every row and measures its residuals e with a fold-aware metric N:
    a lower bound of each subset's CV MSE that counts the always games' leverage (tighter than RSS).

    For OLS on a subset's complete rows (always games A plus the subset's games), fold k's held-out
    residuals are r_k = (I - H_kk)^-1 e_k, with e the full fit's residuals and H its hat matrix. H is
    H_A + H_R (R: the subset's games with A regressed out), so H_kk >= (H_A)_kk and, t -> 1 / (1 - t)
    being operator monotone on [0, 1),
        P = (I - H_kk)^-1  >=  M_k = (I - (H_A)_kk)^-1  >=  I.
    Then |r_k|^2 = e_k' P^2 e_k >= (e_k' P e_k)^2 / |e_k|^2 >= e_k' P e_k >= e_k' M_k e_k (Cauchy-Schwarz,
    and e_k' P e_k >= |e_k|^2), so with w_k = 1 / (K n_k)
        CV MSE = sum_k w_k |r_k|^2  >=  e' N e,   N = blockdiag(w_k M_k),
    which the tree computes as a "held-out SSE" with train cross products Z'Z and test cross products Z'NZ.
    M_k depends only on A and the row set, so it is built once per row set. Without always games M_k = I
    and the bound is the residuals' fold-weighted sum of squares, itself at least RSS / (K ceil(n / K)).
    On the Atari-10 stage of the paper's search (46 candidates, Atari-5 kept) it leaves 0.5% of the
    1,370,754 subsets where the RSS bound leaves 8%. A row set with fewer than K rows, or on which
    removing a fold leaves the always games (nearly) singular, gets NaN: its subsets are always
    cross-validated.
    """

    def _tables(self, masks: np.ndarray, counts: np.ndarray):
        grams = np.stack([self.Z[mask].T @ self.Z[mask] for mask in masks])     # (m, q, q)
        S = grams[..., None].copy()                                               # train = all rows
        T = np.full_like(S, np.nan)
        for i, mask in enumerate(masks):
            if counts[i] >= self.cv_splits:
                T[i, ..., 0] = self._metric_products(self.Z[mask], int(counts[i]))
        unusable = np.isnan(T).any(axis=(1, 2, 3))
        S[unusable] = np.nan
        return S, T, grams, np.where(unusable, np.nan, 1.0)[:, None]

    def _metric_products(self, Z: np.ndarray, n_rows: int) -> np.ndarray:
        """Z' N Z for one row set (its rows of Z, in order); NaN when the always games are (nearly) singular
        there or a fold's (H_A)_kk has an eigenvalue within 1e-9 of 1 (the fit without that fold would be).

        With (H_A)_kk = B_k B_k' (B = A V diag(1 / sqrt(values)), from the eigenvectors of A'A), Woodbury's
        identity gives M_k = (I - B_k B_k')^-1 = I + B_k G_k^-1 B_k', G_k = I - B_k'B_k (always x always), so
            Z_k' M_k Z_k = Z_k'Z_k + C_k' G_k^-1 C_k,   C_k = B_k'Z_k,
        and B_k B_k' has the eigenvalues of B_k'B_k (and zeros): all folds at once, in small matrices.
        """
        folds, n_always = self.cv_splits, self.n_always
        fold, _ = _fold_places(n_rows, folds, self.seed)
        weight = 1.0 / (folds * np.bincount(fold, minlength=folds))              # w_k = 1 / (K n_k)
        out = (Z * weight[fold][:, None]).T @ Z                                  # sum_k w_k Z_k'Z_k
        if not n_always:
            return out
        values, vectors = np.linalg.eigh(Z[:, :n_always].T @ Z[:, :n_always])
        if values.min() <= 1e-12 * max(values.max(), 1e-300):
            return np.full_like(out, np.nan)
        B = Z[:, :n_always] @ (vectors / np.sqrt(values))
        B_by_fold = (np.arange(folds)[:, None] == fold)[:, :, None] * B          # (folds, rows, always): B_k
        C = np.matmul(np.swapaxes(B_by_fold, 1, 2), Z)                           # (folds, always, q)
        G = np.eye(n_always) - np.matmul(np.swapaxes(B_by_fold, 1, 2), B)
        if np.linalg.eigvalsh(G).min() <= 1e-9:                                  # a leverage within 1e-9 of 1
            return np.full_like(out, np.nan)
        return out + np.tensordot(C * weight[:, None, None], np.linalg.solve(G, C), axes=([0, 1], [0, 1]))


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
    Only the d rows of P need sweeping one after another (``_sweep_rows``).
    Returns (order, vectors): nodes in order of row set, and the d triples
    (x_i, p_i, u_i) over the columns first..n-1 and y, each (n + 1 - first,
    m, folds) (u_i None when T is not carried). Only the gathers are done per
    row set (nodes sharing one are few).
    """
    n = rowsets.n_columns
    order = np.argsort(ids, kind="stable")
    S_rows, T_rows = [], []
    for lo, hi in _runs(ids[order]):
        nodes = order[lo:hi]
        S_root, T_root = rowsets.S_roots[ids[nodes[0]]], rowsets.T_roots[ids[nodes[0]]]
        P = swept[nodes].T                                                       # (d, nodes)
        columns = np.concatenate([P, np.broadcast_to(np.arange(first, n + 1)[:, None], (n + 1 - first, hi - lo))])
        S_rows.append(S_root[P[:, None, :], columns[None, :, :]])                # (d, d + size, nodes, folds)
        if T_root is not None:
            T_rows.append(T_root[P[:, None, :], columns[None, :, :]])
    S_rows = np.concatenate(S_rows, axis=2)
    T_rows = np.concatenate(T_rows, axis=2) if T_rows else None
    d = swept.shape[1]
    vectors = [(x[d:], p[d:], None if u is None else u[d:]) for x, p, u in _sweep_rows(S_rows, T_rows)]
    return order, vectors


def _fresh_states(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, first: int) -> list[tuple]:
    """States over [first..n-1, y] after sweeping ``swept`` (m, d), each node on its row set ``ids``.

    Returns (nodes, S, T) blocks, each for some of the m nodes, of shape
    (size, size, nodes, folds) (T None where the roots' is), the root's
    entries broadcast over the nodes of a row set (see ``_swept_rows``).
    The blocks are computed as new contiguous arrays, a few nodes at a time so that the passes over them
    stay in the CPU cache: numpy is much slower writing into a slice of a
    bigger node axis, and assembling the blocks would cost another pass.
    """
    size, d = rowsets.n_columns + 1 - first, swept.shape[1]
    order, vectors = _swept_rows(rowsets, ids, swept, first)
    step = max(1, _CHUNK_ELEMENTS // (size * size * rowsets.n_splits))
    blocks = []
    for run_lo, hi in _runs(ids[order]):
        S_root, T_root = rowsets.S_roots[ids[order[run_lo]]], rowsets.T_roots[ids[order[run_lo]]]
        S_root = S_root[first:, first:, None]
        T_root = None if T_root is None else T_root[first:, first:, None]
        for lo in range(run_lo, hi, step):
            part = slice(lo, min(hi, lo + step))
            if d == 0:
                count = part.stop - part.start
                S = np.repeat(S_root, count, axis=2)
                T = None if T_root is None else np.repeat(T_root, count, axis=2)
            else:
                S, T = _rank_d_update(S_root, T_root, [[None if v is None else v[:, part] for v in swept]
                                                       for swept in vectors])
            blocks.append((order[part], S, T))
    return blocks


def _rank_d_update(S_root: np.ndarray, T_root: np.ndarray | None, vectors: list) -> tuple:
    """New arrays S = S_root - sum_i x_i p_i', T = T_root - sum_i (p_i u_i' + u_i p_i') (None without T), from the
    vectors (x_i, p_i, u_i) of ``_sweep_rows``, each (size, nodes, folds): summed in place, then subtracted."""
    for i, (x, p, u) in enumerate(vectors):
        if i == 0:
            S = x[:, None] * p[None, :]
            T = None if u is None else p[:, None] * u[None, :]
        else:
            S += x[:, None] * p[None, :]
            if T is not None:
                T += p[:, None] * u[None, :]
    np.subtract(S_root, S, out=S)
    if T is not None:
        np.subtract(T_root, T + np.swapaxes(T, 0, 1), out=T)
    return S, T


def _single_mse(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, first: int) -> np.ndarray:
    """CV MSE (n - first, m) of each node (row set ``ids``, swept columns (m, d)) plus one column c >= first.

    The sweeps of ``_swept_rows``, but forming only what a one-column finish
    needs: for each c the swept s_cc, s_cy, t_cc, t_cy, and t_yy. Then
    beta = s_cy / s_cc and the held-out SSE is t_yy - beta (2 t_cy - beta t_cc).
    This costs O(d^2 n) per node, not O(n^2): about half a direct fit per subset.
    Without T (test rows = train rows) it is the RSS s_yy - beta s_cy.
    """
    n, m = rowsets.n_columns, len(ids)
    c = np.arange(first, n)
    order, vectors = _swept_rows(rowsets, ids, swept, first)
    s_cc, s_cy, s_yy = _root_entries(rowsets.S_roots, ids[order], c, rowsets.n_splits)
    for x, p, _ in vectors:
        (x_c, x_y), (p_c, p_y) = (x[:-1], x[-1]), (p[:-1], p[-1])
        s_cc, s_cy, s_yy = s_cc - x_c * p_c, s_cy - x_c * p_y, s_yy - x_y * p_y
    beta = s_cy / s_cc
    if rowsets.T_roots[ids[0]] is None:
        sse = s_yy - beta * s_cy
    else:
        t_cc, t_cy, t_yy = _root_entries(rowsets.T_roots, ids[order], c, rowsets.n_splits)
        for x, p, u in vectors:
            (p_c, p_y), (u_c, u_y) = (p[:-1], p[-1]), (u[:-1], u[-1])
            t_cc, t_cy, t_yy = t_cc - 2 * p_c * u_c, t_cy - (p_c * u_y + u_c * p_y), t_yy - 2 * p_y * u_y
        sse = t_yy - beta * (2 * t_cy - beta * t_cc)
    mse = np.empty((n - first, m))
    mse[:, order] = np.einsum("cnf,nf->cn", sse, rowsets.weights[ids[order]])
    return mse


def _root_entries(roots: list[np.ndarray], ids: np.ndarray, c: np.ndarray, folds: int) -> tuple:
    """(r_cc, r_cy, r_yy) of each node from its row set's root r in ``roots`` (S or T): columns c, y = the last;
    (len(c), m, folds) twice and (m, folds), for the m nodes of row sets ``ids`` (equal ids together)."""
    entries = []
    for lo, hi in _runs(ids):
        root = roots[ids[lo]]
        run = np.concatenate([root[c, c], root[c, -1], root[-1, -1][None]])
        entries.append(np.broadcast_to(run[:, None], (len(run), hi - lo, folds)))
    entries = np.concatenate(entries, axis=1)
    return entries[:len(c)], entries[len(c):-1], entries[-1]


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
        S, T = _Triangle(_entries_of(rowsets.S_roots, part_ids, flat, folds), size), None
        if rowsets.T_roots[part_ids[0]] is not None:                             # else an RSS pass: T is S
            T = _Triangle(_entries_of(rowsets.T_roots, part_ids, flat, folds), size)
        sse = _held_out_sse(S, T)
        mse[part] = np.einsum("nf,nf->n", sse, rowsets.weights[part_ids])
    return mse, ids


def _entries_of(roots: list[np.ndarray], ids: np.ndarray, flat: np.ndarray, folds: int) -> np.ndarray:
    """Entries ``flat`` (entries, m) (flat indices into a root's (q, q)) of each of m subsets' root in ``roots``
    (S or T), its row set ``ids`` (equal ids together): (entries, m, folds)."""
    return np.concatenate([np.take(roots[ids[a]].reshape(-1, folds), flat[:, a:b], axis=0) for a, b in _runs(ids)],
                          axis=1)
