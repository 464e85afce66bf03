"""Speed, memory and agreement with scikit-learn of the exhaustive subset search.

Usage::

    python benchmarks/bench_search.py [--threads N] [--sklearn-subsets 300]

On the paper's training matrix (62 algorithms x 57 games, from the installed
data package). Prints:

* subsets/s for ALL five-game subsets of the searchable games (3,819,816 for
  56 games), 10-fold CV for every one, and the same for a plain scikit-learn
  loop (LinearRegression + cross_val_score) on a random sample, and the ratio;
* wall time of the whole staged search (Atari-5 ... Atari-10), and of each stage;
* peak memory of the process (ru_maxrss);
* max |difference| from scikit-learn of coefficients and CV MSE on random subsets.

Targets: >= 1,000,000 subsets/s, staged search <= 5 s, peak memory < 1 GiB,
coefficients within 1e-10. CPU seconds are printed next to wall seconds,
since the machine may be shared.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import time

import numpy as np
import pandas as pd

import atari5_spec
from atari5_spec.method import fitting, training
from atari5_spec_research import search

TARGET_RATE = 1_000_000
TARGET_STAGED_SECONDS = 5.0
TARGET_MEMORY_MIB = 1024
TARGET_COEFFICIENT_DIFFERENCE = 1e-10


def training_matrix() -> tuple[pd.DataFrame, pd.Series]:
    """The paper's training matrix from the installed data package."""
    dataset = atari5_spec.load()
    rows = training.training_rows(dataset, pool_only=True)
    return training.training_matrix(rows, dataset.games, dataset.algorithms)


def peak_memory_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2 ** 20 if sys.platform == "darwin" else peak / 2 ** 10      # bytes on macOS, KiB on Linux


def timed(function, *args, **kwargs):
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def sklearn_cv_mse(X: np.ndarray, y: np.ndarray, columns) -> float:
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold, cross_val_score
    rows = ~np.isnan(X[:, columns]).any(axis=1)
    return -cross_val_score(LinearRegression(fit_intercept=False), X[rows][:, columns], y[rows],
                            cv=KFold(10, shuffle=True, random_state=1982), scoring="neg_mean_squared_error").mean()


def subset_keys(subsets: np.ndarray) -> np.ndarray:
    """One integer per subset, independent of the order of its games."""
    ordered = np.sort(subsets.astype(np.int64), axis=1)
    return (ordered * (64 ** np.arange(ordered.shape[1]))).sum(axis=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None, help="worker threads (default: up to 2)")
    parser.add_argument("--sklearn-subsets", type=int, default=300)
    parser.add_argument("--coefficient-subsets", type=int, default=200)
    args = parser.parse_args(argv)

    X, y = training_matrix()
    games = list(X.columns)
    pool = [games.index(g) for g in search.searchable_games(games)]
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    total = math.comb(len(pool), 5)
    print(f"matrix: {X.shape[0]} algorithms x {X.shape[1]} games (the paper's training set)")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")

    # 1. every five-game subset, full 10-fold CV each
    scores, wall, cpu = timed(search.evaluate_all_subsets, Xn, yn, pool, 5, n_threads=args.threads)
    assert len(scores.cv_mse) == total
    rate = total / wall
    print(f"\nall {total:,} five-game subsets of {len(pool)} games, 10-fold CV each:")
    print(f"  fast search     {wall:6.2f} s wall ({cpu:.2f} s CPU)  {rate:12,.0f} subsets/s "
          f"({'meets' if rate >= TARGET_RATE else 'BELOW'} the {TARGET_RATE:,}/s target)")
    memory_after_search = peak_memory_mib()

    # 2. the staged search of the paper, with the time at which each stage had scored all its subsets
    n = len(pool)
    stage_ends = np.cumsum([math.comb(n, 5), math.comb(5, 3), 3, math.comb(n - 5, 3), math.comb(n - 8, 2),
                            math.comb(n - 10, 5)])
    scored = {}

    def progress(done, total):
        for name, end in zip(search.STAGES, stage_ends):
            if done >= end and name not in scored:
                scored[name] = time.perf_counter()

    start = time.perf_counter()
    models, staged_wall, staged_cpu = timed(search.staged_search, X, y, progress=progress, n_threads=args.threads)
    print(f"\nstaged search     {staged_wall:6.2f} s wall ({staged_cpu:.2f} s CPU) "
          f"({'within' if staged_wall <= TARGET_STAGED_SECONDS else 'OVER'} the {TARGET_STAGED_SECONDS:g} s target)")
    marks = [start] + [scored[name] for name in search.STAGES] + [start + staged_wall]
    print("  per stage (to its last subset scored; selection and model fits go to the next): "
          + ", ".join(f"{name} {b - a:.2f} s" for name, a, b in zip([*search.STAGES, "final fits"], marks, marks[1:])))
    for name, model in models.items():
        print(f"  {name:12s} N={model.n:2d}  CV R2={model.cv_r2:.3f}  rel.err={model.rel_err_percent:4.1f}%  "
              + ", ".join(f"{g} {c:.4f}" for g, c in zip(model.games, model.coefficients)))
    memory = max(memory_after_search, peak_memory_mib())
    print(f"\npeak memory       {memory:7.0f} MiB "
          f"({'within' if memory < TARGET_MEMORY_MIB else 'OVER'} the {TARGET_MEMORY_MIB} MiB target)")

    # 3. scikit-learn, one subset at a time, on a random sample (same run, same machine)
    rng = np.random.default_rng(0)
    sample = scores.subsets[rng.choice(total, args.sklearn_subsets, replace=False)].astype(np.intp)
    theirs, sk_wall, sk_cpu = timed(lambda: np.array([sklearn_cv_mse(Xn, yn, list(s)) for s in sample]))
    sk_rate = len(sample) / sk_wall
    print(f"\nscikit-learn loop {sk_wall:6.2f} s wall for {len(sample)} subsets  {sk_rate:12,.0f} subsets/s")
    print(f"  fast / scikit-learn = {rate / sk_rate:,.0f}x")
    found = np.searchsorted(np.sort(keys := subset_keys(scores.subsets)), subset_keys(sample))
    ours = scores.cv_mse[np.argsort(keys)[found]]
    print(f"  max |CV MSE difference| on those subsets: {np.max(np.abs(ours - theirs)):.2e} "
          f"(relative {np.max(np.abs(ours - theirs) / theirs):.2e})")

    # 4. coefficients against scikit-learn
    from sklearn.linear_model import LinearRegression
    sample = scores.subsets[rng.choice(total, args.coefficient_subsets, replace=False)].astype(np.intp)
    listed = search.evaluate_subsets(Xn, yn, sample)
    fast, reference = [], []
    for subset, coefficients in zip(sample, listed.coefficients):
        columns = list(subset)
        rows = ~np.isnan(Xn[:, columns]).any(axis=1)
        expected = LinearRegression(fit_intercept=False).fit(Xn[rows][:, columns], yn[rows]).coef_
        fast.append(np.max(np.abs(coefficients - expected)))
        reference.append(np.max(np.abs(fitting.fit_no_intercept(Xn[rows][:, columns], yn[rows]) - expected)))
    worst = max(max(fast), max(reference))
    print(f"\nmax |coefficient difference| from scikit-learn on {len(sample)} subsets: "
          f"{max(reference):.2e} (fitting, reported models), {max(fast):.2e} (search.evaluate_subsets) "
          f"({'within' if worst <= TARGET_COEFFICIENT_DIFFERENCE else 'OVER'} {TARGET_COEFFICIENT_DIFFERENCE:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
