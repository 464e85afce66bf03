"""`atari5-spec site`: the pages it writes, what they hold, the output policy, byte-reproducibility.

The browser tests (filters, scorer, requests, links in a real browser) are in test_site_browser.py.
"""

import csv
import hashlib
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import pytest

import atari5_spec
from atari5_spec.data.datapackage import package_root
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec_maintainers.site.build import DOCS_LINK, build_site
from atari5_spec_maintainers.site.render import inline_json, markdown_html
from site_helpers import HOSTILE_ID, HOSTILE_NAME


@pytest.fixture()
def site(site_folder):
    return site_folder


def page_data(path: Path):
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', path.read_text("utf-8"), re.S)
    return json.loads(found.group(1))


def test_every_algorithm_and_game_has_a_page(site, dataset):
    assert {p.stem for p in (site / "algorithms").glob("*.html")} == set(dataset.algorithms["algorithm_id"])
    assert {p.stem for p in (site / "games").glob("*.html")} == set(dataset.games["game_id"])
    for name in ("index", "score", "sources", "cite", "downloads", "accuracy", "changelog"):
        assert (site / f"{name}.html").is_file(), name


def test_the_atari_100k_page_is_the_field_leaderboard(site, dataset):
    """atari-100k.html ranks the regime as `leaderboard --only-regime atari-100k` does, by the measured median."""
    board = atari5_spec.leaderboard(dataset=dataset, regime="atari-100k")
    data = page_data(site / "atari-100k.html")
    assert [r["id"] for r in data["rows"]] == [r.algorithm_id for r in board.rows]
    assert [r["field_median"] for r in data["rows"]] == [r.field_median for r in board.rows]
    assert data["ranked_by"] == board.ranked_by and len(data["games"]) == 26
    text = (site / "atari-100k.html").read_text("utf-8")
    shown = re.findall(r'<tr data-algorithm-id="([^"]+)">', text)
    assert shown == [r.algorithm_id for r in board.rows]
    assert 'href="atari-100k.html">Atari 100k</a>' in (site / "index.html").read_text("utf-8")


def test_every_page_carries_the_citation_line_and_the_data_version(site, dataset):
    from atari5_spec.scoring.citation import citation

    sentence = citation().sentence
    for path in site.rglob("*.html"):
        text = path.read_text("utf-8")
        assert f'<strong id="data-version">{dataset.version}</strong>' in text, path
        assert sentence.replace("'", "&#39;") in text, path
        assert "Documentation</a>" in text and f'{DOCS_LINK}index.html"' in text, path


def test_the_leaderboard_rows_are_the_leaderboards(site, dataset):
    """Rows: the unfiltered board (shown), plus every row a sticky filter adds (hidden until a filter asks)."""
    rows = page_data(site / "index.html")["rows"]
    default = atari5_spec.leaderboard(dataset=dataset)
    union = {r.algorithm_id: r for s in ("yes", "no", "unknown") for r in atari5_spec.leaderboard(dataset=dataset, sticky=s).rows}
    assert [r["id"] for r in rows if r["default"]] == [r.algorithm_id for r in default.rows]
    assert {r["id"] for r in rows} == set(union)
    assert any(not r["default"] for r in rows)  # the Atari 100k entries: shown only under a protocol filter
    for r in rows:
        assert r["estimate"] == union[r["id"]].estimate
    html = (site / "index.html").read_text("utf-8")
    for r in rows:
        tag = f'<tr data-algorithm-id="{r["id"]}"' + ("" if r["default"] else " hidden") + ">"
        assert tag in html, r["id"]


def test_a_row_interval_and_signature_are_what_score_gives(site, dataset):
    rows = {r["id"]: r for r in page_data(site / "index.html")["rows"]}
    board = atari5_spec.leaderboard(dataset=dataset)
    top = board.rows[0].algorithm_id
    games = load_coefficient_set().subsets["Atari-5"].games
    raw = {g: float(dataset.scores[(dataset.scores.algorithm_id == top) & (dataset.scores.game_id == g)
                                   & dataset.scores.use_in_fit]["score"].iloc[0]) for g in games}
    result = atari5_spec.score(raw, n_bootstrap=0)
    assert rows[top]["estimate"] == pytest.approx(result.estimate, rel=1e-12)
    assert (rows[top]["low"], rows[top]["high"]) == pytest.approx(
        (result.prediction_interval.low, result.prediction_interval.high), rel=1e-12)
    assert rows[top]["signature"] == result.signature


