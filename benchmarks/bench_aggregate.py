"""Speed and memory of ``atari5-spec aggregate`` on 10 agents x 57 games x 5 seeds, 2,000 resamples.

Usage::

    python benchmarks/bench_aggregate.py [--agents 10] [--seeds 5] [--resamples 2000] [--runs 3]

Writes a synthetic runs CSV (raw scores that normalise to log-normal
fractions of human, every game spelled by name), then times the command a
user types, ``atari5-spec aggregate runs.csv --json``, in fresh processes
(median of ``--runs``), and reports the peak memory of those processes
(ru_maxrss of the children). Target: under 10 s.
"""

from __future__ import annotations

import argparse
import csv
import resource
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    script = shutil.which("atari5-spec", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "atari5_spec.cli"]
    with tempfile.TemporaryDirectory() as directory:
        runs = Path(directory) / "runs.csv"
        rows = write_runs(runs, args.agents, args.seeds)
        command += ["aggregate", str(runs), "--json", "--resamples", str(args.resamples)]
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    print(f"input             {args.agents} agents x 57 games x {args.seeds} seeds ({rows:,} rows), "
          f"{args.resamples} resamples")
    print(f"aggregate --json  median {seconds:6.2f} s over {args.runs} runs (min {min(times):.2f} s, "
          f"{'within' if seconds < TARGET_SECONDS else 'OVER'} the {TARGET_SECONDS:g} s target)")
    print(f"peak memory       {peak_mib:6.0f} MiB (largest child process)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
