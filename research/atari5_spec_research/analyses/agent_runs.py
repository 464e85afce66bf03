"""Runs x games matrices of human-normalised scores (rliable's shape), and their aggregates, from Python.

rliable (Agarwal et al. 2021) takes ``{algorithm: array of shape (n_runs,
n_games)}`` of human-normalised scores as fractions (0 = random, 1.0 = the
average human). This module gives researchers that shape without glue code:

* :func:`human_normalised_runs`: an algorithm of the data package as such a
  matrix, games in a stated order;
* :func:`aggregate`: the ``atari5-spec aggregate`` computation (IQM, median,
  mean, optimality gap with stratified bootstrap intervals, probability of
  improvement, performance profiles) on your own runs, given as a long
  DataFrame of raw scores (``agent, game, seed, score``, as the command's CSV)
  or as ``{agent: runs x games array}`` of fractions, rliable's shape.

Both go through the same gates as the command line: game spellings through
:mod:`atari5_spec.data.ids`, scores through the score parser, the same error
messages.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from atari5_spec.data.errors import InputError
from atari5_spec.data.ids import UnknownGameError, game_aliases, resolve_game
from atari5_spec.method.reference import human_normalised
from atari5_spec.method.training import canonical_games
from atari5_spec_research.analyses.run_aggregates import RunAggregates, aggregate_runs
from atari5_spec_research.analyses.runs_input import (benchmark_runs, implausible_runs, normalised_curves, normalised_runs,
                                                     read_runs, runs_from_text)
from atari5_spec_research.analyses.sample_efficiency import CurveAggregates, aggregate_curves_of

__all__ = ["RunsMatrix", "human_normalised_runs", "aggregate", "aggregate_curves", "aggregate_file"]

GAME_ORDER = "the 57 benchmark games in alphabetical order of game id (atari5_spec.load().games, in_57)"


class RunsMatrix(NamedTuple):
    """One algorithm's runs as rliable takes them: ``scores[run, game]``, fractions (1.0 = average human)."""

    algorithm_id: str
    scores: np.ndarray      # (n_runs, n_games) human-normalised, as a fraction
    games: list             # the columns, in this order
    runs: list              # the rows: seed labels, or ["published"] for the per-game numbers
    source: str             # where the numbers come from (seed_scores.csv or scores.csv)
    note: str               # what was left out, if anything

    def __repr__(self) -> str:
        return (f"RunsMatrix({self.algorithm_id!r}, {self.scores.shape[0]} runs x {self.scores.shape[1]} games, "
                f"from {self.source}{'; ' + self.note if self.note else ''})")

    def to_frame(self) -> pd.DataFrame:
        """The matrix as a DataFrame: one row per run, one column per game."""
        return pd.DataFrame(self.scores, index=pd.Index(self.runs, name="run"), columns=self.games)

    def _repr_html_(self) -> str:
        import html

        return f"<p><b>RunsMatrix</b>: {html.escape(repr(self))}</p>" + self.to_frame()._repr_html_()


def _resolved_games(games: Sequence[str] | None, dataset) -> list[str]:
    if games is None:
        return canonical_games(dataset.games)
    aliases = game_aliases(dataset.games)
    resolved = []
    for game in games:
        try:
            resolved.append(resolve_game(str(game), aliases))
        except UnknownGameError as error:
            raise InputError(f"games: {error}") from None
    return resolved


