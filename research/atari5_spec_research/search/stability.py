"""Selection stability: how often each game and each subset is chosen when the algorithms are resampled.

Resample b draws as many algorithms (rows of the training matrix) as there
are, with replacement, from ``numpy.random.default_rng([seed, b])``: each
resample depends only on (seed, b), so adding resamples or resuming a run
never changes earlier ones. Its rows are the drawn rows in their original
order (algorithms by name; a duplicated algorithm takes consecutive rows).
On a resample everything is done as on the data: a subset is fitted on the
rows where all its games are present and ranked by KFold(10, shuffle=True,
random_state=1982) over those rows in that order, so a duplicated algorithm
can be in the train and test rows of one fold. This is the plain bootstrap
of the whole selection procedure: it measures how much the chosen subset
depends on which algorithms happen to be in the data; its CV errors are
those of each resample's own selection, not estimates of prediction error.

A resample on which no admissible subset exists (or none can be fitted) is
reported with the reason, and left out of the shares.
"""

from __future__ import annotations

import contextlib

import functools
import hashlib
import json
import math
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd

from atari5_spec.data.errors import InputError
from atari5_spec.method.fitting import N_SPLITS, SEED, fit_subset_model
from atari5_spec_research.search.engine import map_tasks
from atari5_spec_research.search.selection import best_subset, searchable_games

Progress = Callable[[int, int], None]


class StabilityProblem(NamedTuple):
    """The data and settings every resample shares."""

    X: np.ndarray               # (algorithms, games)
    y: np.ndarray
    games: tuple[str, ...]      # column names of X
    pool: tuple[int, ...]       # searchable columns
    k: int
    n_splits: int
    fold_seed: int
    seed: int                   # of the resamples


class ResampleResult(NamedTuple):
    """The selection on one resample; ``error`` says why there is none (then games is empty, errors NaN)."""

    resample: int
    games: tuple[str, ...]      # in column order
    n: int                      # complete rows of the chosen subset on the resample
    cv_mse: float
    cv_r2: float
    rel_err_percent: float
    error: str


class StabilityReport(NamedTuple):
    resamples: pd.DataFrame     # one row per resample (ResampleResult fields; games joined by ";")
    games: pd.DataFrame         # game, selected, share: how often each game is in the chosen subset
    subsets: pd.DataFrame       # subset, selected, share
    cv_error: pd.DataFrame      # distribution of the chosen model's cv_mse, cv_r2, rel_err_percent
    failed: int                 # resamples without an admissible subset


def resample_rows(n_rows: int, resample: int, seed: int) -> np.ndarray:
    """Row indices of resample ``resample``: n_rows drawn with replacement, in ascending order."""
    return np.sort(np.random.default_rng([seed, resample]).integers(0, n_rows, n_rows))


def run_resample(problem: StabilityProblem, resample: int, n_threads: int | None = 1) -> ResampleResult:
    """The best k-subset and its model on one resample (a pure function: any worker may run it)."""
    rows = resample_rows(len(problem.y), resample, problem.seed)
    X, y = problem.X[rows], problem.y[rows]
    try:
        columns = best_subset(X, y, problem.pool, problem.k, n_splits=problem.n_splits, seed=problem.fold_seed,
                              n_threads=n_threads)
        model = fit_subset_model(pd.DataFrame(X, columns=list(problem.games)), pd.Series(y),
                                 [problem.games[c] for c in columns], problem.n_splits, problem.fold_seed)
    except (ValueError, np.linalg.LinAlgError) as error:
        return ResampleResult(resample, (), 0, math.nan, math.nan, math.nan, str(error) or type(error).__name__)
    return ResampleResult(resample, model.games, model.n, model.cv_mse, model.cv_r2, model.rel_err_percent, "")


def selection_stability(X: pd.DataFrame, y: pd.Series, resamples: int = 20, seed: int = 0, k: int = 5,
                        excluded: Sequence[str] = ("surround",), n_splits: int = N_SPLITS, fold_seed: int = SEED,
                        *, progress: Progress | None = None, processes: int = 0, scheduler: Any = None,
                        checkpoint: str | Path | None = None) -> StabilityReport:
    """Bootstrap over algorithms of the best-k-subset selection (the Atari-5 search for k = 5).

    ``resamples`` searches, each over all k-subsets of the searchable games,
    run here (``processes`` 0), on local processes or on a Dask cluster at
    ``scheduler``. With ``checkpoint`` (a file) every finished resample is
    appended to it, and resamples already there are not run again: an
    interrupted run resumes where it stopped, with the same result.
    """
    games = tuple(X.columns)
    pool = tuple(games.index(g) for g in searchable_games(games, excluded))
    problem = StabilityProblem(X.to_numpy(float), y.to_numpy(float), games, pool, int(k), n_splits, fold_seed,
                               int(seed))
    done = _read_checkpoint(checkpoint, problem) if checkpoint is not None else {}
    todo = [b for b in range(resamples) if b not in done]
    finished = resamples - len(todo)
    if progress is not None:
        progress(finished, resamples)

    def record(index: int, result: ResampleResult) -> None:
        nonlocal finished
        done[result.resample] = result
        if checkpoint is not None:
            _append(checkpoint, result)
        finished += 1
        if progress is not None:
            progress(finished, resamples)
    local = scheduler is None and processes <= 1
    run = functools.partial(run_resample, problem, n_threads=None if local else 1)
    map_tasks(run, todo, scheduler=scheduler, processes=processes, on_done=record, keep_results=False)
    return summarise([done[b] for b in range(resamples)])


