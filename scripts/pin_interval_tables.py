"""Write the interval table of every pinned calibration edition: calibration/intervals/<name>.csv (issue 32).

Usage::

    python scripts/pin_interval_tables.py [PACKAGE_DIR]

A versioned data event (minor version): for every calibration edition the package lists (every coefficient
version, every method, every edition), the table of interval half-widths derived from its pinned errors file by
:func:`atari5_spec.method.interval_table.interval_table` (docs/design/interval-tables.md,
``schemas/calibration-intervals.schema.json``), registered in datapackage.json with its hash; one transaction.
Editions pinned later get their table from ``evaluate --pin-calibration`` itself. Tables already written and
registered are left as they are; a replay on a package where every table is in place writes nothing. On a merged
main whose data version moved, run it again: it writes what is missing and bumps the version once. ``--refresh``
also rewrites every table that differs from the one its errors file gives now (``verify`` names them: e.g. when a
merge changed data/algorithms.csv's sources behind the ``sources`` column), again as one minor version.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from atari5_spec.data.datapackage import read_descriptor  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec_maintainers.versioning import bumped_descriptor_text, changelog_with_entry  # noqa: E402
from atari5_spec_maintainers.pinning.calibrations import interval_table_files, intervals_resource, pinned_calibration_names


def apply(root: Path, refresh: bool = False) -> dict[str, str]:
    """The new text of every file the change writes (relative path -> text); empty when nothing is missing (or, with
    ``refresh``, differs)."""
    descriptor = read_descriptor(root)
    registered = {r["name"] for r in descriptor["resources"]}
    names = []
    for version in [p.name for p in sorted((root / "coefficients").iterdir()) if p.is_dir()]:
        names += [n for n in pinned_calibration_names(root, version) if f"calibration-{n}" in registered]
    missing = [n for n in names if f"calibration-intervals-{n}" not in registered
               or not (root / "calibration" / "intervals" / f"{n}.csv").is_file()]
    if refresh:
        current = interval_table_files(root, [n for n in names if n not in missing])
        missing += [n for n in names if n not in missing and current[f"calibration/intervals/{n}.csv"]
                    != (root / "calibration" / "intervals" / f"{n}.csv").read_text(encoding="utf-8")]
    if not missing:
        return {}
    texts = interval_table_files(root, missing)
    for name in missing:
        if f"calibration-intervals-{name}" not in registered:
            descriptor["resources"].append(intervals_resource(name))
    texts["datapackage.json"] = bumped_descriptor_text(root, descriptor, texts)
    version = read_descriptor_version(texts["datapackage.json"])
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    what = ("interval tables written again from their calibrations' errors" if refresh else
            "the interval table of every pinned calibration edition")
    texts["CHANGELOG.md"] = changelog_with_entry(
        changelog, "Added",
        f"Data {version}: {what}, `calibration/intervals/<name>.csv` ({', '.join(f'`{n}`' for n in missing)}): per interval, subset, "
        "range and level the model half-width in log10 that `score` and the site apply, the claim and its "
        "out-of-sample evidence (docs/design/interval-tables.md); written by scripts/pin_interval_tables.py, "
        "recomputed by `verify`.")
    return texts


def read_descriptor_version(text: str) -> str:
    import json

    return json.loads(text)["version"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT,
                        help="data package directory (default: this repository)")
    parser.add_argument("--refresh", action="store_true",
                        help="also rewrite the tables that differ from what their errors files give now")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "pin_interval_tables") as change:
        texts = apply(args.package, args.refresh)
        if texts:
            change.commit(texts)
    written = sorted(t for t in texts if t.startswith("calibration/intervals/"))
    print(f"{args.package}: {len(written)} interval table(s) written, data package "
          f"{read_descriptor(args.package)['version']}" if written else f"{args.package}: nothing to write")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
