"""What to put in a paper: the Atari-5 paper, atari5-spec at the versions used, the data's sources, a sentence.

``atari5-spec cite`` prints these as BibTeX, CFF, APA or JSON. The entries
are built from the versions of this install (code: ``__version__`` and
``__release_date__``; data: datapackage.json ``version``; the coefficient
version and its calibration) so what is printed is what computed the number.
With ``sources=True`` every source (data/sources.csv) of the rows a result
depends on is cited too: the coefficient version's training rows
(coefficients/<version>/training_rows.csv), the agents of the calibration
``score`` uses (calibration/<version>*.csv) and the source of the
normalisation constants. With ``algorithms=(ID, ...)`` each entry's own paper
is cited too, from data/paper_links.csv (data 1.97.0: with its authors and
venue where a text read gave them; :func:`paper_bibtex`, the entry the site
shows on the algorithm's page).

There is no DOI yet: :data:`DOI` stays None until the first archived release
has one (CONTRIBUTING.md, "Releasing"), and nothing printed pretends otherwise.

csv and the standard library only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from .._version import __release_date__, __version__
from ..data.datapackage import package_root
from ..method.calibration import read_calibration
from ..method.pinned import load_coefficient_set
from .signature import data_package_version, parse_signature

__all__ = ["Citation", "Source", "Paper", "citation", "paper", "paper_bibtex", "as_bibtex", "as_cff", "as_apa", "as_json", "DOI", "REPOSITORY_URL",
           "PAPER",
           "SOFTWARE_TITLE", "FORMATS"]

# Set at the release that first gets an archive DOI (CONTRIBUTING.md, "Releasing"); None until then.
DOI: str | None = None
# The repository's public address: the one project URL field, kept equal to pyproject.toml [project.urls]
# Source and CITATION.cff repository-code (tests/test_citation.py). None until the repository has its public
# address (CONTRIBUTING.md, "Releasing", step 3): no placeholder is ever printed.
REPOSITORY_URL: str | None = None
FORMATS = ("bibtex", "cff", "apa", "json")
SOFTWARE_TITLE = "atari5-spec: the Atari-5 benchmark as a data package and reference implementation"
SOFTWARE_AUTHOR = "atari5-spec contributors"
PAPER = {
    "key": "aitchison2023atari5",
    "title": "Atari-5: Distilling the Arcade Learning Environment down to Five Games",
    "authors": (("Aitchison", "Matthew"), ("Sweetser", "Penny"), ("Hutter", "Marcus")),
    "booktitle": "Proceedings of the 40th International Conference on Machine Learning",
    "series": "Proceedings of Machine Learning Research",
    "volume": "202",
    "publisher": "PMLR",
    "year": "2023",
    "arxiv": "2210.02019",
    "url": "https://arxiv.org/abs/2210.02019",
}
# Where the normalisation constants of a label come from (data/sources.csv ids).
NORMALISATION_SOURCES = {"agent57-human": ("agent57-2020",)}


class Source(NamedTuple):
    """One row of data/sources.csv that a result depends on, with how many of its rows it uses."""

    source_id: str
    title: str
    kind: str
    year: str
    repository: str
    commit: str
    path: str
    licence: str
    n_rows: int


class Paper(NamedTuple):
    """An entry's paper as data/paper_links.csv records it (authors and venue from data 1.97.0; empty if unknown)."""

    algorithm_id: str
    title: str | None
    year: str | None
    link_kind: str               # arxiv, doi, url or none-found
    link: str | None
    status: str | None           # stated or doubtful (None for none-found or a table before data 1.97)
    authors: str | None          # BibTeX names, "Last, First and ..."
    venue: str | None
    reason: str | None           # none-found: why; doubtful: what is in doubt

    @property
    def url(self) -> str | None:
        return paper_url(self.link_kind, self.link) if self.link else None

    @property
    def author_names(self) -> tuple[str, ...]:
        """The authors one by one, as recorded ("and others" kept as "others")."""
        return tuple(self.authors.split(" and ")) if self.authors else ()


