"""Results contributed by pull request: checking submissions, merging them append-only, and what must not happen.

Every bad input is rejected by ``atari5-spec contribute add`` with the file,
line, column and fix, exit status 1, no traceback, and the package left
byte-identical. A realistic submission merges, the package stays valid, the
paper's pinned version still verifies, and a new version can be fitted.
"""

import datetime
import hashlib
import json
import os
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from conftest import PACKAGE_PARTS

from atari5_spec_maintainers import contributions as contrib
from atari5_spec.cli import main
from atari5_spec.data.datapackage import bump_version, package_root, read_descriptor
from atari5_spec.data.loading import load
from atari5_spec.data.validation import validate_package
from atari5_spec.method import training
from atari5_spec.method.verification import verify

LOAD = load  # the loader itself, for the test that counts the package reads through a wrapper

REPOSITORY = Path(__file__).resolve().parents[2]
TEMPLATE = REPOSITORY / "contributions" / "_template"
THIS_YEAR = datetime.date.today().year

BASE_METADATA = {
    "name": "TestAgent",
    "paper": {"title": "A Test Agent for Atari", "authors": ["Ada Example", "Grace Template"], "year": 2024,
              "arxiv": "2401.12345", "location": "Table 5"},
    "protocol": {"start_condition": "no-op", "sticky_action_probability": 0.25, "max_episode_frames": 108000,
                 "training_frames": 200000000, "seeds": 3, "statistic": "mean"},
    "contributor": {"name": "Grace Hopper", "github": "grace-hopper"},
}
BASE_SCORES = "game,score\nBattle Zone,41230.5\nDouble Dunk,-1.2\nName This Game,12450\nPhoenix,35120.7\nQ*bert,18230\n"


# --- helpers ---------------------------------------------------------------------------------------------------

@pytest.fixture()
def package(package_copy):
    """A writable package copy with a CHANGELOG.md, as in the repository."""
    changelog = package_root() / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8") if changelog.exists() else "# Changelog\n\n## [Unreleased]\n"
    (package_copy / "CHANGELOG.md").write_text(text, encoding="utf-8")
    return package_copy


def metadata(**changes) -> dict:
    """BASE_METADATA with nested changes: metadata(paper={"year": 2030}); None removes a key."""
    result = yaml.safe_load(yaml.safe_dump(BASE_METADATA, sort_keys=False))
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            for inner, inner_value in value.items():
                if inner_value is None:
                    result[key].pop(inner, None)
                else:
                    result[key][inner] = inner_value
        elif value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def make_submission(parent: Path, submission_id: str = "test-agent", meta=None, scores=BASE_SCORES) -> Path:
    """A submission folder: ``meta`` a dict or YAML text, ``scores`` text or bytes (written byte-exact)."""
    folder = parent / submission_id
    folder.mkdir(parents=True)
    text = meta if isinstance(meta, str) else yaml.safe_dump(meta or BASE_METADATA, sort_keys=False)
    (folder / "metadata.yaml").write_bytes(text.encode("utf-8"))
    (folder / "scores.csv").write_bytes(scores if isinstance(scores, bytes) else scores.encode("utf-8"))
    return folder


def snapshot(root: Path) -> dict:
    """sha256 of every file under ``root`` (links by their target), and the list of directories."""
    files = {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(root.rglob("*")) if p.is_file()}
    return {"files": files, "dirs": sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir())}


