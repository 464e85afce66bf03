"""``atari5-spec contribute check|report|add|curves``: the command line of atari5_spec_maintainers.contributions (argparse only, imports on use)."""

from __future__ import annotations

SUBMISSION_HELP = "the submission folder, contributions/<algorithm-id> (see CONTRIBUTING.md)"


def _base(args):
    """--base, else the branch a pull request usually targets (origin/HEAD, origin/main) when the repository has it."""
    from atari5_spec_maintainers.contributions.merging import DEFAULT_BASES

    return args.base if args.base is not None else DEFAULT_BASES


def _cmd_check(args) -> int:
    """Each folder's report in order (the package read once); exit 1 if any folder is not ready to merge."""
    from atari5_spec_maintainers.contributions import check_submissions, format_report

    status = 0
    for report in check_submissions(args.paths, args.package, base=_base(args)):
        print(format_report(report), flush=True)
        # Merged on this branch only: a finding against the base's data is what the review holds it for.
        status = status if report.ok and not (report.merged_base and report.holds) else 1
    return status


def _relative(path) -> str:
    import os

    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _cmd_report(args) -> int:
    import sys

    from atari5_spec_maintainers.contributions.report import any_problem, changed_files, report_markdown, report_text, summarise_submission
    from atari5_spec.data.datapackage import package_root
    from atari5_spec.data.errors import InputError
    from atari5_spec.data.loading import load
    from atari5_spec.data.paths import output_file, write_output
    from atari5_spec.scoring.ranking import leaderboard

    if not args.changed and not args.paths:
        raise InputError("give submission folders, or --changed BASE..HEAD to review the ones a revision range changes")
    if args.out:
        output_file(args.out)  # the output policy, checked before any work (and again when writing)
    root = package_root(args.package)
    changed = changed_files(root, args.changed) if args.changed else None
    # Named relative to the current folder when inside it, so that the comment says contributions/<id>/scores.csv.
    folders = list(args.paths) + [_relative(root / f) for f in (changed.submissions if changed else ())]
    dataset = load(root)
    board = leaderboard(dataset=dataset)
    summaries = [summarise_submission(f, root, dataset=dataset, board=board) for f in folders]
    text = report_markdown(summaries, changed) if args.markdown else report_text(summaries, changed) + "\n"
    if args.out:
        write_output(args.out, text)
    else:
        sys.stdout.write(text)
    return 1 if any_problem(summaries, changed) else 0


def _cmd_review(args) -> int:
    import os
    import sys

    from atari5_spec_maintainers.contributions.pull_request import review_pull_request
    from atari5_spec.data.paths import output_file, write_output

    # The workflow gives the pull request's author through the environment (PR_AUTHOR, from the event), never in
    # the script's text; --author overrides it.
    author = args.author if args.author is not None else os.environ.get("PR_AUTHOR")
    review = review_pull_request(args.repository, args.base, args.head, args.package, author=author)
    if args.out:
        output_file(args.out)
        write_output(args.out, review.text)
    else:
        sys.stdout.write(review.text)
    return 0 if review.ready else 1


def _cmd_add(args) -> int:
    from atari5_spec_maintainers.contributions import SubmissionError, add_submission, format_report

    try:
        merge = add_submission(args.path, args.package, approved=args.approved, base=_base(args))
    except SubmissionError as error:
        if getattr(error, "finished_by_recovery", False):
            print(f"merged {args.path}: the interrupted merge of this submission was finished (source "
                  f"{error.report.merged_as}); nothing more to do.")
            return 0
        report = error.report
        if report.merged_base:  # merged on this branch only: the findings against the base, then why
            print(format_report(report))
            print(str(error).splitlines()[-1])
        else:
            print(error if report.merged_as and not report.problems else format_report(report))
        print("nothing was written.")
        return 1
    what = f"corrections of `{merge.corrects}`" if merge.corrects else f"algorithm `{merge.algorithm['algorithm_id']}`"
    for warning in merge.warnings:  # the same warnings `check` prints; holds only reach here --approved
        print(f"{'approved' if type(warning).__name__ == 'Hold' else 'warning'}: {warning}")
    print(f"merged {args.path}: {what}, {merge.counts()} "
          f"(score_id {merge.scores[0]['score_id']}-{merge.scores[-1]['score_id']}), source {merge.source['source_id']}; "
          f"{merge.bump} version bump recorded in datapackage.json and CHANGELOG.md.")
    return 0


