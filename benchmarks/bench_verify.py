"""Wall time of `atari5-spec validate` and `atari5-spec verify --skip-search` (target: verify under 3 s).

Run: python benchmarks/bench_verify.py [--runs N]
Each command runs in a fresh subprocess, as a user would run it; the figures
are medians over the runs, measured side by side in one run of this script.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    # the console script of this interpreter's environment, else whatever is on PATH
    beside = Path(sys.executable).with_name("atari5-spec")
    exe = str(beside) if beside.exists() else (shutil.which("atari5-spec") or "atari5-spec")
    figures = {
        "python -c pass": median_seconds([sys.executable, "-c", "pass"], args.runs),
        "atari5-spec validate": median_seconds([exe, "validate"], args.runs),
        "atari5-spec verify --skip-search": median_seconds([exe, "verify", "--skip-search"], args.runs),
        "atari5-spec verify (with search)": median_seconds([exe, "verify"], max(1, args.runs // 2)),
    }
    for name, seconds in figures.items():
        print(f"{name:<36} {seconds:6.2f} s (median of runs)")
    print(f"verify --skip-search target 3 s: {'met' if figures['atari5-spec verify --skip-search'] < 3 else 'NOT met'}")


if __name__ == "__main__":
    main()
