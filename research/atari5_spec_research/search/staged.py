"""The paper's staged search (section 4.3): six nested searches, each a ``best_subset``."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Sequence

import pandas as pd

from atari5_spec.method.fitting import N_SPLITS, SEED, SubsetFit, fit_subset_model
from atari5_spec_research.search.exhaustive import Progress
from atari5_spec_research.search.selection import best_subset, bounded_best, searchable_games

STAGES = ("Atari-5", "Atari-3", "Atari-1", "Atari-3-Val", "Atari-5-Val", "Atari-10")


def staged_search(X: pd.DataFrame, y: pd.Series, excluded: Sequence[str] = ("surround",),
                  progress: Progress | None = None, n_splits: int = N_SPLITS, seed: int = SEED,
                  n_threads: int | None = None, bounded: bool = False,
                  atari5_bounds=None) -> "OrderedDict[str, SubsetFit]":
    """The paper's nested searches (section 4.3), returning the six models in the order of Table 9: the games
    :func:`staged_choice` chooses (the same arguments), each fitted (``fit_subset_model``)."""
    chosen = staged_choice(X, y, excluded, progress, n_splits, seed, n_threads, bounded, atari5_bounds)
    return OrderedDict((name, fit_subset_model(X, y, list(games), n_splits, seed)) for name, games in chosen.items())


def staged_choice(X: pd.DataFrame, y: pd.Series, excluded: Sequence[str] = ("surround",),
                  progress: Progress | None = None, n_splits: int = N_SPLITS, seed: int = SEED,
                  n_threads: int | None = None, bounded: bool = False,
                  atari5_bounds=None) -> "OrderedDict[str, tuple[str, ...]]":
    """The games of the paper's nested searches (section 4.3), subset -> games, in the order of Table 9 (what
    a caller that only compares choices needs: the leave-one-paper-out folds, ``verify``).

    Atari-5 = best 5 of all searchable games; Atari-3 = best 3 of Atari-5;
    Atari-1 = best 1 of Atari-3; Atari-3-Val = best 3 of the games outside
    Atari-5; Atari-5-Val = Atari-3-Val plus the best 2 more of those games;
    Atari-10 = Atari-5 plus the best 5 games outside Atari-5 and Atari-5-Val.
    Games inside a model are in column order, the kept games appended last.
    ``progress(done, total)`` counts subsets evaluated over all stages.
    With ``bounded`` every stage is ``bounded_best`` (the same choices, most
    subsets ruled out by a lower bound of their CV MSE instead of
    cross-validated; progress is then reported per stage). For Atari-10 the
    bound counts the kept Atari-5 games' leverage in each CV fold
    (``rowsets._LeverageBoundRowSets``): an RSS bound would leave 8% of its
    1.37 million subsets on the paper's data, this one 0.5%.
    ``atari5_bounds`` (with ``bounded``): a lower bound of every Atari-5
    candidate's CV MSE computed elsewhere (``shared_bounds.fold_bound``)
    instead of this search's own pass; the same choices.
    """
    games = list(X.columns)
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    pool = [games.index(g) for g in searchable_games(games, excluded)]
    n = len(pool)
    if n < 15:                  # Atari-5, Atari-5-Val and the 5 new games of Atari-10 are disjoint
        raise ValueError(f"the staged search needs at least 15 searchable games, got {n}")
    total = sum(math.comb(size, k) for size, k in [(n, 5), (5, 3), (3, 1), (n - 5, 3), (n - 8, 2), (n - 10, 5)])
    done = 0

    def search(candidates, k, always=(), bounds=None):
        nonlocal done

        def report(count, _):
            if progress is not None:
                progress(done + count, total)
        if bounded:
            chosen = bounded_best(Xn, yn, candidates, k, always, n_splits, seed, n_threads, bounds)
        else:
            chosen = best_subset(Xn, yn, candidates, k, always, n_splits, seed, report, n_threads)
        done += math.comb(len(candidates), k)
        if bounded:
            report(0, total)
        return chosen

    atari5 = search(pool, 5, bounds=atari5_bounds)
    atari3 = search(atari5, 3)
    atari1 = search(atari3, 1)
    outside = [g for g in pool if g not in atari5]
    val3 = search(outside, 3)
    val5 = search([g for g in outside if g not in val3], 2, val3) + val3
    atari10 = search([g for g in outside if g not in val5], 5, atari5) + atari5
    chosen = zip(STAGES, [atari5, atari3, atari1, val3, val5, atari10])
    return OrderedDict((name, tuple(games[c] for c in columns)) for name, columns in chosen)
