"""Versioned changes to the package: all-or-nothing writes, version bumps, the changelog.

The data package follows the Frictionless data-package-version recipe:

* **major**: a schema change (columns added, removed or retyped);
* **minor**: new data (new rows, a new algorithm, a new coefficient version);
* **patch**: corrections (rows that supersede earlier rows).

Every change goes through one transaction (:mod:`.transaction`: a lock taken
before the package is read, a journal, atomic renames, recovery after a crash);
:func:`apply_changes` commits through it: on any error or kill the package is
left byte-identical to its state before or after the change.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from atari5_spec.data.paths import package_file
from atari5_spec.data.transaction import package_transaction
from atari5_spec.data.writing import file_stats

__all__ = ["VERSION_NAME_PATTERN", "changelog_with_entry", "apply_changes", "descriptor_with_stats",
           "bumped_descriptor_text"]

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


def apply_changes(root: Path, files: dict[str, str], new_dirs: dict[str, Path] | None = None,
                  command: str = "atari5-spec") -> None:
    """Write ``files`` (relative path -> text) and move ``new_dirs`` into place, all or nothing.

    ``new_dirs`` maps a relative target directory to a prepared staging
    directory (or to a mapping file name -> text). The write is one
    transaction (:mod:`atari5_spec.data.transaction`): journalled, fsynced,
    recovered by the next command after a crash. Callers that read the
    package to compute the change hold the transaction around that read
    (``with package_transaction(root, command):``); this joins it. Without
    one, a transaction is opened for the write alone.
    """
    with package_transaction(Path(root), command) as change:
        change.commit(files, new_dirs)


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


def bumped_descriptor_text(root: Path, descriptor: dict, pending: dict[str, str | bytes], part: str = "minor") -> str:
    """datapackage.json's new text for a change: ``descriptor`` (updated in place) with its version bumped by
    ``part`` and every resource's bytes/hash as they will be once ``pending`` is written."""
    from atari5_spec.data.datapackage import bump_version, descriptor_text

    descriptor["version"] = bump_version(descriptor["version"], part)
    return descriptor_text(descriptor_with_stats(root, descriptor, pending))
