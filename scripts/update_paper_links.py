"""Fill paper links that were none-found, from a file of links read since (data 1.43.0 and later, issue 34), and from
the upstream batch 2028's paper-links.csv with authors and venue (data 1.97.0, issue 48).

Usage::

    python scripts/update_paper_links.py [PACKAGE_DIR] --links scripts/paper_links_2027-34.csv
    python scripts/update_paper_links.py [PACKAGE_DIR] --upstream-2028 ../shared/upstream-2028/paper-links.csv

``--links``: a file with the columns ``paper_title, link_kind, link, read_from``: one row per paper, matched to the
entries of ``data/algorithms.csv`` by their ``paper_title`` (as ``scripts/add_paper_links.py`` matches them), with
the text the identifier was read in. Every entry of that paper gets the link in ``data/paper_links.csv`` where its
row is ``none-found``, and a row where the entry has none yet (an entry merged by ``contribute add`` after the table
was made); a row that already holds the same link is left as it is, a row with a different link is refused (name
the file and line; reconcile by hand).

``--upstream-2028 PATH``: the upstream batch's ``paper-links.csv`` (columns ``title, year, algorithm_ids, arxiv,
doi, url, authors, venue, source, evidence``), read in place where the maintainer keeps it (never copied into the
project). Each of its rows names its entries (``algorithm_ids``; entries of ``data/algorithms.csv`` with the same
``paper_title`` are the paper's too). A none-found entry gets the link (the arXiv id, else the DOI, else the URL),
``status`` (``doubtful`` for the rows the batch's paper-links.md lists as doubtful, :data:`DOUBTS`, with what is in
doubt as ``reason``; ``stated`` otherwise), ``authors``, ``venue``, ``title`` (only for an entry with no
``paper_title``) and ``read_from``: the upstream file and line, then the sources that row names. An entry that is
linked already gains authors and venue when its link is one of the row's identifiers; a different link, a title
that differs from the entry's ``paper_title``, an unknown id or different authors already recorded are refused,
naming the line. A row with no identifier keeps its entries none-found with the reason.

Both options may be given; everything is checked against ``schemas/paper-links.schema.json`` before anything is
written, all files are written in one transaction, and the data package's minor version is bumped. Run it again on
the result and it finds nothing to change and writes nothing, so it can be replayed on a main that moved on.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
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
from update_protocol_evidence import SCHEMA as _EVIDENCE_SCHEMA  # noqa: E402
from update_protocol_evidence import schema_problems as _schema_problems  # noqa: E402

LINKS = "data/paper_links.csv"
ALGORITHMS = "data/algorithms.csv"
SCHEMA = "schemas/paper-links.schema.json"
GIVEN = ("paper_title", "link_kind", "link", "read_from")
NONE_FOUND = "none-found"
UPSTREAM_NAME = "upstream-2028/paper-links.csv"
UPSTREAM_COLUMNS = ("title", "year", "algorithm_ids", "arxiv", "doi", "url", "authors", "venue", "source", "evidence")

# The rows upstream-2028/paper-links.md lists as doubtful, by their title in paper-links.csv, with what is in doubt
# (in this project's words). maintainers/tests/test_site.py checks, where the batch is at hand, that each is a row.
DOUBTS = {
    "DQN optimiser/loss study": "no text read names the paper of this table; the upstream file name REVISITING.csv "
                                "suggests Revisiting Rainbow (arXiv 2011.14826), but nothing read ties the table to it, "
                                "so no link is given (upstream-2028/paper-links.md, doubtful rows)",
    "GDI: Rethinking What Makes Reinforcement Learning Different From Supervised Learning":
        "the arXiv id was seen only in a proxied copy of the arXiv abstract page (upstream-2028/paper-links.md)",
    "Recurrent Independent Mechanisms": "the arXiv id was seen only as the name of a text file holding the paper; "
                                        "title, authors and venue come from other pages (upstream-2028/paper-links.md)",
    "Model-Free Episodic Control with State Aggregation":
        "the arXiv rendering titles the paper with Online State Aggregation; its abstract matches this title "
        "(upstream-2028/paper-links.md)",
    "Policy Optimization With Penalized Point Probability Distance: An Alternative To Proximal Policy Optimization":
        "only the first author was found: the author list ends in and others (upstream-2028/paper-links.md)",
    "Smaller World Models for Reinforcement Learning":
        "only the first author was found: the author list ends in and others (upstream-2028/paper-links.md)",
    "Incentivizing Exploration In Reinforcement Learning With Deep Predictive Models":
        "authors given with initials only, as in the sources (upstream-2028/paper-links.md)",
    "Distributed Deep Reinforcement Learning: Learn how to play Atari games in 21 minutes":
        "authors given with initials only, as in the sources (upstream-2028/paper-links.md)",
    "Distributed Prioritized Experience Replay":
        "the source record's own arXiv-id field gives 1708.05144, a slip; its links and BibTeX, and another paper's "
        "reference list, give 1803.00933, used here (upstream-2028/paper-links.md)",
    "Adaptive Rational Activations to Boost Deep Reinforcement Learning":
        "the package dates the paper 2021; authors and venue (ICLR 2024) were read from the 2024 arXiv version "
        "(upstream-2028/paper-links.md)",
    "Playing Atari with Six Neurons":
        "the IJCAI 2020 DOI is that of an extended abstract, so it is named in venue, not linked "
        "(upstream-2028/paper-links.md)",
    "SEED RL: Scalable and Efficient Deep-RL with Accelerated Central Inference":
        "the venue (ICLR 2020) was read on one page only (upstream-2028/paper-links.md)",
    "Exploration by Random Network Distillation":
        "the venue is ICLR 2019 per one source, ICLR 2018 per another list (upstream-2028/paper-links.md)",
    "SLM Lab benchmark results, Phase 4: Atari":
        "the URL is pinned to the imported commit with its section anchor; the authors are those of the README's "
        "SLM Lab citation, the package metadata names Wah Loon Keng only (upstream-2028/paper-links.md)",
}


def schema_problems(row: dict[str, str], fields: list[dict], where: str) -> list[str]:
    """The row against this table's schema (the shared check names the schema it was written for: say ours)."""
    return [p.replace(_EVIDENCE_SCHEMA, SCHEMA) for p in _schema_problems(row, fields, where)]


