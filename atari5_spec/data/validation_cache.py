"""Frictionless's verdict on a resource, kept by content: an unchanged resource is read row by row once.

Frictionless checks a table row by row in Python: about 9 s of CPU for the package's 63 resources, most of
what ``validate`` costs, paid again for every copy of the package a test or a merge validates, and about 3 s
more to import it and check the descriptor. Its verdict on one resource depends only on the Frictionless and
Python versions, the resource's entry in datapackage.json, its schema file, its data file and, through
foreign keys, what their lookups read of each resource it references: that resource's entry, schema and
the raw cells of the referenced columns (:func:`resource_key` hashes all of that, SHA-256);
its verdict on the descriptor, on datapackage.json and the schemas (:func:`descriptor_key`). The problems
found (none, for valid content) are kept under those keys in the user's cache folder,
``$XDG_CACHE_HOME/atari5-spec/frictionless/`` (default ``~/.cache``), and a later validation of the same
content reads them back instead of the rows (without importing Frictionless when nothing changed). A
changed byte anywhere in what a verdict depends on is a new key, so a new full check.

The cache is the tool's own state, never inside a package or in git: an entry is used only when it is a
regular file of this user that records its own key and parses; anything else is ignored and the resource
checked again. Entries are written atomically (a temporary file, then a rename). A resource whose files
cannot all be read is never cached. ``ATARI5_SPEC_NO_CACHE=1`` turns the cache off. Standard library only.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import platform
import tempfile
from pathlib import Path

from .paths import package_file, read_regular_file

__all__ = ["cache_folder", "descriptor_key", "resource_key", "read_entry", "write_entry"]

_MAX_ENTRY_BYTES = 4_000_000
_FINDING_KEYS = {"file", "row", "column", "message", "type", "fix"}  # one finding, as validation records it
_MAX_FILE_BYTES = 200_000_000


def cache_folder() -> Path | None:
    """``$XDG_CACHE_HOME/atari5-spec/frictionless`` (default ``~/.cache``); None when turned off."""
    if os.environ.get("ATARI5_SPEC_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "atari5-spec" / "frictionless"


def _file_digest(root: Path, relative, where: str) -> str:
    path = package_file(root, str(relative), where)
    return hashlib.sha256(read_regular_file(path, where, _MAX_FILE_BYTES)).hexdigest()


def _own_part(root: Path, entry: dict) -> dict:
    """What one resource's entry, schema and data are, by content (raises on any file that cannot be read)."""
    schema = entry.get("schema")
    return {"entry": entry,
            "schema": _file_digest(root, schema, "a schema") if isinstance(schema, str) else None,
            "data": _file_digest(root, entry["path"], "a resource")}


def descriptor_key(root: Path | str, descriptor: dict, frictionless_version: str) -> str | None:
    """The SHA-256 of what Frictionless's verdict on the descriptor itself (datapackage.json and the schemas it
    names, before any row is read) depends on; None when a file cannot be read."""
    root = Path(root)
    try:
        schemas = sorted({e["schema"] for e in descriptor["resources"] if isinstance(e.get("schema"), str)})
        parts = {"frictionless": frictionless_version, "python": platform.python_version(),
                 "datapackage.json": _file_digest(root, "datapackage.json", "datapackage.json"),
                 "schemas": {schema: _file_digest(root, schema, "a schema") for schema in schemas}}
    except (KeyError, TypeError, ValueError, OSError, AttributeError):
        return None
    return _digest(parts)


def _digest(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def resource_key(root: Path | str, descriptor: dict, name: str, frictionless_version: str) -> str | None:
    """The SHA-256 of everything Frictionless's verdict on resource ``name`` of ``descriptor`` (datapackage.json,
    parsed) depends on; None when a file it depends on cannot be read (such a resource is not cached)."""
    root = Path(root)
    entries = {e.get("name"): e for e in descriptor.get("resources", []) if isinstance(e, dict)}
    try:
        own = _own_part(root, entries[name])
        schema = entries[name].get("schema")
        table_schema = (json.loads(read_regular_file(package_file(root, schema, "a schema"), "a schema", _MAX_FILE_BYTES))
                        if isinstance(schema, str) else schema if isinstance(schema, dict) else {})
        references: dict[str, set] = {}
        for fk in table_schema.get("foreignKeys", []):
            other = fk["reference"].get("resource") or name
            fields = fk["reference"]["fields"]
            references.setdefault(other, set()).update([fields] if isinstance(fields, str) else fields)
        parts = {"frictionless": frictionless_version, "python": platform.python_version(), "resource": own,
                 "references": {other: _referenced_part(root, entries[other], sorted(fields))
                                for other, fields in sorted(references.items()) if other != name}}
    except (KeyError, TypeError, ValueError, OSError, AttributeError, csv.Error, UnicodeDecodeError):
        return None
    return _digest(parts)


def _referenced_part(root: Path, entry: dict, fields: list[str]) -> dict:
    """What a foreign key's lookup reads of a referenced resource: its entry without the hash and size (its own
    validation checks those), its schema, its header and, row by row, the raw cells of the referenced fields
    (an edit of any other column of it leaves the referencing resource's verdict as it was)."""
    schema = entry.get("schema")
    dialect = entry.get("dialect") or {}
    text = read_regular_file(package_file(root, entry["path"], "a resource"), "a resource",
                             _MAX_FILE_BYTES).decode(entry.get("encoding") or "utf-8")
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=dialect.get("delimiter", ","),
                      quotechar=dialect.get("quoteChar", '"'), doublequote=dialect.get("doubleQuote", True))
    header = next(rows, [])
    columns = [header.index(field) if field in header else None for field in fields]
    cells = [[row[c] if c is not None and c < len(row) else None for c in columns] + [len(row)] for row in rows]
    return {"entry": {k: v for k, v in entry.items() if k not in ("hash", "bytes")},
            "schema": _file_digest(root, schema, "a schema") if isinstance(schema, str) else schema,
            "header": header, "cells": hashlib.sha256(json.dumps(cells).encode()).hexdigest()}


def read_entry(key: str) -> list[dict] | None:
    """The problems kept under ``key`` (a list of plain dicts), or None when there is no usable entry."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        entry = json.loads(read_regular_file(folder / f"{key}.json", "a cache entry", _MAX_ENTRY_BYTES,
                                             follow_links=False))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("problems"), list):
        return None
    if not all(isinstance(p, dict) and set(p) == _FINDING_KEYS for p in entry["problems"]):
        return None
    try:
        if hasattr(os, "getuid") and (folder / f"{key}.json").lstat().st_uid != os.getuid():
            return None
    except OSError:  # removed meanwhile
        return None
    return entry["problems"]


def write_entry(key: str, problems: list[dict]) -> None:
    """Keep ``problems`` under ``key``; a cache that cannot be written is skipped silently (it only saves time)."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".entry-", suffix=".tmp")
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump({"key": key, "problems": problems}, handle, sort_keys=True)
        os.replace(temporary, folder / f"{key}.json")
    except OSError:
        return
