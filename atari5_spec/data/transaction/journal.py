"""The staging folder and its commit record (``journal.json``): where each target stands, and the renames that apply or undo it."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

from ..errors import InputError
from .files import fault_point, fsync_folder, sha256_file
from .ownership import ownership_problem

from ..write_markers import STAGING_NAME  # noqa: F401  (named here too: the transaction API exports it)


JOURNAL = "journal.json"


DONE = "done.json"  # the journal of a change that is complete, while its staging folder is removed


LOCK_FILE = ".atari5.lock"  # lock.LOCK_NAME (not imported: the lock imports nothing of the journal)

_SHA256 = re.compile(r"[0-9a-f]{64}")  # a full match; no quantifier nests


class RecoveryError(InputError):
    """An interrupted commit that cannot be finished or undone without a person (message says what to do)."""


def _record_problem(root: Path, journal: dict) -> str | None:
    """Why the record itself cannot be one atari5-spec wrote: its shape, the paths it names (the one path policy,
    :func:`atari5_spec.data.paths.target_reason`) and its staged files (each target's own ``new/<n>``)."""
    from ..paths import target_reason

    targets, made = journal.get("targets"), journal.get("made", [])
    if not isinstance(targets, list) or not targets or not isinstance(made, list):
        return "its list of targets is not one atari5-spec writes"
    for number, target in enumerate(targets):
        if not isinstance(target, dict) or set(target) != {"path", "old", "new", "staged"}:
            return f"target {number + 1} is not a record atari5-spec writes (path, old, new, staged)"
        path = target["path"]
        reason = target_reason(root, path)
        if reason is None and str(path).split("/")[0] in (STAGING_NAME, LOCK_FILE):
            reason = "is atari5-spec's own staging folder or lock"
        if reason:
            return f"it names {str(path)[:200]!r} as a file to write, which {reason}"
        if target["staged"] != f"new/{number}":
            return (f"the staged file of {path!r} is {str(target['staged'])[:200]!r}, not its own "
                    f"new/{number} in the staging folder")
        new, old = target["new"], target["old"]
        if not isinstance(new, str) or not _SHA256.fullmatch(new.removeprefix("dir:")) or \
                not (old is None or isinstance(old, str) and _SHA256.fullmatch(old)):
            return f"the sha256 it records for {path!r} is not a sha256"
    for folder in made:
        reason = target_reason(root, folder)
        if reason:
            return f"it names {str(folder)[:200]!r} as a folder it made, which {reason}"
    return None


def foreign_reason(root: Path, journal: dict) -> str | None:
    """Why ``journal`` is not one atari5-spec wrote for the package at ``root`` on this machine; None when it is.

    Checked before anything is renamed: the record (:func:`_record_problem`), then its seal
    (:func:`atari5_spec.data.transaction.ownership.ownership_problem`)."""
    return _record_problem(root, journal) or ownership_problem(journal, root)


def foreign_journal_error(root: Path, reason: str, name: str = "journal.json") -> RecoveryError:
    """The refusal of a journal atari5-spec did not write: what it is, why, and what to do."""
    staging = root / STAGING_NAME
    return RecoveryError(
        f"{staging / name} was not written by atari5-spec for this package on this machine: {reason}. It came "
        f"with the files (a journal committed to git with `git add -f`, or copied), so it is not acted on: nothing "
        f"was changed. Remove the folder {staging} (and the commit that added it, if any); if a command of yours "
        "was interrupted in this folder, restore the package from version control (git checkout)")


MAX_JOURNAL_BYTES = 16 << 20  # a journal lists its targets: a few hundred bytes each


def read_record(root: Path, name: str = JOURNAL) -> dict | None:
    """The commit record ``name`` (the journal, or the done record) of the staging folder; None when absent.

    Read as untrusted input (it may have come with the files): a regular file, not a link, of bounded size and
    nesting; RecoveryError when it cannot be read."""
    from ..limits import load_json
    from ..paths import read_regular_file

    path = root / STAGING_NAME / name
    if not os.path.lexists(path):
        return None
    try:
        text = read_regular_file(path, str(path), MAX_JOURNAL_BYTES, follow_links=False).decode("utf-8")
        journal = load_json(text, str(path))
        if not isinstance(journal, dict) or not isinstance(journal.get("targets"), list):
            raise ValueError("not a journal")
        return journal
    except (OSError, ValueError) as error:  # InputError and UnicodeDecodeError are ValueErrors
        raise RecoveryError(f"{path}: the commit record of an interrupted change cannot be read ({error}); "
                            f"restore the package from version control, then remove {root / STAGING_NAME}") from None


def read_journal(root: Path) -> dict | None:
    return read_record(root, JOURNAL)


def pending_commit(root: Path | str) -> dict | None:
    """The journal of an interrupted commit in the package (None when there is none); nothing is changed."""
    root = Path(root)
    staging = root / STAGING_NAME
    if not os.path.lexists(staging):
        return None
    if staging.is_symlink() or not staging.is_dir():
        return {"targets": [], "command": "?", "unreadable": f"{staging} is not a folder (it is the write staging "
                                                              "area of atari5-spec): remove it"}
    try:
        for name in (JOURNAL, DONE):
            record = read_record(root, name)
            if record is not None:
                reason = foreign_reason(root, record)
                if reason:
                    return {"targets": [], "command": "?", "foreign": str(foreign_journal_error(root, reason, name))}
                return record if name == JOURNAL else {"targets": [], "command": "?", "uncommitted": False,
                                                       "complete": True}
        return {"targets": [], "command": "?", "uncommitted": True, "complete": False}
    except RecoveryError as error:
        return {"targets": [], "command": "?", "unreadable": str(error)}


def target_state(root: Path, target: dict) -> str:
    """'new', 'old' or 'other': where one target stands."""
    current = sha256_file(root / target["path"])
    if current == target["new"]:
        return "new"
    if current == target["old"]:
        return "old"
    return "other"


def backup_path(staging: Path, target: dict) -> Path:
    """Where the old version of a replaced file is kept (a hard link or a copy)."""
    return staging / "old" / Path(target["staged"]).name


def apply_target(root: Path, staging: Path, target: dict) -> None:
    """Rename the staged new version over the target (creating missing parent folders)."""
    destination = root / target["path"]
    for folder in reversed([p for p in destination.parents if p != root and root in p.parents]):
        if not folder.exists():
            folder.mkdir()
    os.replace(staging / target["staged"], destination)


def undo_target(root: Path, staging: Path, target: dict) -> None:
    """Put the old version back by a rename (a target that did not exist is moved into the staging folder)."""
    destination = root / target["path"]
    if target["old"] is None:
        undo = staging / "undo"
        undo.mkdir(exist_ok=True)
        os.replace(destination, undo / Path(target["staged"]).name)  # removed with the staging folder
    else:
        os.replace(backup_path(staging, target), destination)


def remove_made_folders(root: Path, made: list[str]) -> None:
    for relative in sorted(made, key=lambda r: -r.count("/")):
        folder = root / relative
        with contextlib.suppress(OSError):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()


def finish(root: Path, staging: Path, targets: list[dict]) -> None:
    """Make the change durable, end the commit (journal removed), remove the staging folder."""
    for folder in sorted({(root / t["path"]).parent for t in targets} | {root}):
        if folder.exists():
            fsync_folder(folder)
    fault_point("applied")
    os.replace(staging / JOURNAL, staging / DONE)  # the end of the commit: kept until the folder is gone
    fsync_folder(staging)
    fault_point("journal-removed")
    shutil.rmtree(staging)
    fsync_folder(root)


def generation(root: Path | str) -> tuple | None:
    """What changes whenever a commit touches the package: the descriptor's identity (every commit replaces it by
    a rename) and whether a commit is being applied. A reader that sees the same generation before and after
    reading, with no commit under way, read one consistent state (:func:`read_consistently`)."""
    root = Path(root)
    try:
        info = os.stat(root / "datapackage.json")
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size, (root / STAGING_NAME / JOURNAL).exists()
