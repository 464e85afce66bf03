"""Merging a checked submission into data/: appended rows, validated in memory, written all files or none."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from atari5_spec.data.datapackage import package_root, read_descriptor, resource_path, schema_of
from atari5_spec.data.errors import InputError
from atari5_spec.data.paths import package_target, read_regular_file
from atari5_spec.data.validation import Problem
from atari5_spec_maintainers.contributions.checking import merged_problems, plan_merge
from atari5_spec_maintainers.contributions.files import StoredFolder, submission_name
from atari5_spec_maintainers.contributions.model import CHANGELOG, MAX_FILE_BYTES, SCORES_FILE, SUBMISSION_FILES, Merge, Report, Submission, SubmissionError
from atari5_spec_maintainers.contributions.reading import read_submission

if TYPE_CHECKING:
    from atari5_spec.data.loading import Dataset


def appended_text(old: str, columns: list[str], rows: list[dict]) -> str:
    """``old`` CSV text with ``rows`` appended (existing bytes untouched), in the schema's column order."""
    from atari5_spec.data.writing import csv_text

    header = old.split("\n", 1)[0].rstrip("\r")
    if header.split(",") != list(columns):
        raise InputError(f"the table's header {header!r} differs from its schema's columns {columns}")
    rendered = csv_text(columns, ([row[c] for c in columns] for row in rows)).split("\n", 1)[1]
    return old + ("" if old.endswith("\n") else "\n") + rendered


def merged_texts(root: Path, merge: Merge) -> dict[str, str]:
    """The new text of every data file a merge changes (relative path -> text)."""
    descriptor = read_descriptor(root)
    texts = {}
    for name, rows in (("sources", [merge.source]), ("algorithms", [merge.algorithm] if merge.algorithm else []),
                       ("scores", merge.scores), ("seed_scores", merge.seed_scores),
                       ("budget_scores", merge.budget_scores)):
        if not rows:
            continue
        resource = next(r for r in descriptor["resources"] if r["name"] == name)
        columns = [f["name"] for f in schema_of(root, descriptor, name)["fields"]]
        current = resource_path(root, descriptor, name)  # under the path policy: never a file outside the package
        texts[resource["path"]] = appended_text(current.read_text(encoding="utf-8"), columns, rows)
    return texts


def merged_dataset(root: Path, texts: dict[str, str]) -> "Dataset":
    """The package at ``root`` as it would be after writing ``texts`` (:func:`merged_texts`), read in memory:
    nothing is written. TableReadError for a cell a table's schema refuses."""
    from atari5_spec.data.loading import Dataset, present_tables, read_table

    descriptor = read_descriptor(root)  # checked: every path in it stays inside the package
    by_name = {r["name"]: r for r in descriptor["resources"]}
    tables = {name: read_table(resource_path(root, descriptor, name), schema_of(root, descriptor, name),
                               texts[by_name[name]["path"]].encode("utf-8")
                               if by_name[name]["path"] in texts else None)
              for name in present_tables(descriptor)}
    return Dataset(**tables, version=descriptor["version"], root=root)


def merged_dataset_problems(root: Path, texts: dict[str, str]) -> list[Problem]:
    """pandera validation of the package as it would be after writing ``texts``.

    The changed tables are read from ``texts`` in memory (no scratch copy of data/ anywhere, so a killed
    check or merge leaves nothing behind); schemas and the descriptor are the package's, which a merge
    does not change but for the version and hashes.
    """
    from atari5_spec.data.loading import TableReadError
    from atari5_spec.data.validation import validate_dataset

    try:
        problems = validate_dataset(merged_dataset(root, texts))
    except TableReadError as error:
        problems = [Problem(f"data/{error.path.name}", line, column, f"{text!r} is not a {kind}", "")
                    for line, column, text, kind in error.cells]
    return [p._replace(message="after the merge: " + p.message) for p in problems]


# --- checking and adding --------------------------------------------------------------------------------------

