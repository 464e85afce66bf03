"""The staging folder and its commit record (``journal.json``): where each target stands, and the renames that apply or undo it."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from ..errors import InputError
from .files import fault_point, fsync_folder, sha256_file

from ..write_markers import STAGING_NAME  # noqa: F401  (named here too: the transaction API exports it)


JOURNAL = "journal.json"


DONE = "done.json"  # the journal of a change that is complete, while its staging folder is removed


class RecoveryError(InputError):
    """An interrupted commit that cannot be finished or undone without a person (message says what to do)."""


def read_journal(root: Path) -> dict | None:
    path = root / STAGING_NAME / JOURNAL
    if not path.is_file():
        return None
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(journal, dict) or not isinstance(journal.get("targets"), list):
            raise ValueError("not a journal")
        return journal
    except (OSError, ValueError) as error:
        raise RecoveryError(f"{path}: the commit record of an interrupted change cannot be read ({error}); "
                            f"restore the package from version control, then remove {root / STAGING_NAME}") from None


def pending_commit(root: Path | str) -> dict | None:
    """The journal of an interrupted commit in the package (None when there is none); nothing is changed."""
    root = Path(root)
    if not (root / STAGING_NAME).exists():
        return None
    try:
        return read_journal(root) or {"targets": [], "command": "?", "uncommitted": not (root / STAGING_NAME / DONE).exists(),
                                  "complete": (root / STAGING_NAME / DONE).exists()}
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
