"""One path policy for every file the project reads or writes.

A data package is a folder whose datapackage.json a pull request can edit, so
every path written in it is untrusted input, and so is every path a user
passes on the command line. The rules, applied by every command:

* **Package files** (resource paths, schemas, coefficient versions): a
  relative POSIX path, without ``..``, ``~``, ``$``, ``%``, ``\\``, ``:``
  or control characters (Frictionless calls absolute and ``..`` paths
  unsafe; the rest keeps a path from meaning something else to a shell, to
  Windows or to a URL parser), and never in git's own folder ``.git/``
  (hooks and configuration run code), which, resolved with its symbolic
  links, stays inside the package root. Writing into the package also
  refuses a symbolic link at the file itself or at any folder on the way to
  it, so that a write, or the rollback of one, replaces the file named and
  nothing else. The recovery of an interrupted change applies the same rule
  to every path its journal names (:func:`target_reason`).
* **Files read** are regular files, checked before they are opened for
  reading (opening a named pipe blocks until someone writes to it; a device
  never ends), and opened non-blocking so that a file swapped in between is
  refused too; at most a stated number of bytes. A file of the package itself
  (coefficients/, calibration/, conformance/, schemas/, data/, the
  descriptor) is read through :func:`read_package_bytes`: a regular file
  whose real path stays inside the package, at most
  :data:`MAX_PACKAGE_FILE_BYTES` (a link to ``/dev/zero`` once took
  ``validate`` to 22.5 GB).
* **Output folders** (``reproduce --out``, ``report --out``, ``evaluate
  --figure``, ``contribute curves --out``) are refused inside a data package
  (an output must never overwrite the data or the paper's reference tables)
  and when they, or a file in them, are symbolic links; each file is written
  atomically (a temporary file in the same folder, then a rename). One
  exception: ``contribute curves --out <package>/contributions/<id>/scores.csv``
  of a submission not merged yet (CONTRIBUTING's recipe).

Everything here is pure path logic on the standard library: the fast
``score`` path imports it.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tempfile
from pathlib import Path, PurePosixPath

from .errors import InputError

__all__ = ["UnsafePathError", "unsafe_reason", "target_reason", "package_file", "package_files", "package_target", "read_regular_file",
           "regular_file_problem", "output_directory", "output_file", "write_output", "inside_a_package",
           "unmerged_submission_file", "read_package_bytes", "read_package_text", "read_package_rows", "package_text_stream",
           "MAX_PACKAGE_FILE_BYTES"]

DESCRIPTOR = "datapackage.json"
# Characters that make a relative path mean something else to a shell, Windows or a URL parser.
_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")  # ord(c) < 32 or ord(c) == 127
_UNSAFE_CHARACTERS = {"~": "'~' (a home folder)", "$": "'$' (a variable)", "%": "'%' (a variable)",
                      "\\": "'\\' (a Windows separator)", ":": "':' (a drive or URL scheme)"}


class UnsafePathError(InputError):
    """A path outside what the policy allows; the message names where it was given and how to fix it."""


def unsafe_reason(relative: str) -> str | None:
    """Why ``relative`` may not name a file inside a package (None when it may); no file system access."""
    if not isinstance(relative, str) or not relative:
        return "is not a non-empty text"
    if _CONTROL_CHARACTER.search(relative):
        return "contains control characters"
    if relative.startswith("/") or os.path.isabs(relative):
        return "is absolute"
    for character, spoken in _UNSAFE_CHARACTERS.items():
        if character in relative:
            return f"contains {spoken}"
    parts = PurePosixPath(relative).parts
    if ".." in parts:
        return "climbs out with '..'"
    if any(part.rstrip(". ").casefold() == ".git" for part in parts):  # .GIT and '.git.' on Windows and macOS
        return "is inside git's own folder '.git' (hooks and configuration there run code)"
    return None


def _link_on_the_way(root: Path, relative: str) -> str | None:
    """The first component of ``relative`` below ``root`` that is a symbolic link (the file itself included)."""
    path = root
    for part in PurePosixPath(relative).parts:
        path = path / part
        if path.is_symlink():
            return path.relative_to(root).as_posix()
        if not path.exists():
            return None
    return None


def target_reason(root: Path | str, relative) -> str | None:
    """Why ``relative`` may not name a file to write in the package at ``root`` (None when it may): the rules of
    :func:`package_target`, as a reason. Reads only the file system's links."""
    reason = unsafe_reason(relative)
    if reason:
        return reason
    root = Path(root)
    if not _is_within(Path(os.path.realpath(root / relative)), Path(os.path.realpath(root))):
        return "leads outside the package through a symbolic link"
    link = _link_on_the_way(root, relative)
    if link is not None:
        return "is a symbolic link" if link == PurePosixPath(relative).as_posix() else \
            f"passes through the symbolic link {link}"
    return None


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def package_file(root: Path | str, relative: str, where: str) -> Path:
    """The path of ``relative`` inside the package at ``root``, or UnsafePathError naming ``where``.

    ``where`` says where the path was written ("datapackage.json, resource
    'scores', path"). Symbolic links are followed only as far as they stay
    inside the package.
    """
    return package_files(root, [(relative, where)])[0]


