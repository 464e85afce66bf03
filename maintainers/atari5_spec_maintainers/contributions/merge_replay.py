"""The maintainer's merge, verified: ``contribute add`` of a pull request's new folders replayed on its merge base.

The documented merge (CONTRIBUTING.md, "The maintainer's review and merge") runs ``atari5-spec contribute
add contributions/<id>`` on the pull request's branch, one new folder after another, and commits data/,
datapackage.json and CHANGELOG.md with the folders. The privileged review (:mod:`.pull_request`) accepts
those changes only when they are what ``contribute add`` writes: :func:`replay_merge` extracts the merge
base's package (the base branch's history: trusted) into a scratch folder, copies the new folders in as
data, runs :func:`~.merging.add_submission` on each in folder order, and compares, byte for byte, every
data/ file, datapackage.json and CHANGELOG.md with the pull request's head. Anything else (an appended
row, a re-recorded hash, a changelog line) is a difference a maintainer must look at.

The replay never approves a finding itself: each folder is added as a human run adds it (the pull
request's author for a correction; each folder after the first sees the ones before it in data/ and in
contributions/), and every finding that needs a maintainer (a copy or near-copy, a look-alike name, a
stranger's correction, ...) is returned in :attr:`Replay.findings` for the review to report; a pull
request whose merge carries one is not ready to merge, byte-identical or not. (The merge is written only
to reproduce the bytes, in a scratch copy, as ``contribute add --approved`` writes them.)
"""

from __future__ import annotations

import io
import tarfile
import tempfile
from pathlib import Path
from typing import NamedTuple

from atari5_spec.data.errors import InputError

__all__ = ["Replay", "replayable", "replay_merge"]

CHANGELOG_PATH = "CHANGELOG.md"
DESCRIPTOR_PATH = "datapackage.json"
# What contribute add reads besides data/: the descriptor, schemas, the changelog (coefficients and
# calibration for the whole-package validation of the merged tables).
PACKAGE_PATHS = (DESCRIPTOR_PATH, "data", "schemas", "coefficients", "calibration", "published", CHANGELOG_PATH)


class Replay(NamedTuple):
    """How a pull request's changes to data/, datapackage.json and CHANGELOG.md compare with the replayed merge."""

    identical: tuple[str, ...]   # changed by the pull request exactly as contribute add writes them
    differing: tuple[str, ...]   # changed by the pull request, but not as contribute add writes them
    missing: tuple[str, ...]     # written by contribute add, left unchanged by the pull request
    error: str | None = None     # why the merge could not be replayed (then nothing is identical)
    replayed: dict = {}          # path -> text contribute add writes, for each differing path (rows are listed
                                 # against it: what the pull request adds beyond the merge)
    findings: tuple = ()         # (folder, Hold): what needs a maintainer in the replayed merge, in folder order


def replayable(path: str) -> bool:
    """Whether ``contribute add`` writes ``path`` (so the review may accept it when it is byte-identical)."""
    return path.startswith("data/") or path in (DESCRIPTOR_PATH, CHANGELOG_PATH)


def _extract(git, revision: str, into: Path) -> None:
    """The package files of ``revision`` (a commit of the base branch's history) into ``into``."""
    present = [p for p in PACKAGE_PATHS if git("ls-tree", "--name-only", revision, "--", p).strip()]
    archive = git("archive", "--format=tar", revision, "--", *present, binary=True)
    into.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")  # regular files and folders only, nothing outside ``into``


def replay_merge(git, materialise, merge_base: str, head: str, folders: tuple[str, ...],
                 changed: list[str], author: str | None = None) -> Replay:
    """Replay ``contribute add`` of ``folders`` (contributions/<id>, in order) on ``merge_base``; compare with
    ``head`` every path of ``changed`` that contribute add may write, and every file it wrote.

    ``git(*args, binary=False)`` runs git in the repository (:func:`.pull_request._git`);
    ``materialise(folder, into)`` copies a new folder at ``head`` out of git as data into the package ``into``.
    ``author``: the pull request's author as the platform says (decides a correction, as in the review).
    """
    from atari5_spec_maintainers.contributions.merging import add_submission
    from atari5_spec_maintainers.contributions.model import Hold

    candidates = [p for p in changed if replayable(p)]
    with tempfile.TemporaryDirectory(prefix="atari5-spec-replay-") as scratch:
        copy = Path(scratch) / "package"
        try:
            _extract(git, merge_base, copy)
            for folder in folders:
                materialise(folder, copy)
            findings = []
            for folder in sorted(folders):
                # approved only to write the bytes to compare; every hold is kept and reported, never passed over
                merge = add_submission(copy / folder, copy, approved=True, author=author)
                findings += [(folder, w) for w in merge.warnings if isinstance(w, Hold)]
        except InputError:  # the submissions' problems are listed by the review; no text of them is quoted here
            return Replay((), tuple(candidates), (), f"`contribute add` of {len(folders)} new folder(s) fails on the "
                                                     "merge base (their problems are listed below)")

        def at(revision: str, path: str) -> bytes | None:
            try:
                return git("cat-file", "blob", f"{revision}:{path}", binary=True)
            except InputError:  # no such file at that revision
                return None

        def replayed(path: str) -> bytes | None:
            file = copy / path
            return file.read_bytes() if file.is_file() and not file.is_symlink() else None

        written = sorted(str(p.relative_to(copy)) for p in copy.rglob("*")
                         if p.is_file() and replayable(str(p.relative_to(copy)))
                         and replayed(str(p.relative_to(copy))) != at(merge_base, str(p.relative_to(copy))))
        identical = tuple(p for p in candidates if at(head, p) == replayed(p))
        differing = tuple(p for p in candidates if p not in identical)
        missing = tuple(p for p in written if p not in candidates)
        texts = {p: replayed(p).decode("utf-8", "replace") for p in differing if replayed(p) is not None}
    return Replay(identical, differing, missing, None, texts, tuple(findings))