def run(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


# --- bad input: every case rejected with its place and fix, nothing written --------------------------------------

def _scores(text):
    return lambda contributions: make_submission(contributions, scores=text)


def _meta(meta):
    return lambda contributions: make_submission(contributions, meta=meta)


def _symlinked_scores(target_of):
    def setup(contributions):
        folder = make_submission(contributions)
        (folder / "scores.csv").unlink()
        os.symlink(target_of(folder), folder / "scores.csv")
        return folder
    return setup


def _symlinked_folder(contributions):
    real = make_submission(contributions.parent / "elsewhere")
    os.symlink(real, contributions / "test-agent", target_is_directory=True)
    return contributions / "test-agent"


def _with_extra_file(contributions):
    folder = make_submission(contributions)
    (folder / "run.sh").write_text("rm -rf /", encoding="utf-8")
    return folder


def _without_scores(contributions):
    folder = make_submission(contributions)
    (folder / "scores.csv").unlink()
    return folder


def _oversized(contributions):
    folder = make_submission(contributions)
    with open(folder / "scores.csv", "r+b") as handle:  # sparse: the size is what counts, before reading
        handle.truncate(contrib.MAX_FILE_BYTES + 1)
    return folder


BAD_INPUTS = {
    # id: (setup, fragments the output must contain)
    "misspelled-game": (_scores(BASE_SCORES.replace("Battle Zone", "Battel Zone")),
                        ["test-agent/scores.csv, line 2, column 'game'", "unknown game 'Battel Zone'",
                         "did you mean battle_zone"]),
    "unknown-game": (_scores(BASE_SCORES + "Minecraft,100\n"),
                     ["scores.csv, line 7, column 'game'", "unknown game 'Minecraft'"]),
    "ale-game-not-in-the-package": (_scores(BASE_SCORES + "Adventure,0\n"),
                                    ["scores.csv, line 7, column 'game'", "'Adventure' is the ALE game adventure, "
                                     "outside the 57-game benchmark"]),
    "duplicate-row": (_scores(BASE_SCORES + "Q*bert,18230\n"),
                      ["scores.csv, line 7, column 'game'", "duplicate row: qbert is given again (first on line 6)"]),
    "duplicate-spelling": (_scores(BASE_SCORES + "ALE/Qbert-v5,18000\n"),
                           ["scores.csv, line 7, column 'game'", "duplicate row: qbert"]),
    "non-numeric-score": (_scores(BASE_SCORES.replace("12450", "n/a")),
                          ["scores.csv, line 4, column 'score'", "'n/a' is not a number"]),
    "nan-score": (_scores(BASE_SCORES.replace("12450", "NaN")),
                  ["scores.csv, line 4, column 'score'", "'NaN' is not a finite score"]),
    "inf-score": (_scores(BASE_SCORES.replace("12450", "-inf")),
                  ["scores.csv, line 4, column 'score'", "'-inf' is not a finite score"]),
    "overflowing-score": (_scores(BASE_SCORES.replace("12450", "1e400")),
                          ["scores.csv, line 4, column 'score'", "'1e400' is too large to be a finite number"]),
    "blank-name": (_meta(metadata(name="   ")), ["column 'name': '   ' does not match"]),
    "thousands-suffix": (_scores(BASE_SCORES.replace("12450", "12.3k")),
                         ["scores.csv, line 4, column 'score'", "thousands suffix", "write the full number, 12300"]),
    "thousands-separator-unquoted": (_scores(BASE_SCORES.replace("12450", "1,234")),
                                     ["scores.csv, line 4, column 'score'", "'1,234' has a thousands separator",
                                      "write 1234"]),
    "thousands-separator-quoted": (_scores(BASE_SCORES.replace("12450", '"1,234"')),
                                   ["scores.csv, line 4, column 'score'", "thousands separators", "write 1234"]),
    "empty-file": (_scores(""), ["test-agent/scores.csv: the file is empty", "write the header game,score"]),
    "header-only": (_scores("game,score\n"), ["scores.csv: the file has no score rows"]),
    "zero-games": (_scores("game,score\n\n\n"),
                   ["scores.csv, line 2: empty line", "scores for zero games"]),
    "missing-column": (_scores("game\nBattle Zone\n"),
                       ["scores.csv, line 1, column 'score': the required column 'score' is missing"]),
    "extra-column": (_scores("game,score,notes\nBattle Zone,41230.5,best run\n"),
                     ["scores.csv, line 1, column 'notes': unknown column 'notes'", "allowed: game, score, seed, std"]),
    "row-with-extra-cell": (_scores(BASE_SCORES + "Pong,20,21\n"),
                            ["scores.csv, line 7: 3 cells under a header of 2 columns"]),
    "wrong-delimiter": (_scores(BASE_SCORES.replace(",", ";")),
                        ["scores.csv, line 1: the columns are separated by semicolons", "comma-separated"]),
    "utf8-bom": (_scores(b"\xef\xbb\xbf" + BASE_SCORES.encode()),
                 ["scores.csv, line 1: the file starts with a UTF-8 byte-order mark", "without BOM"]),
    "not-utf8": (_scores("game,score\nPhoenix,35120.7\n".encode() + b"Q\xe9bert,1\n"),
                 ["scores.csv, line 3: is not UTF-8"]),
    "missing-location": (_meta(metadata(paper={"location": None})),
                         ["metadata.yaml, line 2, column 'paper.location': the key 'location' is missing",
                          "Where in the paper"]),
    "no-doi-arxiv-or-url": (_meta(metadata(paper={"arxiv": None})),
                            ["metadata.yaml, line 2, column 'paper': no DOI, arXiv id or URL",
                             "give at least one of paper.doi, paper.arxiv or paper.url"]),
    "missing-contributor-contact": (_meta(metadata(contributor={"github": None})),
                                    ["column 'contributor': no GitHub handle or e-mail",
                                     "give contributor.github or contributor.email"]),
    "missing-protocol-key": (_meta(metadata(protocol={"seeds": None})),
                             ["column 'protocol.seeds': the key 'seeds' is missing", "null when the paper does not say"]),
    "future-year": (_meta(metadata(paper={"year": THIS_YEAR + 1})),
                    ["metadata.yaml, line 7, column 'paper.year'", f"the year {THIS_YEAR + 1} is in the future"]),
    "unknown-key": (_meta(metadata(paper={"titel": "typo"})),
                    ["column 'paper.titel': unknown key 'titel'", "did you mean 'title'?"]),
    "enum-value": (_meta(metadata(protocol={"start_condition": "noop"})),
                   ["column 'protocol.start_condition'", "use one of: no-op, human-starts, null"]),
    "invalid-yaml": (_meta("name: TestAgent\npaper: [unclosed\ncontributor: {name: A}\n"),
                     ["metadata.yaml, line 3: not valid YAML"]),
    "yaml-object-tag": (_meta("name: !!python/object/apply:os.system ['touch /tmp/atari5-pwned']\n"),
                        ["metadata.yaml, line 1: YAML tags are not accepted", "yaml.safe_load"]),
    "yaml-alias": (_meta("a: &x [1, 2]\nname: *x\n"), ["metadata.yaml, line 2: YAML aliases"]),
    "yaml-duplicate-key": (_meta(yaml.safe_dump(BASE_METADATA, sort_keys=False) + "name: Other\n"),
                           ["column 'name': the key appears twice (first on line 1)"]),
    "yaml-not-a-mapping": (_meta("- just\n- a list\n"), ["metadata.yaml: the file holds no YAML mapping"]),
    "existing-algorithm-id": (lambda c: make_submission(c, "dreamerv2"),
                              ["contributions/dreamerv2: the algorithm id 'dreamerv2' already exists",
                               "corrects: dreamerv2"]),
    "id-outside-the-pattern": (lambda c: make_submission(c, "Test_Agent.v2"),
                               ["the folder name 'Test_Agent.v2' is not a valid algorithm id",
                                "rename the folder, e.g. to 'testagent'"]),
    "windows-device-name": (lambda c: make_submission(c, "aux"),
                            ["the folder name 'aux' is a Windows device name (AUX)",
                             "rename the folder, e.g. to 'aux-agent'"]),
    "windows-device-name-com": (lambda c: make_submission(c, "com7"),
                                ["the folder name 'com7' is a Windows device name (COM7)"]),
    "differs-only-by-case-from-an-algorithm": (lambda c: make_submission(c, "DreamerV2"),
                                               ["the folder name 'DreamerV2' differs only by case from 'dreamerv2'",
                                                "rename the folder"]),
    "differs-only-by-case-from-a-folder": (lambda c: (make_submission(c, "test-agent"),
                                                      make_submission(c, "Test-Agent"))[1],
                                           ["the folder name 'Test-Agent' differs only by case from 'test-agent'"]),
    "symlink-escaping-with-dotdot": (_symlinked_scores(lambda folder: "../../data/scores.csv"),
                                     ["scores.csv: is a symbolic link (to '../../data/scores.csv')",
                                      "may not point outside"]),
    "symlink-absolute": (_symlinked_scores(lambda folder: str(folder.parents[1] / "data" / "scores.csv")),
                         ["scores.csv: is a symbolic link"]),
    "symlinked-folder": (_symlinked_folder, ["test-agent: the submission folder is a symbolic link"]),
    "unexpected-file": (_with_extra_file, ["test-agent/run.sh: unexpected file in the submission"]),
    "missing-scores-file": (_without_scores, ["test-agent/scores.csv: the file is missing"]),
    "formula-in-metadata": (_meta(metadata(name="=cmd|' /C calc'!A0")),
                            ["column 'name': text starting with '=' is read as a formula"]),
    "formula-plus-minus-at": (_meta(metadata(paper={"authors": ["+Ada Example", "@Grace", "-Alan"]})),
                              ["column 'paper.authors.0': text starting with '+'",
                               "column 'paper.authors.1': text starting with '@'",
                               "column 'paper.authors.2': text starting with '-'"]),
    "formula-in-scores": (_scores(BASE_SCORES + "\"=HYPERLINK(\"\"http://x\"\")\",5\n"),
                          ["scores.csv, line 7, column 'game': text starting with '='"]),
    "file-too-large": (_oversized, ["scores.csv: is 1,048,577 bytes, more than the limit of 1,048,576 bytes"]),
    "far-below-random": (_scores(BASE_SCORES.replace("-1.2", "-100")),
                         ["scores.csv, line 3, column 'score'", "81.45 points below random play on double_dunk",
                          "37.9 times the human-random gap below random"]),
    "negative-seed": (_scores("game,score,seed\nPhoenix,35000,-1\n"),
                      ["scores.csv, line 2, column 'seed': '-1' is not a run id"]),
    "per-seed-only-for-best-checkpoint": (
        lambda c: make_submission(c, meta=metadata(protocol={"statistic": "best-checkpoint"}),
                                  scores="game,score,seed\nPhoenix,35000,0\nPhoenix,36000,1\n"),
        ["scores.csv, line 2, column 'seed'", "cannot be computed", "add a row without seed"]),
    "correction-of-unknown-algorithm": (
        _meta(metadata(name=None, protocol=None, corrects="dreamer-v2")),
        ["column 'corrects': no algorithm 'dreamer-v2'", "did you mean dreamerv2"]),
    "correction-with-protocol": (
        _meta(metadata(name=None, corrects="dreamerv2")),
        ["metadata.yaml, line 9, column 'protocol': a correction gives neither name nor protocol",
         "remove name and protocol"]),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS), ids=list(BAD_INPUTS))