class Citation(NamedTuple):
    code_version: str
    release_date: str | None    # None for a release other than this install's
    data_version: str
    coefficients: str           # "<version>@<digest>"
    calibration: str | None     # "<version>@<digest>" or None
    signature: str | None       # a signature given by the user, quoted in the sentence
    sources: tuple[Source, ...]  # empty unless asked for
    papers: tuple[Paper, ...] = ()  # the papers of the entries asked for (algorithms=...)

    @property
    def sentence(self) -> str:
        """The sentence to put next to the number."""
        pinned = f"coefficient version {self.coefficients}"
        if self.calibration:
            pinned += f", calibration {self.calibration}"
        text = (f"Atari-5 scores (Aitchison, Sweetser and Hutter, 2023) were computed with atari5-spec "
                f"{self.code_version} (data package {self.data_version}; {pinned})")
        if self.signature:
            return text + f"; signature [{self.signature}]."
        return text + "; the signature printed next to each score pins every setting."


def _rows(path: Path) -> list[dict[str, str]]:
    from ..data.paths import read_package_rows

    return read_package_rows(path)


def _source_counts(root: Path, coefficients) -> dict[str, int]:
    """source_id -> number of data rows the version's fit and calibration used from it."""
    scores = {row["score_id"]: row for row in _rows(root / "data" / "scores.csv")}
    counts: dict[str, int] = {}
    training = coefficients.path / "training_rows.csv"
    used = {row["score_id"] for row in _rows(training)} if training.is_file() else set()
    calibration = read_calibration(coefficients.path)  # the one score uses
    held_out = {row["algorithm_id"] for row in calibration.rows} if calibration else set()
    for score_id, row in scores.items():
        # the fit's rows, and the rows behind the held-out agents' true medians (calibration)
        if score_id in used or (row["algorithm_id"] in held_out and row["use_in_fit"] == "true"):
            counts[row["source_id"]] = counts.get(row["source_id"], 0) + 1
    for source in NORMALISATION_SOURCES.get(coefficients.normalisation_label, ()):
        counts[source] = counts.get(source, 0) + 57  # one random and one human constant per game
    return counts


def _sources(root: Path, coefficients) -> tuple[Source, ...]:
    counts = _source_counts(root, coefficients)
    out = []
    for row in _rows(root / "data" / "sources.csv"):
        if row["source_id"] in counts:
            out.append(Source(row["source_id"], row["title"], row["kind"], row["year"], row["repository"],
                              row["commit"], row["repository_path"] or row["upstream_file"], row["licence"],
                              counts[row["source_id"]]))
    return tuple(out)


_PAPER_URLS = {"arxiv": "https://arxiv.org/abs/{}", "doi": "https://doi.org/{}", "url": "{}"}


def paper_url(kind: str, link: str) -> str:
    """The address of an identifier of ``kind`` (arxiv, doi or url)."""
    return _PAPER_URLS[kind].format(link)


def paper(algorithm_id: str, root: Path | None = None) -> Paper:
    """The paper data/paper_links.csv records for the entry ``algorithm_id``, with the entry's paper title and year
    from data/algorithms.csv (the link row's own title where the entry has none).

    Raises InputError naming the entry for an id data/algorithms.csv does not have or a package without the table."""
    from ..data.errors import InputError

    package = package_root(root)
    algorithms = {row["algorithm_id"]: row for row in _rows(package / "data" / "algorithms.csv")}
    if algorithm_id not in algorithms:
        raise InputError(f"cite --algorithm {algorithm_id}: no entry of data/algorithms.csv has this id; "
                         f"`atari5-spec search` finds an entry's id")
    table = package / "data" / "paper_links.csv"
    links = {row["algorithm_id"]: row for row in _rows(table)} if table.is_file() else {}
    if algorithm_id not in links:
        raise InputError(f"cite --algorithm {algorithm_id}: data/paper_links.csv has no row for this entry (data "
                         f"1.43.0 or later records one per entry)")
    meta, row = algorithms[algorithm_id], links[algorithm_id]

    def text(value):
        return value or None
    return Paper(algorithm_id, text(meta.get("paper_title")) or text(row.get("title")), text(meta.get("year")),
                 row["link_kind"], text(row["link"]), text(row.get("status")), text(row.get("authors")),
                 text(row.get("venue")), text(row.get("reason")))


