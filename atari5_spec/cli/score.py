"""The ``score``, ``predict`` and ``leaderboard`` subcommands of ``atari5-spec``.

Only argparse is imported here; each command imports what it needs when it
runs, so that ``atari5-spec score`` answers quickly (numpy and the csv module,
no pandas). Output goes to stdout, warnings to stderr; user errors raise
InputError, which the main program prints without a traceback (exit 1).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

__all__ = ["add_scoring_commands"]

SCORE_HELP = "the Atari-5 score of an agent from its raw game scores, with an interval and a citation line"
SCORE_DESCRIPTION = """\
Estimate an agent's median human-normalised score over the 57 Atari games from
its raw scores on the Atari-5 games (Battle Zone, Double Dunk, Name This Game,
Phoenix, Q*bert), with a pinned coefficient version. Every other subset the
given games allow (Atari-1, -3, -10, -3-Val, -5-Val) is scored too; subsets
whose games are missing are listed with what they need.

Scores: a CSV file (columns game, score and optionally seed), a JSON file
({"game": score}, {"game": [per-seed scores]} or a list of records), '-' for
standard input, a submission folder (contributions/<id>/: its scores and the
protocol its metadata states), and/or --score GAME=VALUE (VALUE may be
v1,v2,... for seeds).
Games in any spelling: battle_zone, "Battle Zone", ALE/BattleZone-v5,
BattleZoneNoFrameskip-v4, Q*bert, ...

With several seeds per game the estimate uses each game's mean raw score and a
bootstrap over seeds gives an interval (same --seed, same interval).

The answer comes first: the estimate, its prediction interval, one line of
evidence, the seeds and the line to paste (with --relative-to, the ratio and
its decision before it). --explain adds everything behind it; --format
markdown|latex gives paper-ready tables, --format json everything;
--score-only the number alone. Exit status: 0 ok, 1 bad input or the requested
subset's games are missing."""

SCORE_EPILOG = """\
examples:
  atari5-spec score scores.csv
  atari5-spec score scores.csv --explain                          # everything behind the answer
  atari5-spec score scores.csv --format latex                     # a table for the paper
  atari5-spec score --score "Battle Zone=31000" --score "Double Dunk=-1.5" \\
      --score "Name This Game=12000" --score Phoenix=8000 --score Q*bert=15000
  atari5-spec score runs.csv --relative-to rainbow_runs.csv --json
  atari5-spec score runs.csv --relative-to rainbow-noop           # a baseline from the package, by id
  atari5-spec score runs.csv --relative-to my_baseline.csv --same-setup   # one codebase and protocol"""

PREDICT_HELP = "predicted raw and normalised scores for all 57 games from the Atari-5 (or Atari-10) games"
LEADERBOARD_HELP = "the Atari-5 score of every algorithm in the dataset, and where your agent would rank"


def _add_score_inputs(parser: argparse.ArgumentParser, required_games: str,
                      subset_help: str = "subset to report (default: Atari-5)") -> None:
    parser.add_argument("scores", nargs="?", default=None,
                        help="CSV or JSON file of raw scores (columns game, score[, seed]), or a submission folder "
                             "(contributions/<id>/); '-' reads standard input")
    parser.add_argument("--score", action="append", default=[], metavar="GAME=VALUE",
                        help=f"a raw score, repeatable ({required_games}); VALUE may be v1,v2,... for several seeds "
                             "(a value that reads as one number with thousands separators, 15,000, is refused: "
                             "write 15000, or '15, 0' for two seeds)")
    parser.add_argument("--subset", default="Atari-5", help=subset_help)
    parser.add_argument("--coefficients", default=None, metavar="VERSION",
                        help="pinned coefficient version, or a version directory (default: the index's default)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text (as --format json)")


def _add_format(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--format", choices=("text", "json", "markdown", "latex"), default=None,
                        help=f"text (default), json, or {what} as a paper-ready Markdown or LaTeX table "
                             "(the LaTeX needs no package)")


