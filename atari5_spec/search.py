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
Subsets are visited as a prefix tree: all subsets starting with games
(g1, g2, g3) share the state after sweeping g1, g2, g3, and the last two
games of every subset are finished together in one vectorised step
(``_pair_mse``). So each five-game subset costs a couple of dozen
arithmetic operations per fold instead of a fresh 5x5 solve.

Missing scores
--------------
A subset is fitted on the rows where all its games (and the "always" games)
have a score, and the KFold assignment is made over exactly those rows. Each
tree node therefore carries the row set of its prefix (``_RowSets`` builds
the fold tables once per distinct row set). Games are visited least-complete
first, so the row set is usually fixed early in the prefix; a child whose
game lacks rows of its parent starts from its own row set's tables
("fresh" node), and the few leaf pairs that would change the row set are
recomputed directly (``_direct_mse``).

Selection
---------
``best_subset`` walks up the CV-MSE ranking until it meets an admissible
model (no negative coefficient), then re-scores every subset within a
relative 1e-6 of it with the exact reference code and picks the smallest
exact CV MSE, ties going to the lexicographically smallest column tuple.
"""

from __future__ import annotations

import math
import os
import threading
from contextlib import nullcontext
from concurrent.futures import ThreadPoolExecutor, as_completed
from collections import OrderedDict, defaultdict
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
# Arrays processed in one numpy call are kept around this many elements so
# that the working set stays in the CPU cache.
_CHUNK_ELEMENTS = 1 << 16


class SubsetScores(NamedTuple):
    """Fast-path results for many subsets (one row each)."""

    subsets: np.ndarray                   # (m, k) column indices into X (see each function for the order)
    cv_mse: np.ndarray                    # (m,) NaN when the fit is impossible (too few rows, singular)
    n_rows: np.ndarray                    # (m,) complete rows of the subset (with the always games)
    coefficients: np.ndarray | None = None  # (m, k + len(always)) full-data fit, always games last
    admissible: np.ndarray | None = None    # (m,) no negative coefficient


# --------------------------------------------------------------------------
# The sweep: the only linear algebra of the fast path.

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


class _PairInputs(NamedTuple):
    """What the pair step reads from a batch of states over [x_0, ..., x_{c-1}, y]."""

    row: Callable[[int], tuple[np.ndarray, np.ndarray]]   # a -> (S[a, a+1:c], T[a, a+1:c])
    S_d: np.ndarray    # (c, ...) diagonal S[i, i]
    S_y: np.ndarray    # (c, ...) S[i, y]
    T_d: np.ndarray
    T_y: np.ndarray
    T_yy: np.ndarray   # (...)


def _state_inputs(S: np.ndarray, T: np.ndarray) -> _PairInputs:
    """Pair-step inputs read straight from states (c+1, c+1, ...)."""
    c = S.shape[0] - 1
    i = np.arange(c)
    return _PairInputs(lambda a: (S[a, a + 1:c], T[a, a + 1:c]), S[i, i], S[:c, c], T[i, i], T[:c, c], T[c, c])


def _pivoted_inputs(S: np.ndarray, T: np.ndarray) -> _PairInputs:
    """Pair-step inputs of the states that ``_sweep_first(S, T)`` would return, without building them.

    Only the diagonal and y column are computed up front; each row is made
    when the pair step asks for it, so it is used while still in cache.
    """
    c = S.shape[0] - 2
    x = S[0, 1:]
    a = x / S[0, 0]
    u = T[0, 1:] - 0.5 * T[0, 0] * a
    i = np.arange(c)

    def row(j):
        rest = slice(j + 1, c)
        return (S[j + 1, j + 2:c + 1] - x[j] * a[rest],
                T[j + 1, j + 2:c + 1] - a[j] * u[rest] - u[j] * a[rest])
    return _PairInputs(row, S[i + 1, i + 1] - x[:c] * a[:c], S[1:c + 1, c + 1] - x[:c] * a[c],
                       T[i + 1, i + 1] - 2 * a[:c] * u[:c], T[1:c + 1, c + 1] - a[:c] * u[c] - u[:c] * a[c],
                       T[c + 1, c + 1] - 2 * a[c] * u[c])


def _pair_mse(inputs: _PairInputs, weights: np.ndarray) -> Iterable[np.ndarray]:
    """CV MSE of adding every pair of columns (a < b) to a batch of nodes: yields one block per a.

    States have axes (columns, columns, nodes, folds); weights (nodes, folds) =
    1 / (folds * test rows). Sweeping a, then b, is written out by hand for
    the entries needed: after a, column b and y have S'_bb, S'_by, T'_bb,
    T'_by, T'_yy; then beta = S'_by / S'_bb and the held-out SSE is
    T'_yy - 2 beta T'_by + beta^2 T'_bb. Block a has shape (c-a-1, nodes)
    for b = a+1..c-1.
    """
    S_d, S_y, T_d, T_y, T_yy = inputs.S_d, inputs.S_y, inputs.T_d, inputs.T_y, inputs.T_yy
    c = len(S_d)
    for a in range(c - 1):
        b = slice(a + 1, c)
        S_ab, T_ab = inputs.row(a)
        alpha = S_ab / S_d[a]                                      # coefficient of x_b on x_a
        alpha_y = S_y[a] / S_d[a]                                  # coefficient of y on x_a
        t_yy = T_yy - alpha_y * (2 * T_y[a] - alpha_y * T_d[a])
        s_bb = S_d[b] - alpha * S_ab
        s_by = S_y[b] - alpha * S_y[a]
        q = T_ab - alpha * T_d[a]
        t_bb = T_d[b] - alpha * (T_ab + q)
        t_by = T_y[b] - alpha * T_y[a] - alpha_y * q
        beta = s_by / s_bb
        sse = t_yy - beta * (2 * t_by - beta * t_bb)
        yield np.einsum("bnf,nf->bn", sse, weights)


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
        q = self.n_columns + 1
        self.S_roots = np.empty((0, q, q, n_splits))
        self.T_roots = np.empty((0, q, q, n_splits))
        self.grams = np.empty((0, q + self.n_always, q + self.n_always))   # all-rows Z'Z, for coefficients
        self.weights = np.empty((0, n_splits))                   # 1 / (folds * test rows)
        self.compatible = np.empty((0, self.n_columns), bool)
        self.n_rows = np.empty(0, np.intp)
        self._count = 0
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

    def _id(self, mask: np.ndarray) -> int:
        key = np.packbits(mask).tobytes()
        if key not in self.ids_by_mask:
            self._add(mask)
            self.ids_by_mask[key] = self._count - 1
        return self.ids_by_mask[key]

    def _add(self, mask: np.ndarray) -> None:
        rows = np.flatnonzero(mask)
        Z = self.Z[rows]
        q = Z.shape[1]
        S = np.full((self.n_splits, q, q), np.nan)
        T = np.full((self.n_splits, q, q), np.nan)
        weights = np.full(self.n_splits, np.nan)                 # too few rows to cross-validate: NaN
        if len(rows) >= self.n_splits:
            for f, test in enumerate(kfold_test_folds(len(rows), self.n_splits, self.seed)):
                train = np.ones(len(rows), bool)
                train[test] = False
                S[f], T[f] = Z[train].T @ Z[train], Z[test].T @ Z[test]
                weights[f] = 1.0 / (self.n_splits * len(test))
        S, T = np.moveaxis(S, 0, -1), np.moveaxis(T, 0, -1)      # folds last: (q, q, folds)
        for _ in range(self.n_always):
            S, T = _sweep_first(S, T)
        i = self._count
        if i == len(self.S_roots):                               # grow by doubling; old arrays stay valid
            self.S_roots, self.T_roots, self.grams = (
                np.concatenate([old, np.empty((max(i, 8),) + old.shape[1:])])
                for old in (self.S_roots, self.T_roots, self.grams))
        self.S_roots[i], self.T_roots[i], self.grams[i] = S, T, Z.T @ Z
        # small per-row-set arrays are replaced, never modified, so readers always see a consistent one
        self.weights = np.vstack([self.weights, weights])
        self.compatible = np.vstack([self.compatible, self.present[rows].all(axis=0)])
        self.n_rows = np.append(self.n_rows, len(rows))
        self._count = i + 1


def _fresh_states(rowsets: _RowSets, ids: np.ndarray, swept: np.ndarray, future: Sequence[int]):
    """States over [future..., y] after sweeping the columns ``swept`` (m, d), each on its own row set."""
    m, d = swept.shape
    columns = np.concatenate([swept, np.broadcast_to(np.asarray(future, np.intp), (m, len(future))),
                              np.full((m, 1), rowsets.n_columns)], axis=1).T        # (size, m)
    rows, cols = columns[:, None, :], columns[None, :, :]
    S, T = rowsets.S_roots[ids, rows, cols], rowsets.T_roots[ids, rows, cols]      # (size, size, m, folds)
    for _ in range(d):
        S, T = _sweep_first(S, T)
    return S, T


def _direct_mse(rowsets: _RowSets, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(CV MSE, row-set ids) of arbitrary subsets (m, k) of pool positions, each fitted from scratch."""
    positions = np.asarray(positions, np.intp)
    ids = rowsets.ids(positions)
    mse = np.empty(len(positions))
    step = max(1, _CHUNK_ELEMENTS * 4 // (rowsets.n_splits * (positions.shape[1] + 1) ** 2))
    for lo in range(0, len(positions), step):
        part = slice(lo, lo + step)
        _, T = _fresh_states(rowsets, ids[part], positions[part], [])
        mse[part] = np.einsum("nf,nf->n", T[0, 0], rowsets.weights[ids[part]])
    return mse, ids


# --------------------------------------------------------------------------
# The prefix tree.

class _Stack(NamedTuple):
    """Tree nodes that have swept the games ``prefixes`` and may still add columns start..n-1."""

    start: int
    S: np.ndarray          # (n-start+1, n-start+1, nodes, folds)
    T: np.ndarray
    prefixes: np.ndarray   # (nodes, depth) pool positions
    ids: np.ndarray        # (nodes,) row set of the prefix


def _nodes(stack: _Stack, chosen) -> _Stack:
    return _Stack(stack.start, stack.S[:, :, chosen], stack.T[:, :, chosen], stack.prefixes[chosen],
                  stack.ids[chosen])


def _merge(parts: list[_Stack]) -> _Stack:
    if len(parts) == 1:
        return parts[0]
    return _Stack(parts[0].start, np.concatenate([p.S for p in parts], axis=2),
                  np.concatenate([p.T for p in parts], axis=2),
                  np.concatenate([p.prefixes for p in parts]), np.concatenate([p.ids for p in parts]))


def _before_sweeping(stacks: list[_Stack], a: int, rowsets: _RowSets) -> list[_Stack]:
    """The states of every node of ``stacks`` (start <= a) restricted to columns a..n-1, on the row set
    of prefix + a: a node whose row set is complete in column a keeps its own state (a view); a node
    for which a lacks rows moves to a smaller row set, with other folds, so its state is rebuilt from
    that row set's tables ("fresh"). Prefixes include a; column a itself is not yet swept (start = a).
    """
    n = rowsets.n_columns
    parts, lost = [], []
    for stack in stacks:
        if stack.start > a:
            continue
        j = a - stack.start
        stack = stack._replace(start=a, S=stack.S[j:, j:], T=stack.T[j:, j:])
        keeps_rows = rowsets.compatible[stack.ids, a]
        if not keeps_rows.all():
            lost.append(stack.prefixes[~keeps_rows])
            stack = _nodes(stack, np.flatnonzero(keeps_rows))
        parts.append(stack)
    if lost:
        swept = np.concatenate(lost)
        ids = rowsets.ids(np.column_stack([swept, np.full(len(swept), a)]))
        S, T = _fresh_states(rowsets, ids, swept, range(a, n))
        parts.append(_Stack(a, S, T, swept, ids))
    return [part._replace(prefixes=np.column_stack([part.prefixes, np.full(len(part.ids), a)]))
            for part in parts if len(part.ids)]


def _extend(stacks: list[_Stack], a: int, rowsets: _RowSets) -> _Stack:
    """All nodes of ``stacks`` extended by column a, swept and merged into one stack (start a+1)."""
    parts = _before_sweeping(stacks, a, rowsets)
    merged = _merge(parts)
    S, T = _sweep_first(merged.S, merged.T)
    return merged._replace(start=a + 1, S=S, T=T)


def _upper_levels(root: _Stack, k: int, rowsets: _RowSets) -> list[_Stack]:
    """All tree nodes holding k-3 games (the root when k <= 3), merged into one stack per start.

    At depth d the newest game a must leave k-d games after it, and every
    stack whose start is <= a contributes children to the stack of start a+1.
    """
    stacks, n = [root], rowsets.n_columns
    for depth in range(1, k - 2):
        stacks = [_extend(stacks, a, rowsets) for a in range(depth - 1, n - (k - depth))]
    return stacks


def _in_batches(parts: list[_Stack], size: int) -> Iterable[_Stack]:
    """The nodes of ``parts`` in batches of about ``size``: big parts sliced (views), small ones merged."""
    batch, count = [], 0
    for part in parts:
        for lo in range(0, len(part.ids), size):
            piece = _nodes(part, slice(lo, lo + size))
            batch.append(piece)
            count += len(piece.ids)
            if count >= size:
                yield _merge(batch)
                batch, count = [], 0
    if batch:
        yield _merge(batch)


def _write_pairs(batch: _Stack, inputs: _PairInputs, rowsets: _RowSets, out: SubsetScores,
                 offset: int) -> tuple[int, list[np.ndarray]]:
    """Store the CV MSE of every subset prefix + (start+a, start+b), a < b, of a batch of nodes.

    Pairs with a game that lacks rows of the prefix's row set get NaN here;
    their output slots are returned for ``_direct_mse``. Returns the new offset.
    """
    c = len(inputs.S_d)
    depth = batch.prefixes.shape[1]
    compatible = rowsets.compatible[batch.ids][:, batch.start:batch.start + c].T        # (c, nodes)
    redo = []
    for a, mse in enumerate(_pair_mse(inputs, rowsets.weights[batch.ids])):
        rows = slice(offset, offset + mse.size)
        subsets = out.subsets[rows].reshape(mse.shape + (depth + 2,))
        subsets[..., :depth] = batch.prefixes
        subsets[..., depth] = batch.start + a
        subsets[..., depth + 1] = batch.start + np.arange(a + 1, c)[:, None]
        valid = compatible[a] & compatible[a + 1:]
        out.cv_mse[rows] = np.where(valid, mse, np.nan).ravel()
        out.n_rows[rows] = np.broadcast_to(rowsets.n_rows[batch.ids], mse.shape).ravel()
        if not valid.all():
            redo.append(offset + np.flatnonzero(~valid.ravel()))
        offset += mse.size
    return offset, redo


def _last_level(upper: list[_Stack], a: int, rowsets: _RowSets, out: SubsetScores,
                offset: int) -> list[np.ndarray]:
    """Every subset whose games before the last two are a node of ``upper`` plus a.

    The sweep of a is folded into the pair step (``_pivoted_inputs``), so
    these nodes' states are never stored.
    """
    c = rowsets.n_columns - a - 1
    size = max(1, _CHUNK_ELEMENTS // (c * rowsets.n_splits))
    redo = []
    for batch in _in_batches(_before_sweeping(upper, a, rowsets), size):
        batch = batch._replace(start=a + 1)
        offset, more = _write_pairs(batch, _pivoted_inputs(batch.S, batch.T), rowsets, out, offset)
        redo += more
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

def evaluate_all_subsets(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int,
                         always: Sequence[int] = (), n_splits: int = N_SPLITS, seed: int = SEED,
                         progress: Progress | None = None, n_threads: int | None = None) -> SubsetScores:
    """CV MSE of every k-subset of ``pool`` (column indices of X), each fitted together with ``always``.

    X: (algorithms, games) with NaN for missing scores; y: (algorithms,).
    Returns all C(len(pool), k) subsets in a fixed order (not sorted), each
    row listing its games in search order; coefficients are not computed
    (see ``evaluate_subsets``). The last tree level runs on ``n_threads``
    threads (default: up to 2); results do not depend on it.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    order = np.array(_search_order(X, y, pool, always), np.intp)
    n = len(order)
    if not 1 <= k <= n:
        raise ValueError(f"cannot choose {k} of {n} games")
    rowsets = _RowSets(X, y, always, order, n_splits, seed)
    total = math.comb(n, k)
    out = SubsetScores(np.empty((total, k), np.int16), np.empty(total), np.empty(total, np.int32))
    redo = []
    if k == 1:
        out.subsets[:, 0] = np.arange(n)
        redo.append(np.arange(n))
    elif k == 2:
        root_id = rowsets.ids(np.empty((1, 0), np.intp))
        root = _Stack(0, np.moveaxis(rowsets.S_roots[root_id], 0, 2), np.moveaxis(rowsets.T_roots[root_id], 0, 2),
                      np.empty((1, 0), np.intp), root_id)
        with np.errstate(divide="ignore", invalid="ignore"):
            _, redo = _write_pairs(root, _state_inputs(root.S, root.T), rowsets, out, 0)
    else:
        root_id = rowsets.ids(np.empty((1, 0), np.intp))
        root = _Stack(0, np.moveaxis(rowsets.S_roots[root_id], 0, 2), np.moveaxis(rowsets.T_roots[root_id], 0, 2),
                      np.empty((1, 0), np.intp), root_id)
        with np.errstate(divide="ignore", invalid="ignore"):
            upper = _upper_levels(root, k, rowsets)

        def task(a: int, offset: int) -> list[np.ndarray]:   # writes its own slice of ``out``
            with np.errstate(divide="ignore", invalid="ignore"):
                return _last_level(upper, a, rowsets, out, offset)

        starts = list(range(k - 3, n - 2))
        sizes = [math.comb(a, k - 3) * math.comb(n - a - 1, 2) for a in starts]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        threads = n_threads or min(2, os.cpu_count() or 1)
        by_size = sorted(range(len(starts)), key=lambda i: -sizes[i])          # big tasks first
        done = 0
        with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as executor:
            if executor is None:
                results = ((task(starts[i], offsets[i]), sizes[i]) for i in by_size)
            else:
                futures = {executor.submit(task, starts[i], offsets[i]): sizes[i] for i in by_size}
                results = ((future.result(), futures[future]) for future in as_completed(futures))
            for more, size in results:
                redo += more
                done += size
                if progress is not None:
                    progress(done, total)
    if redo:
        slots = np.concatenate(redo)
        with np.errstate(divide="ignore", invalid="ignore"):
            mse, ids = _direct_mse(rowsets, out.subsets[slots])
        out.cv_mse[slots], out.n_rows[slots] = mse, rowsets.n_rows[ids]
    return out._replace(subsets=order[out.subsets])


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
    grams = rowsets.grams
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
                n_splits: int = N_SPLITS, seed: int = SEED, progress: Progress | None = None) -> tuple[int, ...]:
    """Column indices (ascending) of the admissible k-subset of ``pool`` with the lowest CV MSE.

    ``always`` games are part of every model (and of the admissibility
    check) but not of the returned tuple.
    """
    X, y = np.asarray(X, float), np.asarray(y, float)
    scores = evaluate_all_subsets(X, y, pool, k, always, n_splits, seed, progress)
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
    # 2. settle near ties (and borderline admissibility) with the exact reference code
    near = np.flatnonzero(mse <= best_fast * (1 + TIE_RTOL))
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
                  progress: Progress | None = None, n_splits: int = N_SPLITS,
                  seed: int = SEED) -> "OrderedDict[str, SubsetModel]":
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
    total = sum(math.comb(size, k) for size, k in [(n, 5), (5, 3), (3, 1), (n - 5, 3), (n - 8, 2), (n - 10, 5)])
    done = 0

    def search(candidates, k, always=()):
        nonlocal done

        def report(count, _):
            if progress is not None:
                progress(done + count, total)
        chosen = best_subset(Xn, yn, candidates, k, always, n_splits, seed, report)
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