def _fields(root: Path) -> list[dict]:
    return json.loads((root / SCHEMA).read_text(encoding="utf-8"))["fields"]


def _current(root: Path, columns: list[str]) -> dict[str, dict[str, str]]:
    """The rows of data/paper_links.csv by entry, every schema column present (a table made before data 1.97 has no
    status, title, authors or venue: a linked row's status is then stated, the others empty)."""
    _, rows = read_csv((root / LINKS).read_text(encoding="utf-8"))
    out = {}
    for row in rows:
        full = {c: (row.get(c) or "") for c in columns}
        if "status" in full and not full["status"] and full["link_kind"] != NONE_FOUND:
            full["status"] = "stated"
        out[row["algorithm_id"]] = full
    return out


def _text(root: Path, columns: list[str], by_id: dict[str, dict[str, str]]) -> str:
    return csv_text(columns, ([by_id[i].get(c, "") for c in columns] for i in sorted(by_id)))


def _apply_links(links_path: Path, fields, algorithms, by_id) -> tuple[list[str], bool]:
    given_columns, given = read_csv(links_path.read_text(encoding="utf-8"))
    missing = [c for c in GIVEN if c not in given_columns]
    if missing:
        raise SystemExit(f"{links_path}: missing column(s) {', '.join(missing)} (header: {', '.join(given_columns)})")
    columns = [f["name"] for f in fields]
    problems, changed = [], False
    for line, link in enumerate(given, start=2):
        where = f"{links_path.name}, line {line}"
        link = {k: (v or "").strip() for k, v in link.items() if k is not None}
        problems += schema_problems({**link, "algorithm_id": "x", "reason": ""}, fields, where)
        if link["link_kind"] == NONE_FOUND or not link["link"]:
            problems.append(f"{where}: give a link (link_kind doi, arxiv or url and the identifier)")
            continue
        ids = sorted(a["algorithm_id"] for a in algorithms if a["paper_title"] == link["paper_title"])
        if not ids:
            problems.append(f"{where}: no entry of {ALGORITHMS} has paper_title {link['paper_title']!r}")
        found = dict(link_kind=link["link_kind"], link=link["link"], read_from=link["read_from"], reason="")
        if "status" in columns:
            found["status"] = "stated"
        for algorithm_id in ids:
            row = by_id.get(algorithm_id)
            if row is None:  # an entry merged after the table was made
                by_id[algorithm_id] = {**{c: "" for c in columns}, "algorithm_id": algorithm_id, **found}
                changed = True
            elif row["link_kind"] == NONE_FOUND:
                row.update(found)
                changed = True
            elif (row["link_kind"], row["link"]) != (link["link_kind"], link["link"]):
                problems.append(f"{where}: {LINKS} links {algorithm_id} to {row['link_kind']} {row['link']}, the "
                                f"file says {link['link_kind']} {link['link']}: reconcile them by hand")
    return problems, changed


