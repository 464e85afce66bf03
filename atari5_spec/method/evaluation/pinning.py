"""Pinning a version's out-of-sample errors as calibration/<version>.csv, and checking them again.

The prediction interval ``atari5-spec score`` prints is only as good as the
errors it is calibrated on, so they are pinned like coefficients: written once
(a versioned data event: minor version bump and a CHANGELOG line), recomputed
by ``atari5-spec verify`` from the data for exactly the agents the file lists.
New evidence (more held-out agents) becomes a new calibration with
``--update-calibration``, never a silent change.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...data.datapackage import bump_version, descriptor_text, package_root, read_descriptor, table_resource
from ...data.errors import InputError
from ...data.writing import frame_csv_text
from ..calibration import CALIBRATION_COLUMNS, CALIBRATION_METHODS, IN_RANGE_COLUMNS, IN_RANGE_MIN

__all__ = ["calibration_text", "pin_calibration", "calibration_mismatches", "calibration_names", "CALIBRATION_SCHEMA",
           "IN_RANGE_SCHEMA"]

CALIBRATION_SCHEMA = "schemas/calibration.schema.json"
IN_RANGE_SCHEMA = "schemas/calibration-in-range.schema.json"
SCHEMAS = {"pooled": CALIBRATION_SCHEMA, "in-range": IN_RANGE_SCHEMA}
CHECKED_COLUMNS = ("estimate", "true_median", "log_error", "ratio")


def with_range(errors: pd.DataFrame) -> pd.DataFrame:
    """The errors with the in-range method's ``range`` column (estimate >= 40: 'in range', else 'extrapolation')."""
    return errors.assign(range=["in range" if e >= IN_RANGE_MIN else "extrapolation" for e in errors["estimate"]])


def calibration_text(errors: pd.DataFrame, method: str = "pooled") -> str:
    ordered = errors.sort_values(["subset", "kind", "agent"], kind="stable")
    if method == "in-range":
        return frame_csv_text(with_range(ordered), IN_RANGE_COLUMNS)
    return frame_csv_text(ordered, CALIBRATION_COLUMNS)


def calibration_names(version: str) -> dict[str, str]:
    """method -> calibration name (``paper-2023``, ``paper-2023.in-range``) of a coefficient version."""
    return {method: version + suffix for method, (suffix, _) in CALIBRATION_METHODS.items()}


def _split_name(name: str) -> tuple[str, str]:
    """(coefficient version, method) of a calibration name."""
    for method, (suffix, _) in CALIBRATION_METHODS.items():
        if suffix and name.endswith(suffix):
            return name[: -len(suffix)], method
    return name, "pooled"


def _resource(version: str, method: str = "pooled") -> dict:
    name = version + CALIBRATION_METHODS[method][0]
    what = ("prediction-interval calibration" if method == "pooled"
            else f"prediction-interval calibration, method {method}: {CALIBRATION_METHODS[method][1]}")
    return table_resource(f"calibration-{name}", f"calibration/{name}.csv", SCHEMAS[method],
                          f"Out-of-sample errors of {version} ({what})")


def pin_calibration(path, version: str, update: bool = False, method: str = "pooled") -> tuple[Path, str]:
    """Write calibration/<version>[.<method>].csv from the current data; (path, new data version). All files or
    none."""
    from ...data.loading import load
    from ...data.transaction import finished_by_recovery, package_transaction
    from ...data.versioning import changelog_with_entry, descriptor_with_stats
    from . import version_errors

    if method not in CALIBRATION_METHODS:
        raise InputError(f"unknown calibration method {method!r}; known: {', '.join(CALIBRATION_METHODS)}")
    root = package_root(path)
    name = version + CALIBRATION_METHODS[method][0]
    relative = f"calibration/{name}.csv"
    command = f"evaluate --{'update' if update else 'pin'}-calibration {version} ({method})"
    # The lock is held from the first read to the commit: a concurrent writer waits.
    with package_transaction(root, command) as change:
        if finished_by_recovery(root, command):  # this very command was killed mid-commit and is now complete
            return root / relative, read_descriptor(root)["version"]
        if (root / relative).exists() and not update:
            raise InputError(f"{relative} exists: a pinned calibration changes only as a versioned event "
                             "(pass --update-calibration to record the new evidence)")
        dataset = load(root)
        _, errors = version_errors(dataset, version)
        text = calibration_text(errors, method)
        if (root / relative).exists() and (root / relative).read_text(encoding="utf-8") == text:
            raise InputError(f"{relative} already holds exactly these errors: nothing to update")
        descriptor = read_descriptor(root)
        descriptor["version"] = bump_version(descriptor["version"], "minor")
        if not any(r["name"] == f"calibration-{name}" for r in descriptor["resources"]):
            descriptor["resources"].append(_resource(version, method))
        descriptor = descriptor_with_stats(root, descriptor, {relative: text})
        held = errors[(errors["kind"] == "held-out") & (errors["subset"] == "Atari-5")]
        changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8") if (root / "CHANGELOG.md").exists() else "# Changelog\n"
        line = (f"Data {descriptor['version']}: {'updated' if update else 'pinned'} the out-of-sample errors of `{version}` "
                + (f"for the `{method}` calibration " if method != "pooled" else "") +
                f"(`{relative}`: {len(held)} held-out agents and {int((errors['kind'] != 'held-out').sum() / errors['subset'].nunique())} "
                "leave-one-paper-out training agents per subset on average), the calibration of `score`'s prediction interval.")
        change.commit({relative: text, "datapackage.json": descriptor_text(descriptor),
                       "CHANGELOG.md": changelog_with_entry(changelog, "Added", line)})
    return root / relative, descriptor["version"]


def calibration_mismatches(dataset, name: str, tolerance: float) -> tuple[int, list[str]]:
    """(rows compared, mismatches) between calibration/<name>.csv (``<version>`` or ``<version>.<method>``) and the
    errors recomputed from the data."""
    import json

    from ...data.loading import read_table
    from . import version_errors

    version, method = _split_name(name)
    schema = json.loads((dataset.root / SCHEMAS[method]).read_text(encoding="utf-8"))
    pinned = read_table(dataset.root / "calibration" / f"{name}.csv", schema)
    _, errors = version_errors(dataset, version)
    if method == "in-range":
        errors = with_range(errors)
    merged = pinned.merge(errors, on=["subset", "agent"], how="left", suffixes=("", "_computed"), indicator=True)
    problems = []
    for row in merged.to_dict("records"):
        where = f"{name} {row['subset']} {row['agent']}"
        if row["_merge"] != "both":
            problems.append(f"{where}: pinned, but no longer computable from the data")
            continue
        for column in CHECKED_COLUMNS:
            if not abs(float(row[column]) - float(row[f"{column}_computed"])) <= tolerance:
                problems.append(f"{where} {column}: pinned {row[column]!r}, computed {row[f'{column}_computed']!r}")
        if method == "in-range" and row["range"] != row["range_computed"]:
            problems.append(f"{where} range: pinned {row['range']!r}, computed {row['range_computed']!r}")
    return len(pinned), problems
