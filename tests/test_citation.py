"""``atari5-spec cite``: BibTeX that a real parser reads, CFF that validates, the README's "How to cite", no DOI."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

import atari5_spec
from atari5_spec.cli import main
from atari5_spec.scoring import citation as cite
from atari5_spec.scoring.signature import data_package_version

REPOSITORY = Path(__file__).resolve().parents[1]
REQUIRED = {"inproceedings": {"author", "title", "booktitle", "year"},
            "misc": {"title", "note"}}


@pytest.fixture()
def run(capsys):
    def invoke(*arguments):
        status = main(list(arguments))
        out, err = capsys.readouterr()
        assert status == 0, err
        return out
    return invoke


SIGNED = "Atari-5|coef:paper-2023@071b0e4b|cal:paper-2023.reselected@305685f5|norm:agent57-human|phi:log10p1"


@pytest.mark.parametrize("arguments", [(), ("--sources",), ("--signature", SIGNED + "|v:1.2.0")])
def test_bibtex_is_entries_only_and_pybtex_and_bibtexparser_read_the_same(capsys, arguments):
    """BibTeX has no comments: a '%' line with 'paper-2023@071b0e4b' was read by pybtex as an entry."""
    pybtex_database = pytest.importorskip("pybtex.database")
    bibtexparser = pytest.importorskip("bibtexparser")
    assert main(["cite", *arguments]) == 0
    out, err = capsys.readouterr()
    outside = re.sub(r"(?ms)^@\w+\{.*?^\}$", "", out)
    assert outside.strip() == ""  # nothing between or after the entries
    assert all(line.startswith("@") for line in out.splitlines() if "@" in line)  # '@' only opens an entry
    strict = pybtex_database.parse_string(out, "bibtex")  # pybtex raises on a malformed file
    library = bibtexparser.parse_string(out)
    assert not library.failed_blocks and not [b for b in library.blocks if type(b).__name__ != "Entry"]
    assert sorted(strict.entries) == sorted(e.key for e in library.entries)
    software = strict.entries["atari5spec" + atari5_spec.__version__.replace(".", "_")]
    assert software.fields["version"] == atari5_spec.__version__
    assert "coefficient version paper-2023 (digest 071b0e4b)" in " ".join(software.fields["note"].split())
    assert software.fields.get("url") == cite.REPOSITORY_URL  # absent until the repository has its address
    assert err.startswith("Next to the number: Atari-5 scores (Aitchison, Sweetser and Hutter, 2023)")


def test_the_repository_url_is_one_field_everywhere():
    """cite's URL, pyproject.toml [project.urls] Source and CITATION.cff repository-code agree (all absent until
    the repository has its public address: CONTRIBUTING.md, "Releasing")."""
    text = (REPOSITORY / "pyproject.toml").read_text(encoding="utf-8")
    section = text[text.index("[project.urls]"):].split("\n[", 1)[0]  # tomllib is Python 3.11+
    urls = dict(re.findall(r'^"?([\w ]+?)"?\s*=\s*"([^"]*)"', section, re.M))
    assert urls.get("Paper") == "https://arxiv.org/abs/2210.02019"  # the section was read
    cff = yaml.safe_load((REPOSITORY / "CITATION.cff").read_text(encoding="utf-8"))
    assert urls.get("Source") == cff.get("repository-code") == cite.REPOSITORY_URL
    assert json.loads(main_output("cite", "--format", "json"))["software"]["repository"] == cite.REPOSITORY_URL


def main_output(*arguments) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(list(arguments)) == 0
    return buffer.getvalue()


def test_bibtex_parses_with_every_required_field(run):
    bibtexparser = pytest.importorskip("bibtexparser")
    out = run("cite", "--sources")
    library = bibtexparser.parse_string(out)
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    entries = {e.key: e for e in library.entries}
    paper = entries["aitchison2023atari5"]
    assert paper.entry_type == "inproceedings" and REQUIRED["inproceedings"] <= set(paper.fields_dict)
    assert paper["author"] == "Aitchison, Matthew and Sweetser, Penny and Hutter, Marcus"
    assert paper["year"] == "2023" and paper["eprint"] == "2210.02019"
    software = entries["atari5spec" + atari5_spec.__version__.replace(".", "_")]
    assert {"author", "title", "year", "version", "note"} <= set(software.fields_dict)
    assert software["version"] == atari5_spec.__version__
    assert f"data package {data_package_version()}" in software["note"]
    sources = [e for e in library.entries if e.key.startswith("source-")]
    assert sources and all(REQUIRED["misc"] <= set(e.fields_dict) for e in sources)
    assert len(library.entries) == 2 + len(sources)
    assert "doi" not in out.lower()  # no DOI until one exists (CONTRIBUTING.md, "Releasing")


def test_sources_are_those_of_the_rows_the_version_uses(dataset):
    """Computed here independently with pandas: training rows, calibration agents' rows, the constants."""
    import pandas as pd

    coefficients_dir = REPOSITORY / "coefficients" / "paper-2023"
    training = pd.read_csv(coefficients_dir / "training_rows.csv", dtype={"score_id": str})
    scores = pd.read_csv(REPOSITORY / "data" / "scores.csv", dtype={"score_id": str})
    from atari5_spec.method.calibration import read_calibration

    calibration = read_calibration(coefficients_dir)  # the one score uses (its default)
    held_out = {row["algorithm_id"] for row in calibration.rows}
    used = scores[scores["score_id"].isin(training["score_id"])
                  | (scores["algorithm_id"].isin(held_out) & scores["use_in_fit"])]
    expected = used["source_id"].value_counts().to_dict()
    expected["agent57-2020"] = expected.get("agent57-2020", 0) + 57
    got = {s.source_id: s.n_rows for s in cite.citation("paper-2023", sources=True).sources}
    assert got == expected
    # paper-2023 was fitted before the contributions, but DreamerV3 is one of its held-out calibration agents
    assert "pwc-2022" in got and "contrib-dreamerv3" in got and "contrib-dreamerv3" not in _training_sources()