def test_bad_submission_is_rejected_with_place_and_fix_and_nothing_changes(case, package, capsys):
    setup, fragments = BAD_INPUTS[case]
    contributions = package / "contributions"
    contributions.mkdir()
    folder = setup(contributions)
    before = snapshot(package)

    code, output = run(capsys, "contribute", "add", str(folder))

    assert code == 1
    assert "Traceback" not in output
    for fragment in fragments:
        assert fragment in output, f"{fragment!r} not in:\n{output}"
    assert "fix:" in output and "nothing was written" in output
    assert snapshot(package) == before  # data/, datapackage.json, CHANGELOG.md and everything else
    assert not Path("/tmp/atari5-pwned").exists()


def test_check_lists_every_problem_not_just_the_first(package):
    scores = "game,score\nBattel Zone,1\nDouble Dunk,12.3k\nAdventure,5\nPhoenix,nan\nPhoenix,1\n"
    folder = make_submission(package / "contributions", meta=metadata(paper={"year": THIS_YEAR + 5, "arxiv": None}),
                             scores=scores)
    report = contrib.check_submission(folder)
    found = {(Path(p.file).name, p.row, p.column) for p in report.problems}
    assert {("scores.csv", 2, "game"), ("scores.csv", 3, "score"), ("scores.csv", 4, "game"),
            ("scores.csv", 5, "score"), ("metadata.yaml", 7, "paper.year"),
            ("metadata.yaml", 2, "paper")} <= found
    assert all(p.fix for p in report.problems)


