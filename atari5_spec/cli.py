"""The ``atari5-spec`` command line: a thin shell over the Python API.

Each subcommand parses its arguments, calls one API function and prints the
result. User errors (bad files, unknown games, invalid data) print a message
and exit with status 1, without a traceback; exit status 0 means success.
Modules are imported inside the commands so that start-up stays fast.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .cli_options import add_package_option, writable_package
from .errors import InputError


class _VersionAction(argparse.Action):
    """``--version``: the code, the data package and the coefficient versions, read only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    import json

    from .datapackage import DESCRIPTOR, package_root

    lines = [f"atari5-spec {__version__} (code)"]
    try:
        root = package_root()
        descriptor = json.loads((root / DESCRIPTOR).read_text(encoding="utf-8"))
        from .pinned import default_version, known_versions

        versions = known_versions(root / "coefficients")
        default = default_version(root / "coefficients")
        lines += [f"data package {descriptor.get('version', '?')} at {root}",
                  "coefficient versions: " + ", ".join(v + (" (default)" if v == default else "") for v in versions)]
    except (OSError, ValueError, InputError) as error:
        lines.append(f"data package: not readable ({error})")
    return "\n".join(lines)


def _problems_json(problems) -> list[dict]:
    return [p._asdict() for p in problems]


def _cmd_validate(args) -> int:
    from .validation import format_problems, validate_package

    from .datapackage import package_root, which_package

    problems = validate_package(args.path)
    if args.json:
        import json

        print(json.dumps({"package": str(package_root(args.path)), "valid": not problems,
                          "problems": _problems_json(problems)}, indent=2))
        return 1 if problems else 0
    print(which_package(args.path))
    if problems:
        print(format_problems(problems))
        print(f"\n{len(problems)} problem(s): the package is NOT valid.")
        return 1
    print("valid: structure, types, keys, hashes and data rules all pass.")
    return 0


def _progress_bar(label: str):
    """A progress callback drawing a bar on a terminal (nothing when output is redirected)."""
    if not sys.stderr.isatty():
        return None

    def draw(done: int, total: int) -> None:
        filled = int(30 * done / max(total, 1))
        end = "\n" if done >= total else ""
        print(f"\r{label} [{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,}", end=end, file=sys.stderr, flush=True)

    return draw


def _cmd_verify(args) -> int:
    from .verification import format_report, verify

    from .datapackage import package_root, which_package

    checks = verify(args.path, search=not args.skip_search, progress=None if args.json else _progress_bar("search"))
    if args.json:
        import json

        print(json.dumps({"package": str(package_root(args.path)), "ok": all(c.ok for c in checks),
                          "checks": [{"name": c.name, "compared": c.compared, "max_abs_diff": c.max_abs_diff,
                                      "ok": c.ok, "mismatches": list(c.mismatches)} for c in checks]}, indent=2))
        return 0 if all(c.ok for c in checks) else 1
    print(which_package(args.path))
    print(format_report(checks))
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)}/{len(checks)} checks passed" + ("" if not failed else ": NOT reproducible"))
    return 1 if failed else 0


def _cmd_reproduce(args) -> int:
    from . import coefficients as coef
    from . import training
    from .loading import load
    from .paths import output_directory
    from .reproduction import reproduce_tables, write_tables

    output_directory(args.out)  # the output policy, checked before the work (and again when writing)
    dataset = load(args.path)
    content, tables = coef.read_version(dataset.root / "coefficients", args.coefficients or coef.PAPER_VERSION)
    rows = training.training_rows(dataset, pool_only=True)
    written = write_tables(reproduce_tables(dataset, tables, rows), args.out)
    print(f"wrote {len(written)} files to {args.out} (CSV at full precision, Markdown at the paper's precision)")
    return 0


def _training_matrix(args):
    from . import training
    from .loading import load

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
    from .search import staged_search

    start = time.perf_counter()
    found = staged_search(X, y, excluded=tuple(args.exclude), progress=_progress_bar("search"))
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

    from .fitting import fit_subset_model
    from .search import evaluate_subsets, search_best, searchable_games

    games = list(X.columns)
    pool = [games.index(g) for g in searchable_games(games, tuple(args.exclude))]
    if not 1 <= args.size <= len(pool):
        raise InputError(f"--size must be between 1 and {len(pool)} (the searchable games), got {args.size}")
    where = _where(args)
    Xn, yn = X.to_numpy(float), y.to_numpy(float)
    start = time.perf_counter()
    try:
        result = search_best(Xn, yn, pool, args.size, progress=_progress_bar("search"), **where)
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

    from .search import selection_stability

    if args.resamples < 1:
        raise InputError(f"--resamples must be at least 1, got {args.resamples}")
    X, y = _training_matrix(args)
    start = time.perf_counter()
    report = selection_stability(X, y, args.resamples, args.seed, args.size, tuple(args.exclude),
                                 progress=_progress_bar("resamples"), checkpoint=args.checkpoint, **_where(args))
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
        report.resamples.to_csv(args.out, index=False)
        print(f"\nwrote the {args.resamples} resamples to {args.out}")
    print(f"\n{args.resamples} resamples in {seconds:.1f} s")
    return 0


