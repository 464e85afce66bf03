"""Hostile inputs (issue 11): every class is refused with exit status 1, a message naming the file (and the
line where there is one), no traceback, no hang, and every file of the package byte-identical afterwards.

Each case builds a package copy, breaks one thing as a hostile contributor (or a careless user) would, runs
one command in-process and checks the outcome. A per-case alarm turns a hang (a named pipe opened for
reading, a quadratic loop) into a failure instead of a stuck test run; the time limits themselves are not
the point (speed is measured by benchmarks/bench_score_input.py).
"""

import hashlib
import json
import os
import shutil
import signal
from pathlib import Path

import pytest
import yaml
from conftest import copy_package, filled_in_template

from atari5_spec.cli import main

REPOSITORY = Path(__file__).resolve().parents[1]
TEMPLATE = REPOSITORY / "contributions" / "_template"
HANG_SECONDS = 120  # generous: catches a hang, not a slow machine
FIVE = "game,score\nBattle Zone,41230.5\nDouble Dunk,-1.2\nName This Game,12450\nPhoenix,35120.7\nQ*bert,18230\n"


@pytest.fixture()
def package(tmp_path):
    """A writable package copy with a CHANGELOG.md and a contributions/ folder."""
    target = copy_package(tmp_path / "package")
    (target / "CHANGELOG.md").write_text("# Changelog\n\n## [Unreleased]\n", encoding="utf-8")
    (target / "contributions").mkdir()
    return target


