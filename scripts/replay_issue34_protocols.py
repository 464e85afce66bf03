"""Replay issue 34's protocol re-reading and paper links on a package, as one change (one minor version bump).

Usage::

    python scripts/replay_issue34_protocols.py [PACKAGE_DIR]

Applies ``scripts/protocol_evidence_2027-34-reread.csv`` (through ``update_protocol_evidence.apply``: protocol
evidence re-read from public texts, docs/protocol-facts.md says where) and ``scripts/paper_links_2027-34.csv``
(through ``update_paper_links.linked_text``: the Dopamine and Cleanba entries' papers) in one transaction, and
bumps the data package's minor version once. Both steps refuse contradictions and are idempotent, so after a merge
that moved main on (another data version, other entries) the same command brings the change over, and a second
run writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from atari5_spec.data.datapackage import read_descriptor  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec_maintainers.versioning import bumped_descriptor_text  # noqa: E402
from update_paper_links import linked_text  # noqa: E402
from update_protocol_evidence import apply as evidence_texts  # noqa: E402

EVIDENCE = HERE / "protocol_evidence_2027-34-reread.csv"
LINKS = HERE / "paper_links_2027-34.csv"
LATER_EVIDENCE = (HERE / "protocol_evidence_2028.csv",)  # data 1.96.0: facts re-read since, which a replay keeps


def superseded_pairs() -> frozenset:
    """(algorithm_id, field) of every row a later evidence file records."""
    import csv

    pairs = set()
    for path in LATER_EVIDENCE:
        with path.open(newline="", encoding="utf-8") as handle:
            pairs |= {(r["algorithm_id"], r["field"]) for r in csv.DictReader(handle)}
    return frozenset(pairs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT,
                        help="data package directory (default: this repository)")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "replay_issue34_protocols") as change:
        texts = evidence_texts(args.package, EVIDENCE, superseded_pairs())
        texts.pop("datapackage.json", None)  # one bump for both steps, below
        texts.update(linked_text(args.package, LINKS))
        if not texts:
            print(f"{args.package}: issue 34's protocol evidence and paper links are recorded already; nothing written")
            return 0
        texts["datapackage.json"] = bumped_descriptor_text(args.package, read_descriptor(args.package), texts)
        change.commit(texts)
    print(f"{args.package}: issue 34 protocol evidence and paper links recorded, data package "
          f"{read_descriptor(args.package)['version']} ({len(texts)} files written)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
