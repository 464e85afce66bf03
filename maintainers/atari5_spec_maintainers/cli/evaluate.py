"""``atari5-spec evaluate``: the command line of atari5_spec_research.evaluation (argparse only, imports on use)."""

from __future__ import annotations

import sys


def _fold_progress(version: str):
    """A line on the terminal counting the nested cross-validation's outer folds."""
    def draw(done: int, total: int) -> None:
        print(f"\r{version}: nested cross-validation, outer fold {done}/{total}", end="\n" if done == total else "",
              file=sys.stderr, flush=True)

    return draw


def _cmd_evaluate(args) -> int:
    import json

    from atari5_spec.data.errors import InputError
    from atari5_spec.data.loading import load
    from atari5_spec_research.evaluation import agent_scores, evaluate_version
    from atari5_spec_research.evaluation.report import as_json, format_text, plot_heldout
    from atari5_spec.method.pinned import default_version, known_versions

    if args.figure:
        from atari5_spec.data.paths import output_file

        output_file(args.figure, "--figure")  # refused before the work: inside a data package, a link, a folder
    if args.pin_calibration or args.update_calibration:
        from atari5_spec.data.transaction import recover
        from atari5_spec.cli.options import writable_package

        args.path = writable_package(args.path)
        recover(args.path)  # a writer: finishes a change a killed command left, under the lock, before reading
    dataset = load(args.path)
    known = known_versions(dataset.root / "coefficients")
    versions = args.version or [default_version(dataset.root / "coefficients")]
    for version in versions:
        if version not in known:
            raise InputError(f"no coefficient version {version!r} (known: {', '.join(known)})")
    if args.pin_calibration or args.update_calibration:
        from atari5_spec_maintainers.pinning.calibrations import pin_calibration

        for version in versions:
            progress = None
            if args.calibration_method in ("formula", "reselected") and sys.stderr.isatty():
                def progress(done: int, total: int, version=version) -> None:
                    print(f"\r{version}: staged search without paper {done}/{total}", end="\n" if done == total
                          else "", file=sys.stderr, flush=True)
            path, data_version = pin_calibration(dataset.root, version, method=args.calibration_method,
                                                 progress=progress)
            print(f"wrote {path} (data package {data_version}; recorded in datapackage.json and CHANGELOG.md)")
        return 0
    if args.claims:
        from atari5_spec_research.evaluation.claims_report import claims_text

        print(claims_text(dataset.root, tuple(args.version or known)), end="")
        return 0
    if args.designs:
        from atari5_spec.method.calibration import read_calibration
        from atari5_spec_research.evaluation.designs import designs_markdown
        from atari5_spec_research.pair_evaluation import comparison_markdown

        for version in versions:
            print(designs_markdown(dataset, version, args.subset))
            calibration = read_calibration(dataset.root / "coefficients" / version)  # the one score uses
            if calibration is not None:  # ratio intervals on it: two papers, same setup (docs/comparisons.md)
                print("\n".join(comparison_markdown(calibration, args.subset).values()))
        return 0
    agents = agent_scores(dataset)
    if args.refit_candidates:
        from atari5_spec_research.evaluation.refits import candidate_table, categories, format_table, refit_candidates
        from atari5_spec.method.pinned import load_coefficient_set

        games = load_coefficient_set(versions[0], dataset.root).subsets[args.subset].games
        table = candidate_table(refit_candidates(agents, dataset, games), categories(agents, dataset))
        print(format_table(table, f"Refit candidates for the {args.subset} games: leave-one-paper-out relative "
                                  "error by category (lower is better)"))
        return 0
    results = []
    for version in versions:
        progress = _fold_progress(version) if sys.stderr.isatty() and not args.no_nested else None
        results.append(evaluate_version(dataset, version, agents, nested=not args.no_nested, progress=progress))
    subset = args.subset
    for result in results:
        if subset not in result.subset_games:
            raise InputError(f"version {result.version} has no subset {subset!r} "
                             f"(it has {', '.join(result.subset_games)})")
    if args.json:
        payload = [as_json(r, dataset.version, subset) for r in results]
        print(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, allow_nan=False))
    else:
        print("\n".join(format_text(r, dataset.version, subset) for r in results))
        if len(results) > 1:
            from atari5_spec_research.evaluation.refits import categories, compare_versions, format_table

            print(format_table(compare_versions(results, categories(agents, dataset), subset),
                               f"Side by side, {subset}: relative error on the agents every version judges out of "
                               "sample (held-out outside its training set, leave-one-paper-out inside)"))
    if args.figure:
        print(f"wrote {plot_heldout(results, args.figure, subset)}", file=sys.stderr)
    return 0


