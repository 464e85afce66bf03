"""The subset search commands: search (staged, or every K-subset) and stability (bootstrap of the selection)."""

from __future__ import annotations

from atari5_spec.data.errors import InputError
from atari5_spec.cli.options import add_package_option, progress_bar


def _training_matrix(args):
    from atari5_spec.data.loading import load
    from atari5_spec.method import training

    dataset = load(args.path)
    rows = training.training_rows(dataset, pool_only=not args.current_rule)
    return training.training_matrix(rows, dataset.games, dataset.algorithms)


def _where(args) -> dict:
    """Where the tasks run: the Dask cluster given, else local processes (default: one per CPU)."""
    import os

    if args.processes is not None and args.processes < 1:
        raise InputError(f"--processes must be at least 1, got {args.processes}")
    processes = args.processes or os.cpu_count() or 1
    return {"scheduler": args.scheduler, "processes": 0 if args.scheduler else processes}


def _cmd_search(args) -> int:
    import time

    X, y = _training_matrix(args)
    if args.size is not None:
        return _search_size(args, X, y)
    if args.scheduler or args.processes is not None:
        raise InputError("--scheduler and --processes go with --size K (the staged search runs in this process)")
    from atari5_spec_research.search import staged_search

    start = time.perf_counter()
    found = staged_search(X, y, excluded=tuple(args.exclude), progress=progress_bar("search"))
    seconds = time.perf_counter() - start
    print(f"{'subset':<12} {'N':>3} {'CV R2':>6} {'rel.err':>7}  games (coefficients)")
    for name, model in found.items():
        terms = ", ".join(f"{g} {c:.4f}" for g, c in zip(model.games, model.coefficients))
        print(f"{name:<12} {model.n:>3} {model.cv_r2:>6.3f} {model.rel_err_percent:>6.1f}%  {terms}")
    print(f"\nstaged search over {X.shape[0]} algorithms x {X.shape[1]} games in {seconds:.2f} s")
    return 0


def _search_size(args, X, y) -> int:
    """``search --size K``: the best admissible K-subset of all searchable games (no staging)."""
    import time

    from atari5_spec.method.fitting import fit_subset_model
    from atari5_spec_research.search import evaluate_subsets, search_best, searchable_games

    games = list(X.columns)
    pool = [games.index(g) for g in searchable_games(games, tuple(args.exclude))]
    if not 1 <= args.size <= len(pool):
        raise InputError(f"--size must be between 1 and {len(pool)} (the searchable games), got {args.size}")
    where = _where(args)
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    start = time.perf_counter()
    try:
        result = search_best(Xn, yn, pool, args.size, progress=progress_bar("search"), **where)
    except ValueError as error:
        raise InputError(str(error)) from error
    seconds = time.perf_counter() - start
    model = fit_subset_model(X, y, [games[c] for c in result.best])
    top = result.top
    shown = top.subsets[:args.top]
    admissible = evaluate_subsets(Xn, yn, shown).admissible
    print(f"best admissible {args.size}-subset of {len(pool)} games: N={model.n} CV MSE={model.cv_mse:.6g} "
          f"CV R2={model.cv_r2:.3f} rel.err={model.rel_err_percent:.1f}%")
    print("  " + ", ".join(f"{g} {c:.4f}" for g, c in zip(model.games, model.coefficients)))
    print(f"\n{'rank':>4} {'CV MSE':>10} {'N':>3} {'admissible':>10}  games (by fast CV MSE)")
    for rank, (subset, mse, n, ok) in enumerate(zip(shown, top.cv_mse, top.n_rows, admissible), start=1):
        print(f"{rank:>4} {mse:>10.6g} {n:>3} {'yes' if ok else 'no':>10}  {', '.join(games[c] for c in subset)}")
    place = f"the Dask cluster at {args.scheduler}" if args.scheduler else f"up to {where['processes']} processes"
    print(f"\n{top.n_searched:,} subsets ({top.n_failed:,} without a fit) in {seconds:.2f} s "
          f"({top.n_searched / max(seconds, 1e-9):,.0f} subsets/s) on {place}")
    return 0


