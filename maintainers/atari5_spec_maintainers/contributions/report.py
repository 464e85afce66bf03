"""The review of a pull request's submissions: per submission its problems, or what it would add and where it ranks.

This is the text the pull-request bot posts (``atari5-spec contribute report
--changed BASE..HEAD --markdown``), produced here so that it is tested like
every other output. Per submission folder:

* its problems (file, line, column, fix), when it cannot be merged;
* otherwise "ready to merge" with what :func:`add_submission` would add, the
  entry's Atari-5 estimate under the default coefficient version, its true
  median over the 57 games when it has at least 40 of them (and the ratio of
  the two), and where it would rank on the leaderboard: overall and among the
  entries of its own regime (the protocol's training budget);
* the warnings a reviewer should read.

Text taken from a submission (messages quote it) is escaped before it goes
into Markdown, so that a pull request cannot make the bot's comment mention
people, link elsewhere or break the tables.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

from atari5_spec.data.errors import InputError
from atari5_spec.data.limits import printable
from atari5_spec.data.validation import Problem
from atari5_spec_maintainers.contributions.merging import check_submission
from atari5_spec_maintainers.contributions.model import Hold, Report

__all__ = ["SubmissionSummary", "ChangedFiles", "changed_files", "summarise_submission", "report_markdown",
           "report_text"]

CONTRIBUTIONS = "contributions"
# Files a submission pull request may change; anything else is for the maintainer to look at.
REVIEWED_ELSEWHERE = ("data/", "schemas/", "coefficients/", "datapackage.json", "calibration/")


class SubmissionSummary(NamedTuple):
    """What the bot says about one submission folder."""

    submission_id: str
    folder: str
    report: Report
    estimate: float | None = None      # Atari-5 estimate of the fit rows (default coefficient version)
    median: float | None = None        # true median over the 57 games, when it has >= 40 of them
    n_games: int = 0                   # of the 57 games with a fit row
    rank: int | None = None            # where it would rank on the leaderboard (1 = best)
    n_ranked: int = 0                  # entries on that leaderboard
    regime: str | None = None
    regime_rank: int | None = None     # rank among the leaderboard entries of the same regime
    n_regime: int = 0
    coefficients_version: str | None = None
    note: str | None = None            # why no estimate was computed
    changes: tuple = ()                # a correction's (game, old, new) for every number it replaces
    # A regime with a field of its own (Atari 100k) ranks by the measured median over its games (scoring/field.py):
    # then regime_rank/n_regime are that ranking's, and these say by what.
    field_median: float | None = None
    field_label: str | None = None     # e.g. "26-game median"
    # The rank change the merge makes, from the package's leaderboard (scoring.ranking.leaderboard) computed on
    # the package without and with the merge: of the new entry, or of the entry a correction changes.
    ranked_id: str | None = None       # the entry whose rank changes
    ranked_name: str | None = None
    rank_before: int | None = None     # None: not on the leaderboard without the merge (a new entry)
    n_before: int = 0                  # entries on the leaderboard without the merge
    rank_after: int | None = None      # None: not on the leaderboard after it (too few games, kept out)
    n_after: int = 0                   # entries on the leaderboard with the merge


class ChangedFiles(NamedTuple):
    """The files a revision range changes, split into submission folders and everything else."""

    submissions: tuple[str, ...]       # contributions/<id> that exist at HEAD, sorted
    removed: tuple[str, ...]           # contributions/<id> deleted entirely
    other: tuple[str, ...]             # changed files outside contributions/<id>/ (data/, schemas/, ...)


def changed_files(root: str | Path, revision_range: str) -> ChangedFiles:
    """Submission folders and other files changed in ``BASE..HEAD`` of the git repository at ``root``."""
    if len(revision_range) > 500 or revision_range.startswith("-") or \
            not re.fullmatch(r"[\w./~^@{}-]+\.\.[\w./~^@{}-]+", revision_range):  # bounded before the pattern
        raise InputError(f"--changed {revision_range!r}: give a git revision range BASE..HEAD "
                         "(e.g. origin/main..HEAD or two commit ids)")
    base, head = revision_range.split("..", 1)
    try:
        done = subprocess.run(["git", "-C", str(root), "diff", "--name-only", "--no-renames", "-z", base, head, "--"],
                              capture_output=True, check=False, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InputError(f"--changed {revision_range}: git could not be run ({error})") from None
    if done.returncode != 0:
        raise InputError(f"--changed {revision_range}: git diff failed: {done.stderr.strip().splitlines()[-1:]}")
    paths = sorted(p for p in done.stdout.split("\0") if p)
    folders, other = set(), []
    for path in paths:
        parts = path.split("/")
        if parts[0] == CONTRIBUTIONS and len(parts) >= 3 and not parts[1].startswith("_"):
            folders.add(f"{CONTRIBUTIONS}/{parts[1]}")
        else:  # contributions/README.md and the template included: a maintainer looks at every one
            other.append(path)
    present = tuple(sorted(f for f in folders if (Path(root) / f).is_dir()))
    removed = tuple(sorted(folders - set(present)))
    return ChangedFiles(present, removed, tuple(other))


def _fit_scores(report: Report) -> dict[str, float]:
    """game id -> score of the rows the merge would let fits use."""
    merge = report.merge
    return {} if merge is None else {r["game_id"]: r["score"] for r in merge.scores if r["use_in_fit"]}


def _true_median(fit: dict[str, float], dataset) -> tuple[float | None, int]:
    """(median human-normalised score over the 57 games if >= 40 given, number of the 57 given)."""
    from atari5_spec.method.reference import human_normalised
    from atari5_spec.scoring.ranking import MIN_GAMES_FOR_MEDIAN

    games = dataset.games[dataset.games["in_57"].astype(bool)].set_index("game_id")
    z = sorted(float(human_normalised(value, games.loc[g, "random_score"], games.loc[g, "human_score"]))
               for g, value in fit.items() if g in games.index)
    if len(z) < MIN_GAMES_FOR_MEDIAN:
        return None, len(z)
    middle = len(z) // 2
    return (z[middle] if len(z) % 2 else (z[middle - 1] + z[middle]) / 2), len(z)


def summarise_submission(folder, package: str | Path | None = None, dataset=None,
                         board=None, author: str | None = None, siblings=()) -> SubmissionSummary:
    """Check one submission folder and, when it is clean, estimate and rank what it would add.

    ``dataset`` and ``board`` (a :func:`atari5_spec.scoring.ranking.leaderboard`
    without user scores) may be given to share them between submissions.
    ``author``: who sent it as the platform says, ``siblings`` the pull request's other new folders
    (:func:`.check_submission`).
    """
    from atari5_spec.data.loading import load
    from atari5_spec.scoring.estimate import score
    from atari5_spec.scoring.ranking import leaderboard

    from atari5_spec_maintainers.contributions.files import StoredFolder, folder_label, submission_name

    folder = folder if isinstance(folder, StoredFolder) else Path(folder)  # a StoredFolder: read from git (review)
    report = check_submission(folder, package, author=author, siblings=siblings)
    submission_id = submission_name(folder)
    summary = SubmissionSummary(submission_id, str(folder_label(folder)), report)
    if report.merge is None:
        return summary
    if dataset is None:
        dataset = load(package if package is not None else _package_of(folder))
    if board is None:
        board = leaderboard(dataset=dataset)
    if report.merge.corrects:
        from atari5_spec_maintainers.contributions.checking import correction_changes

        summary = summary._replace(changes=tuple(correction_changes(report.merge.scores, dataset)))
    summary = _with_rank_change(summary, dataset, board)
    fit = _fit_scores(report)
    median, n_games = _true_median(fit, dataset)
    algorithm = report.merge.algorithm
    regime = algorithm.get("regime") if algorithm else None
    summary = summary._replace(median=median, n_games=n_games, regime=regime,
                               coefficients_version=board.coefficients_version)
    # Scores above a game's plausibility bound are a hold of the review (checking._bound_holds), not an
    # error of it: the estimate is computed knowingly, as `score --allow-implausible` does.
    from atari5_spec_maintainers.contributions.checking import above_bounds

    above = bool(above_bounds(report.merge.scores, report.merge.seed_scores, dataset))
    try:
        result = score(fit, n_bootstrap=0, partial=True, coefficients=board.coefficients_version,
                       allow_implausible=above)
    except InputError as error:
        return summary._replace(note=f"no Atari-5 estimate: {error}")
    # Peers: the leaderboard of the entry's own regime (Atari 100k entries are ranked only there).
    regime_board = (leaderboard(dataset=dataset, regime=regime, coefficients=board.coefficients_version)
                    if regime else None)
    field = regime_board.field if regime_board is not None else None
    if field is not None:  # ranked by the field's measured median, with or without the Atari-5 games
        from atari5_spec.scoring.field import user_field_median

        value, _ = user_field_median(result.normalised, field)
        if value is not None:
            summary = summary._replace(
                field_median=value, field_label=field.column_label, n_regime=len(regime_board.rows),
                regime_rank=1 + sum(row.field_median > value for row in regime_board.rows))
    if result.estimate is None:
        missing = result.not_computable.get(result.subset, ())
        return summary._replace(note=f"no Atari-5 estimate: {', '.join(missing)} not given")
    estimate = float(result.estimate)
    summary = summary._replace(estimate=estimate, rank=1 + sum(row.estimate > estimate for row in board.rows),
                               n_ranked=len(board.rows))
    if regime_board is None or field is not None:
        return summary
    return summary._replace(regime_rank=1 + sum(row.estimate > estimate for row in regime_board.rows),
                            n_regime=len(regime_board.rows))


def rank_change(merge, dataset, board=None) -> tuple[str, int | None, int, int | None, int]:
    """(entry, rank without the merge or None, entries then, rank with it or None, entries then): the
    leaderboard (:func:`atari5_spec.scoring.ranking.leaderboard`) of the package and of the package with the
    merge's rows (read in memory, nothing written), for the new entry or the entry a correction changes."""
    from atari5_spec.scoring.ranking import leaderboard

    from atari5_spec_maintainers.contributions.merging import merged_dataset, merged_texts

    entry = merge.corrects or merge.algorithm["algorithm_id"]
    before = board if board is not None else leaderboard(dataset=dataset)
    after = leaderboard(dataset=merged_dataset(dataset.root, merged_texts(dataset.root, merge)),
                        coefficients=before.coefficients_version)

    def rank(rows):
        return next((row.rank for row in rows if row.algorithm_id == entry), None)

    return entry, rank(before.rows), len(before.rows), rank(after.rows), len(after.rows)