def read_upstream(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line, row) for each row of the upstream paper-links.csv, the line where the row starts in the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SystemExit(f"{path}: cannot read the upstream paper links ({error})")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in UPSTREAM_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise SystemExit(f"{path}: missing column(s) {', '.join(missing)} (header: {', '.join(reader.fieldnames or [])});"
                         f" give the batch's paper-links.csv")
    out, start = [], reader.line_num + 1
    for row in reader:
        out.append((start, {k: (v or "").strip() for k, v in row.items() if k is not None}))
        start = reader.line_num + 1
    return out


def _base_title(title: str, titles: set[str]) -> str:
    """A title annotated in parentheses after another row's title ('X (a column of it)') is that row's title X."""
    match = re.fullmatch(r"(.+?) \((?:[^()]|\([^()]*\))*\)", title)
    return match.group(1) if match and match.group(1) in titles else title


def _apply_upstream(path: Path, fields, algorithms, by_id) -> tuple[list[str], bool]:
    columns = [f["name"] for f in fields]
    needed = ("status", "title", "authors", "venue")
    if any(c not in columns for c in needed):
        raise SystemExit(f"{SCHEMA} has no column(s) {', '.join(c for c in needed if c not in columns)}: the "
                         f"upstream import needs the schema of data 1.97.0")
    rows = read_upstream(path)
    titles = {row["title"] for _, row in rows}
    paper_title = {a["algorithm_id"]: a["paper_title"] for a in algorithms}
    problems, changed, claimed = [], False, {}
    for line, up in rows:
        where = f"{path.name}, line {line}"
        ids = up["algorithm_ids"].split()
        unknown = [i for i in ids if i not in paper_title]
        if unknown:
            problems.append(f"{where}: algorithm_ids names {', '.join(unknown)}, not in {ALGORITHMS}: fix the id or "
                            f"add the entry")
        ids = [i for i in ids if i in paper_title]
        if up["title"]:  # the paper's other entries (one title, one paper)
            ids += sorted(i for i, t in paper_title.items() if t and t == up["title"] and i not in ids)
        for algorithm_id in ids:
            if paper_title[algorithm_id] and paper_title[algorithm_id] != up["title"]:
                problems.append(f"{where}: {algorithm_id}'s paper_title in {ALGORITHMS} is "
                                f"{paper_title[algorithm_id]!r}, the file says {up['title']!r}: reconcile them by hand")
            if algorithm_id in claimed:
                problems.append(f"{where}: {algorithm_id} is named on line {claimed[algorithm_id]} too: keep one")
            claimed[algorithm_id] = line
        identifiers = [(k, up[k]) for k in ("arxiv", "doi", "url") if up[k]]
        source = f"{UPSTREAM_NAME}, line {line}: " + up["source"]
        doubt = DOUBTS.get(up["title"], "")
        if identifiers:
            kind, link = identifiers[0]
            found = dict(link_kind=kind, link=link, status="doubtful" if doubt else "stated", authors=up["authors"],
                         venue=up["venue"], read_from=source, reason=doubt)
        else:
            found = dict(link_kind=NONE_FOUND, link="", status="", authors="", venue="", read_from=source,
                         reason=doubt or f"no DOI, arXiv id or URL for this paper appears in the texts read "
                                         f"({UPSTREAM_NAME}, line {line}); not filled from memory")
        problems += schema_problems({**found, "algorithm_id": "x", "title": _base_title(up["title"], titles)},
                                    fields, where)
        for algorithm_id in ids:
            row = by_id.get(algorithm_id)
            title = "" if paper_title[algorithm_id] else _base_title(up["title"], titles)
            if row is None or row["link_kind"] == NONE_FOUND:
                new = {**{c: "" for c in columns}, "algorithm_id": algorithm_id, **found, "title": title}
            elif (row["link_kind"], row["link"]) in identifiers:  # linked already, to this paper: authors and venue
                if row["authors"] and row["authors"] != up["authors"]:
                    problems.append(f"{where}: {LINKS} gives {algorithm_id} the authors {row['authors']!r}, the file "
                                    f"says {up['authors']!r}: reconcile them by hand")
                    continue
                read_from = row["read_from"]
                if f"{UPSTREAM_NAME}, line {line}" not in read_from:
                    read_from = f"{read_from}; authors and venue: {source}"
                new = {**row, "authors": up["authors"], "venue": up["venue"], "read_from": read_from}
                if not row["title"]:
                    new["title"] = title
            else:
                problems.append(f"{where}: {LINKS} links {algorithm_id} to {row['link_kind']} {row['link']}, the "
                                f"file says {', '.join(f'{k} {v}' for k, v in identifiers) or 'none'}: reconcile them by "
                                f"hand")
                continue
            if new != row:
                by_id[algorithm_id] = new
                changed = True
    return problems, changed


