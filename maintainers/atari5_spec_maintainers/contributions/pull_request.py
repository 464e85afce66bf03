"""The privileged review of a pull request: built by the base branch's code, reading the pull request from git as data.

The workflow that may write pull-request comments (contribution-review.yml) checks
out the base branch, installs *its* package and fetches the pull request's commits
without checking them out. :func:`review_pull_request` then

* lists every path the pull request changes (``git diff`` between the merge base
  and its head, on the object store: nothing of the pull request is executed);
* reads each new ``contributions/<id>/`` folder's two files out of git into
  memory (:func:`read_submission_tree`: the tree walked by object id, one
  level at a time; only regular blobs named metadata.yaml and scores.csv are
  read, each after its size; every other entry, a link, a submodule, a folder,
  a repeated name or a crafted one such as ``..``, is a problem, never a file)
  and checks it with the base branch's code against the base branch's data
  package. Nothing of the pull request is written to disk;
* shows, for every changed CSV under data/, which published rows it edits or
  deletes (a published number never changes in place: corrections are
  submissions with ``corrects:``).

The verdict is "ready to merge" only when the pull request changes nothing but
new submission folders and each of them is clean; any other changed path makes
it "needs a maintainer", listed first, and the exit status non-zero. Every part
of the comment that comes from the pull request (file names, text quoted in
messages) goes through :func:`atari5_spec_maintainers.contributions.report.escape` or
:func:`~atari5_spec_maintainers.contributions.report.code` here, in trusted code.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from atari5_spec.data.errors import InputError
from atari5_spec.data.transaction import LOCK_NAME, STAGING_NAME
from atari5_spec_maintainers.contributions.files import StoredFolder, symbolic_link, too_large, unexpected_entry
from atari5_spec_maintainers.contributions.model import MAX_FILE_BYTES, SUBMISSION_FILES, _display

__all__ = ["PullRequestChanges", "pull_request_changes", "read_submission_tree", "published_row_edits",
           "review_pull_request", "PullRequestReview"]

CONTRIBUTIONS = "contributions"
REVISION = re.compile(r"[\w./~^@{}-]+")
GIT_TIMEOUT = 120
# Published rows of an edited data CSV shown in the comment (the rest are counted).
SHOWN_EDITS = 10


class PullRequestChanges(NamedTuple):
    """What a pull request changes, classified by what a maintainer must do about it."""

    merge_base: str
    head: str
    new_submissions: tuple[str, ...]       # contributions/<id> absent from the base, present at head
    maintainer: tuple[tuple[str, str], ...]  # (path, why a maintainer must look), in path order


class PullRequestReview(NamedTuple):
    """The comment's text and whether the pull request may be merged without a maintainer."""

    text: str
    ready: bool


def _git(root: str | Path, *args: str, binary: bool = False):
    """Run git in ``root`` with no pager, no external diff drivers and no text conversion; InputError on failure."""
    command = ["git", "-C", str(root), "-c", "core.quotePath=false", *args]
    try:
        done = subprocess.run(command, capture_output=True, check=False, timeout=GIT_TIMEOUT,
                              env={**os.environ, "GIT_PAGER": "cat", "GIT_EXTERNAL_DIFF": "",
                                   "GIT_CONFIG_NOSYSTEM": "1"})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InputError(f"git could not be run ({error})") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["(no message)"]
        raise InputError(f"git {args[0]} failed: {message[0]}")
    return done.stdout if binary else done.stdout.decode("utf-8", "replace")


def _revision(name: str, what: str) -> str:
    if not REVISION.fullmatch(name) or name.startswith("-") or ".." in name:
        raise InputError(f"{what} {name!r}: give a git revision (a commit id, branch or ref such as "
                         "refs/remotes/pull/head)")
    return name


def _tree_entries(root, revision: str, prefix: str) -> list[tuple[str, str, str, str]]:
    """(mode, type, object, path) of every entry under ``prefix`` at ``revision`` (recursive)."""
    out = _git(root, "ls-tree", "-r", "-z", "--full-tree", revision, "--", prefix)
    return [_entry(record) for record in filter(None, out.split("\0"))]


