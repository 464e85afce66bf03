"""Speed and memory of ``atari5-spec aggregate``, 2,000 resamples: 50 agents x 57 games x 10 seeds (target
under 10 s on 2 cores) and 2 agents x 57 games x 1,000 seeds (target under 1 GB peak memory).

Usage::

    python benchmarks/bench_aggregate.py                       # both sizes above
    python benchmarks/bench_aggregate.py --agents 10 --seeds 5 [--resamples 2000] [--runs 3]

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
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024  # KiB on Linux


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=None)
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    sizes = SIZES if args.agents is None and args.seeds is None else ((args.agents or 10, args.seeds or 5),)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    for n_agents, n_seeds in sizes:
        measure(n_agents, n_seeds, args.resamples, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