def _cmd_curves(args) -> int:
    import sys

    from atari5_spec_maintainers.contributions.curves import curve_rows, read_curves, rule_text
    from atari5_spec.data.errors import InputError
    from atari5_spec.data.frames import parse_budget, parse_training_budget
    from atari5_spec.data.paths import output_file, write_output
    from atari5_spec.data.writing import csv_text

    budgets = [parse_budget(b) for b in args.budgets.split(",") if b.strip()]
    try:
        final = parse_training_budget(args.final)
    except InputError as error:
        raise InputError(f"--final: {error}") from None
    if args.points < 1:
        raise InputError("--points must be at least 1")
    if args.out:
        output_file(args.out, submission_file=True)  # refused before the work: a link, a folder, inside a
        # data package (but for contributions/<id>/scores.csv of a submission not merged yet)
    runs = read_curves(args.runs)
    rows = curve_rows(runs, budgets, final, args.points)
    if not rows:
        raise InputError(f"{args.runs}: no run reaches any of the budgets; check --final and --budgets (frames)")
    columns = ["game", "seed", "training_frames", "score", "points", "first_frame", "last_frame", "provenance"]
    text = csv_text(columns, ([r[c] for c in columns] for r in rows))
    if args.out:
        write_output(args.out, text, submission_file=True)
    else:
        sys.stdout.write(text)
    counted = len({(r["game"], r["seed"]) for r in rows if r["training_frames"] == final})
    print(f"{len(runs)} runs, {counted} reach the final budget; {len(rows)} rows"
          + (f" written to {args.out}" if args.out else "") + ".\nPut this rule in metadata.yaml under "
          f"upstream.curve_rule:\n  {rule_text(args.points)}", file=sys.stderr)
    return 0


