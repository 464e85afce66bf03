"""The package's write lock (``<package>/.atari5.lock``): taken before the package is read, named after its holder."""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
import sys
import time
from pathlib import Path

from ..errors import InputError

from ..write_markers import LOCK_NAME  # noqa: F401  (named here too: the transaction API exports it)


DEFAULT_TIMEOUT = 300.0


POLL_SECONDS = 0.05


try:  # POSIX; elsewhere the lock is an exclusively created file whose holder's PID is checked
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


class PackageLockedError(InputError):
    """Another command holds the package's write lock for longer than we may wait."""


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


def acquire(root: Path, command: str, timeout: float | None) -> int:
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
                release(root, fd)
                raise InputError(f"{lock}: cannot write the package's write lock ({error.strerror}): free some "
                                 "space and run the command again") from None
            return fd
        if time.monotonic() >= deadline:
            raise PackageLockedError(
                f"the package {root} is being changed by {_describe(_holder(lock))}; waited "
                f"{_timeout(timeout):g} s: run the command again when it has finished "
                f"(ATARI5_LOCK_TIMEOUT sets the wait)")
        time.sleep(POLL_SECONDS)


def release(root: Path, fd: int) -> None:
    try:
        (root / LOCK_NAME).unlink(missing_ok=True)  # while still holding it: a waiter re-checks the inode
    finally:
        os.close(fd)


def remove_stale_lock(root: Path, announce: bool) -> None:
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