@pytest.mark.slow  # four reads of the package
def test_check_of_several_folders_reads_the_package_once_and_prints_each_folders_report(package, capsys,
                                                                                         monkeypatch):
    from atari5_spec.data import loading

    bad = make_submission(package / "contributions", "bad-agent", scores="game,score\nPhoenix,12.3k\n")
    merged = shutil.copytree(REPOSITORY / "contributions" / "dreamerv3", package / "contributions" / "dreamerv3")
    alone = [run(capsys, "contribute", "check", str(folder)) for folder in (bad, merged)]
    assert [code for code, _ in alone] == [1, 0]
    reads = []
    monkeypatch.setattr(loading, "load", lambda *a, **k: reads.append(a) or LOAD(*a, **k))
    assert run(capsys, "contribute", "check", str(bad), str(merged)) == (1, alone[0][1] + alone[1][1])
    assert run(capsys, "contribute", "check", str(merged), str(merged)) == (0, alone[1][1] * 2)
    assert len(reads) == 2  # once per command


def test_an_existing_id_is_listed_with_the_other_problems(package):
    folder = make_submission(package / "contributions", "dreamerv2", scores="game,score\nPhoenix,12.3k\n")
    report = contrib.check_submission(folder)
    assert [(Path(p.file).name, p.row, p.column) for p in report.problems] == [
        ("dreamerv2", None, None), ("scores.csv", 2, "score")]


def test_a_missing_package_for_add_is_an_input_error(tmp_path, capsys):
    folder = make_submission(tmp_path)
    code, output = run(capsys, "contribute", "add", str(folder))
    assert code == 1 and "pass --package DIR" in output and "Traceback" not in output


@pytest.mark.slow
def test_add_of_an_already_merged_submission_writes_nothing(package, capsys):
    folder = make_submission(package / "contributions")
    assert run(capsys, "contribute", "add", str(folder))[0] == 0
    before = snapshot(package)
    code, output = run(capsys, "contribute", "add", str(folder))
    assert code == 1 and "already merged as source contrib-test-agent" in output
    assert snapshot(package) == before


@pytest.mark.slow
def test_a_failure_while_writing_leaves_the_package_byte_identical(package, monkeypatch):
    from atari5_spec.data.errors import InputError

    folder = make_submission(package / "elsewhere")
    before = snapshot(package)
    calls = []
    real = os.replace

    def fail_on_third(source, target):  # the commit record's rename, a first file, then the disk fails
        calls.append(target)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(target))
        real(source, target)

    monkeypatch.setattr(os, "replace", fail_on_third)
    with pytest.raises(InputError, match="nothing was changed"):
        contrib.add_submission(folder, package)
    assert len(calls) > 3  # the first file was put back
    assert snapshot(package) == before  # written files restored, created folders removed, no staging left


# --- accepted variants ---------------------------------------------------------------------------------------------

def test_the_unchanged_template_is_refused_naming_every_made_up_value(tmp_path, package):
    shutil.copytree(TEMPLATE, package / "contributions" / "example-agent")
    report = contrib.check_submission(package / "contributions" / "example-agent")
    assert not report.ok
    columns = {p.column for p in report.problems if "template's made-up example" in p.message}
    assert columns == {"name", "paper.doi", "paper.arxiv", "paper.url", "contributor.name", "contributor.github"}
    assert all(p.row for p in report.problems)