def add_scoring_commands(commands) -> None:
    """Register ``score``, ``predict`` and ``leaderboard`` on the main parser's subparsers."""
    p = commands.add_parser("score", help=SCORE_HELP, description=SCORE_DESCRIPTION, epilog=SCORE_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_score_inputs(p, "the five Atari-5 games")
    p.add_argument("--relative-to", metavar="BASELINE", default=None,
                   help="scores file of a baseline, or an algorithm id of the package (e.g. rainbow-noop: its "
                        "published numbers, provenance and protocol): also report your score divided by the "
                        "baseline's (paper Table 5; plain ratio of medians), with a prediction interval for the "
                        "ratio of the two true 57-game medians")
    p.add_argument("--same-setup", action="store_true",
                   help="with --relative-to: both agents ran in one codebase and protocol, so the error they share "
                        "cancels; the ratio interval uses the same-setup calibration (docs/comparisons.md)")
    p.add_argument("--max-episode-frames", default=None, metavar="N",
                   help="the evaluation's episode cap in frames (standard: 108000, 30 minutes; the Nature DQN's "
                        "5 minutes: 18000); reports whether the version's errors hold agents with that cap, and a "
                        "ratio states no direction for a non-standard cap")
    p.add_argument("--baseline-max-episode-frames", default=None, metavar="N",
                   help="with --relative-to: the baseline's episode cap (default: an algorithm id's recorded cap; "
                        "with --same-setup, --max-episode-frames)")
    p.add_argument("--allow-implausible", action="store_true",
                   help="score values the input gate refuses (above a game's bound, or that look like "
                        "human-normalised fractions) knowingly; the warnings and the signature (gate:) record it")
    p.add_argument("--log-format", default=None,
                   choices=("scores", "episodes", "sb3-monitor", "tensorboard", "wandb-csv", "jsonl"),
                   help="the kind of file or folder SCORES is (default: told from it): a scores file, the episode "
                        "table `play` writes, Stable-Baselines3 Monitor files, CleanRL TensorBoard runs, a W&B CSV "
                        "export or a JSON-lines episode list (docs/evaluate.md)")
    p.add_argument("--last", type=int, default=None, metavar="N",
                   help="average the last N episodes of each run of a log (default: the last 100 of a training "
                        "log, every episode of an episode table or list); the output says which were used")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default: 0)")
    p.add_argument("--bootstrap", type=int, default=10000, metavar="N",
                   help="bootstrap resamples for the interval over seeds; 0 for none (default: 10000)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="level of the seed and prediction intervals (default: 0.95)")
    p.add_argument("--sticky-actions", type=float, default=None, metavar="PROB",
                   help="the runs' sticky-action (repeat) probability, e.g. 0.25 for ALE/*-v5 or 0 for *NoFrameskip-v4 "
                        "(default: read from the game ids when they say)")
    p.add_argument("--frames", default=None, metavar="N",
                   help="training frames behind the scores (200M, 400k, 10M, 200e6); reports the version's measured error at "
                        "that budget")
    _add_format(p, "the estimates and intervals (with --relative-to, the ratio too)")
    p.add_argument("--explain", action="store_true",
                   help="after the answer, everything behind it: calibration evidence, protocol checks, the per-game "
                        "table, other subsets, the baseline's provenance")
    p.add_argument("--score-only", action="store_true",
                   help="print only the number (the estimate at its printed precision; with --relative-to, the ratio)")
    p.set_defaults(run=_cmd_score)

    p = commands.add_parser("predict", help=PREDICT_HELP, description=PREDICT_HELP[0].upper() + PREDICT_HELP[1:] + (
        ". Each game has its own linear model in log space (paper Appendix E, Tables 10 and 11); its R^2 says "
        "how much to trust it (hard-exploration games are poorly predicted). "
        "raw = random + (human - random) * normalised / 100."))
    _add_score_inputs(p, "the subset's games", "predict from the Atari-5 or the Atari-10 games (default: Atari-5)")
    p.set_defaults(run=_cmd_predict)

    p = commands.add_parser("leaderboard", help=LEADERBOARD_HELP, description=LEADERBOARD_HELP[0].upper() + LEADERBOARD_HELP[1:] + (
        ", beside its true 57-game median where it has at least 40 games. Give your scores to see your rank. "
        "Compare Atari-5 scores with Atari-5 scores, never with medians (paper section 8)."))
    _add_score_inputs(p, "the five Atari-5 games")
    # One vocabulary for the protocol across commands: --sticky-actions and --frames STATE your runs' protocol
    # (score); --only-<the same word> SELECTS peers by theirs. The 1.0.0 spellings stay as hidden aliases.
    p.add_argument("--only-regime", dest="regime", default=None, metavar="REGIME",
                   help="only entries of this training regime (atari-100k, 10M, 200M, ...); Atari 100k entries are "
                        "ranked only here")
    p.add_argument("--only-sticky-actions", dest="sticky", choices=("yes", "no", "unknown", "not-stated"), default=None,
                   help="only entries with sticky actions (yes), without (no), whose source does not say (unknown), "
                        "or whose paper was read and is silent on it (not-stated, data/protocol_evidence.csv)")
    p.add_argument("--only-frames", dest="frames", default=None, metavar="N",
                   help="only entries trained for N frames (200M, 400k, 10M)")
    p.add_argument("--regime", dest="regime", default=None, help=argparse.SUPPRESS)
    p.add_argument("--sticky", dest="sticky", choices=("yes", "no", "unknown", "not-stated"), default=None,
                   help=argparse.SUPPRESS)
    p.add_argument("--frames", dest="frames", default=None, help=argparse.SUPPRESS)
    p.add_argument("--top", type=_positive_count, default=None, metavar="N",
                   help="only the first N ranked rows (your agent is still shown at its rank); e.g. a paper's table")
    _add_format(p, "the ranking")
    p.set_defaults(run=_cmd_leaderboard)


# --- shared --------------------------------------------------------------------------------------------------

def _positive_count(text: str) -> int:
    """An argparse type: a whole number of at least 1, written in plain digits."""
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"give a whole number of at least 1, not {text!r}")
    return int(text)