def test_cff_output_and_citation_cff_agree_and_validate(run, tmp_path):
    printed = yaml.safe_load(run("cite", "--format", "cff", "--sources"))
    repository = yaml.safe_load((REPOSITORY / "CITATION.cff").read_text(encoding="utf-8"))
    for key in ("cff-version", "type", "title", "version", "date-released", "license"):
        assert str(printed[key]) == str(repository[key]), key
    for key in ("title", "authors", "year", "volume", "url"):
        assert printed["preferred-citation"][key] == repository["preferred-citation"][key], key
    assert "doi" not in printed and "doi" not in repository
    if importlib.util.find_spec("cffconvert") is None:
        pytest.skip("cffconvert is not installed here (.ci/run validates both files with it in its own venv)")
    from cffconvert.cli.create_citation import create_citation

    path = tmp_path / "CITATION.cff"
    path.write_text(run("cite", "--format", "cff", "--sources"), encoding="utf-8")
    for cff in (path, REPOSITORY / "CITATION.cff"):
        create_citation(str(cff), None).validate()  # raises on a file that does not validate


def test_readme_how_to_cite_shows_exactly_what_cite_prints(capsys):
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## How to cite"):readme.index("## Development")]
    command = re.search(r"^    atari5-spec cite --signature '([^']+)'$", section, re.M)
    shown = section[section.index("prints\n\n") + len("prints\n\n"):section.index("\n\nand, on standard error")]
    sentence = section[section.index("standard error"):section.index("\n\nCITATION.cff has")].split("\n\n", 1)[1]
    assert main(["cite", "--signature", command.group(1)]) == 0
    printed, error = capsys.readouterr()
    assert shown == "\n".join("    " + line if line else "" for line in printed.rstrip("\n").split("\n"))
    assert sentence == "    " + error.rstrip("\n")
    # the example signature is this release's: update it at a release (CONTRIBUTING.md, "Releasing")
    assert command.group(1).endswith(f"|v:{atari5_spec.__version__}")
    if cite.DOI is None:
        assert "There is no DOI yet" in " ".join(section.split()) and "doi.org" not in readme
    else:
        assert cite.DOI in section


def test_other_formats_and_the_sentence(run):
    sentence = cite.citation().sentence
    assert atari5_spec.__version__ in sentence and data_package_version() in sentence
    as_json = json.loads(run("cite", "--format", "json"))
    assert as_json["sentence"] == sentence and as_json["software"]["doi"] is None
    assert as_json["software"]["version"] == atari5_spec.__version__
    apa = run("cite", "--format", "apa")
    assert apa.startswith("Aitchison, M., Sweetser, P., & Hutter, M. (2023).") and sentence in apa
    signed = cite.citation(signature="Atari-5|coef:paper-2023@071b0e4b|norm:agent57-human|phi:log10p1|v:0.1.0")
    assert signed.code_version == "0.1.0" and signed.release_date is None and "signature [Atari-5|" in signed.sentence