@pytest.mark.slow
def test_the_template_filled_in_is_a_valid_submission(tmp_path, package):
    folder = package / "contributions" / "example-agent"
    shutil.copytree(TEMPLATE, folder)
    text = (folder / "metadata.yaml").read_text(encoding="utf-8")
    for old, new in (("ExampleAgent  ", "RealAgent     "), ("name: ExampleAgent", "name: RealAgent"),
                     ("10.5555/example.2024.1", "10.1234/real.2024.7"), ('"2401.00000"', '"2401.12345"'),
                     ("https://example.org/exampleagent.pdf", "https://example.org/realagent.pdf"),
                     ("name: Ada Example", "name: Grace Hopper"), ("ada-example", "grace-hopper")):
        text = text.replace(old, new)
    (folder / "metadata.yaml").write_text(text, encoding="utf-8")
    report = contrib.check_submission(folder)
    assert report.ok, contrib.format_report(report)
    assert [w.message for w in report.warnings] == [
        "scores for 5 of the 57 games: fits need at least 40, so the entry is stored but does not enter fits"]


@pytest.mark.slow
def test_crlf_line_endings_are_accepted_with_the_same_rows(package):
    lf = contrib.check_submission(make_submission(package / "contributions", "lf-agent"))
    crlf = contrib.check_submission(make_submission(package / "contributions", "crlf-agent",
                                                    scores=BASE_SCORES.replace("\n", "\r\n")))
    assert lf.ok and crlf.ok
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("algorithm_id", "source_id", "provenance")}
                          for r in rows]
    assert strip(crlf.merge.scores) == strip(lf.merge.scores)
    assert [r["provenance"].rsplit(":", 1)[1] for r in crlf.merge.scores] == ["2", "3", "4", "5", "6"]


@pytest.mark.slow
def test_arxiv_id_read_by_yaml_as_a_number_keeps_its_text(package):
    text = yaml.safe_dump(BASE_METADATA, sort_keys=False).replace("arxiv: '2401.12345'", "arxiv: 2401.10010")
    report = contrib.check_submission(make_submission(package / "contributions", meta=text))
    assert report.ok, contrib.format_report(report)
    assert "arXiv 2401.10010." in report.merge.source["description"]


@pytest.mark.slow
def test_seeds_keep_every_number_and_derive_the_fit_row_exactly(package):
    scores = ("game,score,seed,std\n"
              "Phoenix,35120.7,,900\nPhoenix,34000.1,0,\nPhoenix,35500,1,\nPhoenix,35862,2,\n"
              "Breakout,401,0,\nBreakout,388,1,\nBreakout,415.5,2,\n")
    report = contrib.check_submission(make_submission(package / "contributions", scores=scores))
    assert report.ok, contrib.format_report(report)
    rows = [(r["game_id"], r["score"], r["raw_value"], r["std"], r["provenance"].split("/")[-1], r["use_in_fit"])
            for r in report.merge.scores]
    mean = float(Fraction(401) / 3 + Fraction(388) / 3 + Fraction(4155, 10) / 3)
    assert rows == [
        ("breakout", mean, repr(mean), None, "scores.csv:6-8 (mean of 3 seeds)", True),
        ("phoenix", 35120.7, "35120.7", 900.0, "scores.csv:2", True),
    ]
    seeds = [(r["game_id"], r["seed"], r["score"], r["raw_value"], r["provenance"].split("/")[-1])
             for r in report.merge.seed_scores]
    assert seeds == [
        ("breakout", 0, 401.0, "401", "scores.csv:6"),
        ("breakout", 1, 388.0, "388", "scores.csv:7"),
        ("breakout", 2, 415.5, "415.5", "scores.csv:8"),
        ("phoenix", 0, 34000.1, "34000.1", "scores.csv:3"),
        ("phoenix", 1, 35500.0, "35500", "scores.csv:4"),
        ("phoenix", 2, 35862.0, "35862", "scores.csv:5"),
    ]
    assert report.merge.budget_scores == []


@pytest.mark.slow
def test_mean_plus_minus_std_cells_keep_their_text_and_split_the_numbers(package):
    scores = "game,score\nPhoenix,1705.80 ± 439.74\nQ*bert,18230 +/- 950\n"
    report = contrib.check_submission(make_submission(package / "contributions", scores=scores))
    assert report.ok, contrib.format_report(report)
    assert [(r["game_id"], r["score"], r["std"], r["raw_value"]) for r in report.merge.scores] == [
        ("phoenix", 1705.8, 439.74, "1705.80 ± 439.74"), ("qbert", 18230.0, 950.0, "18230 +/- 950")]


def test_a_spread_given_twice_is_a_problem(package):
    scores = "game,score,std\nPhoenix,1705.80 ± 439.74,439.74\n"
    report = contrib.check_submission(make_submission(package / "contributions", scores=scores))
    assert not report.ok
    assert [(p.row, p.column) for p in report.problems] == [(2, "std")]


