"""Durable file steps of a commit: fsynced writes and folders, content hashes, and the fault hook the tests use."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from pathlib import Path

def fault_point(step: str) -> None:
    """Test hook: ``ATARI5_FAULT_KILL=<step>`` ends the process at ``step``; ``ATARI5_FAULT_IO=<step>`` raises EIO."""
    if os.environ.get("ATARI5_FAULT_KILL") == step:
        os._exit(137)
    if os.environ.get("ATARI5_FAULT_IO") == step:
        raise OSError(errno.EIO, f"injected I/O error at {step}")


def fsync_folder(path: Path) -> None:
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


def write_durable(path: Path, data: bytes, mode: int = 0o644) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, mode)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str | None:
    """sha256 of a regular file, of a folder's files (names and contents), None when absent."""
    if path.is_symlink() or not path.exists():
        return None
    if path.is_dir():
        digest = hashlib.sha256()
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(file.relative_to(path).as_posix().encode() + b"\0" + bytes.fromhex(sha256_file(file)))
        return "dir:" + digest.hexdigest()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)