def _package_for(folder: Path, package: str | Path | None, writing: bool) -> Path:
    """The data package a submission is checked against or merged into.

    Given: ``package``. Otherwise the package the folder sits in
    (<package>/contributions/<id>), else (checking only) the installed one.
    """
    if package is not None:
        return package_root(package, reader=not writing)  # a writer finishes an interrupted change, under its lock
    if isinstance(folder, StoredFolder):  # read from git: in no package folder
        return package_root(None)
    parent = Path(os.path.abspath(folder)).parent
    if parent.name == "contributions" and (parent.parent / "datapackage.json").is_file():
        return parent.parent
    if writing:
        raise InputError(f"{folder} is not in a data package's contributions/ folder: "
                         "pass --package DIR, the data package to merge it into")
    return package_root(None)


# Where `contribute check` and `add` look for the branch a pull request targets when not given --base.
DEFAULT_BASES = ("origin/HEAD", "origin/main")


def _run_git(root: Path, *args: str) -> bool:
    """Whether git succeeds in ``root`` (a revision exists): no error, no output kept."""
    import subprocess

    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _against_base(folder, root: Path, base, source_id: str, this_year, author, siblings
                  ) -> tuple[Report, str] | None:
    """(the check of ``folder`` against the data of the merge base of ``base`` and HEAD, the merge base) when
    ``base`` (a revision, or candidates of which the first that exists is taken: DEFAULT_BASES) is given and
    the base's data/sources.csv does not hold ``source_id`` (the branch carries its own merge); None when the
    base holds it too (merged there). The base's package files are read through git (``git archive`` of the
    merge base into a scratch folder, as the review's replay does): nothing is checked out, nothing of the
    branch is run. The check is :func:`_review`'s, the review's findings."""
    import tempfile

    from atari5_spec_maintainers.contributions.merge_replay import _extract
    from atari5_spec_maintainers.contributions.pull_request import _git, _revision

    def git(*args, binary=False):
        return _git(root, *args, binary=binary)

    if not isinstance(base, str):  # the default: the first of the candidates the repository has, else no base
        try:
            base = next((name for name in base
                         if _run_git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")), None)
            merge_base = git("merge-base", base, "HEAD").strip() if base else None
        except InputError:  # not a git repository, no history in common: checked as before
            return None
        if merge_base is None:
            return None
    else:
        merge_base = git("merge-base", _revision(base, "--base"), "HEAD").strip()
    try:  # merged on the base too (a merged folder CI re-checks): nothing to extract
        sources = git("show", f"{merge_base}:data/sources.csv")
    except InputError:
        sources = ""
    if f"\n{source_id}," in sources:
        return None
    with tempfile.TemporaryDirectory(prefix="atari5-spec-base-") as scratch:
        base_root = Path(scratch) / "package"
        _extract(git, merge_base, base_root)
        report = _review(folder, base_root, writing=False, this_year=this_year, author=author,
                         siblings=siblings)[0]
    if report.merged_as:
        return None
    return report, merge_base


def _review(path: str | Path, package: str | Path | None, writing: bool, this_year: int | None = None,
            loaded: dict[Path, "Dataset"] | None = None, author: str | None = None, siblings=(),
            base: str | None = None) -> tuple[Report, Path, Submission | None, dict[str, str]]:
    """``base``: a git revision of the branch a pull request targets (``--base``): a folder merged in data/ here
    but not in the merge base's data/ is checked against the merge base's (:func:`_against_base`).
    ``loaded``: datasets already read, by package root (checks only; a merge reads under its lock).
    ``author``: who sent the submission as the platform says (the pull request's author), or None.
    ``siblings``: the other new folders of the same pull request (compared with for copies)."""
    from atari5_spec.data.loading import load

    folder = path if isinstance(path, StoredFolder) else Path(path)
    root = _package_for(folder, package, writing)
    if loaded is None:
        dataset = load(root)
    else:
        if root not in loaded:
            loaded[root] = load(root)
        dataset = loaded[root]
    submission_id = submission_name(folder)
    source_id = f"contrib-{submission_id}"
    sources = dataset.sources.set_index("source_id")
    merged = (source_id in sources.index
              and sources.loc[source_id, "upstream_file"] == f"contributions/{submission_id}/{SCORES_FILE}")
    submission, problems = read_submission(folder, dataset, this_year, check_ids=not merged)
    if submission is None:
        return Report(submission_id, problems, [], None, source_id if merged else None), root, None, {}
    if merged and base is not None:  # merged here: on this branch only, or on the base too?
        branch_only = _against_base(folder, root, base, source_id, this_year, author, siblings)
        if branch_only is not None:
            found, merge_base = branch_only
            report = Report(submission_id, merged_problems(submission, dataset, source_id) + found.problems,
                            found.warnings, found.merge, source_id, merge_base)
            return report, root, submission, {}
    if merged:  # CI re-checks merged folders: data/ must still hold exactly their rows
        report = Report(submission_id, merged_problems(submission, dataset, source_id), [], None, source_id)
        return report, root, submission, {}
    merge, problems, warnings = plan_merge(submission, dataset, author, siblings)
    if merge is None:
        return Report(submission_id, problems, warnings, None), root, submission, {}
    texts = merged_texts(root, merge)
    problems = merged_dataset_problems(root, texts)
    return Report(submission_id, problems, warnings, None if problems else merge), root, submission, texts


def check_submission(path: str | Path, package: str | Path | None = None, this_year: int | None = None,
                     author: str | None = None, siblings=()) -> Report:
    """Check a submission folder against the schemas and the dataset; every problem is listed.

    ``package``: the data package to check against (default: the one the
    folder sits in, else the installed one). ``author``: who sent it as the
    platform says (the pull request's author; None: not known, so a
    correction needs a maintainer). ``siblings``: the other new folders of the same pull request, which a
    new entry's numbers are compared with as with data/. Nothing is written.
    """
    return _review(path, package, writing=False, this_year=this_year, author=author, siblings=siblings)[0]


def check_submissions(paths: Iterable[str | Path], package: str | Path | None = None, this_year: int | None = None,
                      base: str | None = None) -> Iterator[Report]:
    """:func:`check_submission` of each folder in turn, reading each data package once (CI checks every
    submission in one process). Nothing is written."""
    loaded: dict[Path, "Dataset"] = {}
    for path in paths:
        yield _review(path, package, writing=False, this_year=this_year, loaded=loaded, base=base)[0]


def _changelog_line(merge: Merge, submission: Submission, version: str) -> tuple[str, str]:
    """(section, line) of the CHANGELOG entry of a merge."""
    from atari5_spec.data.markdown import markdown_text

    fit = [r for r in merge.scores if r["use_in_fit"]]
    ids = f"score_id {merge.scores[0]['score_id']}-{merge.scores[-1]['score_id']}"
    contributor = markdown_text(submission.metadata["contributor"]["name"])  # labels, escaped (data/markdown.py)
    folder = f"contributions/{submission.submission_id}/"
    seeds = "".join(f", {len(rows)} {what}" for rows, what in ((merge.seed_scores, "per-seed scores"),
                                                                (merge.budget_scores, "scores at training budgets"))
                    if rows)
    if merge.corrects:
        corrected = sum(1 for r in fit if r["supersedes"] is not None)
        section = "Fixed" if merge.bump == "patch" else "Added"
        return section, (f"Data {version}: {corrected} corrected and {len(fit) - corrected} new scores of "
                         f"`{merge.corrects}`{seeds} ({ids}) from {folder}, contributed by {contributor}; "
                         "the corrected rows stay, superseded.")
    algorithm = merge.algorithm
    excluded = f" Stays out of fits: {algorithm['exclusion']}." if algorithm["exclusion"] else ""
    return "Added", (f"Data {version}: algorithm `{algorithm['algorithm_id']}` ({markdown_text(algorithm['name'])}; "
                     f"{markdown_text(algorithm['paper_title'])}, {algorithm['year']}) with {len(fit)} scores{seeds} ({ids}) "
                     f"from {folder}, contributed by {contributor}.{excluded}")


def _submission_copy(folder: Path, root: Path, submission_id: str) -> dict[str, str]:
    """Files to write so that the package holds the submission at contributions/<id>/ (none if it already does)."""
    target = root / "contributions" / submission_id
    if os.path.realpath(folder) == os.path.realpath(target):
        return {}
    if target.exists() or target.is_symlink():
        raise InputError(f"{target} already exists and is not the submission {folder}: rename one of them")
    # Bytes as submitted (CRLF kept); the files were checked to be UTF-8 without BOM.
    return {f"contributions/{submission_id}/{name}": read_regular_file(
                folder / name, str(folder / name), MAX_FILE_BYTES, follow_links=False).decode("utf-8")
            for name in SUBMISSION_FILES}


def add_submission(path: str | Path, package: str | Path | None = None, this_year: int | None = None,
                   approved: bool = False, author: str | None = None, base: str | None = None) -> Merge:
    """Merge a clean submission into the package's data/, append-only, all files or none.

    Raises SubmissionError (an InputError) listing every problem when the
    submission is not clean or is already merged, and when it has findings
    that need a maintainer (:class:`~.model.Hold`: a look-alike name, a
    near-copy, a correction by someone else) unless ``approved``, the
    maintainer's word that they checked them; then nothing is written.
    The merge's ``warnings`` are the ones ``check`` prints, holds included (approved or not). ``author``:
    who sent it as the platform says (the pull request's author, for a correction), or None: not known.
    """
    from atari5_spec.data.transaction import finished_by_recovery, package_transaction
    from atari5_spec_maintainers.versioning import bumped_descriptor_text, changelog_with_entry

    folder = Path(path)
    root = _package_for(folder, package, writing=True)
    # The lock is taken before the package is read: a concurrent merge waits, and never loses this one's rows.
    command = f"contribute add {os.path.realpath(folder)}"
    with package_transaction(root, command) as change:
        report, root, submission, texts = _review(folder, root, writing=True, this_year=this_year, author=author,
                                                  base=base)
        if report.merged_as and report.merged_base and (report.problems or report.holds and not approved):
            raise SubmissionError(report, f"{folder}: merged on this branch only, not on the base; against the "
                                          f"base's data: {len(report.problems)} problem(s), {len(report.holds)} "
                                          "finding(s) need a maintainer (above); nothing to add")
        if report.merged_as:
            error = SubmissionError(report, f"{folder}: already merged as source {report.merged_as}; nothing to add")
            # The rerun of a merge that was killed mid-commit, and finished when the package was opened: done.
            error.finished_by_recovery = finished_by_recovery(root, command) and not report.problems
            raise error
        if not report.ok:
            raise SubmissionError(report)
        if report.holds and not approved:
            raise SubmissionError(report, f"{folder}: {len(report.holds)} finding(s) need a maintainer (above); "
                                          "after checking them, merge with `contribute add --approved`")
        merge = report.merge._replace(warnings=tuple(report.warnings))
        files = dict(texts)
        files.update(_submission_copy(folder, root, submission.submission_id))
        descriptor = read_descriptor(root)
        files["datapackage.json"] = bumped_descriptor_text(root, descriptor, files, merge.bump)
        changelog_path = package_target(root, CHANGELOG, "the changelog")
        changelog = changelog_path.read_text(encoding="utf-8") if changelog_path.is_file() else "# Changelog\n"
        files[CHANGELOG] = changelog_with_entry(changelog, *_changelog_line(merge, submission, descriptor["version"]))
        change.commit(files)  # all files or none; missing folders (contributions/<id>/) made and undone with it
    return merge
