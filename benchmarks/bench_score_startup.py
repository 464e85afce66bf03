"""Start-up time of ``atari5-spec score``: median wall time over repeated runs, in fresh processes.

Usage::

    python benchmarks/bench_score_startup.py [--runs 10] [--coefficients VERSION]

Runs ``atari5-spec score --score GAME=VALUE`` for the five Atari-5 games
(the command a user types) and ``python -c pass`` (the interpreter's own
start-up, for comparison), each ``--runs`` times, and prints the medians.
The target for ``score`` is under 0.5 s.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Plausible raw scores (about human level) for the five Atari-5 games.
FIVE_GAMES = {"Battle Zone": 37000, "Double Dunk": -10, "Name This Game": 9000, "Phoenix": 7500, "Q*bert": 14000}
TARGET_SECONDS = 0.5


def median_seconds(command: list[str], runs: int) -> float:
    """Median wall time of ``command`` over ``runs`` fresh processes (one warm-up run first)."""
    subprocess.run(command, capture_output=True, check=True)  # warm the file cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--coefficients", default=None, help="coefficient version (default: the package's)")
    args = parser.parse_args(argv)
    # The installed console script (what users type), else the module.
    script = shutil.which("atari5-spec", path=str(Path(sys.executable).parent))
    score = [script, "score"] if script else [sys.executable, "-m", "atari5_spec.cli", "score"]
    score += [a for game, value in FIVE_GAMES.items() for a in ("--score", f"{game}={value}")]
    score += ["--coefficients", args.coefficients] if args.coefficients else []
    baseline = median_seconds([sys.executable, "-c", "pass"], args.runs)
    scoring = median_seconds(score, args.runs)
    print(f"python -c pass          median {baseline * 1000:7.1f} ms over {args.runs} runs")
    print(f"atari5-spec score (5)   median {scoring * 1000:7.1f} ms over {args.runs} runs "
          f"({'within' if scoring < TARGET_SECONDS else 'OVER'} the {TARGET_SECONDS:g} s target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