def linked_text(root: Path, links_path: Path | None, upstream: Path | None = None) -> dict[str, str]:
    """{LINKS: new text} when a none-found row or an entry without a row gains a link (or a linked row its authors
    and venue, or the table the columns of its schema), {} when every link is recorded already."""
    descriptor = read_descriptor(root)
    if not any(r["name"] == "paper_links" for r in descriptor["resources"]):
        raise SystemExit(f"{root}: no paper_links resource; run scripts/add_paper_links.py first")
    fields = _fields(root)
    columns = [f["name"] for f in fields]
    _, algorithms = read_csv((root / ALGORITHMS).read_text(encoding="utf-8"))
    before = (root / LINKS).read_text(encoding="utf-8")
    by_id = _current(root, columns)
    problems, changed = [], False
    if links_path is not None:
        found, changed = _apply_links(links_path, fields, algorithms, by_id)
        problems += found
    if upstream is not None:
        found, more = _apply_upstream(upstream, fields, algorithms, by_id)
        problems += found
        changed = changed or more
    if problems:
        raise SystemExit("\n".join(problems))
    if not changed:
        return {}
    text = _text(root, columns, by_id)
    return {LINKS: text} if text != before else {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT,
                        help="data package directory (default: this repository)")
    parser.add_argument("--links", type=Path, default=None,
                        help="the links read (e.g. scripts/paper_links_2027-34.csv)")
    parser.add_argument("--upstream-2028", dest="upstream", type=Path, default=None, metavar="PATH",
                        help="the upstream batch 2028's paper-links.csv, read in place (never copied)")
    args = parser.parse_args(argv)
    if args.links is None and args.upstream is None:
        parser.error("give --links FILE, --upstream-2028 PATH or both")
    with package_transaction(args.package, "update_paper_links") as change:
        texts = linked_text(args.package, args.links, args.upstream)
        if not texts:
            print(f"{args.package}: the links are recorded already; nothing written")
            return 0
        texts["datapackage.json"] = bumped_descriptor_text(args.package, read_descriptor(args.package), texts)
        change.commit(texts)
    print(f"{args.package}: paper links updated, data package {read_descriptor(args.package)['version']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