def _cmd_stability(args) -> int:
    import time

    from atari5_spec_research.search import selection_stability

    if args.resamples < 1:
        raise InputError(f"--resamples must be at least 1, got {args.resamples}")
    if args.out:
        from atari5_spec.data.paths import output_file

        output_file(args.out)  # the output policy, before the work: no link, folder, or file inside a package
    X, y = _training_matrix(args)
    start = time.perf_counter()
    report = selection_stability(X, y, args.resamples, args.seed, args.size, tuple(args.exclude),
                                 progress=progress_bar("resamples"), checkpoint=args.checkpoint, **_where(args))
    seconds = time.perf_counter() - start
    ok = args.resamples - report.failed
    print(f"selection stability: best {args.size}-subset on {args.resamples} bootstrap resamples of the "
          f"{X.shape[0]} algorithms (seed {args.seed}); {ok} with an admissible subset\n")
    print(f"{'game':<22} {'selected':>8} {'share':>6}")
    for row in report.games.itertuples():
        print(f"{row.game:<22} {row.selected:>8} {row.share:>6.0%}")
    print(f"\n{'selected':>8} {'share':>6}  subset")
    for row in report.subsets.head(args.top).itertuples():
        print(f"{row.selected:>8} {row.share:>6.0%}  {row.subset.replace(';', ', ')}")
    print("\nselected model's CV error over the resamples:")
    print(report.cv_error.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for row in report.resamples[report.resamples["error"] != ""].itertuples():
        print(f"resample {row.resample}: no selection ({row.error})")
    if args.out:
        from atari5_spec.data.paths import write_output

        write_output(args.out, report.resamples.to_csv(index=False, lineterminator="\n"))  # atomic, same policy
        print(f"\nwrote the {args.resamples} resamples to {args.out}")
    print(f"\n{args.resamples} resamples in {seconds:.1f} s")
    return 0


def _add_where(p) -> None:
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the tasks on this Dask scheduler, e.g. tcp://host:8786 "
                        "(needs pip install 'atari5-spec-research[distributed]')")
    p.add_argument("--processes", type=int, default=None, metavar="N",
                   help="local worker processes when no scheduler is given (default: one per CPU)")


def add_search_commands(commands) -> None:
    """Add search and stability to the top-level subcommands."""
    p = commands.add_parser("search", help="run the paper's staged subset search, or with --size K the search for "
                                           "the best K-subset of all games; print the best subsets",
                            description="Reruns the Atari-5 paper's staged search (every five-game subset with "
                                        "10-fold cross-validation, then Atari-3, -1, -3-Val, -5-Val and -10) on the "
                                        "paper's training set, or with --size K searches every K-subset of the "
                                        "searchable games without staging, on local processes or a Dask cluster.")
    add_package_option(p)
    p.add_argument("--exclude", nargs="*", default=["surround"], help="games left out of the search")
    p.add_argument("--current-rule", action="store_true",
                   help="train on every entry the inclusion rule admits now, not only the paper's pool")
    p.add_argument("--size", type=int, default=None, metavar="K",
                   help="search every K-subset of the searchable games (no staging) for the best admissible one")
    p.add_argument("--top", type=int, default=10, help="with --size: how many of the best subsets to list")
    _add_where(p)
    p.set_defaults(run=_cmd_search)

    p = commands.add_parser("stability", help="bootstrap over algorithms of the best-subset selection: how often "
                                              "each game and subset is chosen, and the chosen model's CV error",
                            description="Resamples the training algorithms with replacement B times and reruns the "
                                        "best K-subset search on each resample (local processes or a Dask cluster): "
                                        "how often each game and each subset is chosen, and the distribution of "
                                        "the chosen model's CV error. Resumable with --checkpoint.")
    p.add_argument("--resamples", type=int, default=20, metavar="B", help="bootstrap resamples (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples (default 0)")
    p.add_argument("--size", type=int, default=5, metavar="K", help="games per subset (default 5: Atari-5)")
    p.add_argument("--checkpoint", default=None, metavar="FILE",
                   help="append each finished resample to FILE and skip those already in it (resumable)")
    p.add_argument("--out", default=None, metavar="CSV", help="write one row per resample to this CSV file")
    p.add_argument("--top", type=int, default=10, help="how many of the most chosen subsets to list")
    add_package_option(p)
    p.add_argument("--exclude", nargs="*", default=["surround"], help="games left out of the search")
    p.add_argument("--current-rule", action="store_true",
                   help="train on every entry the inclusion rule admits now, not only the paper's pool")
    _add_where(p)
    p.set_defaults(run=_cmd_stability)
