"""Reading a submission's files: the folder holds exactly two small, regular UTF-8 files, read without following links.

A folder is on disk (a :class:`~pathlib.Path`: ``contribute check`` and ``add``) or a :class:`StoredFolder`, its
files read from git into memory by the privileged review (nothing of a pull request is written to disk); both are
held to the same rules with the same messages.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from atari5_spec.data.paths import regular_file_problem
from atari5_spec.data.validation import Problem
from atari5_spec_maintainers.contributions.model import MAX_FILE_BYTES, MAX_METADATA_BYTES, METADATA_FILE, SUBMISSION_FILES, _display


class StoredFolder(NamedTuple):
    """A submission folder read from git into memory: its regular files by name, every other entry refused."""

    path: PurePosixPath  # contributions/<id>: how problems name the folder and its files
    files: dict[str, bytes]  # metadata.yaml and scores.csv as stored (each at most MAX_FILE_BYTES)
    problems: tuple[Problem, ...]  # every other entry of its tree (links, folders, crafted names, big files...)


def folder_label(folder: Path | StoredFolder) -> Path | PurePosixPath:
    """The path problems name the folder by."""
    return folder.path if isinstance(folder, StoredFolder) else folder


def submission_name(folder: Path | StoredFolder) -> str:
    """The folder's name: the submission's id."""
    return folder.path.name if isinstance(folder, StoredFolder) else Path(os.path.abspath(folder)).name


def unexpected_entry(folder: Path | PurePosixPath, name: str, what: str = "unexpected file in the submission"
                     ) -> Problem:
    return Problem(_display(folder, name), None, None, what,
                   f"remove it: a submission holds only {' and '.join(SUBMISSION_FILES)} "
                   "(put explanations in metadata.yaml notes)")


def missing_file(folder: Path | PurePosixPath, name: str) -> Problem:
    return Problem(_display(folder, name), None, None, "the file is missing",
                   f"add {name} (see contributions/_template/{name})")


def size_limit(name: str) -> int:
    """The most bytes a submission file may hold: metadata.yaml MAX_METADATA_BYTES, scores.csv MAX_FILE_BYTES."""
    return MAX_METADATA_BYTES if name == METADATA_FILE else MAX_FILE_BYTES


def too_large(label: str, size: int, limit: int = MAX_FILE_BYTES) -> Problem:
    spoken = f"{limit // (1 << 20)} MiB" if limit % (1 << 20) == 0 else f"{limit // 1024} KiB"
    return Problem(label, None, None, f"is {size:,} bytes, more than the limit of {limit:,} bytes ({spoken})",
                   "a submission's files are small text files: check that this is the right file")


def symbolic_link(label: str, target: str) -> Problem:
    return Problem(label, None, None, f"is a symbolic link (to {target!r})",
                   "replace the link by the file itself: submissions may not point outside their folder")


def folder_problems(folder: Path | StoredFolder) -> list[Problem]:
    """The folder exists, is a real directory, and holds exactly metadata.yaml and scores.csv."""
    if isinstance(folder, StoredFolder):
        named = {p.file for p in folder.problems}
        return list(folder.problems) + [missing_file(folder.path, name) for name in SUBMISSION_FILES
                                        if name not in folder.files and _display(folder.path, name) not in named]
    label = _display(folder)
    if folder.is_symlink():
        return [Problem(label, None, None, "the submission folder is a symbolic link",
                        "put the files in a real folder contributions/<id>/ (links may point outside it)")]
    if not folder.is_dir():
        return [Problem(label, None, None, "not a folder" if folder.exists() else "no such folder",
                        "give the submission folder, e.g. contributions/my-algorithm (copy contributions/_template)")]
    problems = []
    for entry in sorted(folder.iterdir()):
        if entry.name not in SUBMISSION_FILES:
            problems.append(unexpected_entry(folder, entry.name))
    for name in SUBMISSION_FILES:
        if not (folder / name).exists() and not (folder / name).is_symlink():
            problems.append(missing_file(folder, name))
    return problems


def read_text(folder: Path | StoredFolder, name: str) -> tuple[str | None, list[Problem]]:
    """The text of ``folder/name``: a regular file inside the folder, at most MAX_FILE_BYTES, UTF-8 without BOM.

    The size is checked on the opened file before anything is read; symbolic
    links are refused when opening, so the file read is the one checked.
    """
    if isinstance(folder, StoredFolder):
        data = folder.files[name]
        label = _display(folder.path, name)
        if len(data) > size_limit(name):
            return None, [too_large(label, len(data), size_limit(name))]
        return decode_text(label, data)
    label = _display(folder, name)
    path = folder / name
    if path.is_symlink():
        return None, [symbolic_link(label, os.readlink(path))]
    special = regular_file_problem(path, follow_links=False)
    if special and special != "does not exist":  # refused before opening: opening a named pipe blocks
        return None, [Problem(label, None, None, special, "add the file as a regular file")]
    try:  # non-blocking: a pipe swapped in after the check cannot hang the read either
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        return None, [Problem(label, None, None, f"cannot be opened ({error.strerror})", "add the file as a regular file")]
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, [Problem(label, None, None, "is not a regular file", "add the file as a regular file")]
        if info.st_size > size_limit(name):
            return None, [too_large(label, info.st_size, size_limit(name))]
        data = handle.read(size_limit(name) + 1)
    if len(data) > size_limit(name):  # grew while being read
        return None, [too_large(label, len(data), size_limit(name))]
    return decode_text(label, data)


def decode_text(label: str, data: bytes) -> tuple[str | None, list[Problem]]:
    """The text of a submission file's bytes: UTF-8 without BOM or NUL."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None, [Problem(label, 1, None, "the file starts with a UTF-8 byte-order mark (BOM)",
                              "save it as UTF-8 without BOM (Excel: 'CSV (Comma delimited)'; or run "
                              "sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)")]
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        return None, [Problem(label, line, None, "the file contains NUL bytes (binary data)",
                              "save it as a plain UTF-8 text file")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return None, [Problem(label, line, None, f"is not UTF-8 (byte {data[error.start]:#04x})",
                              "save the file as UTF-8")]


def _read_if_present(folder: Path | StoredFolder, name: str) -> tuple[str | None, list[Problem]]:
    """read_text for a file that exists (or is a link); folder_problems already reported a missing one."""
    if isinstance(folder, StoredFolder):
        return read_text(folder, name) if name in folder.files else (None, [])
    path = folder / name
    return read_text(folder, name) if path.exists() or path.is_symlink() else (None, [])