def human_normalised_runs(algorithm_id: str, dataset=None, games: Sequence[str] | None = None) -> RunsMatrix:
    """``algorithm_id``'s runs x games matrix of human-normalised scores (fractions), rliable's shape.

    Parameters
    ----------
    algorithm_id : str
        An algorithm of data/algorithms.csv, e.g. ``"dreamerv3"``.
    dataset : Dataset, optional
        A loaded package (default: :func:`atari5_spec.load`).
    games : sequence of str, optional
        The columns, in any spelling (default: :data:`GAME_ORDER`).

    Returns
    -------
    RunsMatrix
        ``scores`` (n_runs, n_games) fractions (0 = random, 1 = the average
        human), ``games``, ``runs``, ``source`` and ``note``; ``to_frame()``.

    Raises
    ------
    InputError
        Naming a requested game the algorithm has no score for.

    Notes
    -----
    Rows are the algorithm's per-seed final scores (data/seed_scores.csv) where
    the package has them, keeping the seeds present for every requested game
    (rliable needs a rectangle; ``note`` says how many runs were left out);
    otherwise one row, the published per-game numbers (data/scores.csv, the
    rows fits use).

    Examples
    --------

    >>> import atari5_spec_research
    >>> m = atari5_spec_research.human_normalised_runs("dreamerv3")
    >>> rliable_input = {"DreamerV3": m.scores}          # (runs, 57), games in m.games order
    >>> m.scores.shape, m.games[0]
    ((3, 57), 'alien')
    """
    if dataset is None:
        from atari5_spec.data.loading import load

        dataset = load()
    columns = _resolved_games(games, dataset)
    if algorithm_id not in set(dataset.algorithms["algorithm_id"]):
        raise InputError(f"algorithm {algorithm_id!r} is not in the data package (see data/algorithms.csv)")
    constants = dataset.games.set_index("game_id").loc[columns, ["random_score", "human_score"]].astype(float)
    lacking = [g for g in columns if constants.loc[g].isna().any()]
    if lacking:
        raise InputError(f"games: {', '.join(lacking)} have no random and human scores (games outside the 57)")
    per_seed = dataset.seed_scores
    own = per_seed[per_seed["algorithm_id"] == algorithm_id] if per_seed is not None else per_seed
    note = ""
    if own is not None and len(own):
        own = own[own["game_id"].isin(columns)]
        source = "per-seed final scores (data/seed_scores.csv)"
        missing = [g for g in columns if g not in set(own["game_id"])]
        # Sources do not always run the same seeds on every game (DreamerV3: 3 to 6 per game, different
        # labels). rliable needs a rectangle and resamples runs within each game, so row i is each game's
        # i-th run by seed, and every game keeps as many runs as the game with the fewest.
        per_game = {g: own[own["game_id"] == g].sort_values("seed")["score"].to_numpy(float) for g in columns
                    if g not in missing}
        counts = [len(v) for v in per_game.values()]
        n_runs = min(counts) if counts else 0
        table = pd.DataFrame({g: v[:n_runs] for g, v in per_game.items()}).reindex(columns=columns)
        labels = {tuple(own[own["game_id"] == g].sort_values("seed")["seed"].astype(str))[:n_runs] for g in per_game}
        runs = list(next(iter(labels))) if len(labels) == 1 else [f"run {i + 1}" for i in range(n_runs)]
        if counts and max(counts) > n_runs:
            note = (f"{sum(counts) - n_runs * len(counts)} of {sum(counts)} runs left out: games have {n_runs} to "
                    f"{max(counts)} runs and rliable needs the same number per game (each game's first {n_runs} "
                    "by seed are kept)")
    else:
        scores = dataset.scores
        superseded = set(scores["supersedes"].dropna().astype(int))
        rows = scores[(scores["algorithm_id"] == algorithm_id) & scores["use_in_fit"].astype(bool)
                      & ~scores["score_id"].isin(superseded)]
        per_game = rows.groupby("game_id")["score"].first()
        source = "the published per-game numbers (data/scores.csv), one row"
        missing = [g for g in columns if g not in per_game.index]
        table = per_game.reindex(columns).to_frame().T
        runs = ["published"]
    if missing:
        raise InputError(f"algorithm {algorithm_id!r} has no score for {', '.join(missing)}: pass games=[...] "
                         "with the games it has")
    if table.empty:
        raise InputError(f"algorithm {algorithm_id!r}: no run has a score on every requested game; pass fewer games")
    fractions = human_normalised(table.to_numpy(float), constants["random_score"].to_numpy(),
                                 constants["human_score"].to_numpy()) / 100.0
    return RunsMatrix(algorithm_id, fractions, columns, runs, source, note)


def _runs_from_frame(runs: pd.DataFrame, dataset) -> tuple[Any, list[str]]:
    """A long DataFrame (agent, game, seed, score; raw scores) through the runs file's own gate, and its notes."""
    # The CSV gate is the one gate for runs: the frame is written as CSV text (floats round-trip exactly)
    # and read back, so a DataFrame gets the same checks and messages as a file.
    text = runs.to_csv(index=False)
    source = "runs DataFrame (line 2 is its first row)"
    return _normalised(runs_from_text(text, source, dataset.games), dataset, source)


def _runs_from_file(path: str | os.PathLike, dataset) -> tuple[Any, list[str]]:
    """The command's runs file (agent,game,seed,score), read through the same gate as the command."""
    return _normalised(read_runs(path, dataset.games), dataset, str(path))


def _normalised(runs: pd.DataFrame, dataset, source: str) -> tuple[Any, list[str]]:
    kept, notes = benchmark_runs(runs, dataset.games, source)  # games outside the 57: left out, said so
    return normalised_runs(kept, dataset.games, source=source), notes