def submission_input(path: str):
    """(observations, protocol) of a submission folder (contributions/<id>/: metadata.yaml and scores.csv), read
    by the contribution gate of the maintainers' tools (entry point ``atari5_spec_folder_inputs``, ``submission``),
    or None when ``path`` is not a folder."""
    from importlib.metadata import entry_points
    from pathlib import Path

    from ..data.errors import InputError

    folder = Path(path)
    if path == "-" or not folder.is_dir() or folder.is_symlink():
        return None
    if not (folder / "metadata.yaml").exists() and _holds_logs(folder):
        return None  # a folder of Monitor files or TensorBoard runs: `score` reads it (scoring.logs)
    readers = [point for point in entry_points(group="atari5_spec_folder_inputs") if point.name == "submission"]
    if not readers:
        raise InputError(f"{path}: a folder; a submission folder (metadata.yaml and scores.csv) is read by "
                         "atari5-spec-maintainers (pip install ./research ./maintainers): give its scores.csv, "
                         "or install them")
    return readers[0].load()(folder)


def _holds_logs(folder) -> bool:
    from ..data.errors import InputError
    from ..scoring.logs import detect_format

    try:
        return detect_format(str(folder)) in ("sb3-monitor", "tensorboard")
    except InputError:
        return False


def _score_input(args):
    """What `score` scores: a LogReading of the path (a scores file, an episode table or a log) with the
    --score values added, or the observations of a submission folder and --score values."""
    from ..data.errors import InputError
    from ..scoring.input import observations_from_arguments
    from ..scoring.logs import read_log

    if not args.scores or submission_input(args.scores) is not None:
        if args.log_format is not None or args.last is not None:
            raise InputError("--log-format and --last read a log or an episode table: give its path")
        return _observations(args)
    reading = read_log(args.scores, args.log_format, args.last)
    return reading._replace(observations=reading.observations + observations_from_arguments(args.score))


def _observations(args, required: bool = True):
    from ..data.errors import InputError
    from ..scoring.input import observations_from_arguments, read_scores_file

    submission = submission_input(args.scores) if args.scores else None
    if submission is not None:
        observations, args.submission_protocol = submission
    else:
        observations = read_scores_file(args.scores) if args.scores else []
    observations += observations_from_arguments(args.score)
    if required and not observations:
        raise InputError("no scores: give a CSV/JSON file, '-' for standard input, or --score GAME=VALUE")
    return observations


