"""Finishing or undoing an interrupted commit, after checking that atari5-spec wrote its journal for this package on
this machine (paths, staged files, seal) and every staged and backup file against the journal's sha256.

Only commands that write (and ``atari5-spec recover``) finish a change, under the write lock. A command that only
reads never writes: it waits for a commit under way, and refuses an interrupted one, naming ``atari5-spec recover``
(:func:`refuse_interrupted`)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import InputError
from .files import fsync_folder, sha256_file
from .journal import (DONE, JOURNAL, STAGING_NAME, RecoveryError, backup_path, undo_target, finish, apply_target,
                      foreign_journal_error, foreign_reason, read_journal, read_record, remove_made_folders,
                      target_state, generation)
from .lock import (LOCK_NAME, POLL_SECONDS, PackageLockedError, _timeout, acquire, held, release,
                   remove_stale_lock)

# Transactions this process holds, by package folder: apply_changes joins the one its caller opened.
HELD: dict[str, Any] = {}  # commit.Transaction (not imported: commit imports this module)
# Interrupted commits this process finished, by package folder: the rerun of the interrupted command succeeds.
FINISHED: dict[str, list[str]] = {}


def _roll(root: Path, journal: dict, announce: bool) -> str:
    """Bring every target of ``journal`` to its new state, or else to its old one. Returns what was done."""
    staging = root / STAGING_NAME
    targets = journal["targets"]
    states = {t["path"]: target_state(root, t) for t in targets}
    odd = [path for path, state in states.items() if state == "other"]
    if odd:
        raise RecoveryError(
            f"an interrupted `{journal.get('command', '?')}` left {', '.join(odd)} matching neither its state "
            f"before nor after the change (edited meanwhile?): restore the package from version control (git "
            f"checkout), then remove {staging} and run the command again")
    damaged = damaged_files(staging, targets, states)
    if damaged:
        raise RecoveryError(
            f"an interrupted `{journal.get('command', '?')}` cannot be recovered safely: "
            + "; ".join(damaged) + f". Nothing was changed. Restore the package from version control (git "
            f"checkout), then remove {staging} and run the command again")
    can_forward = all(states[t["path"]] == "new" or (staging / t["staged"]).exists() for t in targets)
    can_backward = all(states[t["path"]] == "old" or t["old"] is None or backup_path(staging, t).exists()
                       for t in targets)
    if not can_forward and not can_backward:
        raise RecoveryError(
            f"an interrupted `{journal.get('command', '?')}` can be neither finished nor undone: staged files are "
            f"missing from {staging}; restore the package from version control, then remove {staging}")
    if can_forward:
        for target in targets:
            if states[target["path"]] == "old":
                apply_target(root, staging, target)
        done = "finished"
        FINISHED.setdefault(os.path.realpath(root), []).append(journal.get("command", ""))
    else:
        for target in targets:
            if states[target["path"]] == "new":
                undo_target(root, staging, target)
        remove_made_folders(root, journal.get("made", []))
        done = "undone"
    finish(root, staging, targets)
    if announce:
        print(f"note: an interrupted `{journal.get('command', '?')}` (process {journal.get('pid', '?')}) was "
              f"{done} in {root}: {len(targets)} file(s) now {'changed' if done == 'finished' else 'as before'}",
              file=sys.stderr)
    return done


def damaged_files(staging: Path, targets: list[dict], states: dict[str, str]) -> list[str]:
    """Staged and backup files that recovery could install but whose sha256 is not the journal's (checked before
    anything is renamed, as SQLite checks its journal's checksums): one line per file."""
    damaged = []
    for target in targets:
        staged, state = staging / target["staged"], states[target["path"]]
        if state != "new" and staged.is_dir() and not staged.is_symlink():
            links = [p for p in staged.rglob("*") if p.is_symlink()]
            if links:
                damaged.append(f"the staged new folder {target['path']} ({staged}) holds the symbolic link "
                               f"{links[0].relative_to(staged).as_posix()}, which atari5-spec never stages")
                continue
        if state != "new" and (staged.exists() or staged.is_symlink()):
            found = sha256_file(staged)
            if found != target["new"]:
                damaged.append(f"the staged new version of {target['path']} ({staged}) has sha256 "
                               f"{str(found)[:12]}..., not the journal's {target['new'][:12]}...")
        backup = backup_path(staging, target)
        if target["old"] is not None and state != "old" and (backup.exists() or backup.is_symlink()):
            found = sha256_file(backup)
            if found != target["old"]:
                damaged.append(f"the kept old version of {target['path']} ({backup}) has sha256 "
                               f"{str(found)[:12]}..., not the journal's {target['old'][:12]}...")
    return damaged


