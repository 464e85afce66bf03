"""A new pinned coefficient version, fitted from the current data: a versioned change of the package.

``atari5-spec fit --name NAME`` lands here. The version is fitted with the
default version's method and subsets (:mod:`.coefficients`), staged, and
moved into ``coefficients/NAME/`` together with the index, the descriptor and
a CHANGELOG entry, all or nothing, in one transaction (:mod:`atari5_spec.data.transaction`).
"""

from __future__ import annotations

import re
from pathlib import Path

from atari5_spec._version import __version__
from atari5_spec.data.datapackage import bump_version, descriptor_text, package_root, read_descriptor
from atari5_spec.data.errors import InputError
from atari5_spec.data.paths import package_target
from atari5_spec_maintainers.versioning import VERSION_NAME_PATTERN, changelog_with_entry, descriptor_with_stats
from atari5_spec.method import coefficients as coef
from atari5_spec.method import training

__all__ = ["fit_new_version"]


def fit_new_version(path: str | Path, name: str, description: str | None = None) -> Path:
    """Fit coefficient version ``name`` from the current data; older versions are untouched.

    Same method as the default version and the same subsets (the benchmark's
    games do not change), the current inclusion rule over every entry without
    an exclusion. The default version used by scoring does not change.
    """
    from atari5_spec.data.loading import load
    from atari5_spec.data.transaction import finished_by_recovery, package_transaction

    root = package_root(path, reader=False)  # writes: finishes an interrupted change under the lock
    if len(name) > 80 or not re.fullmatch(VERSION_NAME_PATTERN, name, re.ASCII):  # the length first
        raise InputError(f"version name {name!r}: use lower-case letters, digits and single '-', at most 80 "
                         "characters (e.g. 2026-11)")
    coefficients_dir = package_target(root, "coefficients", "the coefficients folder")
    package_target(root, f"coefficients/{name}", "the new version's folder")
    command = f"fit --name {name}"
    # The lock is held from the first read to the commit: a concurrent writer waits.
    with package_transaction(root, command) as change:
        if (coefficients_dir / name).exists():
            if finished_by_recovery(root, command):  # this very command was killed mid-commit and is now complete
                return coefficients_dir / name
            raise InputError(f"coefficient version {name!r} already exists: pick a new name")
        dataset = load(root)
        index = coef.read_index(coefficients_dir)
        base, _ = coef.read_version_tables(coefficients_dir, index["default"])
        rows = training.training_rows(dataset)
        fitted = coef.fit_version(rows, dataset.games, dataset.algorithms, base["subsets"])
        tables = coef.version_tables(fitted)
        descriptor = read_descriptor(root)
        new_version = bump_version(descriptor["version"], "minor")
        content = coef.manifest(
            name, fitted, base["subsets"],
            description or f"Refit of the {index['default']} models on the data of version {new_version}.",
            __version__, new_version, training.PAPER_RULE, "all entries without an exclusion", tables)
        version_files = dict(tables, **{"manifest.yaml": coef.manifest_text(content)})
        descriptor["version"] = new_version
        coef.register_version(descriptor, name)
        pending = {f"coefficients/{name}/{file}": text for file, text in tables.items()}
        descriptor = descriptor_with_stats(root, descriptor, pending)
        changelog_path = package_target(root, "CHANGELOG.md", "the changelog")
        changelog = changelog_path.read_text(encoding="utf-8") if changelog_path.is_file() else "# Changelog\n"
        line = (f"Coefficient version `{name}` (data {new_version}): {len(fitted.algorithms)} algorithms, "
                f"{len(fitted.training_rows)} training rows. The default version stays `{index['default']}`.")
        change.commit({
            "coefficients/index.yaml": coef.index_text(index["default"], index["versions"] + [name]),
            "datapackage.json": descriptor_text(descriptor),
            "CHANGELOG.md": changelog_with_entry(changelog, "Added", line),
        }, {f"coefficients/{name}": version_files})
    return coefficients_dir / name