@pytest.mark.slow
def test_learning_curve_rows_go_to_the_budget_table_and_need_a_rule(package):
    scores = ("game,score,seed,training_frames,points,first_frame,last_frame\n"
              "Phoenix,100,0,,,,\nPhoenix,50,0,10000000,5,8400000,10000000\nPhoenix,100,0,200000000,5,198400000,200000000\n")
    report = contrib.check_submission(make_submission(package / "contributions", scores=scores))
    assert not report.ok and [p.column for p in report.problems] == ["upstream.curve_rule"]
    meta = metadata(upstream={"repository": "example/curves", "commit": "0" * 40, "path": "runs.json",
                              "curve_rule": "mean of the last 5 points at or below the budget"})
    report = contrib.check_submission(make_submission(package / "contributions", "test-agent-2", meta=meta,
                                                      scores=scores))
    assert report.ok, contrib.format_report(report)
    assert [(r["training_frames"], r["seed"], r["score"], r["points"]) for r in report.merge.budget_scores] == [
        (10000000, 0, 50.0, 5), (200000000, 0, 100.0, 5)]
    assert report.merge.source["curve_rule"].startswith("mean of the last 5")
    assert report.merge.source["repository"] == "example/curves"
    assert all(";" in r["provenance"] and "example/curves@" in r["provenance"] for r in report.merge.budget_scores)


def test_a_curve_row_without_its_seed_or_window_is_a_problem(package):
    scores = "game,score,seed,training_frames,points,first_frame,last_frame\nPhoenix,50,,10000000,5,,\n"
    report = contrib.check_submission(make_submission(package / "contributions", scores=scores))
    assert {(p.row, p.column) for p in report.problems} >= {(2, "seed"), (2, "first_frame"), (2, "last_frame")}


def test_a_published_mean_that_disagrees_with_its_seeds_is_rejected_naming_both(package):
    scores = "game,score,seed\nPhoenix,30000,\nPhoenix,34000.1,0\nPhoenix,35500,1\nPhoenix,35862,2\n"
    report = contrib.check_submission(make_submission(package / "contributions", scores=scores))
    assert not report.ok
    [problem] = report.problems
    assert problem.row == 2 and "differs from the mean of its 3 per-seed rows" in problem.message
    assert "lines 3-5" in problem.fix


@pytest.mark.parametrize("protocol, expected", [
    ({"max_episode_frames": 400000}, ("episode-frame-limit", 0.25, 400000, 200000000)),
    ({"training_frames": 400000, "sticky_action_probability": 0}, ("training-budget", 0, 108000, 400000)),
    ({"max_episode_frames": None, "training_frames": None, "sticky_action_probability": None}, (None, None, None, None)),
], ids=["episode-frame-limit", "training-budget", "not-stated"])
@pytest.mark.slow
def test_protocol_fills_the_algorithm_row_and_its_exclusion(package, protocol, expected):
    meta = metadata()
    meta["protocol"].update(protocol)
    report = contrib.check_submission(make_submission(package / "contributions", meta=meta))
    assert report.ok, contrib.format_report(report)
    row = report.merge.algorithm
    assert (row["exclusion"], row["sticky_action_probability"], row["max_episode_frames"],
            row["training_frames"]) == expected
    assert row["regime"] == (None if row["training_frames"] is None else
                             "atari-100k" if row["training_frames"] == 400000 else "200M")
    assert row["protocol_note"]
    assert (row["exclusion_note"] is None) == (row["exclusion"] is None)


@pytest.mark.slow
def test_submission_from_elsewhere_is_copied_byte_exact_into_the_package(package, tmp_path):
    folder = make_submission(tmp_path / "outside", scores=BASE_SCORES.replace("\n", "\r\n"))
    contrib.add_submission(folder, package)
    for name in contrib.SUBMISSION_FILES:
        assert (package / "contributions" / "test-agent" / name).read_bytes() == (folder / name).read_bytes()


@pytest.mark.slow
def test_merged_submission_must_stay_what_was_merged(package, capsys):
    folder = make_submission(package / "contributions")
    contrib.add_submission(folder)
    assert run(capsys, "contribute", "check", str(folder)) == (
        0, "test-agent: already merged as source contrib-test-agent; data/ matches the submission.\n")
    (folder / "scores.csv").write_text(BASE_SCORES.replace("12450", "12451"), encoding="utf-8")
    code, output = run(capsys, "contribute", "check", str(folder))
    assert code == 1 and "a merged submission must not change" in output


