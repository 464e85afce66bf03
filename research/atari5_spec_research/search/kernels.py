"""The linear algebra of the search: sweeps, the pair step, and a direct solve.

See the package docstring (``atari5_spec_research.search``) for how a CV fold is
computed by sweeps; every function here works on numpy arrays of cross
products with trailing batch axes (nodes, folds).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np


def _sweep_first(S: np.ndarray, T: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Regress every other column on the first (train rows) and keep the residual columns.

    S, T: (c+1, c+1, ...) train / test cross products of [x_0, ..., x_{c-1}, y]
    with any trailing batch axes (nodes, folds). With a_j = S[0, j] / S[0, 0],
    the residual columns x_j - a_j x_0 have train cross products
    S_jl - S_0j S_0l / S_00 and test cross products
    T_jl - a_j T_0l - a_l T_0j + a_j a_l T_00. Returns the new (c, c, ...) pair.
    T None: the test rows are the train rows (an RSS pass), T is S and not carried.
    """
    _, a, u = _first_sweep(S, T)
    S_new = S[0, 1:][:, None] * a[None, :]
    np.subtract(S[1:, 1:], S_new, out=S_new)
    if T is None:
        return S_new, None
    au = a[:, None] * u[None, :]
    T_new = T[1:, 1:] - au
    T_new -= np.swapaxes(au, 0, 1)
    return S_new, T_new