def _number(value: float | None, places: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{places}f}"


def _warn(messages) -> None:
    for message in messages:
        print(f"warning: {message}", file=sys.stderr)


def _output_format(args) -> str:
    """--format, with --json its older spelling; refused when both disagree."""
    from ..data.errors import InputError

    if getattr(args, "json", False):
        if args.format not in (None, "json"):
            raise InputError(f"--json and --format {args.format} disagree: give one of them")
        return "json"
    return args.format or "text"


def _whole_frames(value: str) -> int:
    """--frames in the units people write (200M, 400k, 200e6), with a note when it looks like agent steps."""
    from ..data.errors import InputError
    from ..data.frames import agent_steps_note, parse_training_budget

    try:
        frames = parse_training_budget(value)
    except InputError as error:
        raise InputError(f"--frames: {error}") from None
    note = agent_steps_note(frames)
    if note:
        print(f"note: --frames {value}: {note}", file=sys.stderr)
    return frames


def _episode_frames(value: str | None, option: str) -> int | None:
    """An episode cap option in frames (108000, 108k, 18000)."""
    from ..data.errors import InputError
    from ..data.frames import parse_budget

    if value is None:
        return None
    try:
        return parse_budget(value)
    except InputError as error:
        raise InputError(f"{option}: {error}") from None


def _baseline(value: str):
    """--relative-to: (scores, episode cap or None): a submission folder, a scores file ('-': standard input), else
    an algorithm id of the package."""
    from pathlib import Path

    from ..scoring.input import read_scores_file

    submission = submission_input(value)
    if submission is not None:  # a submission folder: its scores; its cap is the baseline's unless stated
        return submission[0], submission[1].get("max_episode_frames")
    if value == "-" or Path(value).exists() or Path(value).is_symlink() or Path(value).suffix.lower() in (
            ".csv", ".json", ".tsv", ".txt"):
        return read_scores_file(value), None
    return value, None  # relative_score reads the algorithm entry (InputError naming close ids when there is none)


def _cmd_score(args) -> int:
    from ..data.errors import InputError
    from ..scoring.estimate import as_coefficient_set, games_table, not_computable_message, score
    from . import score_output as output
    from .tables import render

    form = _output_format(args)
    if args.score_only and (form != "text" or args.explain):
        raise InputError("--score-only prints the number alone: leave out --format, --json and --explain")
    given = _score_input(args)
    observations = given if isinstance(given, list) else given.observations
    coefficients = as_coefficient_set(args.coefficients)
    settings = dict(subset=args.subset, coefficients=coefficients, n_bootstrap=args.bootstrap,
                    confidence=args.confidence, seed=args.seed)
    stated = getattr(args, "submission_protocol", None) or {}  # a submission folder's metadata; options win
    protocol = dict(sticky_action_probability=args.sticky_actions if args.sticky_actions is not None
                    else stated.get("sticky_action_probability"),
                    training_frames=_whole_frames(args.frames) if args.frames is not None
                    else stated.get("training_frames"))
    relative = None
    cap = _episode_frames(args.max_episode_frames, "--max-episode-frames")
    cap = cap if cap is not None else stated.get("max_episode_frames")
    if args.same_setup and not args.relative_to:
        raise InputError("--same-setup compares two agents: give the baseline with --relative-to")
    if args.baseline_max_episode_frames is not None and not args.relative_to:
        raise InputError("--baseline-max-episode-frames needs a baseline: give it with --relative-to")
    result = score(given, **settings, **protocol, partial=True, max_episode_frames=cap,
                   allow_implausible=args.allow_implausible)
    if args.relative_to:
        from ..scoring.relative import relative_score  # only for a comparison: it brings the pair measurements

        if args.relative_to == "-" and args.scores == "-":
            raise InputError("standard input can hold the agent's scores or the baseline's, not both")
        baseline, baseline_cap = _baseline(args.relative_to)
        stated_cap = _episode_frames(args.baseline_max_episode_frames, "--baseline-max-episode-frames")
        relative = relative_score(observations, baseline, **settings, same_setup=args.same_setup,
                                  max_episode_frames=cap,
                                  baseline_max_episode_frames=stated_cap if stated_cap is not None else baseline_cap,
                                  allow_implausible=args.allow_implausible)
    if result.estimate is not None and not math.isfinite(result.estimate):  # no citable signature for inf
        raise InputError(f"the {result.subset} estimate of these scores is not a finite number: check the scores' "
                         "scale (raw game scores, not normalised)")
    names = {row["game_id"]: row["name"] for row in games_table()}
    _warn(result.warnings)
    if relative is not None:
        _warn(f"baseline: {w}" for w in relative.baseline.warnings)
    if form == "json":
        print(json.dumps(output.score_json(result, names, relative, args.relative_to), indent=2, allow_nan=False))
    elif form in ("markdown", "latex"):
        print("\n\n".join(render(table, form) for table in output.score_tables(result, relative, args.relative_to)))
    elif args.score_only:
        print(output.score_only(result, relative))
    else:
        lines = []
        if relative is not None:
            lines += output.ratio_answer_lines(relative, args.relative_to) + [""]
        lines += output.answer_lines(result, more=not args.explain)
        if args.explain:
            lines += [""] + output.explain_lines(result, names)
            if relative is not None:
                lines += output.relative_explain_lines(relative, args.relative_to)
        print("\n".join(lines))
    if result.estimate is None:
        raise InputError(not_computable_message(result))
    if relative is not None and relative.ratio is None:
        entry = relative.baseline_entry
        raise InputError(f"the baseline ({args.relative_to}) lacks "
                         f"{', '.join(relative.baseline.not_computable.get(result.subset, ()))}"
                         + (f"; try --relative-to {entry.see_also[0]}" if entry and entry.see_also else ""))
    return 0