def _entry(record: str) -> tuple[str, str, str, str]:
    meta, path = record.split("\t", 1)
    mode, kind, obj = meta.split(" ")
    return mode, kind, obj, path


def _tree_listing(root, tree: str) -> list[tuple[str, str, str, str]]:
    """(mode, type, object, name) of the entries of the tree object ``tree``, names exactly as stored."""
    out = _git(root, "ls-tree", "-z", tree)
    return [_entry(record) for record in filter(None, out.split("\0"))]


# Names git never writes into a tree, which a crafted tree (git mktree) can hold.
CRAFTED_NAMES = ("", ".", "..")


def _crafted(part: str) -> bool:
    return part in CRAFTED_NAMES or part.rstrip(". ").casefold() == ".git"


def pull_request_changes(root: str | Path, base: str, head: str) -> PullRequestChanges:
    """Every path changed between the merge base of ``base`` and ``head``, and ``head``, classified."""
    base, head = _revision(base, "base"), _revision(head, "head")
    merge_base = _git(root, "merge-base", base, head).strip()
    head_commit = _git(root, "rev-parse", "--verify", f"{head}^{{commit}}").strip()
    out = _git(root, "diff", "--name-status", "--no-renames", "--no-ext-diff", "--no-textconv", "-z",
               merge_base, head_commit, "--")
    fields = [f for f in out.split("\0") if f]
    changed = sorted(zip(fields[1::2], fields[0::2]))  # (path, status letter)
    at_base = {path.split("/")[1] for *_, path in _tree_entries(root, merge_base, CONTRIBUTIONS)
               if path.count("/") >= 2}
    new, maintainer = set(), []
    for path, status in changed:
        parts = path.split("/")
        if any(_crafted(part) for part in parts):
            maintainer.append((path, "is a crafted tree entry (a name such as '..', '.' or '.git' that git never "
                                     "writes; built with git mktree): it could climb out of any folder it is "
                                     "written to; the review reads no file of it"))
            continue
        if STAGING_NAME in parts:
            maintainer.append((path, f"commits atari5-spec's write journal ({STAGING_NAME}/, which git ignores: "
                                     "added with `git add -f`): a journal from elsewhere names files to write; "
                                     "atari5-spec refuses any journal it did not write for that package on that "
                                     "machine, and it must never be merged: remove it"))
            continue
        if LOCK_NAME in parts:
            maintainer.append((path, f"commits atari5-spec's write lock ({LOCK_NAME}, which git ignores: added "
                                     "with `git add -f`); it is never committed: remove it"))
            continue
        if parts[0] == CONTRIBUTIONS and len(parts) == 3 and not parts[1].startswith(("_", ".")):
            if parts[1] not in at_base and status != "D":
                new.add(f"{CONTRIBUTIONS}/{parts[1]}")
                continue
            why = ("deletes a file of a submission in the base branch: a merged submission is provenance and "
                   "stays; a correction goes in a new folder with `corrects:`" if status == "D" else
                   "changes a submission already in the base branch: it must not change; a correction goes in "
                   "a new folder with `corrects:`")
        elif parts[0] == CONTRIBUTIONS and len(parts) > 3 and not parts[1].startswith(("_", ".")):
            if parts[1] not in at_base and status != "D":
                new.add(f"{CONTRIBUTIONS}/{parts[1]}")  # the folder check reports the nested file
                continue
            why = "changes a submission already in the base branch"
        elif parts[0] == "data":
            why = ("changes the published data: data/ is written only by `atari5-spec contribute add` at merge "
                   "time, never by a pull request")
        elif parts[0] in ("datapackage.json", "schemas", "coefficients", "calibration", "published"):
            why = "changes the data package's description, schemas, coefficients or calibration"
        elif parts[0] in (".github", ".ci"):
            why = "changes continuous integration or the workflows (they run with this repository's tokens)"
        else:
            why = "changes a file outside the submission folders (code, documentation or the template)"
        maintainer.append((path, why))
    return PullRequestChanges(merge_base, head_commit, tuple(sorted(new)), tuple(maintainer))


