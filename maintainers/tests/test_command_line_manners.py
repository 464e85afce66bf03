"""Command-line manners, tried as a new user would: typos, one protocol vocabulary, files named on a full disk.

Each test runs `atari5-spec` in-process (cli.main) and reads what a user would read.
"""

from __future__ import annotations

import errno
import importlib.metadata
import io
from pathlib import Path

import pytest

from atari5_spec.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_option_typo_gets_the_subcommands_usage_and_a_suggestion(capsys):
    code, out, err = run(["score", "--scroe", "battle_zone=1"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: atari5-spec score ")                 # not the top-level usage
    assert "unrecognized arguments: --scroe" in err and "did you mean --score?" in err


def test_a_nested_subcommand_typo_gets_its_own_usage(capsys):
    code, _, err = run(["contribute", "check", "x", "--pakage", "y"], capsys)
    assert code == 2 and err.startswith("usage: atari5-spec contribute check ")
    assert "did you mean --package?" in err


@pytest.mark.parametrize("argv, suggestion", [
    (["scroe"], "did you mean 'score'?"),
    (["leaderbord"], "did you mean 'leaderboard'?"),
    (["contribute", "chek", "x"], "did you mean 'check'?"),
    (["cite", "--format", "bibtx"], "did you mean 'bibtex'?"),
])
def test_a_command_or_choice_typo_gets_did_you_mean(argv, suggestion, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and suggestion in err


def test_nothing_close_gets_no_wrong_suggestion(capsys):
    code, _, err = run(["score", "--zzzzzz"], capsys)
    assert code == 2 and "did you mean" not in err and "unrecognized arguments: --zzzzzz" in err


def test_one_protocol_vocabulary_with_the_old_spellings_kept(capsys):
    code, out, _ = run(["leaderboard", "--only-sticky-actions", "no", "--only-frames", "200M"], capsys)
    assert code == 0
    code_old, out_old, _ = run(["leaderboard", "--sticky", "no", "--frames", "200M"], capsys)   # 1.0.0 spelling
    assert code_old == 0 and out_old == out and "no sticky actions, 200M training frames" in out
    code, regime, _ = run(["leaderboard", "--only-regime", "atari-100k"], capsys)
    assert code == 0 and run(["leaderboard", "--regime", "atari-100k"], capsys)[1] == regime
    _, help_text, _ = run(["leaderboard", "--help"], capsys)
    # the help shows one vocabulary: --only-<word> selects peers; score's --sticky-actions/--frames state runs
    assert "--only-sticky-actions" in help_text and "--only-frames" in help_text
    assert "--sticky " not in help_text and "--frames " not in help_text
    _, score_help, _ = run(["score", "--help"], capsys)
    assert "--sticky-actions PROB" in score_help and "--frames N" in score_help


@pytest.mark.slow
def test_stability_checkpoint_on_a_full_disk_names_the_file(tmp_path, capsys, monkeypatch):
    import atari5_spec_research.search.stability as stability

    checkpoint = tmp_path / "stability.jsonl"

    class FullDisk(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")   # as write() raises it: no file name

    real_open = open
    monkeypatch.setattr(stability, "open",
                        lambda path, mode="r", *a, **k: FullDisk() if str(path) == str(checkpoint) and "a" in mode
                        else real_open(path, mode, *a, **k), raising=False)
    code, _, err = run(["stability", "--resamples", "1", "--processes", "1", "--checkpoint", str(checkpoint)], capsys)
    assert code == 1
    assert f"{checkpoint}: the disk is full" in err and "Traceback" not in err


def _major(package: str) -> int:
    return int(importlib.metadata.version(package).split(".")[0])


def test_rliable_library_imports_or_the_readme_says_why_and_how():
    pytest.importorskip("rliable")
    try:
        import rliable.library  # noqa: F401
    except TypeError as error:
        # rliable 1.2 requires arch < 8, and arch 7 fails on pandas 3: only that combination may fail ...
        assert _major("pandas") >= 3 and _major("arch") < 8, error
        # ... and the docs say so (docs/usage.md, "Aggregate your own runs"), with the extra that installs a
        # combination that imports
        readme = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
        assert "import rliable.library` fails" in readme and 'pip install "atari5-spec-research[rliable]"' in readme
        pyproject = (ROOT / "research" / "pyproject.toml").read_text(encoding="utf-8")
        assert 'rliable = ["rliable>=1.2,<1.3", "arch>=5.3.1,<8", "pandas>=2.1.1,<3"]' in pyproject


# --- leaderboard: counts and the human reference line ----------------------------------------------------------

def test_leaderboard_says_how_many_are_ranked_of_the_dataset_and_why_not_the_others(capsys):
    import atari5_spec

    board = atari5_spec.leaderboard()
    dataset = atari5_spec.load(scores="all")
    assert board.n_in_dataset == len(dataset.algorithms)
    assert len(board.rows) + sum(n for _, n in board.unranked) == board.n_in_dataset   # every entry accounted for
    reasons = dict(board.unranked)
    duplicates = int((dataset.algorithms["exclusion"] == "duplicate").sum())
    assert reasons["duplicates of another entry"] == duplicates
    code, out, _ = run(["leaderboard"], capsys)
    assert code == 0
    assert f"{len(board.rows)} algorithms ranked of the {len(dataset.algorithms)} entries in the dataset" in out
    assert f"Not ranked ({len(dataset.algorithms) - len(board.rows)}): " in out and f"{duplicates} duplicates" in out
    filtered = atari5_spec.leaderboard(regime="atari-100k")
    assert len(filtered.rows) + sum(n for _, n in filtered.unranked) == filtered.n_in_dataset
    assert "of another protocol than the filters ask for" in dict(filtered.unranked)


def test_the_human_reference_is_a_line_not_a_rank(capsys):
    import atari5_spec

    board = atari5_spec.leaderboard()
    assert all(row.kind == "agent" for row in board.rows)
    assert [row.rank for row in board.rows] == list(range(1, len(board.rows) + 1))
    human = [row for row in board.references if row.kind == "human-reference"]
    assert human and human[0].rank is None and human[0].median == pytest.approx(100.0)
    code, out, _ = run(["leaderboard"], capsys)
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "(reference, not ranked)" in line)
    assert lines[at].split()[0] == "--"
    above, below = lines[at - 1].split(), lines[at + 1].split()
    assert int(below[0]) == int(above[0]) + 1          # the ranks run on across the line
    code, out, _ = run(["leaderboard", "--json"], capsys)
    import json

    printed = json.loads(out)
    assert printed["n_in_dataset"] == board.n_in_dataset and printed["references"][0]["rank"] is None


def test_your_agents_own_median_is_on_the_leaderboard_line(tmp_path, capsys):
    import atari5_spec

    data = atari5_spec.load(scores="all")
    rows = data.scores[(data.scores["algorithm_id"] == "dqn-noop") & data.scores["use_in_fit"].astype(bool)]
    path = tmp_path / "dqn.csv"
    rows.groupby("game_id")["score"].first().rename_axis("game").reset_index().to_csv(path, index=False)
    board = atari5_spec.leaderboard(path)          # DQN's own published numbers, 56 games, as "your agent"
    dqn = next(r for r in board.rows if r.algorithm_id == "dqn-noop")
    assert board.user_median == pytest.approx(dqn.median) and board.user_estimate == pytest.approx(dqn.estimate)
    code, out, _ = run(["leaderboard", str(path)], capsys)
    line = next(line for line in out.splitlines() if "your agent" in line and "->" in line)
    assert f"{dqn.median:,.1f}" in line
    five = atari5_spec.leaderboard({g: float(rows[rows["game_id"] == g]["score"].iloc[0])
                                    for g in ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")})
    assert five.user_median is None                 # 5 games are not a 57-game median


def test_contribute_report_checks_its_output_path_before_any_work(tmp_path, capsys, monkeypatch):
    import atari5_spec_maintainers.contributions.report as report

    package = tmp_path / "clone"
    package.mkdir()
    (package / "datapackage.json").write_text("{}", encoding="utf-8")
    calls = []
    monkeypatch.setattr(report, "summarise_submission", lambda *a, **k: calls.append(a))
    submission = next(p for p in sorted((ROOT / "contributions").iterdir()) if (p / "metadata.yaml").is_file()
                      and not p.name.startswith("_"))
    code, out, err = run(["contribute", "report", str(submission), "--out", str(package / "review.md")], capsys)
    assert code == 1 and "review.md" in err and "inside the data package" in err
    assert calls == [] and out == ""
