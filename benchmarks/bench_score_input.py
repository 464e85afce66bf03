"""Wall time and peak memory of `atari5-spec score` on large per-seed files (issue 11: the duplicate check
was quadratic, 20,000 rows took 15 s).

Run: python benchmarks/bench_score_input.py [--runs 3]
Writes per-seed CSVs over the 57 games and runs `atari5-spec score` on each in a fresh subprocess:

* 57,000 rows (1,000 runs of every game, the most a game may have): scored, seed bootstrap included;
* the same with one repeated seed on the last line: refused, naming both lines;
* 200,000 rows (3,509 runs per game): refused at the first game past 1,000 runs (the limit; the seed
  bootstrap holds 10,000 resamples x runs numbers per game).

Prints the median wall time, the peak resident memory of the children and the load average (the machine is
shared). Target: each under 5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def seed_rows(games: list[str], runs_per_game: int) -> list[str]:
    """game,score,seed rows: seeds 0.. cycling through ``games``, scores varying deterministically."""
    count = len(games) * runs_per_game
    return ["game,score,seed"] + [f"{games[i % len(games)]},{1000 + (i * 7919) % 5000},{i // len(games)}"
                                  for i in range(count)]


def canonical_games() -> list[str]:
    from atari5_spec.scoring.estimate import games_table

    return [row["game_id"] for row in games_table() if row["in_57"] == "true"]


def measure(command: list[str], runs: int, expect: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != expect:
            sys.exit(f"{' '.join(command)}: exit {done.returncode}, expected {expect}\n{done.stderr}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    command = shutil.which("atari5-spec") or sys.exit("atari5-spec is not installed (pip install -e .)")
    games = canonical_games()
    with tempfile.TemporaryDirectory() as scratch:
        files = {"57,000 rows (1,000 runs per game), scored": (seed_rows(games, 1000), 0),
                 "57,001 rows, repeated seed on the last line, refused": (seed_rows(games, 1000) + ["alien,1,7"], 1),
                 "200,013 rows (3,509 runs per game), refused": (seed_rows(games, 3509), 1)}
        print(f"atari5-spec score on per-seed files, median of {args.runs} runs; "
              f"load average {os.getloadavg()[0]:.2f}")
        for number, (label, (lines, expect)) in enumerate(files.items()):
            path = Path(scratch) / f"seeds{number}.csv"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            seconds = measure([command, "score", str(path)], args.runs, expect)
            print(f"  {label:<55} {path.stat().st_size / 1e6:5.1f} MB {seconds:6.2f} s")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak resident memory of a run: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