# --- predict -------------------------------------------------------------------------------------------------

def _cmd_predict(args) -> int:
    from ..scoring.prediction import predict

    result = predict(_observations(args), subset=args.subset, coefficients=args.coefficients)
    if args.json:
        print(json.dumps({"subset": result.subset, "games": list(result.games),
                          "coefficients": result.coefficients_version, "signature": result.signature,
                          "predictions": [p._asdict() for p in result.predictions]}, indent=2))
        return 0
    print(f"Predicted scores from the {result.subset} games (coefficients {result.coefficients_version}). "
          "R^2 is the fit of each game's model on the training algorithms: the lower it is, the less "
          f"the {result.subset} games say about that game.")
    print(f"\n  {'game':<20} {'raw':>14} {'normalised':>12} {'R^2':>6}")
    for p in result.predictions:
        r2 = "given" if p.is_predictor else ("n/a" if p.r2 is None else f"{p.r2:.3f}")
        given = "" if p.is_predictor or p.given_raw is None else f"   (you gave {_number(p.given_raw, 2)})"
        print(f"  {p.name:<20} {_number(p.raw, 1):>14} {_number(p.normalised):>11}% {r2:>6}{given}")
    print(f"\nsignature: {result.signature}")
    return 0


# --- leaderboard ---------------------------------------------------------------------------------------------

