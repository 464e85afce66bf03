"""Wall time and peak memory of `atari5-spec evaluate` (target: under 60 s on 2 cores, nested CV included).

Run: python benchmarks/bench_evaluate.py [--runs N]
Each command runs in a fresh subprocess, as a user would run it; times are
medians over the runs, peak memory is the largest resident set of the child
processes, and the load average is printed beside them (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def measure(command: list[str], runs: int) -> tuple[float, float]:
    """(median seconds, peak resident MiB of any child so far)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return statistics.median(times), peak_kib / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    beside = Path(sys.executable).with_name("atari5-spec")
    exe = str(beside) if beside.exists() else (shutil.which("atari5-spec") or "atari5-spec")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cores: {os.cpu_count()}")
    rows = [
        ("atari5-spec evaluate --no-nested", [exe, "evaluate", "--no-nested"]),
        ("atari5-spec evaluate (nested CV included)", [exe, "evaluate"]),
        ("atari5-spec evaluate --version paper-2023 --version refit-2026-11 --no-nested",
         [exe, "evaluate", "--version", "paper-2023", "--version", "refit-2026-11", "--no-nested"]),
    ]
    full = None
    for name, command in rows:
        seconds, peak = measure(command, args.runs)
        full = seconds if name.endswith("included)") else full
        print(f"{name:<80} {seconds:6.2f} s (median of {args.runs})   peak RSS so far {peak:6.0f} MiB")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"target: evaluate with nested CV under 60 s: {'met' if full < 60 else 'NOT met'}")


if __name__ == "__main__":
    main()
