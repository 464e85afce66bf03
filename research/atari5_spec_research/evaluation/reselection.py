"""Out-of-sample errors that include the optimism of choosing a subset's games: the search redone per paper.

The pinned subsets' games were chosen by the staged search (``method/search``)
on the paper's training agents, and their weights fitted on them. A
leave-one-paper-out refit of the *weights* alone (``errors.loso_errors``)
still predicts each training agent with games that were picked, among
millions of subsets, partly because they fit that agent: its error is
optimistic, the more so the more games a subset picks freely (Atari-10's five
extra games, Atari-5-Val's five). Here the whole procedure is redone without
each paper:

* **fold selections**: for every paper with agents in the *search set* (the
  training rows the games were chosen on: the version's own when it
  reproduces the paper, else those of the version whose subsets it kept), the
  staged search is rerun on the search set without that paper's agents; the
  full search set gives the pinned games (``verify`` checks that).
* **errors**: every agent whose paper has agents in the version's training set
  or in the search set (training agents, their learning-curve checkpoints, and
  held-out agents from such a paper) is predicted by its paper's fold: the
  fold's games, weights refitted on the version's training rows without the
  paper. Every other agent (its paper unseen by the search and the fit) gets
  the version's own formula. Subsets whose games are fixed (DQN-7) keep them.

An agent that lacks one of its fold's games gets no error for that subset
(the procedure could not have scored it). The selections are written with
the errors (column ``games``), so that ``verify --skip-search`` can recompute
the errors from them quickly and ``verify`` reruns the searches themselves.
"""

from __future__ import annotations

import os
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from atari5_spec.method import coefficients as coef
from atari5_spec.method.calibration import IN_RANGE_MIN, RESELECTED_COLUMNS
from atari5_spec.method.fitting import N_SPLITS, fit_no_intercept
from atari5_spec.method.reference import log_transform
from atari5_spec_research.search.staged import STAGES as SEARCHED_SUBSETS  # the subsets the staged search chooses; DQN-7's are fixed
from atari5_spec_research.evaluation.agents import Agents, agent_scores, algorithm_info
from atari5_spec_research.evaluation.errors import _rows, log_estimate

__all__ = ["search_version", "fold_selections", "reselected_errors", "selections_from_rows", "RESELECTED_COLUMNS",
           "SEARCHED_SUBSETS"]


Selections = Mapping[str, Mapping[str, tuple[str, ...]]]  # paper -> subset -> games chosen without it


def _manifest(dataset, version: str) -> dict:
    from atari5_spec.data.paths import package_file
    from atari5_spec.method.pinned import read_yaml

    directory = package_file(dataset.root / "coefficients", version, "the coefficient version")
    return read_yaml(directory / "manifest.yaml")


def search_version(dataset, version: str) -> str:
    """The version whose training rows the games of ``version`` were chosen on: itself when its manifest says it
    reproduces the paper, else the version that does and has the same subsets (a refit keeps the games)."""
    manifest = _manifest(dataset, version)
    if manifest.get("reproduces") == "paper":
        return version
    for other in coef.read_index(dataset.root / "coefficients")["versions"]:
        content = _manifest(dataset, other)
        if content.get("reproduces") == "paper" and content["subsets"] == manifest["subsets"]:
            return other
    raise ValueError(f"{version}: no pinned version whose search chose its games")


def _matrix(dataset, version: str, reads=None):
    from atari5_spec.method.pinned_reads import pinned_training_matrix

    manifest, X, y = pinned_training_matrix(dataset, version, reads)
    return manifest, X, y, algorithm_info(dataset.algorithms, X.index)["paper"].astype(str)