def _first_sweep(S: np.ndarray, T: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The sweep of the first column as vectors over the others: x = S[0, 1:], p = x / S[0, 0] and
    u = T[0, 1:] - T[0, 0] p / 2 (None without T), so that it subtracts x_j p_l from S_jl and
    p_j u_l + u_j p_l from T_jl (the three T terms of ``_sweep_first``)."""
    x = S[0, 1:]
    p = x / S[0, 0]
    return x, p, None if T is None else T[0, 1:] - 0.5 * T[0, 0] * p


def _sweep_rows(rows_S: np.ndarray, rows_T: np.ndarray | None) -> list[tuple]:
    """Sweep d columns out of their own d rows, one after another, in place; returns each sweep's vectors.

    rows_S[i] (and rows_T[i], None when T is not carried) is the row of the i-th column, which is entry i of
    every row. With x_i that row after the first i - 1 sweeps, p_i = x_i / x_i[i] and u_i as in
    ``_first_sweep``, the d sweeps subtract sum_i x_i p_i' from S and sum_i (p_i u_i' + u_i p_i') from T:
    the rest of the matrices is then a rank-d update. Returns [(x_i, p_i, u_i)] (u_i None without T).
    """
    vectors = []
    for i in range(len(rows_S)):
        x = rows_S[i]
        p = x / x[i]
        u = None if rows_T is None else rows_T[i] - 0.5 * rows_T[i][i] * p
        for later in range(i + 1, len(rows_S)):
            rows_S[later] -= x[later] * p
            if u is not None:
                rows_T[later] -= p[later] * u + u[later] * p
        vectors.append((x, p, u))
    return vectors


def _sweep_leading(S: np.ndarray, T: np.ndarray | None, d: int) -> tuple[np.ndarray, np.ndarray | None]:
    """``_sweep_first`` d times (the first d columns swept out), as a rank-d update: the same numbers to rounding.

    S, T: (c+1, c+1, folds) (T None: not carried). The d leading rows are swept one after another
    (``_sweep_rows``), the rest is two products per fold,
        S_new = S_rest - X'P,   T_new = T_rest - [P U]'[U P]    (X, P, U: the d vectors as rows),
    at a third of the cost of d full sweeps (the always games of a row set's root).
    """
    vectors = np.empty((2 if T is None else 3, d) + S.shape[1:])                 # x_i, p_i (, u_i)
    for i, (x, p, u) in enumerate(_sweep_rows(S[:d].copy(), None if T is None else T[:d].copy())):
        vectors[:, i] = (x, p) if u is None else (x, p, u)
    x, p = np.moveaxis(vectors[:2, :, d:], -1, 1)                                # each (folds, d, c+1-d)
    S_new = np.empty(S[d:, d:].shape)
    np.subtract(S[d:, d:], np.moveaxis(np.swapaxes(x, 1, 2) @ p, 0, -1), out=S_new)
    if T is None:
        return S_new, None
    u = np.moveaxis(vectors[2, :, d:], -1, 0)
    T_new = np.empty(T[d:, d:].shape)
    pu = np.concatenate([p, u], axis=1)
    up = np.concatenate([u, p], axis=1)
    np.subtract(T[d:, d:], np.moveaxis(np.swapaxes(pu, 1, 2) @ up, 0, -1), out=T_new)
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
    temporaries it runs about 1.4 times slower). T None: the test rows are
    the train rows, see ``_pair_rss``.
    """
    if T is None:
        yield from _pair_rss(S, weights, pivot)
        return
    if pivot:   # as _sweep_first: x_j -> x_j - p_j x_pivot
        x, p, u = _first_sweep(S, T)
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


def _pair_rss(S: np.ndarray, weights: np.ndarray, pivot: bool) -> Iterable[np.ndarray]:
    """``_pair_mse`` of an RSS pass (test rows = train rows, so T is S): each pair's weighted in-sample RSS.

    The same sweeps of a, then b, on S alone: with s_yy = S_yy - alpha_y S_ay,
      RSS = s_yy - beta s_by,   beta = s_by / s_bb,
    which is t_yy - beta (2 t_by - beta t_bb) with t = s: half the arithmetic
    of the general step, which would sweep and pair a copy of S as T.
    """
    if pivot:
        x, p, _ = _first_sweep(S, None)
        S = S[1:, 1:]
    c = S.shape[0] - 1
    i = np.arange(c)
    S_d, S_y, S_yy = S[i, i], S[:c, c], S[c, c]
    if pivot:
        S_d, S_y, S_yy = S_d - x[:c] * p[:c], S_y - x[:c] * p[c], S_yy - x[c] * p[c]
    inverse_d = 1.0 / S_d
    work = np.empty((2, c - 1) + S_d.shape[1:])
    for a in range(c - 1):
        b = slice(a + 1, c)
        s_ab, v = work[:, :c - a - 1]
        if pivot:
            np.multiply(p[b], x[a], out=s_ab)
            np.subtract(S[a, b], s_ab, out=s_ab)                    # s_ab = S_ab
        else:
            s_ab[...] = S[a, b]
        alpha_y = S_y[a] * inverse_d[a]
        s_yy = S_yy - alpha_y * S_y[a]
        np.multiply(s_ab, inverse_d[a], out=v)                      # alpha
        v *= s_ab
        np.subtract(S_d[b], v, out=v)                               # v = s_bb
        s_ab *= alpha_y
        np.subtract(S_y[b], s_ab, out=s_ab)                         # s_ab = s_by
        np.divide(s_ab, v, out=v)                                   # v = beta
        v *= s_ab
        np.subtract(s_yy, v, out=v)                                 # v = RSS
        yield np.einsum("bnf,nf->bn", v, weights)


def _held_out_sse(S, T) -> np.ndarray:
    """Held-out SSE of each state (k+1, k+1, ...) over [x_1, ..., x_k, y], with nothing swept yet.

    Same number as sweeping all k columns, with half the arithmetic: beta
    solves S_xx beta = S_xy through the Cholesky factor S_xx = L L', and the
    test residual y - X beta has squared norm T_yy - 2 beta'T_xy + beta'T_xx beta.
    Only entries (r, j) with r >= j of S and r <= j of T are read, so
    ``_Triangle`` states work too. T None (test rows = train rows): the
    in-sample RSS, S_yy - |z|^2 with L z = S_xy, as beta is not needed.
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
    if T is None:
        return S[k, k] - sum(z_r * z_r for z_r in z)
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