def _runs_from_arrays(runs: Mapping[str, Any], games: Sequence[str] | None, dataset) -> tuple[dict, list]:
    columns = _resolved_games(games, dataset)
    scores = {}
    for agent, values in runs.items():
        matrix = np.asarray(values, dtype=float)
        if matrix.ndim != 2 or matrix.shape[1] != len(columns):
            raise InputError(f"runs[{agent!r}]: expected an array of shape (n_runs, {len(columns)}) "
                             f"(one column per game of games=), got shape {matrix.shape}")
        if not np.isfinite(matrix).all():
            run, game = np.argwhere(~np.isfinite(matrix))[0]
            raise InputError(f"runs[{agent!r}][{run}, {game}] ({columns[game]}): not a finite score")
        if matrix.shape[0] < 1:
            raise InputError(f"runs[{agent!r}]: no runs")
        scores[str(agent)] = matrix
    return scores, columns


def _checked_bootstrap(n_resamples, confidence) -> None:
    from atari5_spec.data.limits import MAX_RESAMPLES

    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or not 1 <= n_resamples <= MAX_RESAMPLES:
        raise InputError(f"n_resamples (--resamples) {n_resamples!r}: give a number of bootstrap resamples from 1 "
                         f"to {MAX_RESAMPLES:,}")
    if not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InputError(f"confidence (--confidence) {confidence!r}: give a level between 0 and 1, e.g. 0.95")


def _x_read_from(frame_skip: int | None) -> str:
    return "column 'frames'" if frame_skip is None else f"column 'steps' x frame skip {frame_skip}"


def _curves_of(runs: pd.DataFrame, dataset, source: str, frame_skip, n_resamples, confidence,
               seed) -> CurveAggregates:
    kept, notes = benchmark_runs(runs, dataset.games, source)
    curves = normalised_curves(kept, dataset.games, source)
    try:
        result = aggregate_curves_of(curves.scores, curves.frames, curves.games, _x_read_from(frame_skip),
                                     n_resamples=n_resamples, confidence=confidence, seed=seed)
    except ValueError as error:
        raise InputError(str(error)) from None
    return result._replace(notes=(*notes, *result.notes))


def aggregate_curves(runs, frames=None, games: Sequence[str] | None = None, frame_skip: int | None = None,
                     n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0,
                     dataset=None) -> CurveAggregates:
    """Sample-efficiency curves of your own runs: IQM and median against frames, with bootstrap bands.

    Parameters
    ----------
    runs : path, DataFrame or dict
        A runs file (CSV columns agent, game, seed, score and ``frames``, or ``steps`` with ``frame_skip``), the
        same as a long DataFrame of **raw** scores, or ``{agent: array (n_runs, n_games, n_points)}`` of
        human-normalised **fractions** with ``frames``.
    frames : sequence of int or dict, optional
        With arrays only: the frames value of each point (one sequence for every agent, or agent -> sequence).
    games : sequence of str, optional
        With arrays only: the games of the second axis (default: the 57 benchmark games, :data:`GAME_ORDER`).
    frame_skip : int, optional
        With a ``steps`` column: emulator frames per agent step (4 in the standard ALE protocol).
    n_resamples, confidence, seed
        As :func:`aggregate`.

    Returns
    -------
    CurveAggregates
        ``curves`` (agent, frames, metric, estimate, low, high) and ``to_frame()``.
    """
    _checked_bootstrap(n_resamples, confidence)
    if dataset is None:
        from atari5_spec.data.loading import load

        dataset = load()
    if isinstance(runs, (str, os.PathLike, pd.DataFrame)):
        if games is not None or frames is not None:
            raise InputError("games= and frames= go with arrays; a runs file or DataFrame names its games and frames "
                             "in its columns")
        if isinstance(runs, pd.DataFrame):
            source = "runs DataFrame (line 2 is its first row)"
            table = runs_from_text(runs.to_csv(index=False), source, dataset.games, frame_skip)
        else:
            source = str(runs)
            table = read_runs(Path(runs), dataset.games, frame_skip)
        return _curves_of(table, dataset, source, frame_skip, n_resamples, confidence, seed)
    if not isinstance(runs, Mapping):
        raise InputError(f"runs: expected a runs file, a DataFrame or {{agent: array}}, not {type(runs).__name__}")
    if frames is None:
        raise InputError("frames=: give the frames value of each point of the arrays' last axis")
    columns = _resolved_games(games, dataset)
    points = frames if isinstance(frames, Mapping) else {agent: frames for agent in runs}
    try:
        points = {str(agent): np.asarray(points[agent], dtype=np.int64) for agent in runs}
        result = aggregate_curves_of({str(a): np.asarray(v, dtype=float) for a, v in runs.items()}, points, columns,
                                     "frames=", n_resamples=n_resamples, confidence=confidence, seed=seed)
    except (KeyError, ValueError, TypeError) as error:
        raise InputError(f"runs: {error}") from None
    return result


