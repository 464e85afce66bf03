"""Versioned changes to the package: new coefficient versions, version bumps, the changelog.

The data package follows the Frictionless data-package-version recipe:

* **major**: a schema change (columns added, removed or retyped);
* **minor**: new data (new rows, a new algorithm, a new coefficient version);
* **patch**: corrections (rows that supersede earlier rows).

Every change goes through :func:`apply_changes`, which writes all files or none:
on any error the package is left byte-identical.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from . import __version__
from . import coefficients as coef
from . import training
from .datapackage import bump_version, descriptor_text, package_root, read_descriptor
from .errors import InputError
from .paths import package_file, package_target
from .writing import file_stats, write_bytes_atomic, write_text_atomic

__all__ = ["VERSION_NAME_PATTERN", "changelog_with_entry", "apply_changes", "fit_new_version"]

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


def fit_new_version(path: str | Path, name: str, description: str | None = None) -> Path:
    """Fit coefficient version ``name`` from the current data; older versions are untouched.

    Same method as the default version and the same subsets (the benchmark's
    games do not change), the current inclusion rule over every entry without
    an exclusion. The default version used by scoring does not change.
    """
    from .loading import load

    root = package_root(path)
    if not re.fullmatch(VERSION_NAME_PATTERN, name, re.ASCII) or len(name) > 80:
        raise InputError(f"version name {name!r}: use lower-case letters, digits and single '-', at most 80 "
                         "characters (e.g. 2026-11)")
    coefficients_dir = package_target(root, "coefficients", "the coefficients folder")
    package_target(root, f"coefficients/{name}", "the new version's folder")
    if (coefficients_dir / name).exists():
        raise InputError(f"coefficient version {name!r} already exists: pick a new name")
    dataset = load(root)
    index = coef.read_index(coefficients_dir)
    base, _ = coef.read_version(coefficients_dir, index["default"])
    rows = training.training_rows(dataset)
    fitted = coef.fit_version(rows, dataset.games, dataset.algorithms, base["subsets"])
    tables = coef.version_tables(fitted)
    descriptor = read_descriptor(root)
    new_version = bump_version(descriptor["version"], "minor")
    content = coef.manifest(
        name, fitted, base["subsets"],
        description or f"Refit of the {index['default']} models on the data of version {new_version}.",
        __version__, new_version, training.PAPER_RULE, "all entries without an exclusion", tables)

    staging = coef.stage_version(coefficients_dir, name, tables, content)
    try:
        descriptor["version"] = new_version
        coef.register_version(descriptor, name)
        pending = {f"coefficients/{name}/{file}": text for file, text in tables.items()}
        descriptor = descriptor_with_stats(root, descriptor, pending)
        changelog_path = package_target(root, "CHANGELOG.md", "the changelog")
        changelog = changelog_path.read_text(encoding="utf-8") if changelog_path.is_file() else "# Changelog\n"
        line = (f"Coefficient version `{name}` (data {new_version}): {len(fitted.algorithms)} algorithms, "
                f"{len(fitted.training_rows)} training rows. The default version stays `{index['default']}`.")
        apply_changes(root, {
            "coefficients/index.yaml": coef.index_text(index["default"], index["versions"] + [name]),
            "datapackage.json": descriptor_text(descriptor),
            "CHANGELOG.md": changelog_with_entry(changelog, "Added", line),
        }, {f"coefficients/{name}": staging})
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return coefficients_dir / name