def _with_rank_change(summary: SubmissionSummary, dataset, board) -> SubmissionSummary:
    merge = summary.report.merge
    entry, before, n_before, after, n_after = rank_change(merge, dataset, board)
    names = dict(zip(dataset.algorithms["algorithm_id"], dataset.algorithms["name"]))
    name = names.get(entry) or (merge.algorithm or {}).get("name") or entry
    return summary._replace(ranked_id=entry, ranked_name=str(name), rank_before=before, n_before=n_before,
                            rank_after=after, n_after=n_after)


def rank_change_text(summary: SubmissionSummary, quote=str) -> str | None:
    """'would enter the leaderboard at rank 1 of 91', 'moves DreamerV3 from rank 8 to 90 of 90', ...; None
    when nothing was computed. ``quote`` renders the entry's name (Markdown escapes it)."""
    if summary.ranked_id is None:
        return None
    name, before, after = quote(summary.ranked_name), summary.rank_before, summary.rank_after
    if before is None and after is None:
        return f"{name} would not enter the leaderboard ({summary.n_after} entries)"
    if before is None:
        return f"{name} would enter the leaderboard at rank {after} of {summary.n_after}"
    if after is None:
        return f"{name} would leave the leaderboard (rank {before} of {summary.n_before} now)"
    if before == after:
        return f"{name} stays at rank {after} of {summary.n_after} on the leaderboard"
    return f"moves {name} from rank {before} to {after} of {summary.n_after} on the leaderboard"


