"""Analysis commands: irt, aggregate (your own per-seed runs) and report."""

from __future__ import annotations

import sys

from atari5_spec.data.errors import InputError
from atari5_spec.data.limits import ALLOW_OPTION
from atari5_spec.cli.options import add_package_option


def _cmd_irt(args) -> int:
    import json

    from atari5_spec_research.analyses.irt_output import format_irt, irt_as_dict, irt_warnings
    from atari5_spec_research.analyses.structure import training_irt
    from atari5_spec.data.loading import load

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


def aggregates_table(result):
    """``aggregate --format markdown|latex``: per agent, IQM, median, mean and optimality gap with their intervals."""
    from atari5_spec_research.analyses.run_aggregates import METRICS
    from atari5_spec.data.limits import escaped
    from atari5_spec.cli.tables import Table

    level = f"{100 * result.confidence:g}%"
    table = result.metrics.set_index(["agent", "metric"])
    rows = []
    for agent, n_seeds in result.seeds.items():
        cells = [f"{table.loc[(agent, m), 'estimate']:.3f} [{table.loc[(agent, m), 'low']:.3f}, "
                 f"{table.loc[(agent, m), 'high']:.3f}]" for m in METRICS]
        rows.append((escaped(agent), str(n_seeds), *cells))
    notes = (f"Human-normalised score as a fraction (0 = random play, 1.0 = the average human) over "
             f"{len(result.games)} games; [{level} interval]: percentile stratified bootstrap over seeds within each "
             f"game, {result.n_resamples} resamples, seed {result.seed}.",
             "Optimality gap: mean shortfall below human level (lower is better).")
    return Table(("Agent", "Seeds", "IQM", "Median", "Mean", "Optimality gap"), tuple(rows), "lrrrrr",
                 "Aggregate scores of the runs", notes, "tab:aggregates")


def curves_table(result):
    """``aggregate --format markdown|latex`` on learning curves: a row per agent and frames value."""
    from atari5_spec_research.analyses.sample_efficiency import CURVE_METRICS
    from atari5_spec.data.limits import escaped
    from atari5_spec.cli.tables import Table

    level = f"{100 * result.confidence:g}%"
    rows = []
    for (agent, frames), row in result.to_frame().iterrows():
        cells = [f"{row[(m, 'estimate')]:.3f} [{row[(m, 'low')]:.3f}, {row[(m, 'high')]:.3f}]" for m in CURVE_METRICS]
        rows.append((escaped(agent), str(result.seeds[agent]), f"{int(frames)}", *cells))
    notes = (f"Human-normalised score as a fraction (0 = random play, 1.0 = the average human) over "
             f"{len(result.games)} games, against emulator frames ({result.x}, no interpolation); [{level} band]: "
             f"percentile stratified bootstrap over runs within each game at each frames value, "
             f"{result.n_resamples} resamples, seed {result.seed}.",)
    return Table(("Agent", "Runs", "Frames", "IQM", "Median"), tuple(rows), "lrrrr",
                 "Sample-efficiency curves of the runs", notes, "tab:sample-efficiency")