def test_metadata_schema_lengths_agree_with_the_algorithms_table_schema():
    import json

    root = package_root()
    meta = json.loads((root / contrib.METADATA_SCHEMA).read_text(encoding="utf-8"))
    algorithms = {f["name"]: f for f in json.loads((root / "schemas/algorithms.schema.json").read_text())["fields"]}
    assert meta["properties"]["name"]["maxLength"] == algorithms["name"]["constraints"]["maxLength"]
    assert meta["properties"]["paper"]["properties"]["title"]["maxLength"] == \
        algorithms["paper_title"]["constraints"]["maxLength"]
    assert meta["properties"]["corrects"]["pattern"] == algorithms["algorithm_id"]["constraints"]["pattern"]


# --- corrections ------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_correction_adds_superseding_rows_and_is_a_patch(package, dataset):
    old = dataset.scores[(dataset.scores.algorithm_id == "dreamerv2") & dataset.scores.use_in_fit]
    alien, amidar = (old[old.game_id == g].iloc[0] for g in ("alien", "amidar"))
    meta = metadata(name=None, protocol=None, corrects="dreamerv2",
                    paper={"title": "Mastering Atari with Discrete World Models", "location": "Table 9 (erratum)"})
    folder = make_submission(package / "contributions", "dreamerv2-erratum", meta=meta,
                             scores="game,score\nAlien,4000\nAmidar,2600.5\n")
    before = {p: (package / p).read_bytes() for p in ("data/scores.csv", "data/algorithms.csv", "data/sources.csv")}

    merge = contrib.add_submission(folder, approved=True)  # a correction by someone else: held, approved

    assert merge.bump == "patch" and merge.algorithm is None
    assert [(r["algorithm_id"], r["game_id"], r["raw_value"], r["supersedes"]) for r in merge.scores] == [
        ("dreamerv2", "alien", "4000", int(alien.score_id)), ("dreamerv2", "amidar", "2600.5", int(amidar.score_id))]
    after = load(package)
    assert read_descriptor(package)["version"] == bump_version(dataset.version, "patch")
    assert (package / "data/algorithms.csv").read_bytes() == before["data/algorithms.csv"]  # no new algorithm
    for path in ("data/scores.csv", "data/sources.csv"):  # append-only: the old bytes are a prefix
        assert (package / path).read_bytes().startswith(before[path])
    current = training.candidate_rows(after.scores, after.algorithms, after.games)
    current = current[current.algorithm_id == "dreamerv2"].set_index("game_id").score
    assert (current["alien"], current["amidar"]) == (4000.0, 2600.5)
    assert f"### Fixed\n- Data {bump_version(dataset.version, 'patch')}: 2 corrected and 0 new scores of `dreamerv2`" in \
        (package / "CHANGELOG.md").read_text(encoding="utf-8")
    # dreamerv2 is in the paper's training set: its pinned rows still exist unchanged, so it still verifies (every
    # check but the search: the versions, the calibrations, their interval tables, validation).
    failed = [c for c in verify(package, search=False) if not c.ok]
    assert not failed, failed


def test_a_correction_that_changes_nothing_is_rejected(package, capsys, dataset):
    old = dataset.scores[(dataset.scores.algorithm_id == "dreamerv2") & dataset.scores.use_in_fit
                         & (dataset.scores.game_id == "alien")].iloc[0]
    meta = metadata(name=None, protocol=None, corrects="dreamerv2")
    folder = make_submission(package / "contributions", "dreamerv2-fix", meta=meta,
                             scores=f"game,score\nAlien,{old.raw_value}\n")
    code, output = run(capsys, "contribute", "check", str(folder))
    assert code == 1 and f"is the number data/ already has for dreamerv2/alien (score_id {old.score_id})" in output


@pytest.mark.slow
def test_a_correction_of_a_table3_algorithm_keeps_the_paper_version_verifiable(package):
    meta = metadata(name=None, protocol=None, corrects="muzero")
    contrib.add_submission(make_submission(package / "contributions", "muzero-fix", meta=meta,
                                           scores="game,score\nPhoenix,900000\n"), approved=True)
    checks = verify(package, search=False, validate=False)
    assert {c.name for c in checks} >= {"paper-2023: training rows in data", "paper-2023: subset coefficients"}
    failed = [c for c in checks if not c.ok]
    assert not failed, failed


# --- a realistic submission, end to end ------------------------------------------------------------------------------

DREAMERV2_METADATA = {
    "name": "DreamerV2 (resubmitted)",
    "paper": {"title": "Mastering Atari with Discrete World Models",
              "authors": ["Danijar Hafner", "Timothy Lillicrap", "Mohammad Norouzi", "Jimmy Ba"],
              "year": 2021, "arxiv": "2010.02193", "location": "Atari scores table (appendix)"},
    "protocol": {"start_condition": None, "sticky_action_probability": 0.25, "max_episode_frames": 108000,
                 "training_frames": 200000000, "seeds": None, "statistic": "mean"},
    "contributor": {"name": "Test Contributor", "email": "test@example.org"},
    "notes": "Built by the test suite from the dreamerv2 rows of data/scores.csv.",
}