def citation(coefficients=None, signature: str | None = None, sources: bool = False,
             root: Path | None = None, algorithms=()) -> Citation:
    """What to cite for a number computed by this install, or by the versions a ``signature`` names.

    Parameters
    ----------
    coefficients : str, optional
        A coefficient version name (default: the default version, or the signature's).
    signature : str, optional
        A signature line: its code, data, coefficient and calibration versions
        are cited (a signature of another release is cited as that release;
        its date is then not known here).
    sources : bool, default False
        Also list the data's sources (papers and repositories) with how many
        numbers each gave.
    root : Path, optional
        The package (default: the one you are in, else the installed copy).
    algorithms : sequence of str, optional
        Entry ids (data/algorithms.csv) whose own papers are cited too
        (:func:`paper`; an entry with no paper found is kept, with its reason).

    Returns
    -------
    Citation
        The versions and sources; ``as_bibtex``, ``as_cff``, ``as_apa`` and
        ``as_json`` in :mod:`atari5_spec.scoring.citation` format it, as
        ``atari5-spec cite --format`` does.
    """
    parsed = parse_signature(signature) if signature else None
    version = coefficients or (parsed.coefficients if parsed else None)
    coefficient_set = load_coefficient_set(version, root)
    package = package_root(root)
    found = sources and _sources(package, coefficient_set) or ()
    papers = tuple(paper(a, package) for a in dict.fromkeys(algorithms))
    if parsed is not None:
        code = parsed.code_version
        calibration = f"{parsed.calibration}@{parsed.calibration_digest}" if parsed.calibration else None
        return Citation(code, __release_date__ if code == __version__ else None,
                        parsed.data_version or data_package_version(package),
                        f"{parsed.coefficients}@{parsed.coefficients_digest}", calibration, str(parsed), found, papers)
    pinned = read_calibration(coefficient_set.path)  # the calibration score uses
    calibration = f"{pinned.name}@{pinned.digest}" if pinned else None
    return Citation(__version__, __release_date__, data_package_version(package),
                    f"{coefficient_set.version}@{coefficient_set.digest}", calibration, None, found, papers)


# --- BibTeX ----------------------------------------------------------------------------------------------------

def _bib_value(text: str) -> str:
    """Text safe inside a braced BibTeX value: braces balanced by removal, TeX specials escaped."""
    text = text.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"([&%$#_])", r"\\\1", text)