def _cmd_aggregate(args) -> int:
    import json

    from atari5_spec_research.analyses.agent_runs import aggregate_file
    from atari5_spec_research.analyses.run_aggregates import format_run_aggregates, run_aggregates_as_dict
    from atari5_spec_research.analyses.sample_efficiency import CurveAggregates, curves_as_dict, format_curves
    from atari5_spec.data.limits import MAX_RESAMPLES
    from atari5_spec.data.loading import load
    from atari5_spec.data.paths import output_file

    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise InputError(f"--resamples {args.resamples}: give a number of bootstrap resamples from 1 to "
                         f"{MAX_RESAMPLES:,}")
    if not 0 < args.confidence < 1:
        raise InputError(f"--confidence {args.confidence}: give a level between 0 and 1, e.g. 0.95")
    if args.figure:
        from atari5_spec_research.analyses.aggregate_figure import figure_suffix
        from atari5_spec_research.analyses.report import require_matplotlib

        require_matplotlib()  # fail before the bootstrap when the plot extra is missing
        figure_suffix(args.figure)
        output_file(args.figure, "--figure")  # the output policy, checked before any work (and again when writing)
    # The API function, so a notebook gets the same gate and the same notes (games outside the 57, one run per game).
    result = aggregate_file(args.runs, n_resamples=args.resamples, confidence=args.confidence, seed=args.seed,
                            frame_skip=args.frame_skip, dataset=load(args.path),
                            allow_implausible=args.allow_implausible)
    curves = isinstance(result, CurveAggregates)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.format in ("markdown", "latex"):
        from atari5_spec.cli.tables import render

        print(render(curves_table(result) if curves else aggregates_table(result), args.format))
    elif args.json or args.format == "json":
        print(json.dumps(curves_as_dict(result) if curves else run_aggregates_as_dict(result), indent=2))
    else:
        print(format_curves(result) if curves else format_run_aggregates(result))
    if args.figure:
        from atari5_spec_research.analyses.aggregate_figure import write_run_aggregates_figure

        path = write_run_aggregates_figure(result, args.figure)
        print(f"wrote {path}", file=sys.stderr if args.json or args.format == "json" else sys.stdout)
    return 0


def _cmd_report(args) -> int:
    from atari5_spec_research.analyses.report import analyse, require_matplotlib, write_report
    from atari5_spec.data.loading import load
    from atari5_spec.data.paths import output_directory

    require_matplotlib()  # fail before the analyses when the plot extra is missing
    output_directory(args.out)  # the output policy, checked before the analyses (and again when writing)
    written = write_report(analyse(load(args.path)), args.out)
    for path in written:
        print(f"wrote {path}")
    return 0


def add_analysis_commands(commands) -> None:
    """Add irt, aggregate and report to the top-level subcommands."""
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
    p.add_argument("runs", help="CSV file ('-' for standard input) with columns agent, game, seed, score (raw "
                                "scores, any game spelling); "
                                "with a 'frames' column (or 'steps' and --frame-skip), one row per point of each "
                                "learning curve, the output is IQM and median against frames with bands")
    p.add_argument("--json", action="store_true", help="print the result as JSON (as --format json)")
    p.add_argument("--format", choices=("text", "json", "markdown", "latex"), default="text",
                   help="text (default), json, or the aggregates as a paper-ready Markdown or LaTeX table")
    p.add_argument("--figure", metavar="PNG|SVG", default=None,
                   help="also draw the intervals, profiles and P(X > Y) (for learning curves: IQM and median "
                        "against frames with bands) to this .png or .svg file (needs matplotlib)")
    p.add_argument("--frame-skip", type=int, default=None, metavar="K",
                   help="with a 'steps' column: emulator frames per agent step (4 in the standard ALE protocol); "
                        "a 'frames' column needs none")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    p.add_argument(ALLOW_OPTION, dest="allow_implausible", action="store_true",
                   help="aggregate scores the input gate refuses (above a game's bound, or what look like "
                        "human-normalised fractions) knowingly; the notes say which")
    add_package_option(p)
    p.set_defaults(run=_cmd_aggregate)

    p = commands.add_parser("report", help="write pictures and one self-contained HTML page of the structure "
                                           "analyses (needs matplotlib: pip install 'atari5-spec-research[plot]')",
                            description="The Atari-5 paper's structure analyses (single-game ranking, per-game "
                                        "R^2, fairness, correlations, out-of-fold and held-out estimates) and the "
                                        "IRT fit, as PNG pictures and one self-contained report.html in a new "
                                        "folder outside the package.")
    p.add_argument("--out", required=True, help="directory to write the PNG files and report.html to")
    add_package_option(p)
    p.set_defaults(run=_cmd_report)
