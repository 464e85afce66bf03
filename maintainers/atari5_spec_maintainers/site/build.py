"""``atari5-spec site --out DIR``: the static web home, written as one folder.

Every page is plain HTML with its data inlined as JSON; one small script
(``static/site.js``) filters, sorts, keeps the state in the URL hash, downloads
the rows shown and runs the scorer. Nothing is fetched and no module is
loaded, so the folder works from the file system, from a zip, or from any
static host. The same package gives the same bytes: no time stamps, rows in
a fixed order, the export zip byte-reproducible (:mod:`atari5_spec_maintainers.export`).

The folder is built beside its target and renamed into place (the output
policy of :mod:`atari5_spec.data.paths`: never inside a data package, never
through a link), so an interrupted build leaves the previous site as it was.
An existing folder is replaced only when it is an earlier site.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import NamedTuple

from atari5_spec._version import __version__
from atari5_spec.data.datapackage import package_root, read_descriptor
from atari5_spec.data.errors import InputError
from atari5_spec.data.paths import output_directory
from atari5_spec.data.writing import csv_text, replace_folder

__all__ = ["build_site", "SiteResult", "site_files", "GENERATOR", "DOCS_LINK"]

GENERATOR = "atari5-spec site"
# The documentation site lives under docs/ of the same home (.github/workflows/pages.yml): one level above a
# versioned folder (/v1.23.0/ or /latest/).
DOCS_LINK = "../docs/"


class SiteResult(NamedTuple):
    folder: Path
    n_files: int
    n_bytes: int
    data_version: str


def _read_text(root: Path, *candidates: str) -> str | None:
    for relative in candidates:
        path = root / relative
        if path.is_file() and not path.is_symlink():
            return path.read_text(encoding="utf-8")
    return None


def _export_files(root: Path, cff: bytes) -> dict[str, bytes]:
    """The export zip, datapackage.json and every data CSV, exactly as `atari5-spec export` writes them."""
    from atari5_spec_maintainers.export import export_package

    with tempfile.TemporaryDirectory() as scratch:
        result = export_package(root, Path(scratch) / "export", {"CITATION.cff": cff})
        files = {f"downloads/{result.zip_path.name}": result.zip_path.read_bytes(),
                 "downloads/datapackage.json": (result.folder / "datapackage.json").read_bytes(),
                 "downloads/CITATION.cff": cff}
        for csv in sorted((result.folder / "data").glob("*.csv")):
            files[f"downloads/data/{csv.name}"] = csv.read_bytes()
    return files


def data_version_date(changelog: str | None, version: str) -> str | None:
    """The date of the release that shipped data package ``version`` (CHANGELOG.md: a ``## [x.y.z] - DATE``
    section saying "Data package at this release: VERSION"), or None when no release has shipped it yet."""
    import re

    for match in re.finditer(r"^## \[[^\]]+\] - ([0-9]{4}-[0-9]{2}-[0-9]{2})\n(.*?)(?=^## |\Z)", changelog or "",
                             re.S | re.M):
        shipped = re.search(r"Data package at this release: ([0-9]+\.[0-9]+\.[0-9]+)", match.group(2))
        if shipped and shipped.group(1) == version:
            return match.group(1)
    return None


def _docs_href(docs_url: str | None) -> tuple[str, bool]:
    """(link, relative): the documentation's address; relative ones are taken from the site's top folder."""
    if docs_url is None:
        return DOCS_LINK + "index.html", True
    from urllib.parse import urlsplit

    parts = urlsplit(docs_url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise InputError(f"--docs-url {docs_url!r}: give an http(s) address, e.g. https://example.org/atari5/docs/")
    return docs_url, False


def site_files(root: Path | str | None = None, docs_url: str | None = None) -> dict[str, bytes]:
    """Relative path -> bytes of every file of the site of the package at ``root`` (default: the installed one).

    ``docs_url``: where the documentation lives (default: ``../docs/`` beside the site's folder, as the pages
    workflow publishes it)."""
    from atari5_spec_research.analyses import structure
    from atari5_spec.data.loading import load
    from atari5_spec.method.pinned import coefficients_dir, known_versions, load_coefficient_set
    from atari5_spec.scoring import citation as cite
    from atari5_spec_maintainers.site import charts, compare, pages, render, scorer, search
    from atari5_spec_maintainers.site.papers import paper_links

    docs_href, docs_relative = _docs_href(docs_url)
    root = package_root(root)
    dataset = load(root)
    coefficients = load_coefficient_set(None, root)
    versions = [load_coefficient_set(v, root) for v in known_versions(coefficients_dir(root))]
    citation = cite.citation(root=root)
    data_version = str(read_descriptor(root)["version"])
    rows, board, sticky_values = pages.leaderboard_rows(dataset, coefficients)
    algorithm_pages = pages.algorithm_pages(dataset, coefficients, rows)
    irt = structure.training_irt(dataset)
    published = structure.published_irt_table(root)
    game_pages = pages.game_pages(dataset, versions, irt.result.items, published)
    field, field_board = pages.field_rows(dataset, coefficients)
    env = render.environment()
    common = {"data_version": data_version, "code_version": __version__,
              "data_date": data_version_date(_read_text(root, "CHANGELOG.md"), data_version), "citation_line": citation.sentence,
              "field_page": field_board.field is not None,
              "coefficients": f"{coefficients.version}@{coefficients.digest}", "generator": GENERATOR,
              "docs_href": docs_href, "docs_relative": docs_relative, "number": pages.number}
    files: dict[str, bytes] = {}

    def page(path: str, template: str, **context) -> None:
        depth = path.count("/")
        html = env.get_template(template).render(**common, **context, base="../" * depth, path=path)
        files[path] = html.encode("utf-8")

    sota = pages.state_of_the_art(rows)
    files["state-of-the-art.csv"] = csv_text(pages.SOTA_COLUMNS, ([p[c] for c in pages.SOTA_COLUMNS] for p in sota)
                                             ).encode("utf-8")
    files["state-of-the-art.json"] = (json.dumps({"data_version": data_version, "subset": board.subset,
                                                  "signature": board.signature, "records": sota}, indent=1,
                                                 sort_keys=True, allow_nan=False) + "\n").encode("utf-8")
    page("index.html", "index.html", title="Atari-5 leaderboard", rows=rows, board=board, sticky_values=sticky_values,
         legend=pages.filter_legend(rows, sticky_values), sota=sota,
         sota_svg=charts.records_svg(sota, f"{board.subset} state of the art over time"),
         page_data={"rows": rows, "subset": board.subset, "signature": board.signature,
                    "data_version": data_version, "entries": pages.search_entries(dataset, rows),
                    "search": search.search_index(dataset, paper_links(dataset))})
    if field_board.field is not None:
        page("atari-100k.html", "field.html", title="Atari 100k leaderboard", rows=field, board=field_board,
             page_data={"rows": field, "ranked_by": field_board.ranked_by, "games": list(field_board.field.games)})
    atari5_bibtex = cite.as_bibtex(citation)
    for algorithm in algorithm_pages:
        svg = charts.budget_curve_svg(algorithm["curve"], f"{algorithm['name']}: scores at training budgets")
        page(f"algorithms/{algorithm['id']}.html", "algorithm.html", title=algorithm["name"], a=algorithm,
             svg=svg, subset_games=coefficients.subsets[board.subset].games, atari5_bibtex=atari5_bibtex,
             max_inline_runs=pages.MAX_INLINE_RUNS)
        if algorithm["seeds"]:
            files[f"algorithms/{algorithm['id']}-seeds.csv"] = csv_text(
                pages.SEED_COLUMNS, pages.seed_table(algorithm)).encode("utf-8")
    for game in game_pages:
        svg = charts.best_over_time_svg(game["best"], [("human", game["human"]), ("random", game["random"])],
                                        f"{game['name']}: best published score by year")
        page(f"games/{game['id']}.html", "game.html", title=game["name"], g=game, svg=svg)
        table = pages.game_table(game)
        files[f"games/{game['id']}.csv"] = csv_text(pages.GAME_COLUMNS, (
            [row[c] for c in pages.GAME_COLUMNS] for row in table)).encode("utf-8")
        files[f"games/{game['id']}.json"] = (json.dumps(
            {"game_id": game["id"], "name": game["name"], "data_version": data_version,
             "random": game["random"], "human": game["human"], "rows": table,
             "not_ranked": [{"algorithm_id": h["id"], "values": h["numbers"], "reason": h["reason"]}
                            for h in game["hidden"]]}, indent=1, sort_keys=True, allow_nan=False) + "\n"
            ).encode("utf-8")
    page("games.html", "games.html", title="Games", games=pages.games_index(game_pages))
    page("algorithms.html", "algorithms.html", title="Algorithms", algorithms=pages.algorithm_index(algorithm_pages))
    page("score.html", "score.html", title="Score your agent", scorer=scorer.scorer_data(dataset, coefficients))
    page("compare.html", "compare.html", title="Compare two algorithms",
         compare=compare.compare_data(dataset, coefficients))
    # The 57-game rows of every entry, for compare.html's collapsed table: a script file of its own (the page stays
    # light; a <script src> works from the file system, where a fetch does not), escaped as inline JSON is.
    files["compare-scores.js"] = ("window.atari5CompareScores = " + render.inline_json(compare.compare_scores(dataset))
                                  + ";\n").encode("utf-8")
    page("sources.html", "sources.html", title="Sources", sources=pages.source_rows(dataset))
    formats = {"bibtex": cite.as_bibtex, "cff": cite.as_cff, "apa": cite.as_apa}
    page("cite.html", "cite.html", title="Cite", cite_formats={k: f(citation) for k, f in formats.items()},
         sources_cff=cite.as_cff(cite.citation(root=root, sources=True)))
    downloads = _export_files(root, cite.as_cff(citation).encode("utf-8"))
    files.update(downloads)
    listing = [{"path": p, "name": p.removeprefix("downloads/"), "bytes": len(b),
                "sha256": hashlib.sha256(b).hexdigest()} for p, b in sorted(downloads.items())]
    page("downloads.html", "downloads.html", title="Downloads", listing=listing)
    for name, source, default_title in (("accuracy.html", "docs/out-of-sample.md", "How accurate is an Atari-5 score?"),
                                        ("changelog.html", "CHANGELOG.md", "Changelog")):
        text = _read_text(root, source)
        title, body = render.markdown_document(text, default_title) if text else (default_title, None)
        page(name, "text.html", title=title, body=body, missing=source)
    for name in ("site.js", "site.css", "tables.js"):
        files[f"static/{name}"] = (render.STATIC / name).read_bytes()
    return dict(sorted(files.items()))


def _is_earlier_site(folder: Path) -> bool:
    index = folder / "index.html"
    try:
        return index.is_file() and f'name="generator" content="{GENERATOR}'.encode() in index.read_bytes()[:4096]
    except OSError:
        return False


def check_target(target: Path) -> None:
    """InputError unless ``target`` is a new folder, an empty one, or an earlier site (checked before building)."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise InputError(f"--out: {target} exists and is not a folder: remove it or give another --out")
    if target.exists() and any(target.iterdir()) and not _is_earlier_site(target):
        raise InputError(f"--out: {target} exists and is not an earlier site (no index.html written by "
                         f"{GENERATOR}): remove it or give a new folder")


def write_folder(target: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` as the folder ``target``: built beside it, renamed into place."""
    check_target(target)
    replace_folder(target, files)


def build_site(out: Path | str, root: Path | str | None = None, docs_url: str | None = None) -> SiteResult:
    """Write the site of the data package at ``root`` (default: the installed one) as the folder ``out``.

    ``docs_url``: the documentation's http(s) address (default: ``../docs/``, beside the site's folder).

    Raises InputError when ``out`` is refused by the output policy (inside a
    data package, a link, a file, or a folder that is not an earlier site).
    """
    out = Path(out)
    output_directory(out.parent if str(out.parent) else Path("."))
    if out.exists() and not out.is_symlink() and out.is_dir():
        output_directory(out)  # the policy refuses a folder inside a package
    check_target(out)
    _docs_href(docs_url)  # a bad address is refused before building
    files = site_files(root, docs_url)
    write_folder(out, files)
    return SiteResult(out, len(files), sum(len(b) for b in files.values()),
                      str(read_descriptor(package_root(root))["version"]))
