"""What ``atari5-spec score`` imports: modules of the package (and their lines) and all modules, side by side.

Usage::

    python benchmarks/bench_score_imports.py [--against REF]

Runs ``atari5-spec score`` on the five Atari-5 games in a fresh interpreter for this tree and, with
``--against``, for a git revision of it (exported to a temporary folder with ``git archive``; the data is
this tree's in both, so only the code differs), and prints per tree: the package's modules loaded, their
lines, all modules loaded (``sys.modules``), and the wall time of the import-heavy run. Issue 32's target:
far fewer package modules on the score path than the 45 (about 7,200 lines) of 1.2.0.
"""

from __future__ import annotations

import argparse
import json
import os
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=None, help="a git revision to compare with (e.g. main)")
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
