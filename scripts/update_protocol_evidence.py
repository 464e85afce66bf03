"""Record more protocol evidence on a package that has it already (data 1.32.0 and later, issue 26).

Usage::

    python scripts/update_protocol_evidence.py [PACKAGE_DIR] --evidence scripts/protocol_evidence_2026-11.csv

The evidence file has the columns of ``schemas/protocol-evidence.schema.json`` (algorithm_id, field, value,
status, source, location, verification) and one more, ``correction``: empty for an ordinary row, else a short
reason why the row's value replaces a different value that ``data/algorithms.csv`` holds (a recorded data
correction; CHANGELOG says so), and optionally ``note_drop``: a passage of the entry's ``protocol_note`` that the
new evidence makes untrue (e.g. "the probability is not stated"), removed where present. On a package whose ``data/protocol_evidence.csv`` exists
(``scripts/import_protocol_2026.py`` made it), in one transaction, the script:

* upserts the rows by (algorithm_id, field): a row replaces the package's row for that pair, or is added;
* fills the column of ``data/algorithms.csv`` a ``stated`` or ``derived`` row names where it is empty; a stated value that
  contradicts a filled cell, or a not-stated / not-found row beside a filled cell, is refused unless the row
  carries a ``correction`` (then the cell takes the row's value, or is emptied, and ``protocol_note`` of the
  entry says what was corrected in which data version);
* gives a budget stated alone its regime label (as the schema requires) and keeps the pointer to the evidence
  in ``protocol_note`` of every entry that has evidence;
* bumps the data package's minor version and sets the descriptor's hashes.

Run it again on the result and it finds nothing to change and writes nothing, so it can be replayed on a main
that moved on (other agents added) without harm: rows whose entry is missing there are an error naming the line.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/import_protocol_2026.py

from atari5_spec.data.datapackage import bump_version, descriptor_text, read_descriptor  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec.data.validation import regime_label  # noqa: E402
from atari5_spec_maintainers.versioning import descriptor_with_stats  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402
from import_protocol_2026 import MAX_NOTE, NOTE_POINTER, read_csv, same  # noqa: E402

EVIDENCE = "data/protocol_evidence.csv"
ALGORITHMS = "data/algorithms.csv"
SCHEMA = "schemas/protocol-evidence.schema.json"
CORRECTION = "correction"
NOTE_DROP = "note_drop"
GIVES_VALUE = ("stated", "derived")  # a derived value (statements joined) fills the column as a stated one does


def schema_problems(row: dict[str, str], fields: list[dict], where: str) -> list[str]:
    """The row against the schema's own constraints (required, enum, pattern, maxLength), before anything is written."""
    problems = []
    for spec in fields:
        name, rules = spec["name"], spec.get("constraints", {})
        value = row.get(name) or ""
        if value == "":
            if rules.get("required"):
                problems.append(f"{where}: column {name} is empty; the schema ({SCHEMA}) requires it")
            continue
        if "enum" in rules and value not in rules["enum"]:
            problems.append(f"{where}: column {name} is {value!r}; use one of {', '.join(rules['enum'])}")
        if "pattern" in rules and not re.fullmatch(rules["pattern"], value):
            problems.append(f"{where}: column {name} is {value!r}, which does not match {rules['pattern']}")
        if "maxLength" in rules and len(value) > rules["maxLength"]:
            problems.append(f"{where}: column {name} has {len(value)} characters; at most {rules['maxLength']}")
    return problems