def snapshot(*roots: Path) -> dict:
    """sha256 of every file (not following links) under each root, and every link's target."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_symlink():
                found[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    def hang(signum, frame):
        raise TimeoutError(f"atari5-spec {' '.join(argv)} hangs")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_SECONDS)
    try:
        code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def submission(package: Path, meta=None, scores: str | bytes = FIVE, name: str = "test-agent") -> Path:
    folder = package / "contributions" / name
    folder.mkdir()
    text = meta if isinstance(meta, str) else yaml.safe_dump(
        meta or filled_in_template(), sort_keys=False)
    (folder / "metadata.yaml").write_text(text, encoding="utf-8")
    (folder / "scores.csv").write_bytes(scores if isinstance(scores, bytes) else scores.encode("utf-8"))
    return folder


def template_metadata(**protocol) -> dict:
    meta = filled_in_template()
    meta["protocol"].update(protocol)
    return meta


def edit_descriptor(package: Path, change) -> None:
    path = package / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(change(descriptor), indent=2), encoding="utf-8")


def resource_path(name: str, path: str):
    def change(descriptor):
        next(r for r in descriptor["resources"] if r["name"] == name)["path"] = path
        return descriptor
    return change


def outside_copy(package: Path) -> Path:
    """A copy of data/sources.csv outside the package: the file a hostile descriptor points at."""
    target = package.parent / "outside" / "sources.csv"
    target.parent.mkdir(exist_ok=True)
    shutil.copy2(package / "data" / "sources.csv", target)
    return target


# --- the cases: id -> setup(package) returning (argv, fragments the output must hold) ----------------------------

def _absolute_resource(package):
    outside = outside_copy(package)
    edit_descriptor(package, resource_path("sources", str(outside)))
    folder = submission(package)
    return ["contribute", "add", str(folder)], ["datapackage.json, resource 'sources': path", "is absolute"]


def _dotdot_resource(package):
    outside_copy(package)
    edit_descriptor(package, resource_path("sources", "../outside/sources.csv"))
    folder = submission(package)
    return ["contribute", "add", str(folder)], ["datapackage.json, resource 'sources': path", "climbs out with '..'"]


def _dotdot_resource_reproduce(package):
    outside_copy(package)
    edit_descriptor(package, resource_path("sources", "data/../../outside/sources.csv"))
    return (["reproduce", "--path", str(package), "--out", str(package.parent / "tables")],
            ["datapackage.json, resource 'sources'", "'..'"])


def _dotdot_resource_validate(package):
    outside_copy(package)
    edit_descriptor(package, resource_path("sources", "../outside/sources.csv"))
    return ["validate", str(package)], ["datapackage.json", "climbs out with '..'"]


def _symlink_resource_leading_out(package):
    outside = outside_copy(package)
    (package / "data" / "sources.csv").unlink()
    os.symlink(outside, package / "data" / "sources.csv")
    folder = submission(package)
    return ["contribute", "add", str(folder)], ["'data/sources.csv' leads outside the package through a symbolic link"]


def _symlinked_changelog(package):
    outside = package.parent / "outside.md"
    outside.write_text("# not the changelog\n", encoding="utf-8")
    (package / "CHANGELOG.md").unlink()
    os.symlink(outside, package / "CHANGELOG.md")
    folder = submission(package)
    return ["contribute", "add", str(folder)], ["the changelog 'CHANGELOG.md'", "symbolic link"]


def _reproduce_into_published(package):
    return (["reproduce", "--path", str(package), "--out", str(package / "published")],
            ["--out", "published", "is inside the data package"])


def _report_out_symlink(package):
    link = package.parent / "report-link"
    os.symlink(package / "published", link, target_is_directory=True)
    return (["report", "--path", str(package), "--out", str(link)], ["--out", "report-link", "symbolic link"])


def _reproduce_out_symlinked_file(package):
    out = package.parent / "tables"
    out.mkdir()
    os.symlink(package / "published" / "table02_subsets.csv", out / "table02_subsets.csv")
    return (["reproduce", "--path", str(package), "--out", str(out)],
            ["table02_subsets.csv", "is a symbolic link"])


def _deep_yaml(package):
    meta = "name: " + "[" * 5000 + "]" * 5000 + "\n"
    folder = submission(package, meta=meta)
    return ["contribute", "add", str(folder)], ["metadata.yaml, line 1", "nested deeper than 32 levels"]


def _deep_json_score(package):
    path = package.parent / "deep.json"
    path.write_text('{"scores": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    return ["score", str(path)], ["deep.json, line 1", "nested deeper than 32 levels"]


def _deep_json_descriptor(package):
    (package / "datapackage.json").write_text('{"resources": ' + "[" * 50_000 + "]" * 50_000 + "}", encoding="utf-8")
    return ["validate", str(package)], ["datapackage.json, line 1", "nested deeper than 32 levels"]


def _huge_integer_metadata(package):
    text = yaml.safe_dump(template_metadata(), sort_keys=False).replace("year: 2024", "year: " + "9" * 5000)
    assert "9" * 5000 in text
    folder = submission(package, meta=text)
    return ["contribute", "add", str(folder)], ["metadata.yaml, line", "a number of 5,000 characters"]


def _training_frames_beyond_int64(package):
    scores = ("game,score,seed,training_frames,points,first_frame,last_frame\n"
              "Battle Zone,41230.5,,,,,\nDouble Dunk,-1.2,,,,,\nName This Game,12450,,,,,\nPhoenix,35120.7,,,,,\n"
              "Q*bert,18230,,,,,\nQ*bert,18000,0,99999999999999999999,5,1,2\n")
    folder = submission(package, scores=scores)
    return ["contribute", "add", str(folder)], ["scores.csv, line 7, column 'training_frames'", "fit in 64 bits"]


def _seed_beyond_int64(package):
    scores = ("game,score,seed\nBattle Zone,41230.5,\nDouble Dunk,-1.2,\nName This Game,12450,\nPhoenix,35120.7,\n"
              "Q*bert,18230,\nPhoenix,35000,99999999999999999999\n")
    folder = submission(package, scores=scores)
    return ["contribute", "add", str(folder)], ["scores.csv, line 7, column 'seed'", "does not fit in 64 bits"]


def _descriptor_array(package):
    (package / "datapackage.json").write_text("[1, 2, 3]\n", encoding="utf-8")
    folder = submission(package)
    return ["contribute", "add", str(folder)], ["datapackage.json: the descriptor is a JSON list"]


def _resources_string(package):
    edit_descriptor(package, lambda d: {**d, "resources": "data/scores.csv"})
    return ["validate", str(package)], ["datapackage.json", "'resources' must be a list"]


def _absolute_path_to_another_table(package):
    edit_descriptor(package, resource_path("scores", str(package / "data" / "games.csv")))
    return (["reproduce", "--path", str(package), "--out", str(package.parent / "tables")],
            ["datapackage.json, resource 'scores': path", "is absolute"])


def _scores_is_a_directory(package):
    (package / "data" / "scores.csv").unlink()
    (package / "data" / "scores.csv").mkdir()
    return ["validate", str(package)], ["data/scores.csv", "is a folder, not a file"]


def _scores_is_a_directory_loader(package):
    (package / "data" / "scores.csv").unlink()
    (package / "data" / "scores.csv").mkdir()
    return (["reproduce", "--path", str(package), "--out", str(package.parent / "tables")],
            ["scores.csv", "is a folder, not a file"])


def _report_out_existing_file(package):
    existing = package.parent / "report.html"
    existing.write_text("<p>mine</p>", encoding="utf-8")
    return (["report", "--path", str(package), "--out", str(existing)],
            ["--out", "report.html", "exists and is not a folder"])


def _reproduce_out_unwritable(package):
    blocker = package.parent / "a-file"
    blocker.write_text("x", encoding="utf-8")
    return (["reproduce", "--path", str(package), "--out", str(blocker / "tables")],
            ["--out", "a-file/tables", "cannot create the folder"])


def _submission_named_pipe(package):
    folder = submission(package)
    (folder / "scores.csv").unlink()
    os.mkfifo(folder / "scores.csv")
    return ["contribute", "add", str(folder)], ["test-agent/scores.csv", "is a named pipe"]


def _curves_named_pipe(package):
    pipe = package.parent / "runs.json"
    os.mkfifo(pipe)
    return ["contribute", "curves", str(pipe), "--final", "200M"], ["runs.json", "is a named pipe"]


def _aggregate_named_pipe(package):
    pipe = package.parent / "runs.csv"
    os.mkfifo(pipe)
    return ["aggregate", str(pipe)], ["runs.csv", "is a named pipe"]


def _score_named_pipe(package):
    pipe = package.parent / "scores.csv"
    os.mkfifo(pipe)
    return ["score", str(pipe)], ["scores.csv", "is a named pipe"]


def per_seed_rows(package: Path, seeds_per_game: int) -> list[str]:
    """game,score,seed rows: every one of the 57 games, seeds 0.. cycling through the games."""
    with open(package / "data" / "games.csv", encoding="utf-8") as handle:
        games = [line.split(",")[0] for line in handle if ",true," in line]
    assert len(games) == 57
    return ["game,score,seed"] + [f"{games[i % 57]},{1000 + i % 97},{i // 57}" for i in range(57 * seeds_per_game)]


def _score_57000_rows_with_a_repeated_seed(package):
    path = package.parent / "seeds.csv"
    path.write_text("\n".join(per_seed_rows(package, 1000) + ["alien,1234,7"]) + "\n", encoding="utf-8")
    return ["score", str(path)], ["seeds.csv, line 57002", "alien seed 7 is given again (first at seeds.csv, line 401)"]


def _score_200k_rows(package):
    path = package.parent / "seeds.csv"
    path.write_text("\n".join(per_seed_rows(package, 3509)) + "\n", encoding="utf-8")
    return ["score", str(path)], ["seeds.csv, line 57002", "alien has more than 1,000 runs"]


def _nan_sticky_actions(package):
    text = yaml.safe_dump(template_metadata(), sort_keys=False)
    text = text.replace("sticky_action_probability: 0.25", "sticky_action_probability: .nan")
    assert ".nan" in text
    folder = submission(package, meta=text)
    return (["contribute", "add", str(folder)],
            ["metadata.yaml, line", "column 'protocol.sticky_action_probability'", "nan is not a finite number"])


def _control_characters_in_name(package):
    meta = template_metadata()
    meta["name"] = "Agent\x1b[2J\x1b[31mX"
    folder = submission(package, meta=meta)
    return (["contribute", "add", str(folder)],
            ["metadata.yaml, line 1, column 'name'", "control character U+001B"])


def _control_characters_in_scores(package):
    folder = submission(package, scores=FIVE + "\x1b[2JAlien,100\n")
    return (["contribute", "add", str(folder)], ["scores.csv, line 7, column 'game'", "control character U+001B"])


def _full_width_digits_submission(package):
    folder = submission(package, scores=FIVE.replace("12450", "１２４５０"))
    return (["contribute", "add", str(folder)], ["scores.csv, line 4, column 'score'", "non-ASCII digit '１'"])


def _full_width_digits_score(package):
    return (["score", "--score", "battle_zone=35000", "--score", "double_dunk=-1.5", "--score",
             "name_this_game=１２０００", "--score", "phoenix=9000", "--score", "qbert=15000"],
            ["--score 'name_this_game=１２０００'", "non-ASCII digit"])


def _huge_score_submission(package):
    folder = submission(package, scores=FIVE.replace("12450", "1e308"))
    return (["contribute", "add", str(folder)], ["scores.csv, line 4, column 'score'", "beyond 1,000,000,000"])


def _huge_score_cli(package):
    return (["score", "--json", "--score", "battle_zone=1e308", "--score", "double_dunk=-1.5", "--score",
             "name_this_game=12000", "--score", "phoenix=9000", "--score", "qbert=15000"],
            ["--score 'battle_zone=1e308'", "beyond 1,000,000,000"])


def _seed_mean_contradicts_published(package):
    scores = ("game,score,seed\nBattle Zone,41230.5,\nDouble Dunk,-1.2,\nName This Game,12450,\nPhoenix,35120.7,\n"
              "Q*bert,18230,\nQ*bert,1000,0\nQ*bert,1200,1\nQ*bert,1100,2\n")
    folder = submission(package, meta=template_metadata(statistic="mean", seeds=3), scores=scores)
    return (["contribute", "add", str(folder)],
            ["scores.csv, line 6, column 'score'", "check line 6 and the per-seed rows (lines 7-9)"])


def _fit_name_with_newline(package):
    return ["fit", "--path", str(package), "--name", "2027-01\n"], ["version name '2027-01\\n'"]


def _schema_pattern_with_trailing_newline(package):
    meta = template_metadata()
    meta["upstream"] = {"repository": "owner/name", "commit": "0" * 40 + "\n", "path": "scores.json",
                        "licence": "MIT"}
    folder = submission(package, meta=meta)
    return (["contribute", "add", str(folder)], ["metadata.yaml, line", "column 'upstream.commit'", "does not match"])


def _not_utf8_score_file(package):
    path = package.parent / "scores.csv"
    path.write_bytes(b"game,score\nphoenix,9000\nQ\xe9bert,1\n")
    return ["score", str(path)], ["scores.csv, line 3: not UTF-8 (byte 0xe9)"]


def _not_utf8_package_table(package):
    path = package / "data" / "games.csv"
    data = path.read_bytes().split(b"\n")
    data[4] = data[4] + b"\xe9"
    path.write_bytes(b"\n".join(data))
    return (["reproduce", "--path", str(package), "--out", str(package.parent / "tables")],
            ["data/games.csv, line 5", "byte 0xe9"])


CASES = {
    # writes and reads outside the package
    "descriptor-absolute-path/contribute-add": _absolute_resource,
    "descriptor-dotdot-path/contribute-add": _dotdot_resource,
    "descriptor-dotdot-path/reproduce": _dotdot_resource_reproduce,
    "descriptor-dotdot-path/validate": _dotdot_resource_validate,
    "resource-symlink-leading-out/contribute-add": _symlink_resource_leading_out,
    "symlinked-changelog/contribute-add": _symlinked_changelog,
    "reproduce-out-published": _reproduce_into_published,
    "report-out-symlink": _report_out_symlink,
    "reproduce-out-symlinked-file": _reproduce_out_symlinked_file,
    # tracebacks
    "yaml-nested-5000-deep": _deep_yaml,
    "json-score-nested-100000-deep": _deep_json_score,
    "descriptor-nested-50000-deep": _deep_json_descriptor,
    "metadata-integer-5000-digits": _huge_integer_metadata,
    "training-frames-beyond-int64": _training_frames_beyond_int64,
    "seed-beyond-int64": _seed_beyond_int64,
    "descriptor-is-an-array": _descriptor_array,
    "descriptor-resources-is-a-string": _resources_string,
    "absolute-path-to-another-table": _absolute_path_to_another_table,
    "scores-csv-is-a-directory/validate": _scores_is_a_directory,
    "scores-csv-is-a-directory/loader": _scores_is_a_directory_loader,
    "report-out-existing-file": _report_out_existing_file,
    "reproduce-out-unwritable": _reproduce_out_unwritable,
    # hangs
    "submission-named-pipe": _submission_named_pipe,
    "score-named-pipe": _score_named_pipe,
    "curves-named-pipe": _curves_named_pipe,
    "aggregate-named-pipe": _aggregate_named_pipe,
    "score-57000-rows-repeated-seed": _score_57000_rows_with_a_repeated_seed,
    "score-200000-rows": _score_200k_rows,
    # bad values accepted
    "sticky-actions-nan": _nan_sticky_actions,
    "terminal-control-characters-in-name": _control_characters_in_name,
    "terminal-control-characters-in-scores": _control_characters_in_scores,
    "full-width-digits/submission": _full_width_digits_submission,
    "full-width-digits/score": _full_width_digits_score,
    "score-1e308/submission": _huge_score_submission,
    "score-1e308/score": _huge_score_cli,
    "seed-mean-contradicts-published": _seed_mean_contradicts_published,
    "fit-name-trailing-newline": _fit_name_with_newline,
    "schema-pattern-trailing-newline": _schema_pattern_with_trailing_newline,
    # messages
    "not-utf8/score-file": _not_utf8_score_file,
    "not-utf8/package-table": _not_utf8_package_table,
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_hostile_input_is_refused_cleanly_and_changes_nothing(case, package, capsys):
    argv, fragments = CASES[case](package)
    before = snapshot(package.parent)  # the package and everything beside it (the files a hostile path names)

    code, out, err = run(capsys, argv)

    output = out + err
    assert code == 1, output
    assert "Traceback" not in output
    for fragment in fragments:
        assert fragment in output, f"{fragment!r} not in:\n{output}"
    if err.startswith("error:"):  # the one-line error of the command line
        assert len(err.strip().splitlines()) == 1, err
    assert "inf" not in out.lower().split()
    assert snapshot(package.parent) == before


@pytest.mark.slow
def test_a_good_submission_still_merges_cleanly(package, capsys):
    shutil.copytree(TEMPLATE, package / "contributions" / "example-agent")
    (package / "contributions" / "example-agent" / "metadata.yaml").write_text(
        yaml.safe_dump(filled_in_template(), sort_keys=False), encoding="utf-8")
    code, out, err = run(capsys, ["contribute", "add", str(package / "contributions" / "example-agent")])
    assert code == 0, out + err
    assert "merged" in out
    code, out, err = run(capsys, ["validate", str(package)])
    assert code == 0, out + err
