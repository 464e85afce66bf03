"""Speed and peak memory of the exhaustive search at k = 5, 6, 7: local processes vs a Dask LocalCluster.

Usage::

    python benchmarks/bench_search_scale.py [--sizes 5 6 7] [--workers 2] [--no-stability]

On the paper's training matrix (62 algorithms x 56 searchable games, from
the installed data package). Each measurement runs in a fresh Python
process, so that its peak memory is its own. Prints, for each k:

* the search (``search_best``: every k-subset, 10-fold CV each, top-N kept,
  then the selection) on ``--workers`` local processes, and on a Dask
  LocalCluster of as many single-threaded worker processes: wall seconds,
  subsets/s, and peak memory (resident set, max over the run) of the main
  process and of the largest worker, and their ratio side by side;
* the LocalCluster again with its workers' malloc settings tuned
  (``TUNED_WORKER_ENVIRONMENT``: Dask's default trims freed memory eagerly);
* for k = 5 also the in-process run (two threads), which ``best_subset`` and
  the staged search use;
* the estimated time of the exhaustive k = 10 search (3.6e10 subsets) on N
  cores, from the measured single-core time of one prefix task for each
  prefix size (every prefix of 5 games with m games after it costs the
  same search of C(m, 5) subsets, up to its row set);
* selection stability with B = 20 resamples on the local processes.

Targets (issue 14): k = 7 completes on 2 cores with peak memory under 2 GB;
k = 5 under 3 s; stability B = 20 under 2 minutes. The machine may be
shared: the load average is printed next to every figure.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

TARGET_K7_MEMORY_MIB = 2048
TARGET_K5_SECONDS = 3.0
TARGET_STABILITY_SECONDS = 120.0
# Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which also
# turns off glibc's adaptive mmap threshold: every freed array over 128 KiB
# goes back to the system and the next one page-faults in again (13 times the
# page faults of a plain process on this search). "dask-tuned" starts the
# workers with these instead.
TUNED_WORKER_ENVIRONMENT = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 134217728,
                            "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 33554432}


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "n/a"


def peak_mib(who=resource.RUSAGE_SELF) -> float:
    peak = resource.getrusage(who).ru_maxrss
    return peak / 2 ** 20 if sys.platform == "darwin" else peak / 2 ** 10      # bytes on macOS, KiB on Linux


def paper_problem():
    import atari5_spec
    from atari5_spec_research import search
    from atari5_spec.method import training

    dataset = atari5_spec.load()
    rows = training.training_rows(dataset, pool_only=True)
    X, y = training.training_matrix(rows, dataset.games, dataset.algorithms)
    games = list(X.columns)
    return X, y, [games.index(g) for g in search.searchable_games(games)]


def measure(k: int, engine: str, workers: int) -> dict:
    """One search in this (fresh) process: engine is 'threads' (here), 'processes' or 'dask'."""
    from atari5_spec_research import search

    X, y, pool = paper_problem()
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    cluster = client = None
    where = {"n_threads": workers} if engine == "threads" else {"processes": workers}
    if engine.startswith("dask"):
        import dask
        from distributed import Client, LocalCluster

        if engine == "dask-tuned":
            dask.config.set(TUNED_WORKER_ENVIRONMENT)
        started = time.perf_counter()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")
        client = Client(cluster)
        where = {"scheduler": client}
        cluster_seconds = time.perf_counter() - started
    load_before = load()
    start = time.perf_counter()
    found = search.search_best(Xn, yn, pool, k, **where)
    seconds = time.perf_counter() - start
    result = {"k": k, "engine": engine, "seconds": seconds, "subsets": found.top.n_searched,
              "best": [X.columns[c] for c in found.best], "load_before": load_before, "load_after": load(),
              "main_mib": peak_mib()}
    if engine == "processes":
        result["worker_mib"] = peak_mib(resource.RUSAGE_CHILDREN)
    if engine.startswith("dask"):
        result["worker_mib"] = max(client.run(lambda: peak_mib()).values())
        result["cluster_seconds"] = cluster_seconds
        client.close()
        cluster.close()
    return result


def k10_estimate() -> dict:
    """Single-core seconds of the exhaustive k = 10 search, summed over prefix sizes (see the docstring)."""
    from atari5_spec_research.search import tasks, topn

    X, y, pool = paper_problem()
    problem = tasks.make_problem(X.to_numpy(float), y.to_numpy(float), pool, 10)
    n, depth = len(problem.order), tasks.prefix_depth(len(problem.order), 10)
    total_seconds, total_subsets, sampled = 0.0, 0, 0
    cpu = time.process_time()
    for last in range(depth - 1, n - (10 - depth)):
        m = n - 1 - last
        prefix = list(range(depth - 1)) + [last]                       # one prefix ending at `last`
        start = time.process_time()
        topn.top_of(tasks.prefix_scores(problem, prefix, n_threads=1), problem.keep)
        seconds = time.process_time() - start
        prefixes = math.comb(last, depth - 1)                          # prefixes that end at `last`
        total_seconds += prefixes * seconds
        total_subsets += prefixes * math.comb(m, 10 - depth)
        sampled += math.comb(m, 10 - depth)
    assert total_subsets == math.comb(n, 10)
    return {"core_seconds": total_seconds, "subsets": total_subsets, "sampled": sampled,
            "sample_seconds": time.process_time() - cpu, "load": load()}


def stability(workers: int) -> dict:
    from atari5_spec_research import search

    X, y, _ = paper_problem()
    load_before, start = load(), time.perf_counter()
    report = search.selection_stability(X, y, resamples=20, seed=0, processes=workers)
    return {"seconds": time.perf_counter() - start, "failed": report.failed, "load_before": load_before,
            "load_after": load(), "top_subset": report.subsets.iloc[0].to_dict(), "main_mib": peak_mib(),
            "worker_mib": peak_mib(resource.RUSAGE_CHILDREN)}


def in_fresh_process(*args: str) -> dict:
    output = subprocess.run([sys.executable, __file__, "--one", *args], check=True, capture_output=True, text=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[5, 6, 7])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-stability", action="store_true")
    parser.add_argument("--no-k10", action="store_true")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)             # internal: one measurement
    args = parser.parse_args(argv)
    if args.one:
        kind, *rest = args.one
        result = {"search": lambda: measure(int(rest[0]), rest[1], int(rest[2])), "k10": k10_estimate,
                  "stability": lambda: stability(int(rest[0]))}[kind]()
        print(json.dumps(result))
        return 0

    print(f"machine: {os.cpu_count()} CPUs, load average {load()} at start; {args.workers} workers; "
          "each figure from a fresh process")
    print(f"\n{'k':>2} {'engine':<22} {'subsets':>13} {'seconds':>8} {'subsets/s':>12} {'main MiB':>9} "
          f"{'worker MiB':>10} {'total<=':>8}  load before/after  best")
    for k in args.sizes:
        engines = (["threads"] if k == 5 else []) + ["processes", "dask", "dask-tuned"]
        rows = {}
        for engine in engines:
            r = rows[engine] = in_fresh_process("search", str(k), engine, str(args.workers))
            worker = r.get("worker_mib", 0.0)
            total = r["main_mib"] + args.workers * worker
            label = {"threads": "this process, threads", "processes": "local processes",
                     "dask": "Dask LocalCluster", "dask-tuned": "LocalCluster, malloc"}[engine]
            print(f"{k:>2} {label:<22} {r['subsets']:>13,} {r['seconds']:>8.2f} {r['subsets'] / r['seconds']:>12,.0f} "
                  f"{r['main_mib']:>9.0f} {worker:>10.0f} {total:>8.0f}  {r['load_before']:>5}/{r['load_after']:<5}  "
                  f"{', '.join(r['best'])}")
        for engine in ("dask", "dask-tuned"):
            ratio = rows[engine]["seconds"] / rows["processes"]["seconds"]
            same = rows[engine]["best"] == rows["processes"]["best"]
            print(f"{'':>3}{engine} / local processes: {ratio:.2f}x the time (LocalCluster start-up "
                  f"{rows[engine]['cluster_seconds']:.1f} s not counted); same best subset: {same}")
        if k == 5:
            ok = rows["threads"]["seconds"] < TARGET_K5_SECONDS
            print(f"{'':>3}k=5 in this process {rows['threads']['seconds']:.2f} s "
                  f"({'within' if ok else 'OVER'} the {TARGET_K5_SECONDS:g} s target)")
        if k == 7:
            total = rows["processes"]["main_mib"] + args.workers * rows["processes"]["worker_mib"]
            print(f"{'':>3}k=7 peak memory at most {total:.0f} MiB over all processes "
                  f"({'within' if total < TARGET_K7_MEMORY_MIB else 'OVER'} the {TARGET_K7_MEMORY_MIB} MiB target)")

    if not args.no_k10:
        r = in_fresh_process("k10")
        print(f"\nexhaustive k=10: {r['subsets']:.3g} subsets; one prefix task per prefix size measured "
              f"({r['sampled']:,} subsets in {r['sample_seconds']:.1f} s CPU, load {r['load']})")
        per_core = r["subsets"] / r["core_seconds"]
        print(f"  single core {r['core_seconds'] / 3600:,.1f} h ({per_core:,.0f} subsets/s per core); "
              + ", ".join(f"{cores} cores {r['core_seconds'] / cores / 3600:,.2f} h"
                          for cores in (2, 16, 64, 256, 1024)))

    if not args.no_stability:
        r = in_fresh_process("stability", str(args.workers))
        ok = r["seconds"] < TARGET_STABILITY_SECONDS
        print(f"\nselection stability, B=20 resamples, {args.workers} local processes: {r['seconds']:.1f} s "
              f"({'within' if ok else 'OVER'} the {TARGET_STABILITY_SECONDS:g} s target), load {r['load_before']}/"
              f"{r['load_after']}; peak MiB main {r['main_mib']:.0f}, worker {r['worker_mib']:.0f}; "
              f"{r['failed']} failed; most chosen: {r['top_subset']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