def leaderboard_table(board):
    """``leaderboard --format markdown|latex``: the ranked rows (reference lines unranked, the user's agent at its
    rank), with what each column measures in the notes and the signature."""
    from ..data.frames import format_frames
    from ..data.limits import printable
    from ..scoring.ranking import COMPARISON_ADVICE, MIN_GAMES_FOR_MEDIAN
    from .tables import Table

    field = board.field
    first = board.subset if field is None else field.column_label

    def shown(value):
        return "-" if value is None else str(value)

    def cells(row, rank: str) -> tuple[str, ...]:
        label = printable(row.name) if row.kind == "agent" else f"{printable(row.name)} (reference)"
        frames = "-" if row.training_frames is None else format_frames(int(row.training_frames))
        value = row.estimate if field is None else row.field_median
        return ((rank, label, _number(value)) + ((_number(row.estimate),) if field is not None else ())
                + (_number(row.median), str(row.n_games), shown(row.regime), frames,
                   shown(row.sticky_action_probability)))

    rows, references = [], list(board.references)
    user_value = board.user_estimate if field is None else board.user_field_median
    for row in board.rows:
        while references and references[0].estimate > row.estimate:
            rows.append(cells(references.pop(0), "-"))
        if user_value is not None and row.rank == board.user_rank:
            rows.append(("->", "your agent", _number(user_value))
                        + ((_number(board.user_estimate),) if field is not None else ())
                        + (_number(board.user_median), "", "", "", ""))
        rows.append(cells(row, str(row.rank)))
    rows += [cells(r, "-") for r in references]
    if user_value is not None and board.user_rank is not None and board.user_rank > len(board.rows):
        rows.append((str(board.user_rank), "your agent", _number(user_value))  # below a --top cut: its rank
                    + ((_number(board.user_estimate),) if field is not None else ())
                    + (_number(board.user_median), "", "", "", ""))
    columns = (("Rank", "Algorithm", first) + ((board.subset,) if field is not None else ())
               + (f"Median (>= {MIN_GAMES_FOR_MEDIAN} of 57 games)", "Games", "Regime", "Frames", "Sticky"))
    cut = [f"The first {len(board.rows)} of {board.ranked} ranked entries."] if board.n_ranked is not None else []
    notes = cut + [f"{first}: " + (f"estimated 57-game median human-normalised score (%), coefficients "
                             f"{board.coefficients_version}" if field is None else f"the {field.statistic}"),
             f"Median: each entry's own median human-normalised score (%) over the games of the 57 it has, shown "
             f"from {MIN_GAMES_FOR_MEDIAN} games; Sticky: sticky-action probability ('-': the source does not say).",
             COMPARISON_ADVICE, f"Signature: {board.signature}"]
    caption = (f"{board.subset} leaderboard" if field is None else f"{field.regime} field") + (
        f" ({', '.join(board.filters)})" if board.filters else "")
    return Table(columns, tuple(rows), "rl" + "r" * (len(columns) - 2), caption, tuple(notes), "tab:atari5-leaderboard")


