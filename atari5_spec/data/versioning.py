"""Versioned changes to the package: all-or-nothing writes, version bumps, the changelog.

The data package follows the Frictionless data-package-version recipe:

* **major**: a schema change (columns added, removed or retyped);
* **minor**: new data (new rows, a new algorithm, a new coefficient version);
* **patch**: corrections (rows that supersede earlier rows).

Every change goes through :func:`apply_changes`, which writes all files or none:
on any error the package is left byte-identical.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .errors import InputError
from .paths import package_file, package_target
from .writing import file_stats, write_bytes_atomic, write_text_atomic

__all__ = ["VERSION_NAME_PATTERN", "changelog_with_entry", "apply_changes", "descriptor_with_stats"]

VERSION_NAME_PATTERN = r"[a-z0-9]+(-[a-z0-9]+)*"  # a full match (re.fullmatch): no trailing newline slips through


def changelog_with_entry(text: str, section: str, line: str) -> str:
    """CHANGELOG.md text with ``line`` added under '## [Unreleased]' / '### <section>'."""
    if "## [Unreleased]" not in text:
        text = text.replace("\n## ", "\n## [Unreleased]\n\n## ", 1) if "\n## " in text else text + "\n## [Unreleased]\n"
    head, _, rest = text.partition("## [Unreleased]\n")
    next_release = rest.find("\n## ")
    unreleased, tail = (rest, "") if next_release < 0 else (rest[:next_release + 1], rest[next_release + 1:])
    heading = f"### {section}\n"
    if heading in unreleased:
        unreleased = unreleased.replace(heading, heading + f"- {line}\n", 1)
    else:
        unreleased = unreleased.rstrip("\n") + ("\n\n" if unreleased.strip() else "\n") + heading + f"- {line}\n\n"
    return head + "## [Unreleased]\n" + unreleased + tail


def apply_changes(root: Path, files: dict[str, str], new_dirs: dict[str, Path] | None = None) -> None:
    """Write ``files`` (relative path -> text) and move ``new_dirs`` into place, all or nothing.

    ``new_dirs`` maps a relative target directory to a prepared staging
    directory. On any error, files are restored and moved directories removed.
    """
    root = Path(root)
    new_dirs = new_dirs or {}
    # Every target is checked before anything is written (atari5_spec.paths): inside the package, no link.
    targets = {rel: package_target(root, rel, "a file the change writes:") for rel in files}
    dir_targets = {rel: package_target(root, rel, "a folder the change adds:") for rel in new_dirs}
    before = {rel: path.read_bytes() if path.is_file() else None for rel, path in targets.items()}
    moved = []
    try:
        for rel, staging in new_dirs.items():
            target = dir_targets[rel]
            if target.exists():
                raise InputError(f"{rel} already exists: pinned directories are never rewritten")
            shutil.move(str(staging), str(target))
            moved.append(target)
        for rel, text in files.items():
            write_text_atomic(targets[rel], text)
    except BaseException:
        for rel, data in before.items():  # restored through a rename as well: never through a link
            if data is None:
                targets[rel].unlink(missing_ok=True)
            else:
                write_bytes_atomic(targets[rel], data)
        for target in moved:
            shutil.rmtree(target, ignore_errors=True)
        raise


def descriptor_with_stats(root: Path, descriptor: dict, pending: dict[str, str | bytes]) -> dict:
    """Fill bytes/hash of every resource, using ``pending`` contents for files not yet written."""
    for resource in descriptor["resources"]:
        path = resource["path"]
        if path in pending:
            data = pending[path].encode("utf-8") if isinstance(pending[path], str) else pending[path]
            resource.update({"bytes": len(data), "hash": "sha256:" + hashlib.sha256(data).hexdigest()})
        else:
            resource.update(file_stats(package_file(root, path, "datapackage.json, resource path")))
    return descriptor