def package_files(root: Path | str, named: list[tuple[str, str]]) -> list[Path]:
    """:func:`package_file` of each (relative, where) pair, the root resolved once (a descriptor names over a
    hundred files)."""
    root = Path(root)
    real_root = os.path.realpath(root)
    inside = real_root.rstrip(os.sep) + os.sep  # "/" stays "/"
    paths = []
    for relative, where in named:
        reason = unsafe_reason(relative)
        if reason:
            raise UnsafePathError(f"{where} {relative!r} {reason}: write a path relative to the package folder, "
                                  "inside it (e.g. data/scores.csv)")
        path = root / relative
        real = os.path.realpath(path)
        if not (real == real_root or real.startswith(inside)):
            raise UnsafePathError(f"{where} {relative!r} leads outside the package through a symbolic link "
                                  f"({real}): replace the link by the file itself")
        paths.append(path)
    return paths


def package_target(root: Path | str, relative: str, where: str) -> Path:
    """Like package_file, for a file about to be written: a symbolic link at the file itself, or at a folder on the
    way to it, is refused too."""
    path = package_file(root, relative, where)
    if path.is_symlink():
        raise UnsafePathError(f"{where} {relative!r} is a symbolic link: the package's files are written in "
                              "place, never through links; replace the link by the file itself")
    link = _link_on_the_way(Path(root), relative)
    if link is not None:
        raise UnsafePathError(f"{where} {relative!r} passes through the symbolic link {link}: the package's files "
                              "are written in place, never through links; replace the link by the folder itself")
    return path