def _package_of(folder: Path) -> Path | None:
    if not isinstance(folder, (str, os.PathLike)):  # a StoredFolder, read from git: in no package folder
        return None
    parent = Path(os.path.abspath(folder)).parent
    return parent.parent if parent.name == CONTRIBUTIONS and (parent.parent / "datapackage.json").is_file() else None


# --- Markdown -------------------------------------------------------------------------------------------------

# Beyond data/markdown.py's characters, what GitHub renders as emphasis, headings or strikethrough.
_GITHUB_SPECIAL = re.compile(r"([*_{}#!~])")
# What GitHub turns into links after Markdown: bare addresses (scheme://, www.) and references (#1,
# owner/repo#1, GH-1). A zero-width space inside each breaks the pattern and shows the same text.
_AUTOLINKS = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)|(?<=#)(?=\d)|(?<=gh)(?=-\d)")


def escape(text: object) -> str:
    """Text from a submission made inert in Markdown: no markup, links, HTML, entities or @mentions, one line.

    ``&`` is escaped so that an entity (``&commat;``, ``&#64;``) shows as typed
    instead of becoming the character it names.
    """
    from atari5_spec.data.markdown import markdown_text

    text = markdown_text(_AUTOLINKS.sub("\u200b", " ".join(str(text).split())))
    return _GITHUB_SPECIAL.sub(r"\\\1", text).replace("@", "@\u200b")


def code(text: object) -> str:
    """Text shown as `code`: nothing in a code span is markup, so only backticks and line breaks are removed."""
    return "`" + printable(" ".join(str(text).replace("`", "'").split())) + "`"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.1f}"


