"""The prefix tree's storage: stacks of nodes, level buckets, and batches of nodes for the pair step."""

from __future__ import annotations

import math
from typing import Iterable, NamedTuple

import numpy as np

from atari5_spec_research.search.kernels import _sweep_first
from atari5_spec_research.search.rowsets import _CHUNK_ELEMENTS, _fresh_states, _RowSets


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
        runs.append(_Stack(a, bucket.S[j:, j:, :before], _part(bucket.T, np.s_[j:, j:, :before]),
                           bucket.prefixes[:before], bucket.ids[:before]))
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
            _store(into, nodes, *_sweep_first(run.S[:, :, lo:lo + step], _part(run.T, np.s_[:, :, lo:lo + step])))
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
            _store(into, lacking[nodes], S, T)
        into.ids[lacking] = ids


def _part(T: np.ndarray | None, key) -> np.ndarray | None:
    """``T[key]``, None for a T not carried (see ``_Stack``)."""
    return None if T is None else T[key]


def _store(into: _Stack, nodes: slice | np.ndarray, S: np.ndarray, T: np.ndarray | None) -> None:
    """Write states S, T as the given nodes of ``into``."""
    into.S[:, :, nodes] = S
    if T is not None:
        into.T[:, :, nodes] = T


def _buckets(games: range, depth: int, n: int, folds: int, min_nodes: int,
             tests: bool = True) -> dict[int, tuple[_Stack, slice]]:
    """Preallocated storage for tree level ``depth`` (>= 1): for each newest game a, (bucket, its nodes).

    Level ``depth`` has C(a, depth-1) nodes ending with game a (every prefix
    is a node). Consecutive games share a bucket until it holds
    ``min_nodes``; a bucket's states cover the columns from its first
    game's start, so a later game's nodes leave the leading corner of their
    slice unused: it is never read (a node only takes columns after its last
    game), hence left uninitialised. Without ``tests`` the states carry no T.
    """
    placement, group = {}, []
    for a in games:
        group.append(a)
        if sum(math.comb(g, depth - 1) for g in group) >= min_nodes or a == games[-1]:
            count, size = sum(math.comb(g, depth - 1) for g in group), n - group[0]
            bucket = _Stack(group[0] + 1, np.empty((size, size, count, folds)),
                            np.empty((size, size, count, folds)) if tests else None,
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
    return _Stack(a + 1, bucket.S[j:, j:, nodes], _part(bucket.T, np.s_[j:, j:, nodes]), bucket.prefixes[nodes],
                  bucket.ids[nodes])


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
        return _Stack(stack.start, stack.S[:, :, nodes], _part(stack.T, np.s_[:, :, nodes]), prefixes, ids)
    return _Stack(stack.start, _Joined([(stack.S, nodes) for stack, nodes in pieces]),
                  None if stack.T is None else _Joined([(stack.T, nodes) for stack, nodes in pieces]), prefixes, ids)


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