def _cmd_leaderboard(args) -> int:
    from ..data.frames import format_frames
    from ..data.limits import printable
    from ..scoring.ranking import COMPARISON_ADVICE, MIN_GAMES_FOR_MEDIAN, leaderboard

    form = _output_format(args)
    observations = _observations(args, required=False)
    board = leaderboard(observations or None, subset=args.subset, coefficients=args.coefficients,
                        regime=args.regime, sticky=args.sticky,
                        frames=None if args.frames is None else _whole_frames(args.frames))
    if args.top is not None:
        board = board.top(args.top)
    if form in ("markdown", "latex"):
        from .tables import render

        print(render(leaderboard_table(board), form))
        return 0
    if form == "json":
        print(json.dumps({"subset": board.subset, "coefficients": board.coefficients_version,
                          "signature": board.signature, "advice": COMPARISON_ADVICE,
                          "ranked_by": board.ranked_by,
                          "field_games": list(board.field.games) if board.field is not None else None,
                          "user": ({"estimate": board.user_estimate, "rank": board.user_rank,
                                    "median": board.user_median, "field_median": board.user_field_median}
                                   if board.user_estimate is not None or board.user_field_median is not None
                                   else None),
                          "ranked": board.ranked, "top": args.top,
                          "rows": [r._asdict() for r in board.rows],
                          "references": [r._asdict() for r in board.references],
                          "n_in_dataset": board.n_in_dataset,
                          "unranked": [{"reason": why, "entries": n} for why, n in board.unranked],
                          "incomplete": [{"algorithm_id": a, "name": n, "missing_games": list(m)}
                                         for a, n, m in board.incomplete]}, indent=2))
        return 0
    name = board.subset
    field = board.field
    if field is None:
        print(f"{name} scores: {board.ranked} algorithms ranked of the {board.n_in_dataset} entries in the dataset "
              f"(coefficients {board.coefficients_version})" + (f", {', '.join(board.filters)}." if board.filters
                                                                else "."))
    else:
        print(f"{field.regime} field: {board.ranked} algorithms ranked of the {board.n_in_dataset} entries in the "
              f"dataset by their {field.statistic}" + (f", {', '.join(board.filters)}." if board.filters else ".")
              + f" Not by an {name} score: three {name} games are not among the {len(field.games)} games of this "
              f"regime. The median is measured from the data, not predicted (no interval), with the package's "
              f"normalisation constants (a paper's own constants can move its printed median a little); the {name} "
              f"score (coefficients {board.coefficients_version}) is shown where an entry has the five games.")
    if board.unranked:
        print(f"Not ranked ({board.n_in_dataset - board.ranked}): "
              + "; ".join(f"{n} {why}" for why, n in board.unranked) + ".")
    print(f"The median column is each algorithm's own median over the games of the 57 it has, shown for orientation "
          f"from {MIN_GAMES_FOR_MEDIAN} games; "
          "the protocol columns say how the numbers were made ('-': the source does not say).")
    if board.other_regimes:
        print(f"Entries with short training budgets ({', '.join(board.other_regimes)}) are ranked among their peers: "
              f"--only-regime {board.other_regimes[-1]}.")
    first = name if field is None else field.column_label
    print(f"\n  {'rank':>4}  {'algorithm':<34} {first:>14}" + (f" {name:>8}" if field is not None else "")
          + f" {'median':>10} {'games':>5}  {'regime':>10} {'frames':>7} {'sticky':>6} {'statistic':<21} {'seeds':>5}")
    user_value = board.user_estimate if field is None else board.user_field_median
    user_line = (f"  {'->':>4}  {'your agent':<34} {_number(user_value):>14}"
                 + (f" {_number(board.user_estimate):>8}" if field is not None else "")
                 + f" {_number(board.user_median):>10}" if user_value is not None else None)
    def shown(value):
        return "-" if value is None else str(value)

    def line(row, rank: str) -> str:
        label = printable(row.name) if row.kind == "agent" else f"{printable(row.name)} (reference, not ranked)"
        frames = "-" if row.training_frames is None else format_frames(int(row.training_frames))
        first = row.estimate if field is None else row.field_median
        return (f"  {rank:>4}  {label[:34]:<34} {_number(first):>14}"
                + (f" {_number(row.estimate):>8}" if field is not None else "")
                + f" {_number(row.median):>10} "
                f"{row.n_games:>5}  {shown(row.regime):>10} {frames:>7} {shown(row.sticky_action_probability):>6} "
                f"{shown(row.statistic):<21} {shown(row.seeds):>5}")

    references = list(board.references)
    for row in board.rows:
        while references and references[0].estimate > row.estimate:  # the reference line at its score
            print(line(references.pop(0), "--"))
        if user_line and row.rank == board.user_rank:
            print(user_line)
            user_line = None
        print(line(row, str(row.rank)))
    for reference in references:
        print(line(reference, "--"))
    if user_line:
        print(user_line)
    curved = [row for row in board.rows if row.curve]
    if curved:
        print(f"\nLearning curves: the {name} score at each training budget with per-run rows (data/budget_scores.csv), "
              f"each game the mean of its runs there (runs: the fewest of any {name} game); the numbers are what "
              "the protocol's evaluation says ('-': not stated).")
        for row in curved:
            points = ", ".join(f"{format_frames(frames)} {_number(value)} ({runs} runs)"
                               for frames, value, runs in row.curve)
            print(f"  {row.rank:>4}  {printable(row.name)[:34]:<34} {points}; {shown(row.evaluation)}")
    what = name if field is None else f"{field.regime} field"
    if board.user_rank is not None:
        print(f"\nYour agent: {first} {_number(user_value)}, rank {board.user_rank} of {board.ranked + 1}.")
    elif observations and field is not None:
        print(f"\nYour agent is not ranked in the {what}: give all {len(field.games)} of its games "
              f"({', '.join(field.games)}).")
    elif observations:
        print(f"\nYour agent has no {name} score: some of its games are missing (see `atari5-spec score`).")
    if 0 < len(board.incomplete) <= 20:
        print(f"\nNot ranked, without all {what} games: " + "; ".join(
            f"{printable(n)} (no {', '.join(m)})" for _, n, m in board.incomplete) + ".")
    elif board.incomplete:
        print(f"\n{len(board.incomplete)} more entries pass the filter without all {what} games (listed by --json).")
    print(f"\n{COMPARISON_ADVICE}")
    print(f"signature: {board.signature}")
    return 0