def _problem_rows(problems: list[Problem]) -> list[str]:
    rows = ["| file | line | column | problem | fix |", "|---|---:|---|---|---|"]
    rows += [f"| {escape(p.file)} | {p.row or ''} | {escape(p.column or '')} | {escape(p.message)} | {escape(p.fix)} |"
             for p in problems]
    return rows


def _summary_lines(summary: SubmissionSummary, held: bool = False) -> list[str]:
    report = summary.report
    title = f"### {code(summary.submission_id)}: "
    if report.merged_as and not report.problems:
        return [title + "already merged", "",
                f"data/ holds exactly its rows (source {escape(report.merged_as)}); nothing would be added."]
    if report.problems:
        lines = [title + f"{len(report.problems)} problem(s), not ready to merge", ""] + _problem_rows(report.problems)
    else:
        held_text = f"no problems, {len(report.holds)} finding(s) need a maintainer (below)"
        merge = report.merge
        what = (f"corrections of {code(merge.corrects)}" if merge.corrects
                else f"new algorithm {code(merge.algorithm['algorithm_id'])} ({escape(merge.algorithm['name'])})")
        change = rank_change_text(summary, escape)
        lines = [title + (held_text if report.holds else "no problems, held: the pull request needs a maintainer"
                          if held else "ready to merge"), ""] + ([f"**Rank: {change}.**", ""] if change else []) + [
                 f"- would add: {what}, {escape(merge.counts())}; data package version bump: {merge.bump}"]
        if summary.estimate is not None:
            ratio = (f", estimate / median {summary.estimate / summary.median:.2f}"
                     if summary.median and summary.median > 0 else "")
            median = (f"true median over the 57 games {_number(summary.median)} ({summary.n_games} games){ratio}"
                      if summary.median is not None else
                      f"no 57-game median ({summary.n_games} of the 57 games; 40 needed)")
            lines.append(f"- Atari-5 estimate ({escape(summary.coefficients_version)}): {_number(summary.estimate)}; "
                         + median)
            rank = f"- would rank {summary.rank} of {summary.n_ranked + 1} on the leaderboard"
            if summary.regime and summary.field_median is None and summary.regime_rank is not None:
                rank += (f", {summary.regime_rank} of {summary.n_regime + 1} among entries of regime "
                         f"{escape(summary.regime)}")
            lines.append(rank)
        elif summary.note:
            lines.append(f"- {escape(summary.note)}")
        if summary.field_median is not None:
            lines.append(f"- {escape(summary.field_label)} {_number(summary.field_median)}: would rank "
                         f"{summary.regime_rank} of {summary.n_regime + 1} among entries of regime "
                         f"{escape(summary.regime)} (ranked by that measured median)")
        if summary.changes:
            lines += ["", f"Every number the correction replaces ({len(summary.changes)}):", "",
                      "| game | old | new | new / old |", "|---|---:|---:|---:|"]
            lines += [f"| {escape(game)} | {old:,.6g} | {new:,.6g} | "
                      + (f"{new / old:.4g}" if old else "n/a") + " |" for game, old, new in summary.changes]
    if report.warnings:
        lines += ["", "Warnings for the reviewer:", ""]
        lines += [f"- {'**needs a maintainer**: ' if isinstance(w, Hold) else ''}{escape(w.file)}" + (f", line {w.row}" if w.row else "") + f": {escape(w.message)} "
                  f"(fix: {escape(w.fix)})" for w in report.warnings]
    return lines