def _single(root, tree: str, name: str) -> str | None:
    """The object id of the one sub-folder ``name`` of the tree object ``tree``; None unless exactly one."""
    found = [(mode, kind, obj) for mode, kind, obj, entry in _tree_listing(root, tree) if entry == name]
    return found[0][2] if len(found) == 1 and found[0][:2] == ("040000", "tree") else None


def read_submission_tree(root: str | Path, revision: str, folder: str) -> StoredFolder:
    """``folder`` (contributions/<id>) as it is at ``revision``, read from git into memory; nothing is written.

    The tree is walked by object id, one level at a time (no path is
    resolved, so a crafted name leads nowhere). Of the folder's entries only
    a regular blob (mode 100644 or 100755) named metadata.yaml or
    scores.csv, of at most MAX_FILE_BYTES (its size is read first), is read;
    every other entry is a problem: a symbolic link (its target is quoted,
    never followed), a submodule, a folder, a name that appears twice, a
    crafted name ('..', '.', '.git') or any other file.
    """
    label = PurePosixPath(folder)
    tree = _git(root, "rev-parse", "--verify", "--end-of-options", f"{revision}^{{tree}}").strip()
    for part in label.parts:
        tree = _single(root, tree, part) if tree else None
    if not tree:
        return StoredFolder(label, {}, (unexpected_entry(label.parent, label.name, "not one folder in the pull "
                                                         "request's tree (a crafted tree)"),))
    entries = _tree_listing(root, tree)
    names = [name for *_, name in entries]
    files, problems, repeated = {}, [], set()
    for mode, kind, obj, name in entries:
        shown = _display(label, name)
        if names.count(name) > 1:
            if name not in repeated:
                repeated.add(name)
                problems.append(unexpected_entry(label, name, f"appears {names.count(name)} times in the folder's "
                                                              "tree (a crafted tree: git never writes one)"))
        elif _crafted(name) or "/" in name:
            problems.append(unexpected_entry(label, name, f"a tree entry named {name!r}: a crafted tree (git mktree) "
                                                          "whose files would land outside the folder"))
        elif mode == "120000":
            target = _git(root, "cat-file", "blob", obj, binary=True)[:200].decode("utf-8", "replace")
            problems.append(symbolic_link(shown, target))
        elif mode == "160000":
            problems.append(unexpected_entry(label, name, "a submodule (a link to another repository), not a file"))
        elif kind == "tree":
            problems.append(unexpected_entry(label, name, "a folder: a submission holds two files and no folder"))
        elif name not in SUBMISSION_FILES:
            problems.append(unexpected_entry(label, name))
        elif kind != "blob" or mode not in ("100644", "100755"):
            problems.append(unexpected_entry(label, name, f"has the git mode {mode}, not a regular file"))
        else:
            size = int(_git(root, "cat-file", "-s", obj).strip())
            if size > MAX_FILE_BYTES:
                problems.append(too_large(shown, size))
            else:
                files[name] = _git(root, "cat-file", "blob", obj, binary=True)
    return StoredFolder(label, files, tuple(problems))


def published_row_edits(root: str | Path, merge_base: str, head: str, path: str,
                        replayed: str | None = None) -> list[str]:
    """Lines of a data CSV that the pull request edits, deletes or appends ('line N: old -> new',
    'line N deleted: old', 'line N appended: new'), in line order: against the merge base, or against
    ``replayed``, the file as `contribute add` of the new folders writes it (:mod:`.merge_replay`)."""
    def text(revision):
        try:
            return _git(root, "show", f"{revision}:{path}").splitlines()
        except InputError:  # added or deleted file
            return []

    old = text(merge_base) if replayed is None else replayed.splitlines()
    return row_changes(old, text(head))