def apply(root: Path, evidence_path: Path, superseded: frozenset = frozenset()) -> dict[str, str]:
    """The new text of every file the update writes (relative path -> text); empty when nothing changes.

    ``superseded``: (algorithm_id, field) pairs a later evidence file records anew; their rows here are skipped, so
    replaying an older file on a newer package never undoes later evidence."""
    descriptor = read_descriptor(root)
    if not any(r["name"] == "protocol_evidence" for r in descriptor["resources"]):
        raise SystemExit(f"{root}: no protocol evidence resource; run scripts/import_protocol_2026.py first")
    fields = json.loads((root / SCHEMA).read_text(encoding="utf-8"))["fields"]
    evidence_columns = [f["name"] for f in fields]
    columns, algorithms = read_csv((root / ALGORITHMS).read_text(encoding="utf-8"))
    by_id = {row["algorithm_id"]: row for row in algorithms}
    _, current = read_csv((root / EVIDENCE).read_text(encoding="utf-8"))
    merged = {(r["algorithm_id"], r["field"]): r for r in current}
    given_columns, given = read_csv(evidence_path.read_text(encoding="utf-8"))
    missing = [c for c in evidence_columns if c not in given_columns]
    if missing:
        raise SystemExit(f"{evidence_path}: missing column(s) {', '.join(missing)} (header: {', '.join(given_columns)})")
    version = bump_version(descriptor["version"], "minor")
    problems, seen, corrections = [], set(), []
    for line, row in enumerate(given, start=2):
        where = f"{evidence_path.name}, line {line}"
        row = {k: (v or "").strip() for k, v in row.items() if k is not None}
        if (row.get("algorithm_id"), row.get("field")) in superseded:
            continue
        problems += schema_problems(row, fields, where)
        key = (row["algorithm_id"], row["field"])
        if key in seen:
            problems.append(f"{where}: a second row for {key[0]} {key[1]}; keep one")
        seen.add(key)
        entry = by_id.get(row["algorithm_id"])
        if entry is None:
            problems.append(f"{where}: algorithm_id {row['algorithm_id']!r} is not in {ALGORITHMS}")
            continue
        if row["field"] not in entry:
            continue  # reported by the schema check
        cell, value, reason = entry[row["field"]], row["value"], row.get(CORRECTION, "")
        gives_value = row["status"] in GIVES_VALUE
        if not gives_value and value:
            problems.append(f"{where}: status {row['status']} needs an empty value (found {value!r})")
            continue
        if gives_value and not value:
            problems.append(f"{where}: status {row['status']} needs the value")
            continue
        differs = (cell != "" and not same(cell, value)) if gives_value else cell != ""
        if differs and not reason:
            problems.append(f"{where}: {row['field']} of {row['algorithm_id']} is {cell!r} in {ALGORITHMS}, the row "
                            f"says {value or row['status']!r}: reconcile them, or give the reason in column "
                            f"{CORRECTION} to record a correction")
            continue
        if differs:
            corrections.append((row["algorithm_id"], row["field"], cell, value, reason))
        if gives_value and (cell == "" or differs):
            entry[row["field"]] = value
        elif not gives_value:
            entry[row["field"]] = ""
        merged[key] = {c: row[c] for c in evidence_columns}
        drop = row.get(NOTE_DROP, "")
        if drop and drop in entry["protocol_note"]:
            entry["protocol_note"] = " ".join(entry["protocol_note"].replace(drop, "").split())
    if problems:
        raise SystemExit("\n".join(problems))
    regime_evidence = {a for a, f in merged if f == "regime"}
    for algorithm_id, field, old, new, reason in corrections:
        entry = by_id[algorithm_id]
        if field == "training_frames" and algorithm_id not in regime_evidence:
            entry["regime"] = regime_label(float(new)) if new else ""
        note = (f"Data {version}: {field} corrected from {old} to {new or 'empty'} ({reason}).")
        entry["protocol_note"] = (entry["protocol_note"] + " " + note).strip()
    for algorithm_id in sorted({a for a, _ in seen}):
        entry = by_id[algorithm_id]
        if entry["training_frames"] and not entry["regime"]:
            entry["regime"] = regime_label(float(entry["training_frames"]))
        if NOTE_POINTER not in entry["protocol_note"]:
            entry["protocol_note"] = (entry["protocol_note"] + " " + NOTE_POINTER).strip()
        if len(entry["protocol_note"]) > MAX_NOTE:
            problems.append(f"protocol_note of {algorithm_id} would exceed {MAX_NOTE} characters")
    if problems:
        raise SystemExit("\n".join(problems))
    field_order = {c: i for i, c in enumerate(columns)}
    rows = sorted(merged.values(), key=lambda r: (r["algorithm_id"], field_order[r["field"]]))
    texts = {ALGORITHMS: csv_text(columns, ([row[c] for c in columns] for row in algorithms)),
             EVIDENCE: csv_text(evidence_columns, ([row[c] for c in evidence_columns] for row in rows))}
    if all((root / path).read_text(encoding="utf-8") == text for path, text in texts.items()):
        return {}
    descriptor["version"] = version
    descriptor = descriptor_with_stats(root, descriptor, texts)
    texts["datapackage.json"] = descriptor_text(descriptor)
    for algorithm_id, field, old, new, reason in corrections:
        print(f"correction: {algorithm_id} {field}: {old!r} -> {new or 'empty'!r} ({reason})")
    return texts


EVIDENCE_COLUMNS = ["algorithm_id", "field", "value", "status", "source", "location", "verification"]


def record_rows(package: Path, rows: list[list[str]], label: str) -> None:
    """An import script's evidence rows (EVIDENCE_COLUMNS) recorded in ``package`` by :func:`main` (one data
    version; a replay writes nothing); ``label`` names the temporary evidence file in main's messages."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{label}.csv"
        path.write_text(csv_text(EVIDENCE_COLUMNS, rows), encoding="utf-8")
        if main([str(package), "--evidence", str(path)]):
            raise SystemExit("protocol evidence: not recorded")

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT, help="data package directory (default: this repository)")
    parser.add_argument("--evidence", type=Path, required=True,
                        help="the new reading of the papers (e.g. scripts/protocol_evidence_2026-11.csv)")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "update_protocol_evidence") as change:
        texts = apply(args.package, args.evidence)
        if not texts:
            print(f"{args.package}: the evidence is recorded already; nothing written")
            return 0
        change.commit(texts)
    version = read_descriptor(args.package)["version"]
    print(f"{args.package}: protocol evidence updated, data package {version} ({len(texts)} files written)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