def report_markdown(summaries: list[SubmissionSummary], changed: ChangedFiles | None = None,
                    held: bool = False) -> str:
    """The pull-request comment: a verdict line, then one section per submission.

    ``held``: the pull request changes more than submission folders, so no submission is called ready to merge.
    """
    held = held or bool(changed and (changed.other or changed.removed))
    blocked = [s for s in summaries if s.report.problems]
    lines = ["## atari5-spec: contribution check", ""]
    if changed and (changed.other or changed.removed):
        # Listed first: a change outside new submission folders is never "ready to merge".
        lines += [f"Needs a maintainer: {len(changed.other) + len(changed.removed)} changed path(s) outside "
                  "new submission folders.", ""]
        lines += [f"- {code(f)}: a merged submission is provenance and must stay; a correction goes in a new "
                  "folder with `corrects:`" for f in changed.removed]
        lines += [f"- {code(p)}" + (": data/ is changed by `atari5-spec contribute add` on merge, not by "
                                         "the pull request" if p.startswith("data/") else "")
                  for p in changed.other]
        lines.append("")
    if not summaries and not (changed and (changed.removed or changed.other)):
        lines.append("No submission folder (`contributions/<id>/`) changed.")
    elif summaries:
        holding = [s for s in summaries if s.report.holds and not s.report.problems]
        verdict = (f"{len(blocked)} of {len(summaries)} submission(s) NOT ready to merge." if blocked
                   else f"{len(summaries)} submission(s) checked: " + (
                       "no problems, but the changes above need a maintainer." if held else
                       f"no problems, but {len(holding)} need a maintainer (findings below)." if holding
                       else "ready to merge."))
        lines.append(verdict)
    for summary in summaries:
        lines += [""] + _summary_lines(summary, held)
    return "\n".join(lines) + "\n"


def report_text(summaries: list[SubmissionSummary], changed: ChangedFiles | None = None) -> str:
    """The same review as plain text (the terminal): changed paths a maintainer must look at first."""
    from atari5_spec_maintainers.contributions.model import format_report

    parts = []
    if changed and (changed.other or changed.removed):
        parts.append("needs a maintainer: changed outside new submission folders:\n"
                     + "\n".join(f"  {path}" for path in changed.removed + changed.other))
    for summary in summaries:
        change = rank_change_text(summary)
        text = (f"{summary.submission_id}: {change}.\n" if change else "") + format_report(summary.report)
        if summary.estimate is not None:
            text += (f"\n  Atari-5 estimate {_number(summary.estimate)}"
                     + (f", true median {_number(summary.median)}" if summary.median is not None else "")
                     + f"; would rank {summary.rank} of {summary.n_ranked + 1}"
                     + (f" ({summary.regime_rank} of {summary.n_regime + 1} in regime {summary.regime})"
                        if summary.regime and summary.field_median is None and summary.regime_rank is not None
                        else ""))
        if summary.field_median is not None:
            text += (f"\n  {summary.field_label} {_number(summary.field_median)}: would rank {summary.regime_rank} "
                     f"of {summary.n_regime + 1} in regime {summary.regime}")
        text += "".join(f"\n  corrects {game}: {old:,.6g} -> {new:,.6g}" + (f" (x{new / old:.4g})" if old else "")
                        for game, old, new in summary.changes)
        parts.append(text)
    return "\n\n".join(parts) if parts else "No submission folder changed."


def any_problem(summaries: list[SubmissionSummary], changed: ChangedFiles | None = None) -> bool:
    return any(s.report.problems for s in summaries) or bool(changed and (changed.removed or changed.other))
