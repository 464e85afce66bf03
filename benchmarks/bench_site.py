"""Speed and memory of ``atari5-spec site --out DIR`` (target: a whole build in a few seconds, under 10 s on
2 cores; the CPU time is printed too, since wall time on a shared machine measures the neighbours), whether two builds give the same bytes, and the page weights (target: no page near 1 MB).

Usage::

    python benchmarks/bench_site.py [--runs 3]

Times the command a user types in fresh processes (median of ``--runs``; the
Python start-up and imports included), reports the peak memory (resident set)
of each process from its own rusage (os.wait4), the size of the site, and
compares the folders of the first two runs byte for byte.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 10.0
PAGE_TARGET_BYTES = 500_000  # an HTML page above this is too heavy for a phone (issue 34: none near 1 MB)


def run_measured(command: list[str]) -> tuple[float, float, float]:
    """(seconds, peak resident MiB, CPU seconds) of one process running ``command``."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime  # ru_maxrss: kilobytes on Linux


def same_folders(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    if files_a != files_b:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, [str(p) for p in files_a], shallow=False)
    return not mismatch and not errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        times, peaks, cpus, folders = [], [], [], []
        for i in range(args.runs):
            folder = Path(scratch) / f"site-{i}"
            seconds, peak, cpu = run_measured([sys.executable, "-m", "atari5_spec.cli", "site", "--out", str(folder)])
            times.append(seconds)
            peaks.append(peak)
            cpus.append(cpu)
            folders.append(folder)
        files = [p for p in folders[0].rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        median = statistics.median(times)
        print(f"site          {len(files)} files, {size / 1e6:.1f} MB ({sum(1 for p in files if p.suffix == '.html')} pages)")
        print(f"site --out    median {median:6.2f} s over {args.runs} run(s) (min {min(times):.2f} s; "
              f"target {TARGET_SECONDS:g} s: {'within' if median <= TARGET_SECONDS else 'OVER'})")
        print(f"CPU time      median {statistics.median(cpus):6.2f} s (user + system: what the build costs when the "
              "machine is shared)")
        print(f"peak memory   {max(peaks):6.0f} MiB (resident, the site process)")
        pages = sorted(((p.stat().st_size, str(p.relative_to(folders[0]))) for p in files if p.suffix == ".html"),
                       reverse=True)
        weights = [w for w, _ in pages]
        print(f"page weight   median {statistics.median(weights) / 1e3:6.1f} kB, heaviest "
              + ", ".join(f"{name} {w / 1e3:.0f} kB" for w, name in pages[:3])
              + f"; {sum(w > PAGE_TARGET_BYTES for w in weights)} page(s) over {PAGE_TARGET_BYTES / 1e3:.0f} kB")
        compare = [folders[0] / name for name in ("compare.html", "compare-scores.js")]
        if all(path.is_file() for path in compare):
            print(f"compare page  {compare[0].stat().st_size / 1e3:.0f} kB + {compare[1].stat().st_size / 1e3:.0f} kB "
                  f"of 57-game rows in compare-scores.js ({compare[0].stat().st_size / statistics.median(weights):.1f}x "
                  "the median page)")
        if len(folders) > 1:
            print(f"reproducible  {'yes: two builds byte-identical' if same_folders(folders[0], folders[1]) else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