def test_the_scorer_constants_come_from_the_pinned_files(site):
    data = page_data(site / "score.html")
    coefficients = load_coefficient_set()
    model = coefficients.subsets["Atari-5"]
    assert [g["id"] for g in data["games"]] == list(model.games)
    assert [(g["random"], g["human"]) for g in data["games"]] == [coefficients.constants[g] for g in model.games]
    main = data["subsets"][0]
    assert main["name"] == "Atari-5" and main["coefficients"] == list(model.coefficients)
    from atari5_spec.method.calibration import IN_RANGE_MIN

    assert [b["from"] for b in main["bands"]] == [IN_RANGE_MIN, None]  # in range, and below it


def test_downloads_are_the_export_with_their_sha256(site, dataset):
    html = (site / "downloads.html").read_text("utf-8")
    zips = list((site / "downloads").glob("atari5-spec-data-*.zip"))
    assert [z.name for z in zips] == [f"atari5-spec-data-{dataset.version}.zip"]
    for path in [zips[0], site / "downloads" / "datapackage.json", *sorted((site / "downloads" / "data").glob("*.csv"))]:
        assert hashlib.sha256(path.read_bytes()).hexdigest() in html, path
    for csv in sorted((package_root() / "data").glob("*.csv")):
        assert (site / "downloads" / "data" / csv.name).read_bytes() == csv.read_bytes()


def test_cite_page_shows_what_cite_prints(site, run):
    html = (site / "cite.html").read_text("utf-8")
    status, out, _ = run("cite")
    assert status == 0
    from markupsafe import escape

    assert str(escape(out)) in html


def test_accuracy_and_changelog_pages_hold_their_documents(site):
    accuracy = (site / "accuracy.html").read_text("utf-8")
    assert "<table>" in accuracy or "<h2>" in accuracy
    if (package_root() / "docs" / "out-of-sample.md").is_file():
        first_heading = next(line for line in (package_root() / "docs" / "out-of-sample.md").read_text("utf-8")
                             .splitlines() if line.startswith("# "))
        assert first_heading[2:].strip().split()[0] in accuracy
    assert "Unreleased" in (site / "changelog.html").read_text("utf-8")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])


def test_every_relative_link_resolves(site):
    """Every href/src inside the folder names a file of the site (and its #anchor an id on that page); the one
    link out of the folder is the documentation, which the pages workflow puts beside the versioned folders."""
    parsed = {}
    for path in site.rglob("*.html"):
        parser = _Links()
        parser.feed(path.read_text("utf-8"))
        parsed[path] = parser
    checked = 0
    for path, parser in parsed.items():
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                assert parts.scheme == "https", f"{path}: {link}"  # outside links are to papers and repositories
                continue
            if link == "#":
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if parts.path.endswith(f"{DOCS_LINK}index.html"):
                assert target == (site.parent / "docs" / "index.html").resolve(), f"{path}: {link}"
                continue
            assert target.is_file(), f"{path}: {link} does not resolve"
            if parts.fragment and target.suffix == ".html":
                assert unquote(parts.fragment) in parsed[target].ids, f"{path}: {link}: no such anchor"
            checked += 1
    assert checked > 1000
    repository = Path(__file__).resolve().parents[2]
    if (repository / ".ci" / "build_pages.sh").is_file():  # a checkout: the workflow puts the docs beside the sites
        assert "bash .ci/build_pages.sh public" in (repository / ".github" / "workflows" / "pages.yml").read_text("utf-8")
        assert '-b html docs "$out/docs"' in (repository / ".ci" / "build_pages.sh").read_text("utf-8")