def add_evaluation_commands(commands) -> None:
    from atari5_spec.method.calibration import CALIBRATION_METHODS  # csv and math only: the parser stays fast

    p = commands.add_parser(
        "evaluate", help="out-of-sample error of a coefficient version: held-out agents, leave-one-paper-out, "
                         "nested cross-validation, prediction-interval coverage",
        description="Measures how far a coefficient version's estimate misses the true 57-game median on agents "
                    "it did not see: every agent outside its training set with at least 40 of the 57 games "
                    "(results after 2022, Go-Explore, every learning-curve budget), its training agents by "
                    "leave-one-paper-out refits, and nested cross-validation of the whole select-then-fit "
                    "procedure; then the coverage of score's prediction interval.")
    from atari5_spec.cli.options import add_package_option

    add_package_option(p)
    p.add_argument("--version", action="append", default=None,
                   help="coefficient version (repeat to compare versions side by side; default: the default version)")
    p.add_argument("--subset", default="Atari-5", help="subset reported in the tables (default Atari-5)")
    p.add_argument("--json", action="store_true", help="machine-readable output (every subset, every agent)")
    p.add_argument("--figure", default=None, help="write a PNG of estimate vs true median for held-out agents")
    p.add_argument("--no-nested", action="store_true", help="skip nested cross-validation (it reruns the search "
                                                             "ten times, about 20 s)")
    p.add_argument("--refit-candidates", action="store_true",
                   help="compare the ways of refitting the subset's weights on today's data by leave-one-paper-out "
                        "error (how refit-2026-11 was chosen)")
    p.add_argument("--pin-calibration", action="store_true",
                   help="pin the out-of-sample errors score's prediction interval uses: calibration/<version>[.<method>]"
                        ".csv the first time, then, when the data give other errors, the next edition "
                        "calibration/<version>[.<method>].<N>.csv beside it (a pinned file is never rewritten); "
                        "exit 1 when the newest edition already holds these errors")
    p.add_argument("--calibration-method", choices=list(CALIBRATION_METHODS), default="pooled",
                   help="which calibration --pin-calibration writes: pooled = calibration/<version>[.<N>].csv (the "
                        "first), in-range = calibration/<version>.in-range[.<N>].csv (errors marked in range / "
                        "extrapolation), reselected = calibration/<version>.reselected[.<N>].csv (each subset's games "
                        "chosen again by the staged search without the agent's paper; about half a second per paper, on up to two processes), "
                        "formula = calibration/<version>.formula[.<N>].csv (score's default: agents the selection "
                        "never used scored by the pinned formula, the others by their paper's reselected fold)")
    p.add_argument("--claims", action="store_true",
                   help="every subset's prediction interval as score uses it (formula and reselected calibrations): shown, widened "
                        "or withheld, leave-one-paper-out coverage per protocol group with the runs and papers behind "
                        "it, median width (scripts/measure_subset_claims.py prints the same)")
    p.add_argument("--designs", action="store_true",
                   help="compare prediction-interval designs by leave-one-paper-out coverage and width, for single "
                        "agents and pairs (markdown; how the in-range calibration was chosen), then the ratio intervals "
                        "on the calibration score uses: two papers, the same-setup designs, shared error by paper")
    p.add_argument("--update-calibration", action="store_true",
                   help="the same as --pin-calibration (kept for old scripts): writes the next edition, never "
                        "rewrites a pinned calibration")
    p.set_defaults(run=_cmd_evaluate)
