"""The paper of each entry, as the site shows it: a link (arXiv, DOI or URL) or the reason there is none, its
authors and venue where a text read gave them (data 1.97.0), and a BibTeX entry beside the Atari-5 citation, the
same entry `atari5-spec cite --algorithm ID` prints (:func:`atari5_spec.scoring.citation.paper_bibtex`).

Reads ``data/paper_links.csv`` (data 1.43.0); a package without the table gives every entry "no link recorded".
"""

from __future__ import annotations

from atari5_spec.scoring.citation import Paper, paper_url
from atari5_spec.scoring.citation import paper_bibtex as _entry_bibtex

__all__ = ["paper_links", "link_url", "paper_bibtex"]

_LABELS = {"arxiv": "arXiv:{}", "doi": "doi:{}", "url": "{}"}


def link_url(kind: str, link: str) -> str:
    """The address of an identifier of ``kind`` (arxiv, doi or url)."""
    return paper_url(kind, link)


def _shown_name(name: str) -> str:
    """'Last, First' -> 'First Last' for reading; 'others' -> 'and others'."""
    if name == "others":
        return "and others"
    family, _, given = name.partition(", ")
    return f"{given} {family}" if given else family


def paper_links(dataset) -> dict[str, dict]:
    """algorithm_id -> {kind, link, url, label, status, title, authors, venue, read_from, reason} (url and label None
    for none-found; status, title, authors and venue None where the table has no value or no such column)."""
    table = dataset.paper_links
    if table is None:
        return {}
    out = {}
    for row in table.astype(object).where(table.notna(), None).to_dict("records"):
        kind, link = row["link_kind"], row["link"]
        found = kind in _LABELS and link
        out[str(row["algorithm_id"])] = {
            "kind": kind, "link": link, "url": link_url(kind, link) if found else None,
            "label": _LABELS[kind].format(link) if found else None,
            "status": row.get("status"), "title": row.get("title"), "authors": row.get("authors"),
            "author_names": [_shown_name(n) for n in row["authors"].split(" and ")] if row.get("authors") else [],
            "venue": row.get("venue"), "read_from": row["read_from"], "reason": row["reason"]}
    return out


def paper_bibtex(algorithm_id: str, title: str | None, year, link: dict | None) -> str | None:
    """The @misc entry for the entry's paper (authors and venue where recorded), or None without a title or a link;
    the entry's title, else the link row's own title (an entry identified from its scores)."""
    if not link or not link.get("url"):
        return None
    title = title or link.get("title")
    year = None if year is None or year != year else str(int(float(year)))  # NaN: no year
    return _entry_bibtex(Paper(algorithm_id, title or None, year, link["kind"], link["link"], link.get("status"),
                               link.get("authors"), link.get("venue"), link.get("reason")))