def fold_selections(dataset, version: str, papers=None, progress: Callable | None = None,
                    processes: int | None = None, bounded: bool = True, shared: bool = True,
                    executor=None) -> dict:
    """paper -> {subset: games}: the staged search rerun on the search set without each paper (``papers``: only
    these; default every paper of the search set), on ``executor`` (a process pool of the caller's) or on
    ``processes`` local processes (default: up to two).

    Each fold's search is ``staged_choice(..., bounded=True)``: the same choices as the exhaustive search (a
    subset is left out only when a lower bound of its CV MSE proves it cannot be chosen), at about a third
    of the cost (``bounded=False``: the exhaustive search, for comparison). With ``shared`` (and ``bounded``)
    the folds go in groups of papers (``search.shared_bounds``): one Atari-5 lower-bound pass on the rows
    without the whole group serves each of its folds, instead of one pass per fold; the same choices."""
    from atari5_spec_research.search.engine import map_tasks
    from atari5_spec_research.search.shared_bounds import paper_groups

    manifest, X, y, paper = _matrix(dataset, search_version(dataset, version))
    excluded = tuple(manifest["method"]["search"]["excluded_games"])
    chosen = sorted(set(paper)) if papers is None else sorted(set(papers) & set(paper))
    codes = paper.to_numpy()
    groups = paper_groups(codes, chosen) if bounded and shared else [[name] for name in chosen]
    tasks = [(X, y, codes, group, excluded, bounded, bounded and shared) for group in groups]
    done = 0

    def finished(index: int, result) -> None:
        nonlocal done
        done += len(groups[index])
        if progress is not None:
            progress(done, len(chosen))
    processes = min(2, os.cpu_count() or 1) if processes is None else processes
    found = map_tasks(_group_search, tasks, processes=processes, on_done=finished, executor=executor)
    by_paper = {name: selection for group, selections in zip(groups, found)
                for name, selection in zip(group, selections)}
    return {name: by_paper[name] for name in chosen}


def _group_search(task) -> list[dict]:
    """[{subset: games}] the staged search chooses without each paper of a group (a picklable task for
    ``map_tasks``), sharing one Atari-5 lower-bound pass among them when asked to."""
    from atari5_spec_research.search import staged_choice
    from atari5_spec_research.search.selection import searchable_games
    from atari5_spec_research.search.shared_bounds import fold_bound, group_bound

    X, y, codes, group, excluded, bounded, shared = task
    in_group = np.isin(codes, group)
    bound = None
    if shared and np.sum(~in_group) >= 2 * N_SPLITS:  # a group of (almost) every row: each fold its own pass
        games = list(X.columns)
        pool = [games.index(g) for g in searchable_games(games, excluded)]
        bound = group_bound(X.to_numpy(float), y.to_numpy(float), ~in_group, pool, 5, n_threads=1)
    out = []
    for name in group:
        keep = codes != name
        fold = None if bound is None else fold_bound(bound, int(np.sum(in_group & keep)), 5)
        out.append(dict(staged_choice(X[keep], y[keep], excluded=excluded, n_threads=1, bounded=bounded,
                                      atari5_bounds=fold)))
    return out


def _take(values: np.ndarray, rows, columns) -> np.ndarray:
    """``values[rows][:, columns]`` laid out in memory as ``values`` is, as ``frame.iloc[rows, columns].to_numpy()``
    is for the frame whose array ``values`` is: the matrix product rounds by layout, so the estimates stay those of
    the label lookups this replaces, to the last bit."""
    taken = values[np.ix_(rows, columns)]
    column_major = values.flags.f_contiguous and not values.flags.c_contiguous
    return np.asfortranarray(taken) if column_major else np.ascontiguousarray(taken)