def aggregate_file(path: str | os.PathLike, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0,
                   frame_skip: int | None = None, dataset=None,
                   allow_implausible: bool = False) -> RunAggregates | CurveAggregates:
    """``atari5-spec aggregate RUNS``: the file (or standard input, '-') read once and held to the input gate
    (:func:`~atari5_spec_research.analyses.runs_input.implausible_runs`; ``allow_implausible`` lets it through,
    said in the notes); with a frames or steps column, the curves (:func:`aggregate_curves`), otherwise the final
    aggregates (:func:`aggregate`)."""
    _checked_bootstrap(n_resamples, confidence)
    if dataset is None:
        from atari5_spec.data.loading import load

        dataset = load()
    source = "<stdin>" if str(path) == "-" else str(path)
    table = read_runs(path, dataset.games, frame_skip)
    allowed = implausible_runs(table, dataset.games, source, dataset.root, allow_implausible)
    if "frames" in table.columns:
        result = _curves_of(table, dataset, source, frame_skip, n_resamples, confidence, seed)
        return result._replace(notes=(*allowed, *result.notes))
    normalised, notes = _normalised(table, dataset, source)
    try:
        result = aggregate_runs(normalised.scores, normalised.games, n_resamples=n_resamples, confidence=confidence,
                                seed=seed)
    except ValueError as error:
        raise InputError(str(error)) from None
    return result._replace(notes=(*allowed, *notes, *result.notes))


def aggregate(runs, games: Sequence[str] | None = None, n_resamples: int = 2000, confidence: float = 0.95,
              seed: int = 0, dataset=None) -> RunAggregates:
    """The ``atari5-spec aggregate`` computation on your own runs, from a notebook.

    Parameters
    ----------
    runs : path, DataFrame or dict
        The command's runs file (a CSV with columns agent, game, seed, score),
        the same as a long DataFrame of **raw** scores (any game spelling), or
        ``{agent: array (n_runs, n_games)}`` of human-normalised **fractions**
        (rliable's shape).
    games : sequence of str, optional
        With arrays only: the columns (default: the 57 benchmark games,
        :data:`GAME_ORDER`).
    n_resamples : int, default 2000
        Stratified bootstrap resamples (seeds within each game).
    confidence : float, default 0.95
        The intervals' level.
    seed : int, default 0
        The bootstrap's random seed (same inputs and seed, same intervals).
    dataset : Dataset, optional
        A loaded package (default: :func:`atari5_spec.load`).

    Returns
    -------
    RunAggregates
        IQM, median, mean and optimality gap with intervals, probability of
        improvement, performance profiles, Welch tests; ``to_frame()`` is a
        DataFrame of every metric with its interval; ``notes`` says what the
        command prints as notes (games outside the 57 left out, zero-width
        intervals with one run per game).

    Raises
    ------
    InputError
        As the command: naming the file (or the frame's row), line and column.
    """
    _checked_bootstrap(n_resamples, confidence)
    if dataset is None:
        from atari5_spec.data.loading import load

        dataset = load()
    notes: list[str] = []
    if isinstance(runs, (str, os.PathLike)):
        if games is not None:
            raise InputError("games= goes with arrays; a runs file names its games in the 'game' column")
        normalised, notes = _runs_from_file(Path(runs), dataset)
        scores, columns = normalised.scores, normalised.games
    elif isinstance(runs, pd.DataFrame):
        if games is not None:
            raise InputError("games= goes with arrays; a DataFrame names its games in the 'game' column")
        normalised, notes = _runs_from_frame(runs, dataset)
        scores, columns = normalised.scores, normalised.games
    elif isinstance(runs, Mapping):
        scores, columns = _runs_from_arrays(runs, games, dataset)
    else:
        raise InputError(f"runs: expected a runs file, a DataFrame (agent, game, seed, score) or {{agent: array}}, "
                         f"not {type(runs).__name__}")
    if not scores:
        raise InputError("runs: no agents")
    try:
        result = aggregate_runs(scores, columns, n_resamples=n_resamples, confidence=confidence, seed=seed)
    except ValueError as error:
        raise InputError(str(error)) from None
    return result._replace(notes=(*notes, *result.notes))
