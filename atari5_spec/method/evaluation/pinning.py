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
from ..calibration import CALIBRATION_COLUMNS

__all__ = ["calibration_text", "pin_calibration", "calibration_mismatches", "CALIBRATION_SCHEMA"]

CALIBRATION_SCHEMA = "schemas/calibration.schema.json"
CHECKED_COLUMNS = ("estimate", "true_median", "log_error", "ratio")


def calibration_text(errors: pd.DataFrame) -> str:
    ordered = errors.sort_values(["subset", "kind", "agent"], kind="stable")
    return frame_csv_text(ordered, CALIBRATION_COLUMNS)


def _resource(version: str) -> dict:
    return table_resource(f"calibration-{version}", f"calibration/{version}.csv", CALIBRATION_SCHEMA,
                          f"Out-of-sample errors of {version} (prediction-interval calibration)")


def pin_calibration(path, version: str, update: bool = False) -> tuple[Path, str]:
    """Write calibration/<version>.csv from the current data; (path, new data version). All files or none."""
    from ...data.loading import load
    from ...data.transaction import finished_by_recovery, package_transaction
    from ...data.versioning import changelog_with_entry, descriptor_with_stats
    from . import version_errors

    root = package_root(path)
    relative = f"calibration/{version}.csv"
    command = f"evaluate --{'update' if update else 'pin'}-calibration {version}"
    # The lock is held from the first read to the commit: a concurrent writer waits.
    with package_transaction(root, command) as change:
        if finished_by_recovery(root, command):  # this very command was killed mid-commit and is now complete
            return root / relative, read_descriptor(root)["version"]
        if (root / relative).exists() and not update:
            raise InputError(f"{relative} exists: a pinned calibration changes only as a versioned event "
                             "(pass --update-calibration to record the new evidence)")
        dataset = load(root)
        _, errors = version_errors(dataset, version)
        text = calibration_text(errors)
        if (root / relative).exists() and (root / relative).read_text(encoding="utf-8") == text:
            raise InputError(f"{relative} already holds exactly these errors: nothing to update")
        descriptor = read_descriptor(root)
        descriptor["version"] = bump_version(descriptor["version"], "minor")
        if not any(r["name"] == f"calibration-{version}" for r in descriptor["resources"]):
            descriptor["resources"].append(_resource(version))
        descriptor = descriptor_with_stats(root, descriptor, {relative: text})
        held = errors[(errors["kind"] == "held-out") & (errors["subset"] == "Atari-5")]
        changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8") if (root / "CHANGELOG.md").exists() else "# Changelog\n"
        line = (f"Data {descriptor['version']}: {'updated' if update else 'pinned'} the out-of-sample errors of `{version}` "
                f"(`{relative}`: {len(held)} held-out agents and {int((errors['kind'] != 'held-out').sum() / errors['subset'].nunique())} "
                "leave-one-paper-out training agents per subset on average), the calibration of `score`'s prediction interval.")
        change.commit({relative: text, "datapackage.json": descriptor_text(descriptor),
                       "CHANGELOG.md": changelog_with_entry(changelog, "Added", line)})
    return root / relative, descriptor["version"]


def calibration_mismatches(dataset, version: str, tolerance: float) -> tuple[int, list[str]]:
    """(rows compared, mismatches) between calibration/<version>.csv and the errors recomputed from the data."""
    import json

    from ...data.loading import read_table
    from . import version_errors

    schema = json.loads((dataset.root / CALIBRATION_SCHEMA).read_text(encoding="utf-8"))
    pinned = read_table(dataset.root / "calibration" / f"{version}.csv", schema)
    _, errors = version_errors(dataset, version)
    merged = pinned.merge(errors, on=["subset", "agent"], how="left", suffixes=("", "_computed"), indicator=True)
    problems = []
    for row in merged.to_dict("records"):
        where = f"{version} {row['subset']} {row['agent']}"
        if row["_merge"] != "both":
            problems.append(f"{where}: pinned, but no longer computable from the data")
            continue
        for column in CHECKED_COLUMNS:
            if not abs(float(row[column]) - float(row[f"{column}_computed"])) <= tolerance:
                problems.append(f"{where} {column}: pinned {row[column]!r}, computed {row[f'{column}_computed']!r}")
    return len(pinned), problems