def add_contribution_commands(commands) -> None:
    """Add ``contribute check`` and ``contribute add`` to the top-level subcommands."""
    p = commands.add_parser(
        "contribute", help="check a submitted result (contributions/<id>/) or merge it into data/",
        description="Results are contributed by pull request as contributions/<algorithm-id>/ with metadata.yaml "
                    "and scores.csv (copy contributions/_template). 'check' lists every problem; 'report' reviews the "
                    "submissions a pull request changes (the bot's comment); 'add' merges a clean submission into "
                    "data/ append-only and bumps the data package version.")
    actions = p.add_subparsers(dest="contribute_action", metavar="ACTION")
    actions.required = True

    c = actions.add_parser("check", help="list every problem of submissions (exit 0 when each can be merged)",
                           description="Checks each submission folder against the data package (read once) and "
                                       "prints, per folder in order, every problem and a verdict. Exit 0 only when "
                                       "every folder can be merged.")
    c.add_argument("paths", nargs="+", metavar="path", help=SUBMISSION_HELP + "; several may be given")
    c.add_argument("--package", default=None,
                   help="data package to check against (default: the one the folder is in, else the installed one)")
    c.add_argument("--base", default=None, metavar="REV",
                   help="the branch the pull request targets (default: origin/HEAD, else origin/main, when the repository "
                        "has one): a folder merged in this branch's "
                        "data/ but not in the data/ of the merge base with REV is checked against the merge base's "
                        "data (read through git, nothing checked out) and every finding the review shows is shown")
    c.set_defaults(run=_cmd_check)

    r = actions.add_parser(
        "report", help="the pull-request review: problems, or what each submission adds, its estimate and rank",
        description="Checks submission folders (given, or every contributions/<id>/ a git revision range changes) "
                    "and prints per submission its problems (file, line, fix), or 'ready to merge' with what it "
                    "would add, its Atari-5 estimate against its 57-game median, and where it would rank. Exit 1 "
                    "when a submission has problems. The pull-request workflow posts its --markdown output.")
    r.add_argument("paths", nargs="*", help="submission folders (contributions/<id>)")
    r.add_argument("--changed", metavar="BASE..HEAD", default=None,
                   help="review every submission folder changed between two git revisions")
    r.add_argument("--markdown", action="store_true", help="Markdown (the pull-request comment) instead of text")
    r.add_argument("--out", default=None, help="file to write (default: standard output)")
    r.add_argument("--package", default=None, help="the data package (default: the one the current folder is in)")
    r.set_defaults(run=_cmd_report)

    v = actions.add_parser(
        "review", help="the privileged pull-request review: this install's code reads the pull request from git as data",
        description="Reviews a pull request from git without checking it out or running any of its code: every path "
                    "it changes outside new submission folders (contributions/<id>/) is listed first and makes the "
                    "verdict 'needs a maintainer' (with the published rows a data/ edit changes); each new "
                    "submission's two files are read from git into memory (nothing of the pull request is written to "
                    "disk; any other tree entry is refused) and checked with this install against --package. Exit 0 only "
                    "when the verdict is 'ready to merge'. The comment workflow posts its output.")
    v.add_argument("--base", required=True, help="the base branch's revision (e.g. HEAD of the base checkout)")
    v.add_argument("--head", required=True, help="the pull request's head revision (fetched, never checked out)")
    v.add_argument("--repository", default=".", help="the git repository holding both (default: the current folder)")
    v.add_argument("--out", default=None, help="file to write (default: standard output)")
    v.add_argument("--package", default=None, help="the data package to check against (default: --repository)")
    v.add_argument("--author", default=None, metavar="LOGIN",
                   help="the pull request's author as GitHub gives it (the event's pull_request.user.login): a "
                        "correction is ready to merge only when it is the entry's recorded contributor "
                        "(default: $PR_AUTHOR, which the workflow sets; without either, every correction needs "
                        "a maintainer)")
    v.set_defaults(run=_cmd_review)

    a = actions.add_parser("add", help="merge a clean submission into data/ (append-only, all files or none)")
    a.add_argument("path", help=SUBMISSION_HELP)
    a.add_argument("--package", default=None,
                   help="data package directory to write into (default: the one the folder is in); a submission "
                        "from elsewhere is copied to its contributions/<id>/")
    a.add_argument("--approved", action="store_true",
                   help="merge although findings need a maintainer (a name like an entry's, numbers that are "
                        "another entry's up to a factor, a correction by someone other than the entry's "
                        "contributor): the maintainer checked them; without it such a submission is refused")
    a.add_argument("--base", default=None, metavar="REV",
                   help="the branch the pull request targets (default: origin/HEAD, else origin/main, when the repository "
                        "has one): a folder merged in this branch's "
                        "data/ but not in the data/ of the merge base with REV is checked against the merge base's "
                        "data (read through git, nothing checked out) and every finding the review shows is shown")
    a.set_defaults(run=_cmd_add)

    u = actions.add_parser("curves", help="turn learning curves into the rows of a submission's scores.csv",
                           description="Reads learning curves (a JSON list of runs {task, seed, xs, ys}, optionally "
                                       "gzipped, or a CSV game,seed,frames,return) and writes scores.csv rows: each "
                                       "run's score at every budget and at the final budget, by one stated rule "
                                       "(printed at the end: copy it into metadata.yaml).")
    u.add_argument("runs", help="the curves file")
    u.add_argument("--budgets", default="10M,25M,50M,100M,200M",
                   help="comma-separated budgets in frames (10M, 400k, 1.5B; default 10M,25M,50M,100M,200M)")
    u.add_argument("--final", required=True, help="the training budget of the published numbers, e.g. 200M or 400k")
    u.add_argument("--points", type=int, default=5, help="curve points averaged per budget (default 5)")
    u.add_argument("--out", default=None, help="file to write (default: standard output)")
    u.set_defaults(run=_cmd_curves)