def test_inline_json_cannot_close_the_script_or_break_a_line():
    text = str(inline_json({"name": "</script><script>alert(1)</script>&\u2028\u2029\u202e"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text and "\u202e" not in text
    assert json.loads(text)["name"] == "</script><script>alert(1)</script>&\u2028\u2029\u202e"


def test_markdown_shows_raw_html_as_text_and_has_no_inline_style():
    html = str(markdown_html("# Title\n\n<script>alert(1)</script>\n\n| a | b |\n|--:|:-:|\n| 1 | 2 |\n"))
    assert "<script>" not in html and "&lt;script&gt;" in html and "<table>" in html
    assert "style=" not in html and 'class="align-right"' in html and 'class="align-center"' in html


def test_a_hostile_name_is_escaped_everywhere(hostile_site):
    files = {str(p.relative_to(hostile_site)): p.read_bytes() for p in hostile_site.rglob("*.html")}
    for path, data in files.items():
        if path.endswith(".html"):
            text = data.decode("utf-8")
            assert "<script>window.__pwned" not in text and "<img src=x" not in text, path
            assert "</title></bdi>" not in text.split("<main>")[-1], path
    page = files[f"algorithms/{HOSTILE_ID}.html"].decode("utf-8")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    index = files["index.html"].decode("utf-8")
    assert f'data-algorithm-id="{HOSTILE_ID}"' in index
    data = json.loads(re.search(r'id="page-data">(.*?)</script>', index, re.S).group(1))
    assert any(r["name"] == HOSTILE_NAME for r in data["rows"])


def test_a_docs_address_must_be_http(tmp_path, run):
    status, _, err = run("site", "--out", str(tmp_path / "web"), "--docs-url", "javascript:alert(1)")
    assert status == 1 and "--docs-url" in err and not (tmp_path / "web").exists()


def test_output_policy(tmp_path, package_copy, run):
    status, _, err = run("site", "--out", str(package_copy / "site"))
    assert status == 1 and "inside the data package" in err
    other = tmp_path / "not-a-site"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    status, _, err = run("site", "--out", str(other))
    assert status == 1 and "not an earlier site" in err and (other / "notes.txt").read_text() == "mine"


@pytest.mark.slow
def test_two_builds_are_byte_identical_and_a_site_replaces_an_earlier_one(tmp_path, site):
    """The session's site (written by the command) and a second build into a copy of it: the same bytes."""
    import shutil

    earlier = tmp_path / "web"
    shutil.copytree(site, earlier)
    (earlier / "stale.html").write_text("from an older build")
    build_site(earlier)
    written = {str(p.relative_to(site)).replace("\\", "/"): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    again = {str(p.relative_to(earlier)).replace("\\", "/"): p.read_bytes() for p in earlier.rglob("*") if p.is_file()}
    assert sorted(again) == sorted(written)  # the stale page is gone
    different = [path for path in again if again[path] != written[path]]
    assert not different, different


@pytest.mark.slow
def test_a_docs_address_is_linked_from_every_page():
    from atari5_spec_maintainers.site.build import site_files

    files = site_files(docs_url="https://example.org/atari5/docs/")
    pages = [path for path in files if path.endswith(".html")]
    assert all(b'<a href="https://example.org/atari5/docs/" class="docs">' in files[p] for p in pages)


# --- issue 34 ---------------------------------------------------------------------------------------------------------

def test_every_entry_has_a_paper_link_or_a_reason_in_the_format_its_kind_names(dataset):
    """data/paper_links.csv: one row per entry; arXiv ids YYMM.NNNNN, DOIs 10.NNNN/..., each read from a named
    text; none-found rows say why. The validator refuses a malformed id (the rule can fail)."""
    from atari5_spec.data.validation import validate_dataset

    links = dataset.paper_links.set_index("algorithm_id")
    assert sorted(links.index) == sorted(dataset.algorithms.algorithm_id)
    formats = {"arxiv": r"[0-9]{4}\.[0-9]{4,5}", "doi": r"10\.[0-9]{4,9}/\S+", "url": r"https://\S+"}
    for algorithm_id, row in links.iterrows():
        assert row.read_from, algorithm_id
        if row.link_kind == "none-found":
            assert pd.isna(row.link) and row.reason, algorithm_id
        else:
            assert re.fullmatch(formats[row.link_kind], row.link), (algorithm_id, row.link)
    assert links.loc["rainbow-noop", "link"] == "1710.02298" and links.loc["go-explore", "link_kind"] == "doi"
    assert (links.link_kind != "none-found").sum() >= 70
    for column, value, says in (("link", "arXiv:1710.02298v2", "str_matches"), ("link_kind", "doi", "link_kind")):
        bad = dataset.paper_links.copy()
        # The column keeps its string dtype: the older pandera the floors job pins reports a dtype change first.
        bad.loc[bad.algorithm_id == "rainbow-noop", column] = value  # a malformed id; an arXiv id called a DOI
        problems = [p for p in validate_dataset(dataset._replace(paper_links=bad)) if p.file == "data/paper_links.csv"]
        assert any(says in p.message for p in problems), (column, problems)


def test_leaderboard_rows_and_algorithm_pages_carry_the_paper(site, dataset):
    rows = {r["id"]: r for r in page_data(site / "index.html")["rows"]}
    assert rows["rainbow-noop"]["paper"] == "https://arxiv.org/abs/1710.02298"
    html = (site / "algorithms" / "rainbow-noop.html").read_text("utf-8")
    assert 'href="https://arxiv.org/abs/1710.02298"' in html and re.search(r"eprint +\= \{1710\.02298\}", html)
    assert "Aitchison" in html.split('<pre class="bibtex">')[2]  # the Atari-5 entry beside the paper's


def test_a_game_page_ranks_with_protocol_and_notes_what_it_leaves_out(site, dataset):
    html = (site / "games" / "montezuma_revenge.html").read_text("utf-8")
    assert html.count('class="reference"') == 2 and "<svg" in html
    assert re.search(r"Go-Explore</bdi></a>: 43,791.00(, 43,763.00)?: entry excluded \(episode-frame-limit\)", html)
    rows = list(csv.DictReader(io.StringIO((site / "games" / "montezuma_revenge.csv").read_text("utf-8"))))
    data = json.loads((site / "games" / "montezuma_revenge.json").read_text("utf-8"))
    assert [r["algorithm_id"] for r in rows] == [r["algorithm_id"] for r in data["rows"]]
    assert [float(r["raw"]) for r in rows] == sorted((float(r["raw"]) for r in rows), reverse=True)
    assert data["human"] == 4753.3 and any(n["algorithm_id"] == "go-explore" for n in data["not_ranked"])
    ranked = set(r["algorithm_id"] for r in rows)
    noted = {n["algorithm_id"] for n in data["not_ranked"]}
    held = set(dataset.scores.loc[dataset.scores.game_id == "montezuma_revenge", "algorithm_id"])
    assert held <= ranked | noted  # every published number is ranked or noted
    assert "games.html" in (site / "index.html").read_text("utf-8")


def test_every_page_says_its_data_version_and_when_a_release_shipped_it(site, dataset):
    from atari5_spec_maintainers.site.build import data_version_date

    changelog = "## [Unreleased]\n\n## [1.2.0] - 2026-11-25\n\nData package at this release: 1.41.0 (x).\n"
    assert data_version_date(changelog, "1.41.0") == "2026-11-25" and data_version_date(changelog, "1.43.0") is None
    expected = data_version_date((package_root() / "CHANGELOG.md").read_text("utf-8"), dataset.version)
    label = f"released {expected}" if expected else "not yet in a release"
    for path in (site / "index.html", site / "games" / "pong.html", site / "algorithms" / "dqn-noop.html"):
        html = path.read_text("utf-8")
        assert f'<strong id="data-version">{dataset.version}</strong> (<span id="data-date">{label}</span>)' in html


def test_the_sticky_action_baselines_link_the_papers_their_repositories_name(dataset):
    """Issue 34: the Dopamine and Cleanba entries (scripts/import_2027.py) link the paper their source repository's
    README names (scripts/paper_links_2027-34.csv), each row saying which README and commit."""
    links = dataset.paper_links.set_index("algorithm_id")
    titles = dataset.algorithms.set_index("algorithm_id")["paper_title"]
    for prefix, arxiv, readme in (("dopamine-", "1812.06110", "google/dopamine README.md @02a3547"),
                                  ("cleanba-", "2310.00036", "vwxyzjn/cleanba README.md @d1f8979")):
        ids = [a for a in links.index if a.startswith(prefix)]
        assert len(ids) >= 12 and titles[ids].nunique() == 1, ids
        for algorithm_id in ids:
            row = links.loc[algorithm_id]
            assert (row.link_kind, row.link) == ("arxiv", arxiv) and readme in row.read_from, algorithm_id


def test_paper_link_updater_refuses_a_different_link_and_replays_without_change(package_copy, tmp_path):
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "update_paper_links.py"
    spec = importlib.util.spec_from_file_location("scripts_update_paper_links", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    links = tmp_path / "links.csv"
    header = "paper_title,link_kind,link,read_from\n"
    title = "Dopamine: A Research Framework for Deep Reinforcement Learning"
    links.write_text(header + f"{title},arxiv,1812.06110,a README\n", encoding="utf-8")
    before = {p: (package_copy / p).read_bytes() for p in ("datapackage.json", "data/paper_links.csv")}
    assert module.main([str(package_copy), "--links", str(links)]) == 0  # recorded already: nothing written
    assert before == {p: (package_copy / p).read_bytes() for p in before}
    links.write_text(header + f"{title},arxiv,1812.06111,a README\nNo Such Paper,arxiv,2001.00001,x\n", encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        module.main([str(package_copy), "--links", str(links)])
    message = str(refused.value)
    assert "links.csv, line 2" in message and "reconcile" in message and "links.csv, line 3" in message
    assert before == {p: (package_copy / p).read_bytes() for p in before}


def test_paper_link_updater_fills_a_none_found_row_and_bumps_the_version(package_copy, tmp_path):
    import importlib.util

    from atari5_spec.data.datapackage import read_descriptor
    from atari5_spec.data.loading import load

    path = Path(__file__).resolve().parents[2] / "scripts" / "update_paper_links.py"
    spec = importlib.util.spec_from_file_location("scripts_update_paper_links", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    title = load(package_copy).algorithms.set_index("algorithm_id").at["adam-huber", "paper_title"]
    links = tmp_path / "links.csv"
    links.write_text(f'paper_title,link_kind,link,read_from\n"{title}",arxiv,2011.14826,a test page\n', encoding="utf-8")
    before = read_descriptor(package_copy)["version"]
    assert module.main([str(package_copy), "--links", str(links)]) == 0
    data = load(package_copy)
    row = data.paper_links.set_index("algorithm_id").loc["adam-huber"]
    assert (row.link_kind, row.link, row.read_from) == ("arxiv", "2011.14826", "a test page") and pd.isna(row.reason)
    assert row.status == "stated" and pd.isna(row.authors)  # data 1.97's columns: a link is stated, no authors read
    assert read_descriptor(package_copy)["version"] != before
    from atari5_spec.data.validation import validate_dataset
    assert [p for p in validate_dataset(data) if p.file == "data/paper_links.csv"] == []

# --- issue 48 item 1: a paper for every entry, with its authors ----------------------------------------------------

UPSTREAM_2028 = Path("/work/shared/upstream-2028/paper-links.csv")  # the maintainer's copy; absent in CI
UPSTREAM_HEADER = '"title","year","algorithm_ids","arxiv","doi","url","authors","venue","source","evidence"\n'


def _updater():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "update_paper_links.py"
    spec = importlib.util.spec_from_file_location("scripts_update_paper_links_48", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_least_90_percent_of_entries_link_their_paper_and_the_schema_accepts_the_columns(dataset):
    """Counted from data/paper_links.csv: linked entries, entries with authors; every link stated or doubtful, a
    doubt or a none-found saying why. The validator refuses a link without status and authors that are not BibTeX
    names (the rules can fail)."""
    from atari5_spec.data.validation import validate_dataset

    links = dataset.paper_links.set_index("algorithm_id")
    linked = links.link_kind != "none-found"
    assert linked.sum() / len(dataset.algorithms) >= 0.9, (linked.sum(), len(dataset.algorithms))
    assert links.authors.notna().sum() >= 90 and (links.authors.notna() <= linked).all()
    assert set(links.status[linked]) == {"stated", "doubtful"} and links.status[~linked].isna().all()
    assert links.reason[links.status == "doubtful"].notna().all() and links.reason[~linked].notna().all()
    assert links.loc["ape-x", "status"] == "doubtful" and links.loc["ape-x", "link"] == "1803.00933"
    assert "upstream-2028/paper-links.csv, line " in links.loc["dreamerv2", "read_from"]
    assert [p for p in validate_dataset(dataset) if p.file == "data/paper_links.csv"] == []
    for column, value, says in (("status", pd.NA, "status"), ("authors", "Horgan, Dan and ", "BibTeX names"),
                                ("authors", "Horgan, Dan, Quan", "BibTeX names")):
        bad = dataset.paper_links.copy()
        bad.loc[bad.algorithm_id == "ape-x", column] = value
        problems = [p for p in validate_dataset(dataset._replace(paper_links=bad)) if p.file == "data/paper_links.csv"]
        assert any(says in p.message for p in problems), (column, value, problems)


def _upstream_rows(dataset, ids) -> str:
    """An upstream-2028-form file rebuilt from the package's own rows for ``ids`` (one paper each)."""
    links = dataset.paper_links.set_index("algorithm_id").astype(object).where(lambda d: d.notna(), "")
    titles = dataset.algorithms.set_index("algorithm_id")["paper_title"].astype(object).where(lambda s: s.notna(), "")
    lines = []
    for algorithm_id in ids:
        row = links.loc[algorithm_id]
        same = sorted(a for a, t in titles.items() if t and t == titles[algorithm_id]) or [algorithm_id]
        ident = {"arxiv": "", "doi": "", "url": ""}
        ident[row.link_kind] = row.link
        source = row.read_from.split(": ", 1)[1]
        cells = [titles[algorithm_id] or row.title, "", " ".join(same), ident["arxiv"], ident["doi"], ident["url"],
                 row.authors, row.venue, source, "rebuilt for a test"]
        lines.append(",".join('"' + c.replace('"', '""') + '"' for c in cells))
    return UPSTREAM_HEADER + "\n".join(lines) + "\n"


def test_upstream_import_fills_none_found_rows_once_and_refuses_a_different_link(package_copy, tmp_path, dataset):
    """Entries put back to none-found get link, status, authors, venue and read_from (file and line) from a file in
    the upstream form, in one transaction with a version bump; a second run writes nothing; a different link is
    refused naming the line, with nothing written."""
    from atari5_spec.data.datapackage import read_descriptor
    from atari5_spec.data.loading import load

    module = _updater()
    upstream = tmp_path / "paper-links.csv"
    upstream.write_text(_upstream_rows(dataset, ["dreamerv2", "a3c-ff-hs"]), encoding="utf-8")
    files = ("datapackage.json", "data/paper_links.csv")
    table = package_copy / "data" / "paper_links.csv"
    text = table.read_text(encoding="utf-8")
    wanted = dataset.paper_links.set_index("algorithm_id")
    a3c = [a for a in wanted.index if a.startswith("a3c-") and wanted.at[a, "link"] == "1602.01783"]
    reset = ["dreamerv2", *a3c]
    columns = list(dataset.paper_links.columns)
    import csv as csv_module
    rows = list(csv_module.DictReader(io.StringIO(text)))
    for r in rows:
        if r["algorithm_id"] in reset:
            r.update(link_kind="none-found", link="", status="", title="", authors="", venue="", read_from="a test",
                     reason="put back for a test")
    buffer = io.StringIO()
    writer = csv_module.DictWriter(buffer, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    from atari5_spec_maintainers.versioning import apply_changes, bumped_descriptor_text

    pending = {"data/paper_links.csv": buffer.getvalue()}  # written as a change would be: hashes kept right
    pending["datapackage.json"] = bumped_descriptor_text(package_copy, read_descriptor(package_copy), pending)
    apply_changes(package_copy, pending)
    version = read_descriptor(package_copy)["version"]
    assert module.main([str(package_copy), "--upstream-2028", str(upstream)]) == 0
    assert read_descriptor(package_copy)["version"] != version
    filled = load(package_copy).paper_links.set_index("algorithm_id")
    for algorithm_id in reset:  # as the real import wrote them, but for the line of this file
        line = 2 if algorithm_id == "dreamerv2" else 3
        assert filled.loc[algorithm_id].drop("read_from").equals(wanted.loc[algorithm_id].drop("read_from"))
        assert filled.at[algorithm_id, "read_from"] == re.sub(r"csv, line \d+:", f"csv, line {line}:",
                                                             wanted.at[algorithm_id, "read_from"])
    row = filled.loc["dreamerv2"]
    assert (row.link_kind, row.link, row.status) == ("arxiv", "2010.02193", "stated")
    assert row.authors.startswith("Hafner, Danijar and ") and "upstream-2028/paper-links.csv, line 2: " in row.read_from
    again = {p: (package_copy / p).read_bytes() for p in files}
    assert module.main([str(package_copy), "--upstream-2028", str(upstream)]) == 0  # idempotent
    assert again == {p: (package_copy / p).read_bytes() for p in files}
    upstream.write_text(upstream.read_text(encoding="utf-8").replace("2010.02193", "2010.02194"), encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        module.main([str(package_copy), "--upstream-2028", str(upstream)])
    assert "paper-links.csv, line 2" in str(refused.value) and "reconcile" in str(refused.value)
    assert again == {p: (package_copy / p).read_bytes() for p in files}
    upstream.write_text(upstream.read_text(encoding="utf-8").replace('"dreamerv2"', '"no-such-entry"')
                        .replace("Hafner, Danijar and", "{Hafner}, Danijar and"), encoding="utf-8")
    with pytest.raises(SystemExit) as refused:
        module.main([str(package_copy), "--upstream-2028", str(upstream)])
    message = str(refused.value)
    assert "line 2: algorithm_ids names no-such-entry" in message and "column authors is '{Hafner}" in message
    assert "schemas/paper-links.schema.json" in message or "does not match" in message
    assert again == {p: (package_copy / p).read_bytes() for p in files}


@pytest.mark.skipif(not UPSTREAM_2028.is_file(), reason="the maintainer's upstream-2028 folder is not here")
def test_the_upstream_2028_import_replays_without_change(package_copy):
    module = _updater()
    files = ("datapackage.json", "data/paper_links.csv")
    before = {p: (package_copy / p).read_bytes() for p in files}
    assert module.main([str(package_copy), "--upstream-2028", str(UPSTREAM_2028)]) == 0
    assert before == {p: (package_copy / p).read_bytes() for p in files}
    titles = {row["title"] for _, row in module.read_upstream(UPSTREAM_2028)}
    assert set(module.DOUBTS) <= titles  # the doubtful rows the script marks are rows of the file


def test_an_entrys_page_links_its_paper_with_authors_and_90_percent_of_pages_do(site, dataset):
    links = dataset.paper_links.set_index("algorithm_id")
    html = (site / "algorithms" / "ape-x.html").read_text("utf-8")
    paper = html[html.index('<p class="paper">'):html.index("<h2>Atari-5 estimate")]
    assert 'href="https://arxiv.org/abs/1803.00933"' in paper and "Dan Horgan" in paper and "ICLR 2018" in paper
    assert "marked doubtful" in paper
    bib = html.split('<pre class="bibtex">')[1].split("</pre>")[0]
    assert re.search(r"author += \{Horgan, Dan and Quan, John and ", bib) and "Authors not recorded" not in bib
    linking = 0
    for algorithm_id in dataset.algorithms.algorithm_id:
        page = (site / "algorithms" / f"{algorithm_id}.html").read_text("utf-8")
        block = page[page.index('<p class="paper">'):page.index("</p>", page.index('<p class="paper">'))]
        if re.search(r'<a href="https://[^"]+" rel="noopener">', block):
            linking += 1
            assert links.at[algorithm_id, "link_kind"] != "none-found", algorithm_id
    assert linking / len(dataset.algorithms) >= 0.9, linking


# --- the comparison page (issue 34 item 4) ------------------------------------------------------------------------

def test_the_comparison_page_embeds_each_entrys_five_numbers_as_score_relative_to_reads_them(site):
    """compare.html: per entry the five numbers `score --relative-to ID` reads, its recorded episode cap and its
    setup group (two entries share one exactly when shares_setup says so); the 57-game rows in compare-scores.js."""
    from atari5_spec.scoring.baselines import algorithm_baselines, shares_setup

    data = page_data(site / "compare.html")
    entries = algorithm_baselines()
    games = [g["id"] for g in data["games"]]
    assert games == list(load_coefficient_set(None).subsets["Atari-5"].games)
    assert [e["id"] for e in data["entries"]] == sorted((i for i, e in entries.items() if e.scores),
                                                        key=lambda i: (entries[i].name.lower(), i))
    for e in data["entries"]:
        entry = entries[e["id"]]
        assert e["five"] == [entry.scores.get(g) for g in games] and e["cap"] == entry.max_episode_frames
    groups = {e["id"]: e["setup"] for e in data["entries"]}
    assert groups["c51"] is not None and groups["c51"] == groups["qr-dqn-1"]
    assert groups["dqn-noop"] != groups["rainbow-noop"]
    for a in ("c51", "dqn-noop", "ngu-32-0", "rainbow-noop"):
        for b, group in groups.items():
            same = group is not None and group == groups[a] and a != b
            assert same == shares_setup(entries[a], entries[b]), (a, b)
    script = (site / "compare-scores.js").read_text("utf-8")
    assert script.startswith("window.atari5CompareScores = ") and script.endswith(";\n")
    scores = json.loads(script[len("window.atari5CompareScores = "):-2])
    assert len(scores["games"]) == 57
    order = [g["id"] for g in scores["games"]]
    assert scores["scores"]["dqn-noop"] == [entries["dqn-noop"].scores.get(g) for g in order]
    # The page itself stays light: the 57-game rows are in the script file, not inlined.
    assert (site / "compare.html").stat().st_size < 120_000


def test_the_comparison_pages_words_and_figures_come_from_the_python_objects(site):
    """The evidence lines, the ratio signatures, the measured range and the decisions' wording are what `score`
    prints them from (scoring.intervals, method.pairs, scoring.signature), not typed in."""
    from atari5_spec.method.calibration import read_calibration, read_calibration_intervals
    from atari5_spec.method.pairs import measured_range, pair_agents
    from atari5_spec.scoring.intervals import DECISION, evidence_line

    data = page_data(site / "compare.html")
    coefficients = load_coefficient_set(None)
    calibration = read_calibration(coefficients.path)
    table = read_calibration_intervals(coefficients.path, calibration)
    for design, kind in (("two papers", "ratio-two-papers"), ("same setup", "ratio-same-setup")):
        row = table.rows[(kind, "Atari-5", "in range", 0.95)]
        assert data["designs"][design]["evidence"] == evidence_line(row)
        assert all(s.startswith("Atari-5 " + ("same-setup ratio" if design == "same setup" else "ratio") + "|")
                   for s in data["designs"][design]["signatures"].values())
    assert data["designs"]["same setup"]["half_width"] == table.rows[("ratio-same-setup", "Atari-5", "in range",
                                                                       0.95)].half_width
    span = measured_range(pair_agents(calibration, "Atari-5"))
    assert data["span"] == {"low": span.low, "high": span.high, "text": span.text()}
    assert data["decisions"] == DECISION


def test_every_algorithm_page_with_scores_links_to_the_comparison(site):
    from atari5_spec.scoring.baselines import algorithm_baselines

    for algorithm_id, entry in algorithm_baselines().items():
        text = (site / "algorithms" / f"{algorithm_id}.html").read_text("utf-8")
        assert (f'href="../compare.html?a={algorithm_id}"' in text) == bool(entry.scores), algorithm_id
    assert '<a href="compare.html">Compare</a>' in (site / "index.html").read_text("utf-8")


def test_shares_setup_is_one_papers_agents_with_one_recorded_protocol():
    from atari5_spec.scoring.baselines import algorithm_baseline, shares_setup

    c51, qr1, dqn, rainbow = (algorithm_baseline(i) for i in ("c51", "qr-dqn-1", "dqn-noop", "rainbow-noop"))
    assert shares_setup(c51, qr1) and shares_setup(qr1, c51)
    assert not shares_setup(c51, c51)                        # an entry is not a pair
    assert not shares_setup(dqn, rainbow)                    # two papers
    quoted = algorithm_baseline("qr-dqn-2018-ref-dqn")       # a column quoted from another paper
    assert quoted.paper_title == qr1.paper_title and not shares_setup(quoted, qr1)
    assert not shares_setup(c51, qr1._replace(protocol={**qr1.protocol, "sticky_action_probability": "0.25"}))
