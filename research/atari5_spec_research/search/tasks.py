"""Cutting an exhaustive search into independent tasks by prefix of the subset tree.

Every k-subset, its games listed in the search order (``_search_order``),
starts with exactly one prefix of ``depth`` games. The subsets starting with
prefix P are the (k - depth)-subsets of the games after P's last game, each
fitted together with P: a search of its own, with P among the "always"
games (its row set and folds are those of the whole subset, as they must
be). A task is a run of consecutive prefixes; it returns its ``keep`` best
subsets (``topn``), so its memory is bounded by its largest prefix, not by
the whole search.

The depth is chosen from (number of games, k) alone, never from the
machine or the scheduler, so a search gives the same numbers wherever its
tasks run: each task's result depends only on the data and its prefixes,
and ``merge_top`` does not depend on the order results come back in.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, NamedTuple, Sequence

import numpy as np

from atari5_spec.method.fitting import N_SPLITS, SEED
from atari5_spec_research.search.exhaustive import SubsetScores, _search_order, evaluate_all_subsets
from atari5_spec_research.search.topn import TopSubsets, empty_top, merge_top, top_of

Progress = Callable[[int, int], None]

# A prefix's search holds every one of its subsets in memory (about 30 bytes
# each for k = 5) besides its tree levels: prefixes are made long enough that
# none has more subsets than this. The paper's Atari-5 search (3,819,816
# subsets) stays one task, run exactly as before.
TASK_SUBSETS = 4_000_000
# Consecutive prefixes are grouped into tasks of at least this many subsets:
# enough tasks for the workers to share the work evenly (K=6: 18, K=7: 160),
# few enough that scheduling them costs nothing.
GROUP_SUBSETS = 1_000_000
# Games chosen inside one prefix's search at most: its tree stores k - 3
# levels of states, and a third stored level would cost C(n, 3) nodes of
# n x n x folds each (gigabytes for 56 games).
MAX_GAMES_PER_TASK = 5
# Subsets kept by default: far more than the selection ever needs (it walks
# up the ranking to the first admissible subset, then takes near ties).
KEEP = 1024
# Partial results are merged every this many prefixes, so that a task of
# many small prefixes keeps at most this many top lists at once.
_MERGE_EVERY = 64


class SearchProblem(NamedTuple):
    """One exhaustive search: every k-subset of ``order``, each fitted together with ``always``."""

    X: np.ndarray              # (algorithms, games) with NaN for missing scores
    y: np.ndarray              # (algorithms,)
    order: tuple[int, ...]     # the pool's columns in search order
    k: int
    always: tuple[int, ...]
    n_splits: int
    seed: int
    keep: int


class SearchTask(NamedTuple):
    """Every subset of a problem that starts with one of ``prefixes`` (positions in the search order)."""

    prefixes: np.ndarray       # (prefixes, depth)
    n_subsets: int


def make_problem(X: np.ndarray, y: np.ndarray, pool: Sequence[int], k: int, always: Sequence[int] = (),
                 n_splits: int = N_SPLITS, seed: int = SEED, keep: int = KEEP) -> SearchProblem:
    X, y = np.asarray(X, float), np.asarray(y, float)
    order = tuple(_search_order(X, y, list(pool), list(always)))
    if not 1 <= k <= len(order):
        raise ValueError(f"cannot choose {k} of {len(order)} games")
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    return SearchProblem(X, y, order, int(k), tuple(int(a) for a in always), n_splits, seed, int(keep))


def prefix_depth(n: int, k: int, task_subsets: int = TASK_SUBSETS) -> int:
    """The shortest prefix length whose biggest prefix search fits the bounds (``TASK_SUBSETS``, ...)."""
    for depth in range(k):
        if k - depth <= MAX_GAMES_PER_TASK and math.comb(n - depth, k - depth) <= task_subsets:
            return depth
    return k - 1


def plan_tasks(problem: SearchProblem, depth: int | None = None,
               group_subsets: int = GROUP_SUBSETS) -> list[SearchTask]:
    """The problem's tasks: prefixes of ``depth`` games (default ``prefix_depth``), in lexicographic order,
    consecutive ones grouped until a task has ``group_subsets`` subsets (a bigger prefix is a task alone)."""
    n, k = len(problem.order), problem.k
    depth = prefix_depth(n, k) if depth is None else depth
    if not 0 <= depth < k:
        raise ValueError(f"prefix depth must be in 0..{k - 1}, got {depth}")
    # a prefix must leave k - depth games after its last one
    combinations = list(itertools.combinations(range(n - (k - depth)), depth))
    prefixes = np.array(combinations, np.intp).reshape(len(combinations), depth)
    last = prefixes[:, -1] if depth else np.full(len(prefixes), -1)
    sizes = np.array([math.comb(n - 1 - int(p), k - depth) for p in last], dtype=np.int64)
    tasks, start, count = [], 0, 0
    for i, size in enumerate(sizes.tolist()):
        count += size
        if count >= group_subsets or i == len(sizes) - 1:
            tasks.append(SearchTask(prefixes[start:i + 1], count))
            start, count = i + 1, 0
    return tasks


def prefix_scores(problem: SearchProblem, prefix: Sequence[int], progress: Progress | None = None,
                  n_threads: int | None = None) -> SubsetScores:
    """Fast CV MSE of every subset that starts with ``prefix`` (positions in the search order)."""
    order = np.asarray(problem.order, np.intp)
    columns = order[list(prefix)]
    rest = order[(prefix[-1] + 1 if len(prefix) else 0):]
    scores = evaluate_all_subsets(problem.X, problem.y, rest, problem.k - len(prefix),
                                  problem.always + tuple(columns.tolist()), problem.n_splits, problem.seed,
                                  progress, n_threads)
    if not len(prefix):
        return scores
    head = np.broadcast_to(columns.astype(scores.subsets.dtype), (len(scores.cv_mse), len(columns)))
    return scores._replace(subsets=np.concatenate([head, scores.subsets], axis=1))


def run_task(problem: SearchProblem, task: SearchTask, n_threads: int | None = 1,
             progress: Progress | None = None) -> TopSubsets:
    """The ``keep`` best subsets of one task (a pure function of its arguments, so any worker may run it).

    ``progress(done, task.n_subsets)`` is called as prefixes finish.
    """
    tops, done = [empty_top(problem.k)], 0
    for prefix in task.prefixes.tolist():
        def report(count, _, done=done):
            if progress is not None:
                progress(done + count, task.n_subsets)
        scores = prefix_scores(problem, prefix, report, n_threads)
        done += len(scores.cv_mse)
        tops.append(top_of(scores, problem.keep))
        del scores                                      # before the next prefix's search allocates its own
        if len(tops) >= _MERGE_EVERY:
            tops = [merge_top(tops, problem.keep)]
    return merge_top(tops, problem.keep)