def refuse_foreign(root: Path) -> None:
    """RecoveryError when the staging folder holds a commit record atari5-spec did not write for this package on
    this machine (:func:`~.journal.foreign_reason`); reads only, so it runs before the lock is taken."""
    staging = root / STAGING_NAME
    if not os.path.lexists(staging):
        return
    if staging.is_symlink() or not staging.is_dir():
        raise RecoveryError(f"{staging} is not a folder: remove it (it is the write staging area of atari5-spec)")
    for name in (JOURNAL, DONE):
        record = read_record(root, name)
        if record is not None:
            reason = foreign_reason(root, record)
            if reason:
                raise foreign_journal_error(root, reason, name)
            return


def recover_locked(root: Path, announce: bool = True) -> str | None:
    staging = root / STAGING_NAME
    if not staging.exists() and not staging.is_symlink():
        return None
    refuse_foreign(root)  # again, under the lock: every path, staged file and seal before anything is renamed
    journal = read_journal(root)
    if journal is None and (staging / DONE).is_file():  # complete; killed while tidying up
        done = read_record(root, DONE)
        FINISHED.setdefault(os.path.realpath(root), []).append(str(done.get("command", "")))
        shutil.rmtree(staging)
        fsync_folder(root)
        if announce:
            print(f"note: removed the staging folder of a change that was complete in {root}", file=sys.stderr)
        return "finished"
    if journal is None:  # staged but never committed: the package was not changed
        shutil.rmtree(staging)
        fsync_folder(root)
        if announce:
            print(f"note: removed the staging folder of an interrupted change that was never committed in {root} "
                  "(the package is unchanged)", file=sys.stderr)
        return "discarded"
    return _roll(root, journal, announce)


def finished_by_recovery(root: Path | str, command: str) -> bool:
    """Whether this process finished an interrupted commit of ``command`` in the package (its rerun is done)."""
    return command in FINISHED.get(os.path.realpath(root), [])


def recover(root: Path | str, timeout: float | None = None, announce: bool = True) -> str | None:
    """Finish (or undo) an interrupted commit in the package at ``root``; None when there is none.

    Costs one ``stat`` when the package is clean. Takes the write lock (so a
    change being applied right now is never touched) unless this process
    already holds it.
    """
    root = Path(root)
    staging = root / STAGING_NAME
    if not staging.exists() and not staging.is_symlink():
        if (root / LOCK_NAME).exists() and os.path.realpath(root) not in HELD:
            remove_stale_lock(root, announce)
        return None
    if os.path.realpath(root) in HELD:  # this process holds the lock: recovered when it was taken
        return None
    refuse_foreign(root)  # before the lock file is written
    try:
        fd = acquire(root, "recover", timeout)
    except PackageLockedError:
        raise
    except InputError as error:
        raise RecoveryError(f"the package {root} holds an interrupted change ({staging}) that cannot be finished "
                            f"here: {error}") from None
    try:
        return recover_locked(root, announce)
    except OSError as error:
        raise RecoveryError(f"the package {root} holds an interrupted change that could not be finished "
                            f"({error.strerror or error}: {error.filename or staging}); free the disk or fix the "
                            "permissions, then run `atari5-spec recover`") from None
    finally:
        release(root, fd)


def refuse_interrupted(root: Path | str, timeout: float | None = None) -> None:
    """For a command that only reads: wait for a commit under way; refuse an interrupted one. Writes nothing.

    A committed change (a journal) whose writer is gone is refused with the fix (``atari5-spec recover``, or
    any command that writes); a journal atari5-spec did not write, with why. A staging folder without a journal
    (never committed) or with a done record (complete) leaves the package's files as they were: read on.
    A live writer is waited for up to ``ATARI5_LOCK_TIMEOUT`` seconds.
    """
    root = Path(root)
    staging = root / STAGING_NAME
    if not os.path.lexists(staging) or os.path.realpath(root) in HELD:
        return
    deadline = time.monotonic() + _timeout(timeout)
    while True:
        refuse_foreign(root)
        journal = read_journal(root) if staging.is_dir() else None
        if journal is None:
            return
        if not held(root):
            if read_journal(root) is None:  # finished between the two looks
                return
            raise RecoveryError(
                f"the package {root} holds an interrupted change: `{str(journal.get('command', '?'))[:200]}` "
                f"(process {journal.get('pid', '?')}) was stopped while writing {len(journal['targets'])} file(s), "
                "which may be between their old and new state. This command only reads, so it does not finish "
                "the change: run `atari5-spec recover` (or the interrupted command again), then this command")
        if time.monotonic() >= deadline:
            raise PackageLockedError(f"the package {root} is being changed by another command; waited "
                                     f"{_timeout(timeout):g} s: run this command again when it has finished "
                                     "(ATARI5_LOCK_TIMEOUT sets the wait)")
        time.sleep(POLL_SECONDS)


def read_consistently(root: Path | str, read, attempts: int = 5):
    """``read()`` of a package that a concurrent commit may change meanwhile: read again (after the commit,
    which :func:`refuse_interrupted` waits for) until one state was read from start to end. Writes nothing."""
    result = None
    for _ in range(attempts):
        before = generation(root)
        result = read()
        if before is not None and not before[3] and generation(root) == before:
            return result
        refuse_interrupted(root)  # waits for a commit under way; refuses one a killed writer left
    return result
