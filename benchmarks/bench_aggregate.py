"""Speed and memory of ``atari5-spec aggregate``, 2,000 resamples: 50 agents x 57 games x 10 seeds (target
under 10 s on 2 cores) and 2 agents x 57 games x 1,000 seeds (target under 1 GB peak memory).

Usage::

    python benchmarks/bench_aggregate.py                       # both sizes above
    python benchmarks/bench_aggregate.py --agents 10 --seeds 5 [--resamples 2000] [--runs 3]
    python benchmarks/bench_aggregate.py --curves-only        # learning curves: 5 runs x 57 games x 50 points

The curves case (also run after the two sizes above) times ``aggregate`` on a
runs file with a frames column (sample-efficiency curves: IQM and median at
each of 50 frames points) side by side with ``aggregate`` on the same runs'
final scores alone, and prints the ratios.

Writes a synthetic runs CSV (raw scores that normalise to log-normal
fractions of human, every game spelled by name), then times the command a
user types, ``atari5-spec aggregate runs.csv --json``, in fresh processes
(median of ``--runs``), and reports the peak memory (resident set) of each
process, read from its own rusage (os.wait4).
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import atari5_spec

TARGET_SECONDS = 10.0
TARGET_PEAK_MIB = 1024.0
SIZES = ((50, 10), (2, 1000))  # (agents, seeds): the two targets


def write_runs(path: Path, n_agents: int, n_seeds: int, seed: int = 0) -> int:
    """A runs CSV over the 57 games; returns the number of rows."""
    rng = np.random.default_rng(seed)
    games = atari5_spec.load().games
    games = games[games["random_score"].notna() & games["human_score"].notna()]
    rows = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["agent", "game", "seed", "score"])
        for agent in range(n_agents):
            for game in games.itertuples(index=False):
                for run in range(n_seeds):
                    fraction = rng.lognormal(0.0, 1.0) * (0.4 + agent / 6)
                    score = game.random_score + fraction * (game.human_score - game.random_score)
                    writer.writerow([f"agent-{agent}", game.name, run, f"{score:.6g}"])
                    rows += 1
    return rows


def run_measured(command: list[str]) -> tuple[float, float]:
    """(seconds, peak resident MiB) of one process running ``command``."""
    seconds, peak, _ = run_measured_cpu(command)
    return seconds, peak


def run_measured_cpu(command: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak resident MiB, CPU seconds: user + system) of one process running ``command``."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # ru_maxrss: KiB on Linux


def measure(n_agents: int, n_seeds: int, resamples: int, runs: int) -> None:
    script = shutil.which("atari5-spec", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "atari5_spec.cli"]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "runs.csv"
        rows = write_runs(path, n_agents, n_seeds)
        results = [run_measured(command + ["aggregate", str(path), "--json", "--resamples", str(resamples)])
                   for _ in range(runs)]
    times = [t for t, _ in results]
    seconds, peak = statistics.median(times), max(m for _, m in results)
    print(f"input             {n_agents} agents x 57 games x {n_seeds} seeds ({rows:,} rows), {resamples} resamples")
    target = (f"; target {TARGET_SECONDS:g} s: {'within' if seconds < TARGET_SECONDS else 'OVER'}"
              if n_seeds <= 10 else "")
    print(f"aggregate --json  median {seconds:6.2f} s over {runs} run(s) (min {min(times):.2f} s{target})")
    print(f"peak memory       {peak:6.0f} MiB (resident, the aggregate process; target {TARGET_PEAK_MIB:.0f} MiB: "
          f"{'within' if peak < TARGET_PEAK_MIB else 'OVER'})")


CURVES = (1, 5, 50)  # (agents, seeds, frames points): the curves case


def write_curves(path: Path, n_agents: int, n_seeds: int, n_points: int, final_only: bool = False,
                 seed: int = 0) -> int:
    """A runs CSV with a frames column (points every 4M frames up to 200M), or only its last point without the
    column; the same random numbers either way. Returns the number of rows."""
    rng = np.random.default_rng(seed)
    games = atari5_spec.load().games
    games = games[games["random_score"].notna() & games["human_score"].notna()]
    rows = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["agent", "game", "seed", "score"] if final_only else ["agent", "game", "seed", "frames",
                                                                                  "score"])
        for agent in range(n_agents):
            for game in games.itertuples(index=False):
                for run in range(n_seeds):
                    levels = np.cumsum(rng.lognormal(-3.0, 1.0, size=n_points))
                    for point, level in enumerate(levels):
                        score = f"{game.random_score + level * (game.human_score - game.random_score):.6g}"
                        if not final_only:
                            writer.writerow([f"agent-{agent}", game.name, run, 4_000_000 * (point + 1), score])
                            rows += 1
                        elif point == n_points - 1:
                            writer.writerow([f"agent-{agent}", game.name, run, score])
                            rows += 1
    return rows


def measure_curves(resamples: int, runs: int) -> None:
    """Curves and the final scores of the same runs, side by side: time and peak memory, and their ratios."""
    n_agents, n_seeds, n_points = CURVES
    script = shutil.which("atari5-spec", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "atari5_spec.cli"]
    measured = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, final_only in (("curves", False), ("final", True)):
            path = Path(directory) / f"{name}.csv"
            rows = write_curves(path, n_agents, n_seeds, n_points, final_only=final_only)
            results = [run_measured_cpu(command + ["aggregate", str(path), "--json", "--resamples", str(resamples)])
                       for _ in range(runs)]
            measured[name] = (rows, statistics.median(r[0] for r in results), max(r[1] for r in results),
                              statistics.median(r[2] for r in results))
    rows, seconds, peak, cpu = measured["curves"]
    print(f"input             {n_agents} agent x 57 games x {n_seeds} seeds x {n_points} frames points ({rows:,} "
          f"rows), {resamples} resamples")
    print(f"curves --json     median {seconds:6.2f} s wall, {cpu:.2f} s CPU over {runs} run(s); peak memory "
          f"{peak:.0f} MiB")
    rows_final, seconds_final, peak_final, cpu_final = measured["final"]
    print(f"final scores only median {seconds_final:6.2f} s wall, {cpu_final:.2f} s CPU ({rows_final:,} rows, the "
          f"same runs' last point); peak memory {peak_final:.0f} MiB")
    print(f"ratio curves/final: wall {seconds / seconds_final:.2f}x, CPU {cpu / cpu_final:.2f}x, peak memory "
          f"{peak / peak_final:.2f}x (target: memory under {TARGET_PEAK_MIB:.0f} MiB: "
          f"{'within' if peak < TARGET_PEAK_MIB else 'OVER'})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=None)
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--curves-only", action="store_true", help="only the learning-curves case")
    args = parser.parse_args(argv)
    sizes = SIZES if args.agents is None and args.seeds is None else ((args.agents or 10, args.seeds or 5),)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    if not args.curves_only:
        for n_agents, n_seeds in sizes:
            measure(n_agents, n_seeds, args.resamples, args.runs)
    if args.agents is None and args.seeds is None:
        measure_curves(args.resamples, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