def row_changes(old: list[str], new: list[str]) -> list[str]:
    """What turns lines ``old`` into ``new``: edited, deleted and appended (or inserted) lines, in order."""
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            for k in range(i1, i2):
                after = new[j1 + k - i1] if tag == "replace" and j1 + k - i1 < j2 else None
                edits.append((k + 1, old[k], after))
        if tag in ("replace", "insert"):  # appended or inserted rows are listed like edits
            edits += [(k + 1, None, new[k]) for k in range(j1 + (i2 - i1 if tag == "replace" else 0), j2)]
    return [f"line {line}: {before} -> {after}" if before is not None and after is not None
            else f"line {line} deleted: {before}" if after is None else f"line {line} appended: {after}"
            for line, before, after in edits]


def review_pull_request(root: str | Path, base: str, head: str, package: str | Path | None = None,
                        author: str | None = None) -> PullRequestReview:
    """The comment on a pull request: needs-a-maintainer paths first, then each new submission's review.

    ``author``: the pull request's author as GitHub says (the workflow passes the event's
    ``pull_request.user.login`` through the environment, never a file of the pull request). A correction is
    ready to merge only when it is the entry's recorded contributor; without it every correction needs a
    maintainer.
    """
    from atari5_spec.data.loading import load
    from atari5_spec_maintainers.contributions.checking import LARGE_CHANGE, pull_request_author
    from atari5_spec.scoring.ranking import leaderboard
    from atari5_spec_maintainers.contributions.report import code, escape, rank_change_text, report_markdown, summarise_submission

    root = Path(root)
    package = Path(package) if package is not None else root
    author = pull_request_author(author)
    changes = pull_request_changes(root, base, head)
    changes, replay = _replayed(root, changes, author)
    dataset = load(package)
    board = leaderboard(dataset=dataset)
    # Read from git into memory (nothing is written); each new folder is compared with every other one too.
    stored = [read_submission_tree(root, changes.head, folder) for folder in changes.new_submissions]
    summaries = [summarise_submission(folder, package, dataset=dataset, board=board, author=author,
                                      siblings=tuple(other for other in stored if other is not folder))
                 for folder in stored]
    blocked = [s for s in summaries if s.report.problems]
    held = [s for s in summaries if not s.report.problems and s.report.holds]
    # The merge the pull request carries, replayed: its findings need a maintainer as a human run's do.
    replay_findings = replay.findings if replay is not None else ()
    lines = ["## atari5-spec: contribution review", "",
             f"Reviewed by the base branch's code: the pull request's head {code(changes.head[:12])} against its "
             f"merge base {code(changes.merge_base[:12])}, read from git as data; none of the pull request's "
             "code was run."]
    if changes.maintainer:
        lines += ["", f"**Verdict: needs a maintainer.** The pull request changes {len(changes.maintainer)} "
                      "path(s) outside new submission folders (`contributions/<id>/`):", ""]
        for path, why in changes.maintainer:
            lines.append(f"- {code(path)}: {why}")  # why: this module's own text
            if path.startswith("data/") and path.endswith(".csv"):
                edits = published_row_edits(root, changes.merge_base, changes.head, path,
                                            replay.replayed.get(path) if replay is not None else None)
                if edits:
                    lines.append(f"  - edits or deletes {len(edits)} published row(s):")
                    lines += [f"    - {code(edit)}" for edit in edits[:SHOWN_EDITS]]
                    if len(edits) > SHOWN_EDITS:
                        lines.append(f"    - and {len(edits) - SHOWN_EDITS} more")
    elif blocked:
        lines += ["", f"**Verdict: not ready to merge.** {len(blocked)} of {len(summaries)} submission(s) have "
                      "problems (below)."]
    elif held or replay_findings:
        what = (f"{len(held)} of {len(summaries)} submission(s) have findings" if held else
                f"the merge the pull request carries has {len(replay_findings)} finding(s)")
        lines += ["", f"**Verdict: needs a maintainer.** {what} a maintainer must decide on (below: a correction "
                      "not sent by the entry's recorded contributor or moving a number by more than "
                      f"{LARGE_CHANGE:g} times, a name like an entry's, or numbers that are another entry's or "
                      "another new folder's up to a nearly constant factor)."]
    elif summaries:
        lines += ["", f"**Verdict: ready to merge.** The pull request adds {len(summaries)} new submission "
                      "folder(s) and changes nothing else."]
    else:
        lines += ["", "**Verdict: nothing to review.** The pull request changes no file."]
    ranks = [(s.submission_id, rank_change_text(s, escape)) for s in summaries]
    if any(change for _, change in ranks):  # the leaderboard with and without each merge, first
        lines += [""] + [f"- Rank: {code(name)}: {change}." for name, change in ranks if change]
    if replay is not None and replay.identical:
        lines += ["", f"Merged by `contribute add`: {', '.join(code(p) for p in replay.identical)} are "
                      "byte-identical to what `contribute add` of the new folder(s), in folder order, writes on "
                      "the merge base."]
    if replay_findings:
        lines += ["", f"The merge the pull request carries, replayed (`contribute add` of the new folder(s) in "
                      f"folder order, each after the ones before it, as a maintainer runs it), has "
                      f"{len(replay_findings)} finding(s) that need a maintainer; the replay approves none:", ""]
        lines += [f"- {code(folder)}: **needs a maintainer**: {escape(w.file)}: {escape(w.message)} "
                  f"(fix: {escape(w.fix)})" for folder, w in replay_findings]
    if summaries:
        body = report_markdown(summaries, held=bool(changes.maintainer)).split("\n", 2)[2]  # without its title
        lines += ["", "### Submissions", "", body.rstrip("\n")]
    ready = bool(summaries) and not changes.maintainer and not blocked and not held and not replay_findings
    return PullRequestReview("\n".join(lines) + "\n", ready)


