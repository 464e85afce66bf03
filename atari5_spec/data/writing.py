"""Deterministic, atomic writing of the package's CSV tables.

Every table the project writes goes through :func:`format_value` so that the
same data always gives byte-identical files: numbers in the shortest form that
round-trips exactly (``repr`` of a float, integers without ``.0``), booleans as
``true``/``false``, missing values as empty cells, LF line endings.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import tempfile
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import pandas as pd

__all__ = ["format_value", "csv_text", "write_text_atomic", "write_bytes_atomic", "file_stats"]


def format_value(value) -> str:
    """Format one cell: shortest exact text for numbers, empty for missing."""
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "dtype") and getattr(value, "dtype").kind == "b":  # numpy bool
        return "true" if bool(value) else "false"
    if isinstance(value, (int,)) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return str(int(value))
    if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
        x = float(value)
        if math.isnan(x):
            return ""
        if not math.isfinite(x):
            raise ValueError(f"cannot write non-finite number {x!r}")
        # Integral values are written without a trailing '.0'; both forms parse
        # back to the same float, the short one is what a person would type.
        if x.is_integer() and abs(x) < 2**53:
            return str(int(x))
        return repr(x)
    return str(value)


def csv_text(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """Render rows as CSV text (minimal quoting, LF line endings)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    for row in rows:
        writer.writerow([format_value(v) for v in row])
    return buffer.getvalue()


def frame_csv_text(frame: pd.DataFrame, columns: Sequence[str]) -> str:
    """Render a DataFrame's ``columns`` (in that order) as CSV text."""
    records = frame[list(columns)].astype(object).where(frame[list(columns)].notna(), None)
    return csv_text(columns, records.itertuples(index=False, name=None))


def write_text_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old or the new file, never half."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    The rename replaces the name itself: a symbolic link at ``path`` is
    replaced, never written through (callers refuse links before, see
    atari5_spec.data.paths). The file keeps the permissions of the one it replaces
    (0644 for a new file).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.is_file() and not path.is_symlink() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise



def replace_folder(target: Path, contents: Mapping[str, bytes]) -> None:
    """Write ``contents`` (relative path -> bytes) as the folder ``target``, built beside it and renamed into place.

    A reader sees the old folder or the new one, never a half-written one. The caller checks that ``target``
    may be replaced (an earlier export, an earlier site) before calling. Raises InputError on a disk error.
    """
    import shutil

    from .errors import InputError

    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        for relative, data in contents.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        old = None
        if target.exists():
            old = target.parent / f".{target.name}.old"
            if old.exists():
                shutil.rmtree(old)
            target.rename(old)
        staging.chmod(0o755)  # mkdtemp makes it private; an export or a site is for sharing
        staging.rename(target)
        if old is not None:
            shutil.rmtree(old)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise InputError(f"--out: cannot write {target} ({error.strerror or error})") from None

def file_stats(path: Path | str) -> Mapping[str, object]:
    """The ``bytes`` and ``hash`` (``sha256:...``) Frictionless records for a file."""
    data = Path(path).read_bytes()
    return {"bytes": len(data), "hash": "sha256:" + hashlib.sha256(data).hexdigest()}
