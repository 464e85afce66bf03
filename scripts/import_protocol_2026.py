"""Record where each protocol fact of the entries comes from (data 1.25.0, issue 26).

Usage::

    python scripts/import_protocol_2026.py [PACKAGE_DIR] [--evidence scripts/protocol_evidence_2026.csv]

``scripts/protocol_evidence_2026.csv`` is the reading of the papers: one row per (entry, protocol field) with
the value, its status (stated / not-stated / not-found), the source (paper by authors and year, or a repository
file), the location in it (section, table, appendix, file) and whether that text was read when the row was
recorded (``read``) or recorded from the maintainers' knowledge of the paper with its location (``recalled``:
check it there before relying on it). This script, run once on a package at data 1.23.0 or later:

* copies those rows to ``data/protocol_evidence.csv`` (a new resource, schema
  ``schemas/protocol-evidence.schema.json``), sorted by entry and field;
* fills the column of ``data/algorithms.csv`` that a ``stated`` row names where it is empty (a stated value
  that contradicts a filled cell is an error: the evidence must be reconciled by hand, not overwrite);
* appends a pointer to the evidence to ``protocol_note`` of every entry it fills a fact of (``protocol_note``
  is required once a protocol fact is given);
* adds the empty ``data/cross_checks.csv`` resource (filled by ``scripts/import_atari100k.py``);
* bumps the data package's minor version (on main: 1.24.0 -> 1.25.0) and sets the descriptor's hashes; one transaction.

"not-stated" records that the source describes its protocol at the location and is silent on the field;
"not-found" that the field could not be settled from what was read. Both leave the column empty.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from atari5_spec.data.datapackage import read_descriptor, table_resource  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec.data.validation import regime_label  # noqa: E402
from atari5_spec_maintainers.versioning import bumped_descriptor_text  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402

FIRST_VERSION = "1.23.0"  # the data the evidence was read against (1.24.0 adds calibrations only)
NEW_RESOURCES = [
    ("protocol_evidence", "Protocol evidence", "data/protocol_evidence.csv", "schemas/protocol-evidence.schema.json",
     "Where each protocol fact of an entry is stated (source and location), or where its source is silent on it."),
    ("cross_checks", "Cross-checks", "data/cross_checks.csv", "schemas/cross-checks.schema.json",
     "One algorithm's per-game numbers as two sources give them, compared; disagreements are kept, not resolved."),
]
NOTE_POINTER = "Protocol evidence per field (source, location): data/protocol_evidence.csv."
MAX_NOTE = 1000


def read_csv(text: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return list(reader.fieldnames or []), list(reader)


def schema_columns(root: Path, schema: str) -> list[str]:
    import json

    return [f["name"] for f in json.loads((root / schema).read_text(encoding="utf-8"))["fields"]]


def same(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def apply(root: Path, evidence_path: Path) -> dict[str, str]:
    """The new text of every file the import writes (relative path -> text)."""
    descriptor = read_descriptor(root)
    if tuple(map(int, descriptor["version"].split("."))) < tuple(map(int, FIRST_VERSION.split("."))):
        raise SystemExit(f"{root}: data package version {descriptor['version']}, expected {FIRST_VERSION} or later")
    if any(r["name"] == "protocol_evidence" for r in descriptor["resources"]):
        raise SystemExit(f"{root}: the protocol evidence is recorded already (resource protocol_evidence)")
    columns, algorithms = read_csv((root / "data" / "algorithms.csv").read_text(encoding="utf-8"))
    by_id = {row["algorithm_id"]: row for row in algorithms}
    evidence_columns = schema_columns(root, NEW_RESOURCES[0][3])
    _, evidence = read_csv(evidence_path.read_text(encoding="utf-8"))
    problems, filled = [], set()
    for line, row in enumerate(evidence, start=2):
        where = f"{evidence_path.name}, line {line}"
        entry = by_id.get(row["algorithm_id"])
        if entry is None:
            problems.append(f"{where}: algorithm_id {row['algorithm_id']!r} is not in data/algorithms.csv")
            continue
        cell = entry[row["field"]]
        if row["status"] == "stated":
            if cell == "":
                entry[row["field"]] = row["value"]
                filled.add(row["algorithm_id"])
            elif not same(cell, row["value"]):
                problems.append(f"{where}: {row['field']} of {row['algorithm_id']} is {cell!r} in data/algorithms.csv, "
                                f"the evidence says {row['value']!r}: reconcile them by hand")
        elif row["value"] or cell:
            problems.append(f"{where}: status {row['status']} needs an empty value and an empty "
                            f"{row['field']} in data/algorithms.csv (found {row['value']!r} and {cell!r})")
    for algorithm_id in sorted(filled):  # a budget stated alone gets its regime label, as the schema requires
        entry = by_id[algorithm_id]
        if entry["training_frames"] and not entry["regime"]:
            entry["regime"] = regime_label(float(entry["training_frames"]))
    for algorithm_id in sorted({r["algorithm_id"] for r in evidence} & set(by_id)):
        entry = by_id[algorithm_id]
        if NOTE_POINTER not in entry["protocol_note"]:
            note = (entry["protocol_note"] + " " + NOTE_POINTER).strip()
            if len(note) > MAX_NOTE:
                problems.append(f"protocol_note of {algorithm_id} would exceed {MAX_NOTE} characters")
            entry["protocol_note"] = note
    if problems:
        raise SystemExit("\n".join(problems))
    field_order = {c: i for i, c in enumerate(columns)}
    evidence.sort(key=lambda r: (r["algorithm_id"], field_order[r["field"]]))
    texts = {"data/algorithms.csv": csv_text(columns, ([row[c] for c in columns] for row in algorithms)),
             "data/protocol_evidence.csv": csv_text(evidence_columns,
                                                    ([row[c] for c in evidence_columns] for row in evidence))}
    texts["data/cross_checks.csv"] = csv_text(schema_columns(root, NEW_RESOURCES[1][3]), [])
    for name, title, path, schema, description in NEW_RESOURCES:
        if not any(r["name"] == name for r in descriptor["resources"]):
            at = next(i for i, r in enumerate(descriptor["resources"]) if r["name"] == "seed_scores") + 1
            descriptor["resources"].insert(at, table_resource(name, path, schema, title, description))
    texts["datapackage.json"] = bumped_descriptor_text(root, descriptor, texts)
    return texts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT, help="data package directory (default: this repository)")
    parser.add_argument("--evidence", type=Path, default=ROOT / "scripts" / "protocol_evidence_2026.csv",
                        help="the reading of the papers (default: scripts/protocol_evidence_2026.csv)")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "import_protocol_2026") as change:
        texts = apply(args.package, args.evidence)
        change.commit(texts)
    version = read_descriptor(args.package)["version"]
    print(f"{args.package}: protocol evidence recorded, data package {version} ({len(texts)} files written)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