def _replayed(root: Path, changes: PullRequestChanges, author: str | None = None):
    """(changes, replay): data/, datapackage.json and CHANGELOG.md changes byte-identical to `contribute add` of
    the new folders on the merge base (:mod:`.merge_replay`) taken off the maintainer's list; the others kept
    with why. (changes, None) when the pull request changes none of them or adds no folder."""
    from atari5_spec_maintainers.contributions.merge_replay import replay_merge, replayable

    changed = [path for path, _ in changes.maintainer if replayable(path)]
    if not changes.new_submissions or not changed:
        return changes, None
    replay = replay_merge(lambda *args, binary=False: _git(root, *args, binary=binary),
                          lambda folder, into: _write_checked_submission(root, changes.head, folder, into),
                          changes.merge_base, changes.head, changes.new_submissions, changed, author)
    because = ("differs from what `contribute add` of the new folder(s) writes on the merge base"
               + (f" ({replay.error})" if replay.error else "") + ": only a merge the review can reproduce is "
               "accepted")
    maintainer = [(path, because if path in replay.differing else why) for path, why in changes.maintainer
                  if path not in replay.identical]
    maintainer += [(path, "`contribute add` of the new folder(s) writes this file, which the pull request leaves "
                          "unchanged: the merge is incomplete") for path in replay.missing]
    return changes._replace(maintainer=tuple(sorted(maintainer))), replay


def _write_checked_submission(root: str | Path, head: str, folder: str, into: Path) -> None:
    """For the merge replay only: the two blobs of a new folder, read into memory and checked
    (:func:`read_submission_tree`), written under their fixed names into the scratch copy ``into`` through the
    one path policy. No name from the pull request's tree becomes a path; a folder with any problem is not
    written (its problems are the review's), so the replay of it fails and nothing is accepted."""
    from atari5_spec.data.paths import package_target

    stored = read_submission_tree(root, head, folder)
    if stored.problems or set(stored.files) != set(SUBMISSION_FILES):
        raise InputError(f"{folder}: not a clean submission folder in the pull request's tree")
    for name in SUBMISSION_FILES:
        target = package_target(into, f"{folder}/{name}", "the replayed submission")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(stored.files[name])