def summarise(results: Sequence[ResampleResult]) -> StabilityReport:
    """The report of a list of resample results (pure: the same results give the same report)."""
    frame = pd.DataFrame([r._replace(games=";".join(r.games)) for r in results], columns=ResampleResult._fields)
    ok = frame[frame["error"] == ""]
    n_ok = max(len(ok), 1)
    chosen = pd.Series([g for r in results if not r.error for g in r.games], dtype=object)
    games, subsets = (_counted(values, name, n_ok) for values, name in ((chosen, "game"), (ok["games"], "subset")))
    measures = ["cv_mse", "cv_r2", "rel_err_percent"]
    quantiles = {"min": 0.0, "q05": 0.05, "q25": 0.25, "median": 0.5, "q75": 0.75, "q95": 0.95, "max": 1.0}
    cv_error = pd.DataFrame({name: [float(ok[m].quantile(q)) if len(ok) else math.nan for m in measures]
                             for name, q in quantiles.items()}, index=measures)
    cv_error.insert(0, "mean", [float(ok[m].mean()) if len(ok) else math.nan for m in measures])
    return StabilityReport(frame, games, subsets, cv_error.rename_axis("measure").reset_index(),
                           int((frame["error"] != "").sum()))


def _counted(values: pd.Series, name: str, n_ok: int) -> pd.DataFrame:
    """name, selected, share of each distinct value: counts descending, then names (the same order every run)."""
    table = values.value_counts().rename_axis(name).reset_index(name="selected")
    table = table.sort_values(["selected", name], ascending=[False, True], kind="stable").reset_index(drop=True)
    return table.assign(share=table["selected"] / n_ok)


# --------------------------------------------------------------------------
# Checkpoint file: a JSON header line naming the data and settings, then one JSON line per resample.

def _header(problem: StabilityProblem) -> dict:
    digest = hashlib.sha256()
    for array in (problem.X, problem.y):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update("\n".join(problem.games).encode())
    return {"atari5_spec": "selection-stability", "data_sha256": digest.hexdigest(), "pool": list(problem.pool),
            "k": problem.k, "n_splits": problem.n_splits, "fold_seed": problem.fold_seed, "seed": problem.seed}


@contextlib.contextmanager
def _naming(path: str | Path):
    """OS errors while writing ``path`` name it: a full disk on write() or flush() carries no file name."""
    try:
        yield
    except OSError as error:
        if error.filename is None and error.errno is not None:
            raise OSError(error.errno, error.strerror or str(error), str(path)) from error
        raise


def _read_checkpoint(path: str | Path, problem: StabilityProblem) -> dict[int, ResampleResult]:
    from atari5_spec.data.paths import output_file

    path, header = output_file(path, "--checkpoint"), _header(problem)  # the output policy: no link, pipe, package
    if not path.exists() or path.stat().st_size == 0:
        with _naming(path):
            path.write_text(json.dumps(header) + "\n")
        return {}
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    try:
        found = json.loads(lines[0])
        if len(lines) > 1:
            try:
                json.loads(lines[-1])
            except json.JSONDecodeError:        # cut short by an interruption: drop it, it is redone
                lines = lines[:-1]
                with _naming(path):
                    path.write_text("\n".join(lines) + "\n")
        records = [json.loads(line) for line in lines[1:]]
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not a selection-stability checkpoint ({error})") from error
    if found != header:
        differing = sorted(key for key in header if found.get(key) != header[key])
        raise InputError(f"{path}: checkpoint of another run (differs in {', '.join(differing) or 'format'}); "
                         "use a new file")
    return {r["resample"]: ResampleResult(**{**r, "games": tuple(r["games"])}) for r in records}


def _append(path: str | Path, result: ResampleResult) -> None:
    with _naming(path), open(path, "a") as file:
        file.write(json.dumps(result._asdict()) + "\n")
        file.flush()
