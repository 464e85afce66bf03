"""``atari5-spec contribute check|add``: the command line of atari5_spec.contributions (argparse only, imports on use)."""

from __future__ import annotations

SUBMISSION_HELP = "the submission folder, contributions/<algorithm-id> (see CONTRIBUTING.md)"


def _cmd_check(args) -> int:
    from .contributions import check_submission, format_report

    report = check_submission(args.path, args.package)
    print(format_report(report))
    return 0 if report.ok else 1


def _cmd_add(args) -> int:
    from .contributions import SubmissionError, add_submission, format_report

    try:
        merge = add_submission(args.path, args.package)
    except SubmissionError as error:
        print(error if error.report.merged_as and not error.report.problems else format_report(error.report))
        print("nothing was written.")
        return 1
    fit = sum(1 for row in merge.scores if row["use_in_fit"])
    what = f"corrections of `{merge.corrects}`" if merge.corrects else f"algorithm `{merge.algorithm['algorithm_id']}`"
    print(f"merged {args.path}: {what}, {fit} scores used by fits and {len(merge.scores) - fit} per-seed scores "
          f"(score_id {merge.scores[0]['score_id']}-{merge.scores[-1]['score_id']}), source {merge.source['source_id']}; "
          f"{merge.bump} version bump recorded in datapackage.json and CHANGELOG.md.")
    return 0


def add_contribution_commands(commands) -> None:
    """Add ``contribute check`` and ``contribute add`` to the top-level subcommands."""
    p = commands.add_parser(
        "contribute", help="check a submitted result (contributions/<id>/) or merge it into data/",
        description="Results are contributed by pull request as contributions/<algorithm-id>/ with metadata.yaml "
                    "and scores.csv (copy contributions/_template). 'check' lists every problem; 'add' merges a "
                    "clean submission into data/ append-only and bumps the data package version.")
    actions = p.add_subparsers(dest="contribute_action", metavar="ACTION")
    actions.required = True

    c = actions.add_parser("check", help="list every problem of a submission (exit 0 when it can be merged)")
    c.add_argument("path", help=SUBMISSION_HELP)
    c.add_argument("--package", default=None,
                   help="data package to check against (default: the one the folder is in, else the installed one)")
    c.set_defaults(run=_cmd_check)

    a = actions.add_parser("add", help="merge a clean submission into data/ (append-only, all files or none)")
    a.add_argument("path", help=SUBMISSION_HELP)
    a.add_argument("--package", default=None,
                   help="data package directory to write into (default: the one the folder is in); a submission "
                        "from elsewhere is copied to its contributions/<id>/")
    a.set_defaults(run=_cmd_add)