def _training_sources() -> set[str]:
    import csv

    with (REPOSITORY / "coefficients" / "paper-2023" / "training_rows.csv").open(encoding="utf-8") as handle:
        ids = {row["score_id"] for row in csv.DictReader(handle)}
    with (REPOSITORY / "data" / "scores.csv").open(encoding="utf-8") as handle:
        return {row["source_id"] for row in csv.DictReader(handle) if row["score_id"] in ids}


# --- issue 48 item 1: each entry's paper, with its authors -------------------------------------------------------------

def _link_rows() -> list[dict]:
    import csv

    with (REPOSITORY / "data" / "paper_links.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_every_papers_bibtex_parses_and_carries_the_recorded_authors():
    """The entry of every linked paper (what the site and `cite --algorithm` print), all in one file: pybtex and
    bibtexparser read it, braces balance in each entry, and each recorded author list comes back name by name."""
    pybtex_database = pytest.importorskip("pybtex.database")
    bibtexparser = pytest.importorskip("bibtexparser")
    rows = _link_rows()
    entries = {r["algorithm_id"]: cite.paper_bibtex(cite.paper(r["algorithm_id"])) for r in rows}
    entries = {k: v for k, v in entries.items() if v}
    by_key = {cite.paper_key(cite.paper(k)): k for k in entries}
    assert len(by_key) == len(entries)  # one key per entry
    for text in entries.values():
        depth = 0
        for ch in text:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0
        assert depth == 0 and "@" not in text[1:]
    out = "\n\n".join(entries.values()) + "\n"
    strict = pybtex_database.parse_string(out, "bibtex")
    library = bibtexparser.parse_string(out)
    assert not library.failed_blocks and len(library.entries) == len(entries) == len(strict.entries)
    authored = {r["algorithm_id"]: r["authors"] for r in rows if r["authors"] and r["link_kind"] != "none-found"}
    assert len(authored) >= 90
    for key, algorithm_id in by_key.items():
        persons = strict.entries[key].persons.get("author", [])
        if algorithm_id in authored:
            names = authored[algorithm_id].split(" and ")
            assert len(persons) == len(names), algorithm_id
            assert [" ".join(p.prelast_names + p.last_names) for p in persons if str(p) != "others"] == \
                [n.split(", ")[0] for n in names if n != "others"], algorithm_id
            assert "note" not in strict.entries[key].fields  # no "Authors not recorded" beside the authors
        else:
            assert not persons and "Authors not recorded" in strict.entries[key].fields["note"]


def test_cite_algorithm_adds_the_entrys_paper_with_authors_and_venue(run, capsys):
    bibtexparser = pytest.importorskip("bibtexparser")
    row = {r["algorithm_id"]: r for r in _link_rows()}["ape-x"]
    out = run("cite", "--algorithm", "ape-x")
    entry = {e.key: e for e in bibtexparser.parse_string(out).entries}["apex2018"]
    assert entry["author"] == row["authors"] and entry["eprint"] == row["link"] == "1803.00933"
    assert entry["howpublished"] == row["venue"]
    as_json = json.loads(run("cite", "--format", "json", "--algorithm", "ape-x", "--algorithm", "adam-huber"))
    papers = {p["algorithm_id"]: p for p in as_json["papers"]}
    assert papers["ape-x"]["authors"] == row["authors"].split(" and ") and papers["ape-x"]["status"] == "doubtful"
    assert papers["adam-huber"]["url"] is None and papers["adam-huber"]["reason"]
    assert "Horgan, Dan, Quan, John" in run("cite", "--format", "apa", "--algorithm", "ape-x")
    cff = yaml.safe_load(run("cite", "--format", "cff", "--algorithm", "ape-x"))
    assert cff["references"][0]["authors"][0] == {"family-names": "Horgan", "given-names": "Dan"}
    assert main(["cite", "--algorithm", "no-such-entry"]) == 1
    assert "no-such-entry" in capsys.readouterr().err
