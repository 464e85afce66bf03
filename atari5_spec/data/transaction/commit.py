"""A change of one package: stage every file, write the commit record, rename into place; all files or none."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import shutil
from pathlib import Path

from ..errors import InputError
from .files import fault_point, fsync_folder, sha256_bytes, sha256_file, write_durable
from .journal import JOURNAL, STAGING_NAME, undo_target, finish, apply_target, remove_made_folders, target_state
from .lock import acquire, release
from .ownership import sealed
from .recovery import HELD, recover_locked, refuse_foreign

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
        from ..paths import package_target

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
            write_durable(staging / "new" / name, data, mode)
            old = sha256_file(path)
            if old is not None:
                try:
                    os.link(path, staging / "old" / name)
                except OSError:  # no hard links here: a copy (fsynced) keeps the old version
                    write_durable(staging / "old" / name, path.read_bytes(), mode)
            targets.append({"path": relative, "old": old, "new": sha256_bytes(data), "staged": f"new/{name}"})
        for number, (relative, source) in enumerate(new_dirs.items(), start=len(files)):
            folder = staging / "new" / f"{number}"
            if isinstance(source, dict):
                folder.mkdir(mode=0o755)
                for file, content in source.items():
                    write_durable(folder / file, content.encode("utf-8") if isinstance(content, str) else content)
            else:
                os.replace(source, folder)  # a prepared folder in the package: moved, not copied
                folder.chmod(0o755)
                for file in folder.rglob("*"):
                    if file.is_file():
                        with open(file, "rb+") as handle:
                            os.fsync(handle.fileno())
            fsync_folder(folder)
            targets.append({"path": relative, "old": None, "new": sha256_file(folder), "staged": f"new/{number}"})
        fsync_folder(staging / "new")
        fsync_folder(staging)
        # The commit record: every target with its old and new sha256, sealed as this machine's own for this
        # package folder (recovery acts on no other journal); its rename is the commit point.
        journal = sealed({"command": self.command, "pid": os.getpid(), "made": made, "targets": targets,
                          "written": _dt.datetime.now().astimezone().isoformat(timespec="seconds")}, root)
        fault_point("staged")
        write_durable(staging / (JOURNAL + ".tmp"), json.dumps(journal, indent=1).encode())
        os.replace(staging / (JOURNAL + ".tmp"), staging / JOURNAL)
        fsync_folder(staging)
        try:
            fault_point("journal-written")
            for number, target in enumerate(targets):
                apply_target(root, staging, target)
                fault_point(f"renamed-{number + 1}")
        except OSError as error:
            self._roll_back(targets, made, error)
        self.committed = True
        try:
            finish(root, staging, targets)
        except OSError as error:  # every file is in place; only the tidying up is left
            raise InputError(f"{error.filename or staging}: {error.strerror or error} after the change was written: "
                             "the package holds the new state; `atari5-spec recover` (or the next command that "
                             "writes) finishes tidying up") from None

    def _roll_back(self, targets: list[dict], made: list[str], error: OSError) -> None:
        """Restore the old files after a failed apply (renames only: no space needed); raise ``error`` as InputError."""
        failed = []
        for target in targets:
            try:
                if target_state(self.root, target) == "new":
                    undo_target(self.root, self.staging, target)
            except OSError:
                failed.append(target["path"])  # keep going: every other file is still restored
        where = error.filename or "the package"
        if failed:  # the journal stays: `atari5-spec recover` (or the next writer) finishes the change
            raise InputError(f"{where}: {error.strerror or error}; the change could not be undone for "
                             f"{', '.join(failed)}: it is recorded in {self.staging} and `atari5-spec recover` "
                             "(or the next command that writes) finishes it") from None
        remove_made_folders(self.root, made)
        try:
            shutil.rmtree(self.staging)
        except OSError:
            pass  # removed by the next command that writes (an uncommitted staging folder)
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
    if key in HELD:
        yield HELD[key]
        return
    refuse_foreign(root)  # a journal that came with the files: refused before the lock file is even written
    fd = acquire(root, command, timeout)
    try:
        fault_point("locked")
        recover_locked(root)
        transaction = Transaction(root, command)
        HELD[key] = transaction
        try:
            yield transaction
        finally:
            del HELD[key]
            staging = root / STAGING_NAME
            if staging.exists() and not (staging / JOURNAL).exists():  # staged, never committed
                shutil.rmtree(staging, ignore_errors=True)
    finally:
        release(root, fd)