def _bib_entry(kind: str, key: str, fields: list[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in fields)
    body = ",\n".join(f"  {name:<{width}} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}"


def _software_key(c: Citation) -> str:
    return "atari5spec" + c.code_version.replace(".", "_")


def _pinned_text(pinned: str) -> str:
    """'paper-2023@071b0e4b' -> 'paper-2023 (digest 071b0e4b)': no '@' reaches a BibTeX file."""
    name, _, digest = pinned.partition("@")
    return f"{name} (digest {digest})" if digest else name


def _software_note(c: Citation) -> str:
    note = (f"Version {c.code_version}; data package {c.data_version}; coefficient version "
            f"{_pinned_text(c.coefficients)}")
    return note + (f"; calibration {_pinned_text(c.calibration)}" if c.calibration else "")


def as_bibtex(c: Citation) -> str:
    """BibTeX entries only (the paper, this software, with ``sources`` the data's sources): no text outside
    them and no '@' inside them, so pybtex, bibtexparser and BibTeX itself read the same entries. The sentence
    to put next to the number (with the signature) is :attr:`Citation.sentence`; the command prints it apart."""
    paper = _bib_entry("inproceedings", PAPER["key"], [
        ("author", " and ".join(f"{family}, {given}" for family, given in PAPER["authors"])),
        ("title", "{Atari-5}: Distilling the {Arcade Learning Environment} down to Five Games"),
        ("booktitle", PAPER["booktitle"]), ("series", PAPER["series"]), ("volume", PAPER["volume"]),
        ("publisher", PAPER["publisher"]), ("year", PAPER["year"]), ("eprint", PAPER["arxiv"]),
        ("archiveprefix", "arXiv"), ("url", PAPER["url"])])
    software_fields = [("author", "{" + SOFTWARE_AUTHOR + "}"), ("title", "{atari5-spec}: the {Atari-5} benchmark "
                                                                          "as a data package and reference "
                                                                          "implementation"),
                       ("year", c.release_date[:4] if c.release_date else ""), ("version", c.code_version),
                       ("url", REPOSITORY_URL or ""), ("note", _bib_value(_software_note(c)))]
    software_fields = [f for f in software_fields if f[1]]
    if DOI:
        software_fields.append(("doi", DOI))
    blocks = [paper, _bib_entry("misc", _software_key(c), software_fields)]
    for s in c.sources:
        fields = [("title", _bib_value(s.title))]
        if s.year:
            fields.append(("year", s.year))
        fields.append(("howpublished", _bib_value(f"https://github.com/{s.repository}") if s.repository else ""))
        fields.append(("note", _bib_value(_source_note(s))))
        blocks.append(_bib_entry("misc", "source-" + s.source_id, [f for f in fields if f[1]]))
    blocks += [entry for entry in (paper_bibtex(p) for p in c.papers) if entry]
    return "\n\n".join(blocks) + "\n"


def paper_key(p: Paper) -> str:
    """The BibTeX key of an entry's paper: the entry id's letters and digits, then the year."""
    return "".join(c for c in p.algorithm_id if c.isalnum()) + (str(int(float(p.year))) if p.year else "")


def paper_bibtex(p: Paper) -> str | None:
    """A @misc entry for an entry's paper, or None without a title or a link: author (data 1.97.0, as the texts read
    give the names; without them ``note`` says they are not recorded, nothing is invented), title, year, the
    identifier (eprint or doi) and url, the venue as ``howpublished``. Braces balanced, no '@' inside."""
    if not p.title or not p.url:
        return None
    fields = []
    if p.authors:
        fields.append(("author", _bib_value(p.authors)))
    fields.append(("title", "{" + _bib_value(p.title) + "}"))
    if p.year:
        fields.append(("year", str(int(float(p.year)))))
    if p.venue:
        fields.append(("howpublished", _bib_value(p.venue)))
    if p.link_kind == "arxiv":
        fields += [("eprint", p.link), ("archiveprefix", "arXiv")]
    elif p.link_kind == "doi":
        fields.append(("doi", p.link))
    fields.append(("url", p.url.replace("{", "%7B").replace("}", "%7D").replace("@", "%40")))
    if not p.authors:
        fields.append(("note", "Authors not recorded in the atari5-spec data package: complete them from the paper"))
    return _bib_entry("misc", paper_key(p), fields)


def _source_note(s: Source) -> str:
    where = f"{s.repository} at commit {s.commit[:12]}" if s.repository and s.commit else s.repository
    return (f"atari5-spec source {s.source_id} ({s.kind}); {s.n_rows} rows used; from {where}"
            + (f", {s.path}" if s.path else "") + (f"; licence {s.licence}" if s.licence else ""))


# --- CFF, APA, JSON ----------------------------------------------------------------------------------------------

def _yaml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


def as_cff(c: Citation) -> str:
    """A CITATION.cff (CFF 1.2.0) for this install's versions."""
    lines = ["cff-version: 1.2.0",
             f"message: {_yaml_string('If you report an Atari-5 score, cite the Atari-5 paper (preferred-citation) and this software at the version used, and paste the signature printed by atari5-spec score next to the number. ' + c.sentence)}",
             "type: software",
             f"title: {_yaml_string(SOFTWARE_TITLE)}",
             f"version: {_yaml_string(c.code_version)}",
             *([f"date-released: {_yaml_string(c.release_date)}"] if c.release_date else []),
             f"abstract: {_yaml_string(_software_note(c) + '.')}",
             "authors:", f"  - name: {_yaml_string(SOFTWARE_AUTHOR)}",
             "license:", "  - MIT", "  - CC-BY-SA-4.0"]
    if REPOSITORY_URL:
        lines += [f"repository-code: {_yaml_string(REPOSITORY_URL)}", f"url: {_yaml_string(REPOSITORY_URL)}"]
    if DOI:
        lines.append(f"doi: {_yaml_string(DOI)}")
    lines += ["preferred-citation:", "  type: conference-paper", f"  title: {_yaml_string(PAPER['title'])}",
              "  authors:"]
    lines += [f"    - family-names: {family}\n      given-names: {given}" for family, given in PAPER["authors"]]
    lines += [f"  collection-title: {_yaml_string(PAPER['booktitle'])}", "  publisher:",
              f"    name: {PAPER['publisher']}", f"  volume: {PAPER['volume']}", f"  year: {PAPER['year']}",
              "  identifiers:", "    - type: other", f"      value: {_yaml_string('arXiv:' + PAPER['arxiv'])}",
              "      description: arXiv preprint", f"  url: {_yaml_string(PAPER['url'])}"]
    if c.sources:
        lines.append("references:")
        for s in c.sources:
            lines += [f"  - type: {'data' if s.kind in ('scrape', 'compilation', 'contribution') else 'generic'}",
                      f"    title: {_yaml_string(s.title)}", "    authors:",
                      f"      - name: {_yaml_string(s.repository or 'not stated')}"]
            if s.year:
                lines.append(f"    year: {int(s.year)}")
            if s.repository:
                lines.append(f"    repository: {_yaml_string('https://github.com/' + s.repository)}")
            lines.append(f"    notes: {_yaml_string(_source_note(s))}")
    papers = [p for p in c.papers if p.url and p.title]
    if papers and not c.sources:
        lines.append("references:")
    for p in papers:
        lines += ["  - type: article", f"    title: {_yaml_string(p.title)}", "    authors:"]
        for name in p.author_names or ("not recorded",):
            family, _, given = name.partition(", ")
            lines += ([f"      - family-names: {_yaml_string(family)}", f"        given-names: {_yaml_string(given)}"]
                      if given else [f"      - name: {_yaml_string(family)}"])
        if p.year:
            lines.append(f"    year: {int(float(p.year))}")
        lines.append(f"    url: {_yaml_string(p.url)}")
        if p.link_kind == "doi":
            lines.append(f"    doi: {_yaml_string(p.link)}")
        lines.append(f"    notes: {_yaml_string(f'atari5-spec entry {p.algorithm_id}' + (f'; {p.venue}' if p.venue else ''))}")
    return "\n".join(lines) + "\n"


def as_apa(c: Citation) -> str:
    authors = ", ".join(f"{family}, {given[0]}." for family, given in PAPER["authors"][:-1])
    last = PAPER["authors"][-1]
    lines = [f"{authors}, & {last[0]}, {last[1][0]}. ({PAPER['year']}). {PAPER['title']}. In {PAPER['booktitle']} "
             f"({PAPER['series']}, Vol. {PAPER['volume']}). {PAPER['publisher']}. {PAPER['url']}",
             f"{SOFTWARE_AUTHOR}. ({c.release_date[:4] if c.release_date else 'n.d.'}). {SOFTWARE_TITLE} (Version {c.code_version}; data package "
             f"{c.data_version}) [Computer software and data set]." + (f" https://doi.org/{DOI}" if DOI else "")]
    for s in c.sources:
        lines.append(f"{s.title}. ({s.year or 'n.d.'}). [Data source {s.source_id}]. "
                     + (f"https://github.com/{s.repository}" if s.repository else ""))
    for p in c.papers:
        lines.append(_apa_paper(p))
    return "\n\n".join(line.rstrip() for line in lines) + "\n\nNext to the number: " + c.sentence + "\n"


def _apa_paper(p: Paper) -> str:
    """One entry's paper in APA form, authors as recorded (or "Authors not recorded"), or why there is none."""
    if not p.url:
        return f"[{p.algorithm_id}] No paper link recorded: {p.reason or 'no reason given'}."
    names = list(p.author_names)
    who = (", ".join(names[:-1]) + ", & " + names[-1] if len(names) > 1 else names[0]) if names \
        else "Authors not recorded"
    venue = f" {p.venue}." if p.venue else ""
    return f"{who} ({p.year or 'n.d.'}). {p.title or p.algorithm_id}.{venue} {p.url} [entry {p.algorithm_id}]"


def as_json(c: Citation) -> str:
    out = {"paper": {k: (list(map(list, v)) if k == "authors" else v) for k, v in PAPER.items()},
           "software": {"title": SOFTWARE_TITLE, "author": SOFTWARE_AUTHOR, "version": c.code_version,
                        "date_released": c.release_date, "data_version": c.data_version,
                        "coefficients": c.coefficients, "calibration": c.calibration, "doi": DOI,
                        "repository": REPOSITORY_URL},
           "sources": [s._asdict() for s in c.sources],
           "papers": [dict(p._asdict(), url=p.url, authors=list(p.author_names)) for p in c.papers],
           "sentence": c.sentence}
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
