"""One transaction mechanism for every command that writes into a data package.

Modelled on git's ``index.lock`` and SQLite's atomic commit:

1. **Lock.** ``<package>/.atari5.lock`` is created and locked (``flock``)
   *before* the package is read for the change, and names the holder's
   command and process. A second writer waits a bounded time
   (``ATARI5_LOCK_TIMEOUT`` seconds, default 300) and is then refused with a
   message naming the holder. The kernel releases the lock of a process that
   dies, so a lock file left by a killed process is stale by construction:
   the next writer takes it over and says so.
2. **Stage.** Every new file (and new folder, e.g. a coefficient version) is
   written and fsynced under ``<package>/.atari5-transaction/new/``; the
   current version of every file to be replaced is kept as a hard link (or a
   copy) under ``old/``.
3. **Commit record.** ``journal.json`` lists every target with its old and new
   sha256; it is written to a temporary name, fsynced and renamed, and the
   folder is fsynced. Its presence is the commit point.
4. **Apply.** Each staged file is renamed over its target (atomic), and the
   targets' folders are fsynced. An error while applying restores the old
   files by renames (no free space needed), continuing past failed restores.
5. **Done.** The journal is removed (the end of the commit), then the
   staging folder; the lock file is removed last.

**Recovery.** Whoever opens the package next (:func:`package_root` calls
:func:`recover` on every command but ``validate``) and finds a journal takes
the lock and brings every target to the new state (roll forward, the normal
case: everything needed is staged and fsynced) or, when that is impossible,
back to the old one; it says so on standard error. A staging folder without a
journal is an uncommitted change: it is removed and the package is untouched.
A target matching neither its old nor its new hash (edited by hand meanwhile)
stops the recovery with a message naming it. ``validate`` reports an
interrupted commit as a problem with the fix (``atari5-spec recover``).

No temporary file outlives a finished or recovered command; nothing is
written to the system's temporary folder (``contribute add`` validates the
merged tables in memory).

API: ``with package_transaction(root, "contribute add") as change: ...read the
package...; change.commit(files, new_dirs)``; :func:`recover`;
:func:`pending_commit`. :func:`atari5_spec.data.versioning.apply_changes`
commits through the transaction the caller holds (or opens one).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import os
import shutil
import socket
import sys
import time
from pathlib import Path

from .errors import InputError

__all__ = ["LOCK_NAME", "STAGING_NAME", "PackageLockedError", "Transaction", "package_transaction", "recover",
           "pending_commit", "RecoveryError", "finished_by_recovery", "generation", "read_consistently"]

LOCK_NAME = ".atari5.lock"
STAGING_NAME = ".atari5-transaction"
JOURNAL = "journal.json"
DONE = "done.json"  # the journal of a change that is complete, while its staging folder is removed
DEFAULT_TIMEOUT = 300.0
POLL_SECONDS = 0.05

try:  # POSIX; elsewhere the lock is an exclusively created file whose holder's PID is checked
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

# Transactions this process holds, by package folder: apply_changes joins the one its caller opened.
_HELD: dict[str, "Transaction"] = {}
# Interrupted commits this process finished, by package folder: the rerun of the interrupted command succeeds.
_FINISHED: dict[str, list[str]] = {}


class PackageLockedError(InputError):
    """Another command holds the package's write lock for longer than we may wait."""


class RecoveryError(InputError):
    """An interrupted commit that cannot be finished or undone without a person (message says what to do)."""


# --- fault injection for the project's tests ------------------------------------------------------------------

def _fault(step: str) -> None:
    """Test hook: ``ATARI5_FAULT_KILL=<step>`` ends the process at ``step``; ``ATARI5_FAULT_IO=<step>`` raises EIO."""
    if os.environ.get("ATARI5_FAULT_KILL") == step:
        os._exit(137)
    if os.environ.get("ATARI5_FAULT_IO") == step:
        raise OSError(errno.EIO, f"injected I/O error at {step}")


# --- durable file system steps ---------------------------------------------------------------------------------

def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # some systems cannot open folders; the renames are still atomic
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.EBADF):  # folders that do not support fsync
            raise
    finally:
        os.close(fd)


def _write_durable(path: Path, data: bytes, mode: int = 0o644) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, mode)


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sha256_file(path: Path) -> str | None:
    """sha256 of a regular file, of a folder's files (names and contents), None when absent."""
    if path.is_symlink() or not path.exists():
        return None
    if path.is_dir():
        digest = hashlib.sha256()
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(file.relative_to(path).as_posix().encode() + b"\0" + bytes.fromhex(_sha256_file(file)))
        return "dir:" + digest.hexdigest()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


