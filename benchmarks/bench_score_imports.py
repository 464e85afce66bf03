"""What ``atari5-spec score`` imports: modules of the package (and their lines) and all modules, side by side.

Usage::

    python benchmarks/bench_score_imports.py [--against REF] [--runs N]

Runs ``atari5-spec score`` on the five Atari-5 games in a fresh interpreter for this tree and, with
``--against``, for a git revision of it (exported to a temporary folder with ``git archive``; the data is
this tree's in both, so only the code differs), and prints per tree: the package's modules loaded, their
lines, all modules loaded (``sys.modules``), and the wall time of the import-heavy run. Issue 32's target:
far fewer package modules on the score path than the 45 (about 7,200 lines) of 1.2.0.

Then the CPU time and peak memory of the whole ``atari5-spec score`` process against ``python -c "import numpy"``,
paired: the two run alternately ``--runs`` times (one warm-up each first), each process's own CPU time (user +
system) and peak resident memory read from ``os.wait4``; it prints the medians and their ratios. Issue 44's
targets: at most 10 package modules and at most 1.5x the CPU of ``import numpy``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIVE_GAMES = {"battle_zone": 35000, "double_dunk": -1.5, "name_this_game": 12000, "phoenix": 9000, "qbert": 15000}
PROBE = """
import sys, io, contextlib, json, time, os
sys.path.insert(0, os.environ["ATARI5_CODE"])  # -c puts the working folder first: the code under test goes before it
start = time.perf_counter()
from atari5_spec.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(sys.argv[1:])
elapsed = time.perf_counter() - start
own = sorted(m for m in sys.modules if m == "atari5_spec" or m.startswith("atari5_spec."))
assert all(sys.modules[m].__file__.startswith(os.environ["ATARI5_CODE"]) for m in own if getattr(sys.modules[m], "__file__", None))
files = [getattr(sys.modules[m], "__file__", None) for m in own]
lines = sum(len(open(f, encoding="utf-8").read().splitlines()) for f in files if f)
print(json.dumps({"status": status, "package_modules": len(own), "package_lines": lines,
                  "all_modules": len(sys.modules), "seconds": elapsed, "pandas": "pandas" in sys.modules}))
"""


def measure(code: Path) -> dict:
    arguments = ["score"] + [a for g, v in FIVE_GAMES.items() for a in ("--score", f"{g}={v}")]
    env = dict(os.environ, ATARI5_CODE=str(code), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-c", PROBE, *arguments], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def cpu_and_peak(command: list[str], env: dict) -> tuple[float, float]:
    """(CPU seconds, peak resident MB) of one process running ``command`` (its own rusage, from os.wait4)."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {process.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0  # Linux: ru_maxrss in kB


def paired_costs(runs: int) -> dict[str, list[tuple[float, float]]]:
    """CPU and peak memory of `score` (this tree) and of `import numpy`, run alternately ``runs`` times."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    score = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
             "from atari5_spec.cli.main import main; raise SystemExit(main(sys.argv[1:]))", str(ROOT), "score",
             *[a for g, v in FIVE_GAMES.items() for a in ("--score", f"{g}={v}")]]
    numpy = [sys.executable, "-c", "import numpy"]
    costs = {"score": [], "numpy": []}
    for name, command in (("score", score), ("numpy", numpy)):
        cpu_and_peak(command, env)  # warm the file cache
    for _ in range(runs):
        for name, command in (("score", score), ("numpy", numpy)):
            costs[name].append(cpu_and_peak(command, env))
    return costs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=None, help="a git revision to compare with (e.g. main)")
    parser.add_argument("--runs", type=int, default=7, help="paired runs of score and import numpy (default 7)")
    args = parser.parse_args(argv)
    trees = [("this tree", ROOT)]
    with tempfile.TemporaryDirectory() as folder:
        if args.against:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against, "atari5_spec"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
            trees.insert(0, (args.against, Path(folder)))
        results = [(name, measure(code)) for name, code in trees]
    for name, r in results:
        print(f"{name:>12}: {r['package_modules']:3d} package modules ({r['package_lines']:,} lines), "
              f"{r['all_modules']:4d} modules in all, pandas {'loaded' if r['pandas'] else 'not loaded'}, "
              f"{r['seconds'] * 1000:6.0f} ms (exit {r['status']})")
    if len(results) == 2:
        (_, before), (_, after) = results
        print(f"ratio: package modules x{after['package_modules'] / before['package_modules']:.2f}, "
              f"lines x{after['package_lines'] / before['package_lines']:.2f}, "
              f"all modules x{after['all_modules'] / before['all_modules']:.2f}")
    costs = paired_costs(args.runs)
    medians = {name: (statistics.median(c for c, _ in pairs), statistics.median(m for _, m in pairs))
               for name, pairs in costs.items()}
    ratios = [s[0] / n[0] for s, n in zip(costs["score"], costs["numpy"])]
    for name, label in (("score", "atari5-spec score"), ("numpy", "python -c 'import numpy'")):
        cpu, peak = medians[name]
        print(f"{label:>26}: CPU {cpu * 1000:6.0f} ms, peak memory {peak:6.1f} MB (medians of {args.runs})")
    print(f"score / import numpy: CPU x{statistics.median(ratios):.2f} (median of the {args.runs} paired ratios, "
          f"range {min(ratios):.2f}-{max(ratios):.2f}; target at most 1.5), peak memory "
          f"x{medians['score'][1] / medians['numpy'][1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
