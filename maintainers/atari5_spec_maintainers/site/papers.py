"""The paper of each entry, as the site shows it: a link (arXiv, DOI or URL) or the reason there is none, and a
BibTeX entry built from the package's own fields (title, year, identifier) beside the Atari-5 citation.

Reads ``data/paper_links.csv`` (data 1.43.0); a package without the table gives every entry "no link recorded".
"""

from __future__ import annotations

__all__ = ["paper_links", "link_url", "paper_bibtex"]

_URLS = {"arxiv": "https://arxiv.org/abs/{}", "doi": "https://doi.org/{}", "url": "{}"}
_LABELS = {"arxiv": "arXiv:{}", "doi": "doi:{}", "url": "{}"}


def link_url(kind: str, link: str) -> str:
    """The address of an identifier of ``kind`` (arxiv, doi or url)."""
    return _URLS[kind].format(link)


def paper_links(dataset) -> dict[str, dict]:
    """algorithm_id -> {kind, link, url, label, read_from, reason} (url and label None for none-found)."""
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
            "read_from": row["read_from"], "reason": row["reason"]}
    return out


def _bib(text: str) -> str:
    """Text safe inside a BibTeX brace group (braces and backslashes dropped)."""
    return " ".join(str(text).replace("\\", " ").replace("{", "").replace("}", "").split())


def paper_bibtex(algorithm_id: str, title: str | None, year, link: dict | None) -> str | None:
    """A @misc entry for the entry's paper from the package's fields, or None without a title or a link.

    The package records no author list, so the entry says so in ``note`` rather than inventing one."""
    if not title or not link or not link.get("url"):
        return None
    key = "".join(c for c in algorithm_id if c.isalnum()) + (str(int(year)) if year else "")
    lines = [f"@misc{{{key},", f"  title = {{{{{_bib(title)}}}}},"]
    if year:
        lines.append(f"  year = {{{int(year)}}},")
    if link["kind"] == "arxiv":
        lines += [f"  eprint = {{{link['link']}}},", "  archivePrefix = {arXiv},"]
    elif link["kind"] == "doi":
        lines.append(f"  doi = {{{link['link']}}},")
    lines += [f"  url = {{{link['url']}}},",
              "  note = {Authors not recorded in the atari5-spec data package: complete them from the paper},", "}"]
    return "\n".join(lines)