# --- the lock --------------------------------------------------------------------------------------------------

def _holder(lock: Path) -> dict:
    try:
        info = json.loads(lock.read_text(encoding="utf-8"))
        return info if isinstance(info, dict) else {}
    except (OSError, ValueError):
        return {}


def _describe(info: dict) -> str:
    if not info:
        return "another command"
    return f"`{info.get('command', '?')}` (process {info.get('pid', '?')} on {info.get('host', '?')}, since {info.get('started', '?')})"


def _alive(pid) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, ValueError, TypeError):
        return False
    except PermissionError:
        return True
    return True


def _timeout(timeout: float | None) -> float:
    if timeout is not None:
        return timeout
    try:
        return max(0.0, float(os.environ.get("ATARI5_LOCK_TIMEOUT", DEFAULT_TIMEOUT)))
    except ValueError:
        return DEFAULT_TIMEOUT


def _acquire(root: Path, command: str, timeout: float | None) -> int:
    """Take the package's write lock; the open descriptor holds it (closing it releases it)."""
    lock = root / LOCK_NAME
    deadline = time.monotonic() + _timeout(timeout)
    info = json.dumps({"pid": os.getpid(), "command": command, "host": socket.gethostname(),
                       "started": _dt.datetime.now().astimezone().isoformat(timespec="seconds")}).encode()
    while True:
        try:
            if fcntl is not None:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0), 0o644)
            else:  # pragma: no cover
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:  # pragma: no cover - no fcntl: an existing file is a held lock unless its PID is gone
            holder = _holder(lock)
            if holder and holder.get("host") == socket.gethostname() and not _alive(holder.get("pid")):
                print(f"note: removed the stale write lock of {_describe(holder)}, no longer running", file=sys.stderr)
                lock.unlink(missing_ok=True)
                continue
            fd = None
        except OSError as error:
            raise InputError(f"{lock}: cannot take the package's write lock ({error.strerror}): "
                             "is the package on a read-only disk, or not yours to write?") from None
        if fd is not None and fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                fd = None
            else:
                try:  # the holder before us may have removed the file after we opened it
                    same = os.stat(lock, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
                except FileNotFoundError:
                    same = False
                if not same:
                    os.close(fd)
                    continue
                stale = _holder(lock)
                if stale and stale.get("pid") != os.getpid():
                    gone = stale.get("host") != socket.gethostname() or not _alive(stale.get("pid"))
                    print(f"note: took over the write lock left by {_describe(stale)}, "
                          + ("which is no longer running" if gone else "which does not hold it (a stale file)"),
                          file=sys.stderr)
        if fd is not None:
            try:
                os.ftruncate(fd, 0)
                os.write(fd, info)
            except OSError as error:  # a full disk: leave no lock file behind
                _release(root, fd)
                raise InputError(f"{lock}: cannot write the package's write lock ({error.strerror}): free some "
                                 "space and run the command again") from None
            return fd
        if time.monotonic() >= deadline:
            raise PackageLockedError(
                f"the package {root} is being changed by {_describe(_holder(lock))}; waited "
                f"{_timeout(timeout):g} s: run the command again when it has finished "
                f"(ATARI5_LOCK_TIMEOUT sets the wait)")
        time.sleep(POLL_SECONDS)


def _release(root: Path, fd: int) -> None:
    try:
        (root / LOCK_NAME).unlink(missing_ok=True)  # while still holding it: a waiter re-checks the inode
    finally:
        os.close(fd)


# --- staging, the journal, applying --------------------------------------------------------------------------

def _journal(root: Path) -> dict | None:
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
        return _journal(root) or {"targets": [], "command": "?", "uncommitted": not (root / STAGING_NAME / DONE).exists(),
                                  "complete": (root / STAGING_NAME / DONE).exists()}
    except RecoveryError as error:
        return {"targets": [], "command": "?", "unreadable": str(error)}


def _state(root: Path, target: dict) -> str:
    """'new', 'old' or 'other': where one target stands."""
    current = _sha256_file(root / target["path"])
    if current == target["new"]:
        return "new"
    if current == target["old"]:
        return "old"
    return "other"


def _backup(staging: Path, target: dict) -> Path:
    """Where the old version of a replaced file is kept (a hard link or a copy)."""
    return staging / "old" / Path(target["staged"]).name


def _forward(root: Path, staging: Path, target: dict) -> None:
    """Rename the staged new version over the target (creating missing parent folders)."""
    destination = root / target["path"]
    for folder in reversed([p for p in destination.parents if p != root and root in p.parents]):
        if not folder.exists():
            folder.mkdir()
    os.replace(staging / target["staged"], destination)


def _backward(root: Path, staging: Path, target: dict) -> None:
    """Put the old version back by a rename (a target that did not exist is moved into the staging folder)."""
    destination = root / target["path"]
    if target["old"] is None:
        undo = staging / "undo"
        undo.mkdir(exist_ok=True)
        os.replace(destination, undo / Path(target["staged"]).name)  # removed with the staging folder
    else:
        os.replace(_backup(staging, target), destination)


def _remove_made_folders(root: Path, made: list[str]) -> None:
    for relative in sorted(made, key=lambda r: -r.count("/")):
        folder = root / relative
        with contextlib.suppress(OSError):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()


def _finish(root: Path, staging: Path, targets: list[dict]) -> None:
    """Make the change durable, end the commit (journal removed), remove the staging folder."""
    for folder in sorted({(root / t["path"]).parent for t in targets} | {root}):
        if folder.exists():
            _fsync_dir(folder)
    _fault("applied")
    os.replace(staging / JOURNAL, staging / DONE)  # the end of the commit: kept until the folder is gone
    _fsync_dir(staging)
    _fault("journal-removed")
    shutil.rmtree(staging)
    _fsync_dir(root)


def _roll(root: Path, journal: dict, announce: bool) -> str:
    """Bring every target of ``journal`` to its new state, or else to its old one. Returns what was done."""
    staging = root / STAGING_NAME
    targets = journal["targets"]
    states = {t["path"]: _state(root, t) for t in targets}
    odd = [path for path, state in states.items() if state == "other"]
    if odd:
        raise RecoveryError(
            f"an interrupted `{journal.get('command', '?')}` left {', '.join(odd)} matching neither its state "
            f"before nor after the change (edited meanwhile?): restore the package from version control (git "
            f"checkout), then remove {staging} and run the command again")
    can_forward = all(states[t["path"]] == "new" or (staging / t["staged"]).exists() for t in targets)
    can_backward = all(states[t["path"]] == "old" or t["old"] is None or _backup(staging, t).exists()
                       for t in targets)
    if not can_forward and not can_backward:
        raise RecoveryError(
            f"an interrupted `{journal.get('command', '?')}` can be neither finished nor undone: staged files are "
            f"missing from {staging}; restore the package from version control, then remove {staging}")
    if can_forward:
        for target in targets:
            if states[target["path"]] == "old":
                _forward(root, staging, target)
        done = "finished"
        _FINISHED.setdefault(os.path.realpath(root), []).append(journal.get("command", ""))
    else:
        for target in targets:
            if states[target["path"]] == "new":
                _backward(root, staging, target)
        _remove_made_folders(root, journal.get("made", []))
        done = "undone"
    _finish(root, staging, targets)
    if announce:
        print(f"note: an interrupted `{journal.get('command', '?')}` (process {journal.get('pid', '?')}) was "
              f"{done} in {root}: {len(targets)} file(s) now {'changed' if done == 'finished' else 'as before'}",
              file=sys.stderr)
    return done


def _recover_locked(root: Path, announce: bool = True) -> str | None:
    staging = root / STAGING_NAME
    if not staging.exists() and not staging.is_symlink():
        return None
    if staging.is_symlink() or not staging.is_dir():
        raise RecoveryError(f"{staging} is not a folder: remove it (it is the write staging area of atari5-spec)")
    journal = _journal(root)
    if journal is None and (staging / DONE).is_file():  # complete; killed while tidying up
        with contextlib.suppress(OSError, ValueError):
            done = json.loads((staging / DONE).read_text(encoding="utf-8"))
            _FINISHED.setdefault(os.path.realpath(root), []).append(done.get("command", ""))
        shutil.rmtree(staging)
        _fsync_dir(root)
        if announce:
            print(f"note: removed the staging folder of a change that was complete in {root}", file=sys.stderr)
        return "finished"
    if journal is None:  # staged but never committed: the package was not changed
        shutil.rmtree(staging)
        _fsync_dir(root)
        if announce:
            print(f"note: removed the staging folder of an interrupted change that was never committed in {root} "
                  "(the package is unchanged)", file=sys.stderr)
        return "discarded"
    return _roll(root, journal, announce)


def _remove_stale_lock(root: Path, announce: bool) -> None:
    """Remove a lock file whose holder is gone (a live holder's lock is left alone, without waiting)."""
    if fcntl is None:  # pragma: no cover
        return
    lock = root / LOCK_NAME
    try:
        fd = os.open(lock, os.O_RDWR | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:  # gone meanwhile, or not ours to open: nothing to tidy
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return
    try:
        if os.stat(lock, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
            holder = _holder(lock)
            lock.unlink()
            if announce:
                print(f"note: removed the write lock left by {_describe(holder)}, which is no longer running",
                      file=sys.stderr)
    except OSError:
        pass  # a read-only package keeps the harmless file; the next writer takes it over
    finally:
        os.close(fd)


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


def read_consistently(root: Path | str, read, attempts: int = 5):
    """``read()`` of a package that a concurrent commit may change meanwhile: read again (after the commit,
    which :func:`recover` waits for) until one state was read from start to end."""
    result = None
    for _ in range(attempts):
        before = generation(root)
        result = read()
        if before is not None and not before[3] and generation(root) == before:
            return result
        recover(root)  # waits for a commit under way (or finishes a killed one)
    return result


def finished_by_recovery(root: Path | str, command: str) -> bool:
    """Whether this process finished an interrupted commit of ``command`` in the package (its rerun is done)."""
    return command in _FINISHED.get(os.path.realpath(root), [])


def recover(root: Path | str, timeout: float | None = None, announce: bool = True) -> str | None:
    """Finish (or undo) an interrupted commit in the package at ``root``; None when there is none.

    Costs one ``stat`` when the package is clean. Takes the write lock (so a
    change being applied right now is never touched) unless this process
    already holds it.
    """
    root = Path(root)
    staging = root / STAGING_NAME
    if not staging.exists() and not staging.is_symlink():
        if (root / LOCK_NAME).exists() and os.path.realpath(root) not in _HELD:
            _remove_stale_lock(root, announce)
        return None
    if os.path.realpath(root) in _HELD:  # this process holds the lock: recovered when it was taken
        return None
    try:
        fd = _acquire(root, "recover", timeout)
    except PackageLockedError:
        raise
    except InputError as error:
        raise RecoveryError(f"the package {root} holds an interrupted change ({staging}) that cannot be finished "
                            f"here: {error}") from None
    try:
        return _recover_locked(root, announce)
    except OSError as error:
        raise RecoveryError(f"the package {root} holds an interrupted change that could not be finished "
                            f"({error.strerror or error}: {error.filename or staging}); free the disk or fix the "
                            "permissions, then run `atari5-spec recover`") from None
    finally:
        _release(root, fd)


class Transaction:
    """An open change of one package: the write lock is held; :meth:`commit` writes all files or none."""

    def __init__(self, root: Path, command: str):
        self.root = Path(root)
        self.command = command
        self.committed = False

    @property
    def staging(self) -> Path:
        return self.root / STAGING_NAME

    def commit(self, files: dict[str, str | bytes], new_dirs: dict[str, Path | dict[str, str | bytes]] | None = None
               ) -> None:
        """Write ``files`` (relative path -> text or bytes) and add ``new_dirs`` (relative folder -> a prepared
        folder, or a mapping file name -> content), all or nothing. A folder in ``new_dirs`` must not exist yet."""
        from .paths import package_target

        if self.committed:
            raise RuntimeError("a transaction commits once")
        new_dirs = new_dirs or {}
        root, staging = self.root, self.staging
        targets, made = [], []
        for relative in list(files) + list(new_dirs):
            path = package_target(root, relative, "a file the change writes:" if relative in files
                                  else "a folder the change adds:")
            for folder in reversed(path.parents):
                if folder != root and root in folder.parents and not folder.exists() and \
                        folder.relative_to(root).as_posix() not in made:
                    made.append(folder.relative_to(root).as_posix())
            if relative in new_dirs and (path.exists() or path.is_symlink()):
                raise InputError(f"{relative} already exists: pinned directories are never rewritten")
            if path.is_dir() and relative in files:
                raise InputError(f"{relative} is a folder: the change would replace it by a file")
        (staging / "new").mkdir(parents=True, exist_ok=True)
        (staging / "old").mkdir(exist_ok=True)
        for number, (relative, content) in enumerate(files.items()):
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            path = root / relative
            mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644
            name = f"{number}"
            _write_durable(staging / "new" / name, data, mode)
            old = _sha256_file(path)
            if old is not None:
                try:
                    os.link(path, staging / "old" / name)
                except OSError:  # no hard links here: a copy (fsynced) keeps the old version
                    _write_durable(staging / "old" / name, path.read_bytes(), mode)
            targets.append({"path": relative, "old": old, "new": _sha256_bytes(data), "staged": f"new/{name}"})
        for number, (relative, source) in enumerate(new_dirs.items(), start=len(files)):
            folder = staging / "new" / f"{number}"
            if isinstance(source, dict):
                folder.mkdir(mode=0o755)
                for file, content in source.items():
                    _write_durable(folder / file, content.encode("utf-8") if isinstance(content, str) else content)
            else:
                os.replace(source, folder)  # a prepared folder in the package: moved, not copied
                folder.chmod(0o755)
                for file in folder.rglob("*"):
                    if file.is_file():
                        with open(file, "rb+") as handle:
                            os.fsync(handle.fileno())
            _fsync_dir(folder)
            targets.append({"path": relative, "old": None, "new": _sha256_file(folder), "staged": f"new/{number}"})
        _fsync_dir(staging / "new")
        _fsync_dir(staging)
        # The commit record: every target with its old and new sha256; its rename is the commit point.
        journal = {"command": self.command, "pid": os.getpid(), "made": made, "targets": targets,
                   "written": _dt.datetime.now().astimezone().isoformat(timespec="seconds")}
        _fault("staged")
        _write_durable(staging / (JOURNAL + ".tmp"), json.dumps(journal, indent=1).encode())
        os.replace(staging / (JOURNAL + ".tmp"), staging / JOURNAL)
        _fsync_dir(staging)
        try:
            _fault("journal-written")
            for number, target in enumerate(targets):
                _forward(root, staging, target)
                _fault(f"renamed-{number + 1}")
        except OSError as error:
            self._roll_back(targets, made, error)
        self.committed = True
        try:
            _finish(root, staging, targets)
        except OSError as error:  # every file is in place; only the tidying up is left
            raise InputError(f"{error.filename or staging}: {error.strerror or error} after the change was written: "
                             "the package holds the new state; the next atari5-spec command (or `atari5-spec "
                             "recover`) finishes tidying up") from None

    def _roll_back(self, targets: list[dict], made: list[str], error: OSError) -> None:
        """Restore the old files after a failed apply (renames only: no space needed); raise ``error`` as InputError."""
        failed = []
        for target in targets:
            try:
                if _state(self.root, target) == "new":
                    _backward(self.root, self.staging, target)
            except OSError:
                failed.append(target["path"])  # keep going: every other file is still restored
        where = error.filename or "the package"
        if failed:  # the journal stays: the next command finishes the change
            raise InputError(f"{where}: {error.strerror or error}; the change could not be undone for "
                             f"{', '.join(failed)}: it is recorded in {self.staging} and the next atari5-spec "
                             "command (or `atari5-spec recover`) finishes it") from None
        _remove_made_folders(self.root, made)
        try:
            shutil.rmtree(self.staging)
        except OSError:
            pass  # removed by the next command (an uncommitted staging folder)
        raise InputError(f"{where}: {error.strerror or error}; nothing was changed in the package") from None


@contextlib.contextmanager
def package_transaction(root: Path | str, command: str, timeout: float | None = None):
    """Hold the package's write lock (recovering an interrupted commit first); yield a :class:`Transaction`.

    Read the package inside the ``with`` block, then call ``commit`` once.
    Leaving the block without a commit discards whatever was staged.
    Re-entrant within a process: an inner call joins the open transaction.
    """
    root = Path(root)
    key = os.path.realpath(root)
    if key in _HELD:
        yield _HELD[key]
        return
    fd = _acquire(root, command, timeout)
    try:
        _fault("locked")
        _recover_locked(root)
        transaction = Transaction(root, command)
        _HELD[key] = transaction
        try:
            yield transaction
        finally:
            del _HELD[key]
            staging = root / STAGING_NAME
            if staging.exists() and not (staging / JOURNAL).exists():  # staged, never committed
                shutil.rmtree(staging, ignore_errors=True)
    finally:
        _release(root, fd)