def regular_file_problem(path: Path | str, follow_links: bool = True) -> str | None:
    """Why ``path`` is not a regular file to read (None when it is), without opening it."""
    try:
        info = os.stat(path) if follow_links else os.lstat(path)
    except FileNotFoundError:
        return "does not exist"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if stat.S_ISREG(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(info.st_mode):
        return "is a named pipe, not a regular file"
    return "is a device or socket, not a regular file"


def read_regular_file(path: Path | str, label: str, max_bytes: int, follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; InputError naming ``label`` otherwise.

    Special files are refused before they are opened for reading; the file is
    opened non-blocking (a FIFO swapped in meanwhile cannot hang the read) and
    checked again on the open descriptor.
    """
    problem = regular_file_problem(path, follow_links)
    if problem:
        raise InputError(f"{label}: {problem}" + ("" if problem == "does not exist" else
                                                  ": give a plain file"))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= 0 if follow_links else getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise InputError(f"{label}: cannot be opened ({error.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{label}: is not a regular file: give a plain file")
        if info.st_size > max_bytes:
            raise InputError(f"{label}: is {info.st_size:,} bytes, more than the limit of {max_bytes:,} bytes")
        # Read what the file holds, not a buffer of the limit (a 64 MiB read buffer costs more than a small file).
        limit = max_bytes + 1
        data = handle.read(min(info.st_size + 1, limit))
        if info.st_size < len(data) < limit:  # it grew while being read: read on, up to the limit
            data += handle.read(limit - len(data))
    if len(data) > max_bytes:  # grew while being read
        raise InputError(f"{label}: is more than the limit of {max_bytes:,} bytes")
    return data


# The largest file the package ships is data/seed_scores.csv, 6.7 MB (data 1.95.0): ten times that leaves room to grow
# and still refuses a device or a runaway file long before memory runs out.
MAX_PACKAGE_FILE_BYTES = 64 * 2**20


def read_package_bytes(path: Path | str, root: Path | str | None = None,
                       max_bytes: int = MAX_PACKAGE_FILE_BYTES) -> bytes:
    """The bytes of a file of the data package at ``root`` (default: the package ``path`` is in): a regular file
    whose real path, links resolved, stays inside the package, at most ``max_bytes``; InputError naming the file
    and the fix otherwise. The one way the tool reads its own pinned files."""
    path = Path(path)
    if root is None:
        root = inside_a_package(path.parent) or path.parent
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    try:
        shown = Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        shown = str(path)
    if not (real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)):
        raise InputError(f"{shown}: leads outside the package {root} through a symbolic link ({real}): "
                         "replace the link by the file itself (git checkout, or reinstall the package)")
    return read_regular_file(path, shown, max_bytes)


def read_package_text(path: Path | str, root: Path | str | None = None,
                      max_bytes: int = MAX_PACKAGE_FILE_BYTES) -> str:
    """:func:`read_package_bytes` decoded as UTF-8; InputError naming the file and the first undecodable byte."""
    data = read_package_bytes(path, root, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _not_utf8(path, error) from None


def _not_utf8(path, error: UnicodeDecodeError) -> InputError:
    return InputError(f"{path}: is not UTF-8 text (byte {error.start}): restore the file as the package shipped it "
                      "(git checkout, or reinstall the package)")


def package_text_stream(path: Path | str, root: Path | str | None = None,
                        max_bytes: int = MAX_PACKAGE_FILE_BYTES) -> io.TextIOWrapper:
    """:func:`read_package_bytes` as a UTF-8 text stream for ``csv`` (``newline=""``): decoded as it is read, so
    a large table is not held twice (a StringIO of the whole text costs up to four bytes a character)."""
    return io.TextIOWrapper(io.BytesIO(read_package_bytes(path, root, max_bytes)), encoding="utf-8", newline="")


def read_package_rows(path: Path | str, root: Path | str | None = None) -> list[dict[str, str]]:
    """The rows of a CSV file of the package (:func:`package_text_stream`) as dicts of strings."""
    import csv

    try:
        return list(csv.DictReader(package_text_stream(path, root)))
    except UnicodeDecodeError as error:
        raise _not_utf8(path, error) from None


def folders_with_descriptor(path: Path | str):
    """Every folder at or above ``path`` (links resolved) holding a datapackage.json, nearest first."""
    resolved = Path(os.path.realpath(path))
    return (folder for folder in (resolved, *resolved.parents) if (folder / DESCRIPTOR).is_file())


def inside_a_package(path: Path | str) -> Path | None:
    """The data package folder (one holding datapackage.json) that ``path`` is in or is, if any."""
    return next(folders_with_descriptor(path), None)


def output_directory(out: Path | str, option: str = "--out", file: Path | str | None = None) -> Path:
    """``out`` as a folder to write outputs into, created if missing; InputError when the policy refuses it.

    ``file``: the output file the folder is for; errors then name it (``--figure out.png``, not ``.``).
    """
    out = Path(out)
    shown = f"{option} {file}: its folder {out}" if file is not None else f"{option} {out}"
    if out.is_symlink():
        raise InputError(f"{shown}: is a symbolic link; outputs are not written through links: "
                         "give a real folder")
    if out.exists() and not out.is_dir():
        raise InputError(f"{shown}: exists and is not a folder: give a new or an existing folder")
    package = inside_a_package(out)
    if package is not None:
        raise InputError(f"{shown}: is inside the data package {package}; outputs never go into a package "
                         "(they could overwrite its data or the paper's reference tables): give a "
                         f"{'file' if file is not None else 'folder'} outside it")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"{shown}: cannot create the folder ({error.strerror})") from None
    return out


def unmerged_submission_file(path: Path | str, name: str = "scores.csv") -> Path | None:
    """The package ``path`` is in, when ``path`` is <package>/contributions/<id>/<name> of a submission not yet
    merged (no row of data/sources.csv points at it); None otherwise.

    The one place inside a package an output may go: CONTRIBUTING's ``contribute curves --out
    contributions/<id>/scores.csv`` writes a submission's file before its pull request.
    """
    import re

    path = Path(os.path.abspath(path))
    folder = path.parent
    if path.name != name or folder.parent.name != "contributions" or not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*",
                                                                                      folder.name):
        return None
    package = folder.parent.parent
    if not (package / DESCRIPTOR).is_file() or inside_a_package(folder.parent) != Path(os.path.realpath(package)):
        return None
    if folder.parent.is_symlink() or folder.is_symlink():
        return None
    sources = package / "data" / "sources.csv"
    try:
        merged = f"contributions/{folder.name}/{name}".encode() in sources.read_bytes()
    except OSError:
        merged = False
    return None if merged else package


def output_file(path: Path | str, option: str = "--out", submission_file: bool = False) -> Path:
    """``path`` as a file to write, in an allowed output folder; existing symbolic links and folders refused.

    ``submission_file``: also allow the scores.csv of an unmerged submission inside a package
    (:func:`unmerged_submission_file`).
    """
    path = Path(path)
    if path.is_symlink():
        raise InputError(f"{option} {path}: is a symbolic link; outputs are not written through links: "
                         "remove the link or give another name")
    if path.is_dir():
        raise InputError(f"{option} {path}: is a folder: give a file name")
    if path.exists() and not path.is_file():
        raise InputError(f"{option} {path}: {regular_file_problem(path)}: give a plain file name")
    if submission_file and unmerged_submission_file(path) is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"{option} {path}: cannot create the folder ({error.strerror})") from None
        return path
    output_directory(path.parent if str(path.parent) else Path("."), option, file=path)
    return path


def write_output(path: Path | str, data: str | bytes, option: str = "--out", submission_file: bool = False) -> Path:
    """Write ``data`` to the output file ``path`` atomically, under the output policy."""
    path = output_file(path, option, submission_file)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise InputError(f"{option} {path}: cannot write there ({error.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)  # replaces the name itself: never writes through a link swapped in meanwhile
    except OSError as error:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"{option} {path}: cannot write there ({error.strerror})") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
