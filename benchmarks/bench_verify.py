"""`atari5-spec verify`: wall time, CPU time and peak memory, and its fold searches before and after (target: verify
under about 10 s on 2 cores; verify --skip-search under 3 s).

Run: python benchmarks/bench_verify.py [--runs N] [--baseline CHECKOUT [--verify-only [--skip-search]]]

Every figure is a whole process, started fresh as a user would start it, measured by the operating system
(wait4: wall, user + system CPU of the process and its children, peak resident memory of the largest of
them); medians over the runs, the commands of a pair run alternately (A B A B ...) in one run of this script.

* The fold searches of the reselected calibrations (what `verify` spends most of its time on), both bounded
  and on up to two processes: as before (each fold its own Atari-5 lower-bound pass, as at cd47a3d) and now
  (one pass shared by the folds of a group of papers, ``search/shared_bounds.py``); both must return the
  same selections, and the script says whether they do.
* `verify`, `verify --skip-search` and `validate` as they are now; with ``--baseline`` also `verify` of another
  checkout (e.g. ``git worktree add --detach /tmp/verify-base main``), run on this checkout's data, side by side,
  and whether the two print the same report (they must: only the time may change). ``--verify-only``: just that
  pair; with ``--skip-search`` as well: `verify --skip-search` of both (every check but the searches, issue 33
  item 5: the interval tables and calibrations). The machine's load average is printed before and after: on a shared machine it says how far the figures
  (CPU time too: cores and caches are shared) are from an idle one.
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

FOLDS = """
import json, sys
from atari5_spec.data.loading import load
from atari5_spec_research.evaluation.reselection import fold_selections
if __name__ == "__main__":
    found = fold_selections(load(), "paper-2023", shared=sys.argv[1] == "new")
    print(json.dumps(found, sort_keys=True))
"""


def run_measured(command: list[str], env: dict | None = None) -> tuple[dict, str]:
    """({wall, cpu, peak_mb}, stdout) of one run of ``command`` in ROOT: reaped here (wait4), so that its
    rusage (with its children's) is the one read."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out_file:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out_file, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        out = out_file.read()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed with exit status {process.returncode}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}, out


def medians(samples: list[dict]) -> dict:
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def paired(a: list[str], b: list[str], runs: int, env_a=None, env_b=None) -> tuple[dict, dict, list[str], list[str]]:
    """Medians of ``a`` and ``b`` run alternately ``runs`` times each, and their outputs."""
    samples_a, samples_b, outs_a, outs_b = [], [], [], []
    for _ in range(runs):
        figure, out = run_measured(a, env_a)
        samples_a.append(figure)
        outs_a.append(out)
        figure, out = run_measured(b, env_b)
        samples_b.append(figure)
        outs_b.append(out)
    return medians(samples_a), medians(samples_b), outs_a, outs_b


def row(name: str, figure: dict) -> str:
    return f"{name:<52} {figure['wall']:7.2f} s {figure['cpu']:7.2f} s {figure['peak_mb']:7.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of atari5-spec whose verify runs beside this one's")
    parser.add_argument("--verify-only", action="store_true",
                        help="only verify (and the baseline's verify): no fold-search, --skip-search or validate rows")
    parser.add_argument("--skip-search", action="store_true",
                        help="with --verify-only: compare `verify --skip-search` instead of `verify`")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    python = sys.executable
    # -P: the current folder (this checkout, whose data every run reads) is not put first on the import path, so
    # that PYTHONPATH picks the code: without it the baseline's run would import this checkout's code
    cli = [python, "-P", "-m", "atari5_spec.cli"]
    print(f"{'':<52} {'wall':>9} {'CPU':>9} {'peak':>10}   (medians of {args.runs} runs, {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.1f})")
    if args.verify_only:
        if args.baseline is None:
            parser.error("--verify-only compares with --baseline")
        compare_verify(args.baseline, args.runs, cli, env, ["--skip-search"] if args.skip_search else [])
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
        return

    before, after, outs_before, outs_after = paired([python, "-c", FOLDS, "old"], [python, "-c", FOLDS, "new"],
                                                    args.runs, env, env)
    same = {json.dumps(json.loads(o)) for o in outs_before + outs_after}
    print(row("fold searches before (a bound pass per fold)", before))
    print(row("fold searches now (a bound pass per group of papers)", after))
    print(f"  ratio before/now: wall {before['wall'] / after['wall']:.1f}x, CPU {before['cpu'] / after['cpu']:.1f}x; "
          f"the same selections every run: {'yes' if len(same) == 1 else 'NO'} "
          f"({len(json.loads(outs_after[0]))} papers); peak memory before/now {before['peak_mb'] / after['peak_mb']:.2f}x")

    if args.baseline is not None:
        now = compare_verify(args.baseline, args.runs, cli, env)
    else:
        now = medians([run_measured(cli + ["verify"], env)[0] for _ in range(args.runs)])
        print(row("verify (with the searches)", now))
    skip = medians([run_measured(cli + ["verify", "--skip-search"], env)[0] for _ in range(args.runs)])
    validate = medians([run_measured(cli + ["validate"], env)[0] for _ in range(args.runs)])
    start = medians([run_measured([python, "-c", "pass"], env)[0] for _ in range(args.runs)])
    print(row("verify --skip-search", skip))
    print(row("validate", validate))
    print(row("python -c pass", start))
    print(f"verify under 10 s wall: {'met' if now['wall'] < 10 else 'NOT met'}; "
          f"verify --skip-search under 3 s: {'met' if skip['wall'] < 3 else 'NOT met'}; "
          f"load average at the end {os.getloadavg()[0]:.1f}")


def compare_verify(baseline: Path, runs: int, cli: list[str], env: dict, options: list[str] = ()) -> dict:
    """verify (with ``options``) of the ``baseline`` checkout's code and of this one, alternately on this checkout's
    data: the figures, their ratios, and whether every run printed the same report; returns this code's figures."""
    env_base = dict(os.environ, PYTHONPATH=str(baseline.resolve()))
    command = cli + ["verify", *options]
    base, now, outs_base, outs_now = paired(command, command, runs, env_base, env)
    label = " ".join(["verify", *options])
    print(row(f"{label}, code of {baseline}", base))
    print(row(f"{label}, this code", now))
    print(f"  ratio: wall {base['wall'] / now['wall']:.1f}x, CPU {base['cpu'] / now['cpu']:.1f}x, "
          f"peak memory {base['peak_mb'] / now['peak_mb']:.2f}x; the same report every run: "
          f"{'yes' if len(set(outs_base + outs_now)) == 1 else 'NO'}")
    return now


if __name__ == "__main__":
    main()
