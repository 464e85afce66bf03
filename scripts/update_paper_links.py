"""Fill paper links that were none-found, from a file of links read since (data 1.43.0 and later, issue 34).

Usage::

    python scripts/update_paper_links.py [PACKAGE_DIR] --links scripts/paper_links_2027-34.csv

The links file has the columns ``link_kind, link, read_from`` and either ``paper_title`` (one row per paper, matched
to the entries of ``data/algorithms.csv`` by their ``paper_title``, as ``scripts/add_paper_links.py`` matches them)
or ``algorithm_ids`` (space-separated entries, for papers the package has no title for), with the text the
identifier was read in; since data 1.95.0 (issue 48, ``scripts/paper_links_2028.csv``) also, optionally, any of the
schema's ``title, authors, venue, doi, status, reason`` (a ``doubtful`` row says why in ``reason``). A row whose
entry already holds the same link takes the new facts (authors, venue, ...); so does a none-found row given
none-found again with a new reason. In one transaction the script gives every entry of that paper the link in
``data/paper_links.csv`` where its row is ``none-found``, and a row where the entry has none yet (an entry merged by
``contribute add`` after the table was made); a row that already holds the same link is left as it is, a
row with a different link is refused (name the file and line; reconcile by hand). The values are checked against
``schemas/paper-links.schema.json`` before anything is written, and the data package's minor version is bumped.

Run it again on the result and it finds nothing to change and writes nothing, so it can be replayed on a main that
moved on (entries added or renamed): a paper that no entry names is an error naming the line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/import_protocol_2026.py, update_protocol_evidence.py

from atari5_spec.data.datapackage import read_descriptor  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec_maintainers.versioning import bumped_descriptor_text  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402
from import_protocol_2026 import read_csv  # noqa: E402
from update_protocol_evidence import schema_problems  # noqa: E402

LINKS = "data/paper_links.csv"
ALGORITHMS = "data/algorithms.csv"
SCHEMA = "schemas/paper-links.schema.json"
GIVEN = ("link_kind", "link", "read_from")  # and paper_title or algorithm_ids
NONE_FOUND = "none-found"
# Columns added in data 1.95.0 (issue 48): a table made before has none of them; its rows were read by the import
# that recorded them (scripts/add_paper_links.py, issue 34), so their status is read.
PAPER_COLUMNS = ("title", "authors", "venue", "doi")
DEFAULT_STATUS = "read"


def entries_of(link: dict, algorithms: list[dict]) -> list[str]:
    """The entries a given row names: its ``algorithm_ids`` (space-separated) or every entry with its ``paper_title``."""
    if link.get("algorithm_ids"):
        return sorted(set(link["algorithm_ids"].split()))
    return sorted(a["algorithm_id"] for a in algorithms if a["paper_title"] == link.get("paper_title"))


def linked_text(root: Path, links_path: Path) -> dict[str, str]:
    """{LINKS: new text} when a none-found row or an entry without a row gains a link, or a row gains the paper's
    authors, venue, title, DOI or status; {} when every given fact is recorded already."""
    descriptor = read_descriptor(root)
    if not any(r["name"] == "paper_links" for r in descriptor["resources"]):
        raise SystemExit(f"{root}: no paper_links resource; run scripts/add_paper_links.py first")
    fields = json.loads((root / SCHEMA).read_text(encoding="utf-8"))["fields"]
    columns = [f["name"] for f in fields]
    _, algorithms = read_csv((root / ALGORITHMS).read_text(encoding="utf-8"))
    known = {a["algorithm_id"] for a in algorithms}
    current_columns, rows = read_csv((root / LINKS).read_text(encoding="utf-8"))
    by_id = {r["algorithm_id"]: {c: r.get(c) or (DEFAULT_STATUS if c == "status" else "") for c in columns}
             for r in rows}
    changed = current_columns != columns  # the table gains the schema's new columns
    given_columns, given = read_csv(links_path.read_text(encoding="utf-8"))
    missing = [c for c in GIVEN if c not in given_columns]
    if not {"paper_title", "algorithm_ids"} & set(given_columns):
        missing.append("paper_title or algorithm_ids")
    if missing:
        raise SystemExit(f"{links_path}: missing column(s) {', '.join(missing)} (header: {', '.join(given_columns)})")
    problems = []
    for line, link in enumerate(given, start=2):
        where = f"{links_path.name}, line {line}"
        link = {k: (v or "").strip() for k, v in link.items() if k is not None}
        facts = {c: link.get(c, "") for c in columns if c in link and c != "algorithm_id"}
        facts.setdefault("reason", "")
        facts.setdefault("status", DEFAULT_STATUS)
        problems += schema_problems({**facts, "algorithm_id": "x"}, fields, where)
        none_found = link["link_kind"] == NONE_FOUND
        if none_found != (not link["link"]):
            problems.append(f"{where}: give a link with link_kind doi, arxiv or url, or none-found with no link")
            continue
        if none_found and not facts["reason"]:
            problems.append(f"{where}: none-found needs the reason")
            continue
        if facts["status"] == "doubtful" and not facts["reason"]:
            problems.append(f"{where}: a doubtful row needs the reason (what is doubtful)")
            continue
        ids = entries_of(link, algorithms)
        if not ids:
            problems.append(f"{where}: no entry of {ALGORITHMS} has paper_title {link.get('paper_title')!r}")
        problems += [f"{where}: {i!r} is not an entry of {ALGORITHMS}" for i in ids if i not in known]
        for algorithm_id in (i for i in ids if i in known):
            row = by_id.get(algorithm_id)
            if row is None or row["link_kind"] == NONE_FOUND or (row["link_kind"], row["link"]) == (
                    link["link_kind"], link["link"]):
                new = {**(row or {c: "" for c in columns}), **facts, "algorithm_id": algorithm_id}
                changed |= new != row
                by_id[algorithm_id] = new
            else:
                problems.append(f"{where}: {LINKS} links {algorithm_id} to {row['link_kind']} {row['link']}, the "
                                f"file says {link['link_kind']} {link['link']}: reconcile them by hand")
    if problems:
        raise SystemExit("\n".join(problems))
    if not changed:
        return {}
    text = csv_text(columns, ([by_id[i][c] for c in columns] for i in sorted(by_id)))
    return {} if text == (root / LINKS).read_text(encoding="utf-8") else {LINKS: text}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT,
                        help="data package directory (default: this repository)")
    parser.add_argument("--links", type=Path, required=True, help="the links read (e.g. scripts/paper_links_2027-34.csv)")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "update_paper_links") as change:
        texts = linked_text(args.package, args.links)
        if not texts:
            print(f"{args.package}: the links are recorded already; nothing written")
            return 0
        texts["datapackage.json"] = bumped_descriptor_text(args.package, read_descriptor(args.package), texts)
        change.commit(texts)
    print(f"{args.package}: paper links updated, data package {read_descriptor(args.package)['version']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