def reselected_errors(dataset, version: str, selections: Selections, agents: Agents | None = None,
                      by_formula: tuple[str, ...] = (), reads=None) -> pd.DataFrame:
    """Every agent's error with its paper's fold (games chosen and weights fitted without its paper), one row per
    (subset, agent): RESELECTED_COLUMNS, ``games`` the games that predicted it. ``selections`` from
    :func:`fold_selections` (or read back from a pinned file).

    ``by_formula``: the kinds of agent scored by the version's own pinned formula instead of their fold. The
    ``formula`` calibration passes ``("held-out",)``: every agent the selection and the fit never used (outside the
    version's training set, even when its paper has training agents) is scored by the model that scores a user's
    agent, and only the agents the procedure used (training agents and their learning-curve checkpoints) by their
    paper's fold. ``("held-out", "leave-one-paper-out")`` scores everyone by the pinned formula (in sample for the
    training agents: an alternative docs/out-of-sample.md compares, never pinned). ``reads``: a
    :class:`~atari5_spec.method.pinned_reads.PinnedReads` the versions' tables are read through."""
    from atari5_spec.method.pinned import load_coefficient_set

    agents = agents if agents is not None else agent_scores(dataset)
    manifest, X, y, train_paper = _matrix(dataset, version, reads)
    searched_in = search_version(dataset, version)
    search_paper = train_paper if searched_in == version else _matrix(dataset, searched_in, reads)[3]
    trained = set(manifest["training"]["algorithms"])
    seen = set(train_paper) | set(search_paper)
    searched_papers = set(search_paper)
    model_set = load_coefficient_set(version, dataset.root)
    Xn, yn, train_papers = X.to_numpy(float), y.to_numpy(float), train_paper.to_numpy()
    column_of = {g: i for i, g in enumerate(X.columns)}
    info = agents.info
    phi_all = agents.phi()
    # training agents: their published numbers as the version was fitted on them (X); everyone else from the data
    training_info = algorithm_info(dataset.algorithms, X.index).assign(true_median=np.nan)
    frames = []
    for subset, model in model_set.subsets.items():
        searched = subset in SEARCHED_SUBSETS
        pinned_games = tuple(model.games)
        weights_cache: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}

        def fold(paper: str):
            if paper not in seen:
                return pinned_games, np.asarray(model.coefficients, float)
            if paper not in weights_cache:
                if searched and paper in searched_papers:
                    games = selections.get(paper, {}).get(subset)
                    if games is None:  # no selection recorded for this fold (a pinned file lists only its rows)
                        return None
                    games = tuple(games)
                else:
                    games = pinned_games
                columns = [column_of[g] for g in games]
                values = Xn[:, columns]
                keep = (train_papers != paper) & ~np.isnan(values).any(axis=1) & ~np.isnan(yn)
                weights_cache[paper] = (games, fit_no_intercept(values[keep], yn[keep]))
            return weights_cache[paper]

        groups = [("leave-one-paper-out", training_info, X, y.to_numpy()),
                  ("leave-one-paper-out", info[info["algorithm_id"].isin(trained) & info["is_budget_checkpoint"]],
                   phi_all, None),
                  ("held-out", info[~info["algorithm_id"].isin(trained)], phi_all, None)]
        for kind, members, phi, target in groups:
            if not len(members):
                continue
            truth = (np.asarray(target, float) if target is not None
                     else log_transform(members["true_median"].to_numpy(float)))
            papers = members["paper"].astype(str).to_numpy()
            log_est = np.full(len(members), np.nan)
            used = np.empty(len(members), dtype=object)
            # phi by position (the members' rows, each game's column): what phi.loc gives, without its label lookups
            row_of, game_of = phi.index.get_indexer(members.index), {g: i for i, g in enumerate(phi.columns)}
            if (row_of < 0).any():
                raise KeyError(f"{subset} {kind}: agents without scores: {list(members.index[row_of < 0])}")
            values_of = phi.to_numpy(float)  # once per group: each fold's values are taken from it
            for paper in sorted(set(papers)):  # one fold at a time: its agents' phi in one array
                chosen = ((pinned_games, np.asarray(model.coefficients, float))
                          if kind in by_formula else fold(paper))
                if chosen is None:
                    continue
                games, weights = chosen
                mine = np.flatnonzero(papers == paper)
                values = _take(values_of, row_of[mine], [game_of[g] for g in games])
                log_est[mine] = log_estimate(values, weights)
                used[mine] = " ".join(games)
            keep = np.flatnonzero(~np.isnan(log_est) & ~np.isnan(truth))
            if not len(keep):
                continue
            rows = _rows(subset, members.iloc[keep], kind, log_est[keep], truth[keep])
            frames.append(rows.assign(range=["in range" if e >= IN_RANGE_MIN else "extrapolation"
                                             for e in rows["estimate"]], games=list(used[keep])))
    errors = pd.concat(frames, ignore_index=True)[RESELECTED_COLUMNS]
    return errors.sort_values(["subset", "kind", "agent"], kind="stable").reset_index(drop=True)


def selections_from_rows(rows, folds_only: bool = False) -> dict:
    """paper -> {subset: games} as a pinned file recorded them (rows with paper, subset, games; ``folds_only``:
    from the rows its folds predicted, not the held-out rows a ``formula`` calibration scores with the pinned
    games)."""
    out: dict = {}
    for r in rows:
        if folds_only and r["kind"] == "held-out":
            continue
        out.setdefault(str(r["paper"]), {})[str(r["subset"])] = tuple(str(r["games"]).split())
    return out
