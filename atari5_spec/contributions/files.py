"""Reading a submission's files: the folder holds exactly two small, regular UTF-8 files, read without following links."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..data.paths import regular_file_problem
from ..data.validation import Problem
from .model import MAX_FILE_BYTES, SUBMISSION_FILES, _display


def folder_problems(folder: Path) -> list[Problem]:
    """The folder exists, is a real directory, and holds exactly metadata.yaml and scores.csv."""
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
            problems.append(Problem(_display(folder, entry.name), None, None, "unexpected file in the submission",
                                    f"remove it: a submission holds only {' and '.join(SUBMISSION_FILES)} "
                                    "(put explanations in metadata.yaml notes)"))
    for name in SUBMISSION_FILES:
        if not (folder / name).exists() and not (folder / name).is_symlink():
            problems.append(Problem(_display(folder, name), None, None, "the file is missing",
                                    f"add {name} (see contributions/_template/{name})"))
    return problems


def read_text(folder: Path, name: str) -> tuple[str | None, list[Problem]]:
    """The text of ``folder/name``: a regular file inside the folder, at most MAX_FILE_BYTES, UTF-8 without BOM.

    The size is checked on the opened file before anything is read; symbolic
    links are refused when opening, so the file read is the one checked.
    """
    label = _display(folder, name)
    path = folder / name
    if path.is_symlink():
        return None, [Problem(label, None, None, f"is a symbolic link (to {os.readlink(path)!r})",
                              "replace the link by the file itself: submissions may not point outside their folder")]
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
        if info.st_size > MAX_FILE_BYTES:
            return None, [Problem(label, None, None,
                                  f"is {info.st_size:,} bytes, more than the limit of {MAX_FILE_BYTES:,} bytes (1 MiB)",
                                  "a submission's files are small text files: check that this is the right file")]
        data = handle.read(MAX_FILE_BYTES + 1)
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


def _read_if_present(folder: Path, name: str) -> tuple[str | None, list[Problem]]:
    """read_text for a file that exists (or is a link); folder_problems already reported a missing one."""
    path = folder / name
    return read_text(folder, name) if path.exists() or path.is_symlink() else (None, [])
