"""The paper of each entry, as the site shows it: a link (arXiv, DOI or URL) or the reason there is none, and a
BibTeX entry built from the package's own fields (title, year, identifier; since data 1.95.0 the authors and venue
as read, and the row's status) beside the Atari-5 citation.

Reads ``data/paper_links.csv`` (data 1.43.0); a package without the table gives every entry "no link recorded".
"""

from __future__ import annotations

__all__ = ["paper_links", "link_url", "paper_bibtex"]

_URLS = {"arxiv": "https://arxiv.org/abs/{}", "doi": "https://doi.org/{}", "url": "{}"}
_LABELS = {"arxiv": "arXiv:{}", "doi": "doi:{}", "url": "{}"}


def link_url(kind: str, link: str) -> str:
    """The address of an identifier of ``kind`` (arxiv, doi or url)."""
    return _URLS[kind].format(link)


PAPER_FIELDS = ("title", "authors", "venue", "doi", "status")  # data 1.95.0 (issue 48); None in an older package


def paper_links(dataset) -> dict[str, dict]:
    """algorithm_id -> {kind, link, url, label, read_from, reason, title, authors, venue, doi, status} (url and
    label None for none-found; the paper fields None where the row, or an older package, has none)."""
    table = dataset.paper_links
    if table is None:
        return {}
    out = {}
    for row in table.astype(object).where(table.notna(), None).to_dict("records"):
        kind, link = row["link_kind"], row["link"]
        found = kind in _URLS and link
        out[str(row["algorithm_id"])] = {
            "kind": kind, "link": link, "url": link_url(kind, link) if found else None,
            "label": _LABELS[kind].format(link) if found else None,
            "read_from": row["read_from"], "reason": row["reason"],
            **{f: row.get(f) for f in PAPER_FIELDS}}
    return out


def _bib(text: str) -> str:
    """Text safe inside a BibTeX brace group (braces and backslashes dropped)."""
    return " ".join(str(text).replace("\\", " ").replace("{", "").replace("}", "").split())


def paper_bibtex(algorithm_id: str, title: str | None, year, link: dict | None) -> str | None:
    """A @misc entry for the entry's paper from the package's fields, or None without a title or a link.

    ``title`` is data/algorithms.csv's, else the link row's. Authors and venue are the link row's as read; where
    the row has no authors, ``note`` says so rather than inventing them, and a doubtful row says what is doubtful."""
    title = title or (link or {}).get("title")
    if not title or not link or not link.get("url"):
        return None
    key = "".join(c for c in algorithm_id if c.isalnum()) + (str(int(year)) if year else "")
    lines = [f"@misc{{{key},"]
    if link.get("authors"):
        lines.append(f"  author = {{{_bib(link['authors'])}}},")
    lines.append(f"  title = {{{{{_bib(title)}}}}},")
    if link.get("venue"):
        lines.append(f"  howpublished = {{{_bib(link['venue'])}}},")
    if year:
        lines.append(f"  year = {{{int(year)}}},")
    if link["kind"] == "arxiv":
        lines += [f"  eprint = {{{link['link']}}},", "  archivePrefix = {arXiv},"]
    if link["kind"] == "doi" or link.get("doi"):
        lines.append(f"  doi = {{{link['link'] if link['kind'] == 'doi' else link['doi']}}},")
    lines.append(f"  url = {{{link['url']}}},")
    notes = [] if link.get("authors") else ["Authors not recorded in the atari5-spec data package: complete them "
                                            "from the paper"]
    if link.get("status") == "doubtful":
        notes.append(f"Doubtful in the atari5-spec data package: {link['reason']}")
    if notes:
        lines.append(f"  note = {{{_bib('. '.join(notes))}}},")
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines + ["}"])