@pytest.fixture(scope="module")
def merged(tmp_path_factory, dataset):
    """A package copy with `dreamerv2-resubmitted` (DreamerV2's published numbers, printed game names) merged."""
    root = package_root()
    target = tmp_path_factory.mktemp("merged") / "package"
    shutil.copytree(root, target, ignore=lambda d, names: [n for n in names if n not in PACKAGE_PARTS]
                    if Path(d) == root else [])
    before = {p: (target / p).read_bytes() for p in ("data/scores.csv", "data/algorithms.csv", "data/sources.csv")}
    rows = dataset.scores[(dataset.scores.algorithm_id == "dreamerv2") & dataset.scores.use_in_fit]
    names = dataset.games.set_index("game_id")["name"]
    lines = ["game,score"] + [f'"{names[g]}",{v}' for g, v in zip(rows.game_id, rows.raw_value)]
    folder = make_submission(target / "contributions", "dreamerv2-resubmitted", DREAMERV2_METADATA,
                             "\n".join(lines) + "\n")
    report = contrib.check_submission(folder)
    merge = contrib.add_submission(folder, approved=True)  # the copy of dreamerv2 is held: the maintainer approves
    return {"root": target, "report": report, "merge": merge, "before": before, "dreamerv2": rows,
            "version": dataset.version,
            "first_id": int(dataset.scores.score_id.max()) + 1}


@pytest.mark.slow
def test_realistic_submission_checks_clean_with_the_duplicate_flagged(merged):
    report = merged["report"]
    assert report.ok, contrib.format_report(report)
    assert [w.message for w in report.warnings] == [
        f"{len(merged['dreamerv2'])} of the {len(merged['dreamerv2'])} scores equal those of 'dreamerv2' "
        f"('DreamerV2') in data/ (of {len(merged['dreamerv2'])} games both give)"]


@pytest.mark.slow
def test_merge_adds_exactly_the_expected_rows(merged):
    root, expected = merged["root"], merged["dreamerv2"].sort_values("game_id")
    data = load(root)
    added = data.scores[data.scores.source_id == "contrib-dreamerv2-resubmitted"]
    assert len(data.scores) == merged["first_id"] - 1 + len(expected)
    assert list(added.score_id) == list(range(merged["first_id"], merged["first_id"] + len(expected)))
    assert list(added.game_id) == list(expected.game_id)
    assert list(added.raw_value) == list(expected.raw_value) and list(added.score) == list(expected.score)
    assert set(added.algorithm_id) == {"dreamerv2-resubmitted"} and added.use_in_fit.all()
    assert added.supersedes.isna().all() and added.reported_in.isna().all()
    assert all(p.startswith("contributions/dreamerv2-resubmitted/scores.csv:") for p in added.provenance)
    algorithm = data.algorithms.set_index("algorithm_id").loc["dreamerv2-resubmitted"]
    assert (algorithm["name"], algorithm["kind"], algorithm["year"], algorithm["sticky_action_probability"],
            algorithm["max_episode_frames"], bool(algorithm["in_paper_pool"])) == (
        "DreamerV2 (resubmitted)", "agent", 2021, 0.25, 108000, False)
    source = data.sources.set_index("source_id").loc["contrib-dreamerv2-resubmitted"]
    assert (source["kind"], source["upstream_file"], source["title"]) == (
        "contribution", "contributions/dreamerv2-resubmitted/scores.csv",
        "Mastering Atari with Discrete World Models (Hafner et al.), Atari scores table (appendix)")
    for path, old in merged["before"].items():  # append-only: every old byte stays, one row per new line
        new = (root / path).read_bytes()
        assert new.startswith(old)
    assert read_descriptor(root)["version"] == bump_version(merged["version"], "minor")


@pytest.mark.slow
def test_the_merged_package_validates_and_verifies_with_a_new_version_fitted_on_the_enlarged_data(merged, capsys):
    # One verify of the merged copy (verify runs every pinned version, the paper's among them), after a new version is
    # fitted on the enlarged data: a second verify before the fit would recompute the same paper checks.
    root = merged["root"]
    assert validate_package(root) == []  # the merge itself leaves a valid package
    assert run(capsys, "fit", "--name", "2026-test", "--path", str(root))[0] == 0
    data = load(root)
    pinned = (root / "coefficients" / "2026-test" / "training_rows.csv").read_text(encoding="utf-8")
    assert ",dreamerv2-resubmitted," in pinned  # the new entry is in the new version's training rows
    code = main(["verify", str(root), "--skip-search", "--json"])
    output = capsys.readouterr().out
    checks = json.loads(output)["checks"]
    assert code == 0 and not [c for c in checks if not c["ok"]], output
    names = {c["name"] for c in checks}
    assert {"paper-2023: training rows in data", "2026-test: training rows in data"} <= names, names
    assert {n.split(":")[0] for n in names if ":" in n} >= {"paper-2023", "2026-test"}
    expected = bump_version(bump_version(merged["version"], "minor"), "minor")
    assert read_descriptor(root)["version"] == expected and data.version == expected