def _add_where(p) -> None:
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the tasks on this Dask scheduler, e.g. tcp://host:8786 "
                        "(needs pip install 'atari5-spec[distributed]')")
    p.add_argument("--processes", type=int, default=None, metavar="N",
                   help="local worker processes when no scheduler is given (default: one per CPU)")


def _cmd_fit(args) -> int:
    from .versioning import fit_new_version

    path = fit_new_version(writable_package(args.path), args.name, description=args.description)
    print(f"wrote coefficient version {args.name} to {path}")
    return 0


def _cmd_irt(args) -> int:
    import json

    from .loading import load
    from .irt_output import format_irt, irt_as_dict, irt_warnings
    from .structure import training_irt

    if args.quadrature < 5:
        raise InputError(f"--quadrature {args.quadrature}: use at least 5 nodes (default 21)")
    dataset = load(args.path)
    fit = training_irt(dataset, regularised=not args.unregularised, n_quadrature=args.quadrature)
    if args.json:
        names = dataset.games.set_index("game_id")["name"].astype(str)
        print(json.dumps(irt_as_dict(fit, names), indent=2))
    else:
        print(format_irt(fit, abilities=args.abilities))
    for warning in irt_warnings(fit.result):
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _cmd_aggregate(args) -> int:
    import json

    from .loading import load
    from .run_aggregates import aggregate_runs, format_run_aggregates, run_aggregates_as_dict
    from .runs_input import normalised_runs, read_runs

    if args.resamples < 1:
        raise InputError(f"--resamples {args.resamples}: give a positive number of bootstrap resamples")
    if not 0 < args.confidence < 1:
        raise InputError(f"--confidence {args.confidence}: give a level between 0 and 1, e.g. 0.95")
    if args.figure:
        from .report import require_matplotlib

        require_matplotlib()  # fail before the bootstrap when the plot extra is missing
    games = load(args.path).games
    runs = normalised_runs(read_runs(args.runs, games), games, source=args.runs)
    result = aggregate_runs(runs.scores, runs.games, n_resamples=args.resamples, confidence=args.confidence,
                            seed=args.seed)
    print(json.dumps(run_aggregates_as_dict(result), indent=2) if args.json else format_run_aggregates(result))
    if args.figure:
        from .aggregate_figure import write_run_aggregates_figure

        path = write_run_aggregates_figure(result, args.figure)
        print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _cmd_report(args) -> int:
    from .loading import load
    from .report import analyse, require_matplotlib, write_report

    from .paths import output_directory

    require_matplotlib()  # fail before the analyses when the plot extra is missing
    output_directory(args.out)  # the output policy, checked before the analyses (and again when writing)
    written = write_report(analyse(load(args.path)), args.out)
    for path in written:
        print(f"wrote {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="atari5-spec",
        description="The Atari-5 benchmark: validate the data package, verify pinned coefficients, "
                    "score an agent from its five games.")
    parser.add_argument("--version", action=_VersionAction,
                        help="show the code, data package and coefficient versions, and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    p = commands.add_parser(
        "validate", help="validate a data package: structure, types, keys, hashes and data rules",
        description="Validates the data package with Frictionless (structure, types, constraints, keys, sha256 "
                    "hashes) and with pandera models built from the same Table Schemas (data rules: finite scores, "
                    "raw values, protocol facts, corrections). Prints which package it checked, then every problem "
                    "with file, line, column and fix; exit 1 when it is not valid.")
    add_package_option(p, positional=True)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=_cmd_validate)

    p = commands.add_parser(
        "verify", help="validate, then recompute every pinned number; exit 1 with a diff on any mismatch",
        description="Validates the package, then recomputes every pinned coefficient version from its pinned "
                    "training rows (tolerance 1e-9), compares the paper's version with the paper's printed Tables "
                    "2, 3, 8, 9, 10, 11 and 12 at printed precision, recomputes every pinned calibration "
                    "(out-of-sample errors) and reruns the staged subset search. Exit 1, naming version, model "
                    "and value, on any mismatch.")
    add_package_option(p, positional=True)
    p.add_argument("--skip-search", action="store_true", help="do not rerun the subset search (faster)")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(run=_cmd_verify)

    p = commands.add_parser("reproduce", help="write the paper's Tables 2, 3, 8, 9, 10, 11, 12 computed from the data",
                            description="Computes the Atari-5 paper's Tables 2, 3, 8, 9, 10, 11 and 12 from the "
                                        "data and writes each as CSV (full precision) and Markdown (the paper's "
                                        "printed precision) to a new folder outside the package.")
    p.add_argument("--out", required=True, help="directory to write CSV and Markdown files to")
    add_package_option(p)
    p.add_argument("--coefficients", default=None, help="coefficient version (default: paper-2023)")
    p.set_defaults(run=_cmd_reproduce)

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

    p = commands.add_parser("fit", help="fit a new pinned coefficient version from the current data",
                            description="Fits every subset model of the default version (same games) on every entry "
                                        "the inclusion rule admits in the current data, and pins it as a new "
                                        "coefficient version (manifest, training rows, hashes); the data package "
                                        "version gets a minor bump and CHANGELOG.md a line. The default version "
                                        "does not change.")
    p.add_argument("--name", required=True, help="version name, e.g. 2026-11 (lower-case, digits, '-')")
    add_package_option(p)
    p.add_argument("--description", default=None, help="one sentence saying why this version exists")
    p.set_defaults(run=_cmd_fit)

    p = commands.add_parser("irt", help="fit a 2PL IRT model of 'at least human level' (Martinez-Plumed & "
                                        "Hernandez-Orallo 2017) and print each game's difficulty and "
                                        "discrimination with standard errors",
                            description="Item response theory of the games (Martinez-Plumed & Hernandez-Orallo "
                                        "2017) on the paper's training set: each game's difficulty and "
                                        "discrimination with standard errors (Bayes modal 2PL by default), its "
                                        "success rate, and whether it discriminates at all.")
    add_package_option(p)
    p.add_argument("--abilities", action="store_true", help="also print each algorithm's ability")
    p.add_argument("--json", action="store_true", help="print the fit as JSON (games, abilities, warnings)")
    p.add_argument("--quadrature", type=int, default=21, metavar="N",
                   help="adaptive Gauss-Hermite nodes per agent (default 21; the estimates do not depend on it)")
    p.add_argument("--unregularised", action="store_true",
                   help="marginal maximum likelihood without priors, as the IRT paper (games that split the "
                        "agents perfectly then have no finite estimate; a warning names them)")
    p.set_defaults(run=_cmd_irt)

    p = commands.add_parser("aggregate", help="aggregate your own per-seed runs of any number of agents "
                                              "(CSV: agent,game,seed,score): IQM, median, mean, optimality gap "
                                              "with stratified bootstrap intervals, probability of improvement, "
                                              "performance profiles, paired Welch tests",
                            description="Aggregates your own per-seed runs (CSV agent,game,seed,score, raw scores, "
                                        "any game spelling) on the human-normalised scale as a fraction (1.0 = "
                                        "human): IQM, median, mean and optimality gap with stratified bootstrap "
                                        "intervals, probability of improvement between agents, performance "
                                        "profiles, the ALE paper's score distribution and paired Welch tests.")
    p.add_argument("runs", help="CSV file with columns agent, game, seed, score (raw scores, any game spelling)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--figure", metavar="PNG", default=None, help="also draw the intervals, profiles and "
                                                                 "P(X > Y) to this PNG (needs matplotlib)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    add_package_option(p)
    p.set_defaults(run=_cmd_aggregate)

    p = commands.add_parser("report", help="write pictures and one self-contained HTML page of the structure "
                                           "analyses (needs matplotlib: pip install 'atari5-spec[plot]')",
                            description="The Atari-5 paper's structure analyses (single-game ranking, per-game "
                                        "R^2, fairness, correlations, out-of-fold and held-out estimates) and the "
                                        "IRT fit, as PNG pictures and one self-contained report.html in a new "
                                        "folder outside the package.")
    p.add_argument("--out", required=True, help="directory to write the PNG files and report.html to")
    add_package_option(p)
    p.set_defaults(run=_cmd_report)

    from .score_cli import add_scoring_commands  # score, predict, leaderboard (argparse only: fast)

    add_scoring_commands(commands)

    from .contribute_cli import add_contribution_commands  # contribute check|add|curves (argparse only: fast)

    add_contribution_commands(commands)

    from .evaluate_cli import add_evaluation_commands  # evaluate (argparse only: fast)

    add_evaluation_commands(commands)

    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "legacy_path", None) and getattr(args, "path", None) is None:
        args.path = args.legacy_path  # `validate PATH`, as before --package
    try:
        return args.run(args)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
