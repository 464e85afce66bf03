"""The pull-request review (``atari5-spec contribute report``): problems with file, line and fix, or what a clean
submission adds, its Atari-5 estimate against its 57-game median, and where it would rank.

The good submission is a real one (contributions/ppo2-baselines, openai/baselines PPO2 from openrlbenchmark)
under a new id; the bad one is the same metadata with the two mistakes newcomers make most (a thousands
separator, a misspelt game).
"""

import re
import shutil
from pathlib import Path

import pytest

from atari5_spec.cli import main
from atari5_spec_maintainers.contributions.report import changed_files, escape, report_markdown, summarise_submission
from atari5_spec.method.reference import human_normalised
from atari5_spec.scoring.estimate import score
from atari5_spec.scoring.ranking import leaderboard

REPOSITORY = Path(__file__).resolve().parents[2]
REAL = REPOSITORY / "contributions" / "ppo2-baselines"
BAD_SCORES = ("game,score\nBattle Zone,41230.5\nDouble Dunk,-1.2\nName This Game,12450\nPhoenix,35120.7\n"
              "Q*bert,18,230\nVenturee,3\n")


def _good(package: Path) -> Path:
    """ppo2-baselines' files under another name and with other numbers (a copy of an entry is held)."""
    import re

    import yaml

    folder = package / "contributions" / "ppo2-rerun"
    shutil.copytree(REAL, folder)
    meta = yaml.safe_load((folder / "metadata.yaml").read_text(encoding="utf-8"))
    meta["name"] = "PPO2 Rerun"
    (folder / "metadata.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True), encoding="utf-8")
    lines = (folder / "scores.csv").read_text(encoding="utf-8").split("\n")
    (folder / "scores.csv").write_text("\n".join([lines[0]] + [re.sub(
        r"^([^,]+),([0-9.]+)", lambda m: f"{m.group(1)},{float(m.group(2)) * (1.1 + 0.07 * (i % 9)):.2f}", line)
        for i, line in enumerate(lines[1:])]), encoding="utf-8")
    return folder


def _bad(package: Path) -> Path:
    folder = package / "contributions" / "bad-agent"
    folder.mkdir(parents=True)
    shutil.copy(REAL / "metadata.yaml", folder / "metadata.yaml")
    (folder / "scores.csv").write_text(BAD_SCORES, encoding="utf-8")
    return folder


def test_a_clean_submission_gets_its_estimate_median_and_rank(package_copy):
    import csv

    from atari5_spec.data.loading import load

    folder = _good(package_copy)
    summary = summarise_submission(folder, package_copy)
    assert summary.report.ok and summary.report.merge is not None
    rows = list(csv.DictReader((folder / "scores.csv").open(encoding="utf-8")))
    # Recomputed here from the file, independently of the report's own path through check_submission.
    given = {r["game"]: float(r["score"].split("±")[0]) for r in rows}
    expected = score(given, n_bootstrap=0).estimate
    assert summary.estimate == pytest.approx(expected, rel=1e-12)
    games = load(package_copy).games.set_index("game_id")
    fit = {r["game_id"]: r["score"] for r in summary.report.merge.scores if r["use_in_fit"]}
    z = sorted(float(human_normalised(v, games.loc[g, "random_score"], games.loc[g, "human_score"]))
               for g, v in fit.items())
    assert summary.n_games == 57 and summary.median == pytest.approx(z[28])
    board = leaderboard(dataset=load(package_copy))
    assert summary.rank == 1 + sum(r.estimate > summary.estimate for r in board.rows)
    assert summary.regime == "40M" and 1 <= summary.regime_rank <= summary.n_regime + 1
    text = report_markdown([summary])
    assert "ready to merge" in text and f"would rank {summary.rank} of {len(board.rows) + 1}" in text
    assert f"{summary.estimate:,.1f}" in text and f"{summary.median:,.1f}" in text
    assert "57 scores used by fits" in text


def test_a_bad_submission_names_file_line_and_fix_and_exits_1(package_copy, capsys, monkeypatch):
    folder = _bad(package_copy)
    monkeypatch.chdir(package_copy)
    code = main(["contribute", "report", "contributions/bad-agent", "--markdown"])
    out = capsys.readouterr().out
    assert code == 1
    assert "NOT ready to merge" in out
    # line 6 holds 18,230: the row names the file, the line and the fix
    assert "| contributions/bad-agent/scores.csv | 6 | score |" in out and "write 18230" in out
    assert "| contributions/bad-agent/scores.csv | 7 | game |" in out
    assert folder.is_dir()


def test_changed_range_reviews_only_the_submissions_a_pull_request_touches(package_copy, package_git, capsys,
                                                                          monkeypatch):
    git = package_git
    _good(package_copy)
    _bad(package_copy)
    (package_copy / "data" / "notes.txt").write_text("x", encoding="utf-8")
    git("add", "-A")
    git("commit", "-qm", "pull request")
    changed = changed_files(package_copy, "HEAD~1..HEAD")
    assert changed.submissions == ("contributions/bad-agent", "contributions/ppo2-rerun")
    assert changed.other == ("data/notes.txt",)
    monkeypatch.chdir(package_copy)
    out_file = package_copy.parent / "summary.md"
    code = main(["contribute", "report", "--changed", "HEAD~1..HEAD", "--markdown", "--out", str(out_file)])
    capsys.readouterr()
    text = out_file.read_text(encoding="utf-8")
    assert code == 1
    assert "1 of 2 submission(s) NOT ready to merge" in text
    assert "### `ppo2-rerun`: no problems, held: the pull request needs a maintainer" in text and "### `bad-agent`: 2 problem(s)" in text
    assert "`data/notes.txt`: data/ is changed by `atari5-spec contribute add`" in text


@pytest.mark.parametrize("bad_range", ["HEAD", "--output=/tmp/x..HEAD", "a b..HEAD"])
def test_a_range_that_is_not_base_dot_dot_head_is_refused(package_copy, bad_range):
    from atari5_spec.data.errors import InputError

    with pytest.raises(InputError, match="BASE..HEAD"):
        changed_files(package_copy, bad_range)


def test_submission_text_cannot_mention_link_or_break_the_table():
    text = escape("@maintainer [click](https://evil.example) <img src=x> a|b\nnext")
    assert "@\u200bmaintainer" in text and "\\[click\\]" in text and "\\<img" in text and "a\\|b" in text
    assert "\n" not in text


def test_the_workflow_running_pull_request_code_has_no_write_token_and_no_artifact():
    import yaml

    workflows = REPOSITORY / ".github" / "workflows"
    text = (workflows / "contribution.yml").read_text(encoding="utf-8")
    check = yaml.safe_load(text)
    assert check["permissions"] == {"contents": "read"} and set(check[True]) == {"pull_request"}  # 'on' reads as True
    assert check[True]["pull_request"] is None  # no paths filter: every pull request is checked
    assert "upload-artifact" not in text and "secrets." not in text
    run = "\n".join(s.get("run", "") for s in check["jobs"]["checks"]["steps"])
    assert "atari5-spec contribute report --changed HEAD^1..HEAD --markdown" in run
    assert 'validate "verify --skip-search"' in run and "GITHUB_STEP_SUMMARY" in run
    assert not (workflows / "contribution-comment.yml").exists()  # the artifact-posting workflow is gone
    for line in text.splitlines():
        if "uses:" in line:
            assert re.search(r"@[0-9a-f]{40}\b", line), f"not pinned by commit: {line.strip()}"


def test_a_readme_under_contributions_is_a_changed_file_for_the_maintainer(package_copy, package_git, capsys,
                                                                          monkeypatch):
    git = package_git
    (package_copy / "contributions").mkdir(exist_ok=True)
    (package_copy / "contributions" / "README.md").write_text("[ready to merge](https://evil.example)\n")
    _good(package_copy)
    git("add", "-A")
    git("commit", "-qm", "pull request")
    assert changed_files(package_copy, "HEAD~1..HEAD").other == ("contributions/README.md",)
    monkeypatch.chdir(package_copy)
    code = main(["contribute", "report", "--changed", "HEAD~1..HEAD", "--markdown"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.index("Needs a maintainer") < out.index("- `contributions/README.md`") < out.index("### `ppo2-rerun`")
    assert "ready to merge" not in out and "### `ppo2-rerun`: no problems, held" in out


def test_escaping_breaks_bare_addresses_entities_and_references():
    text = escape("see https://evil.example and www.evil.example, &commat;team &#64;x owner/repo#1 #2 GH-3")
    assert "https://" not in text and "www." not in text and "repo#1" not in text and "GH-3" not in text
    assert "\\&commat;" in text and "\\&\\#" in text  # entities show as typed
    assert text.replace("\u200b", "").replace("\\", "") == (
        "see https://evil.example and www.evil.example, &commat;team &#64;x owner/repo#1 #2 GH-3")


def test_control_and_bidirectional_characters_never_reach_the_comment():
    from atari5_spec_maintainers.contributions.report import code

    for shown in (escape("name\u202eevil\x1b[31m"), code("data/\u202efile\x07.csv")):
        assert "\u202e" not in shown and "\x1b" not in shown and "\x07" not in shown and "\ufffd" in shown


def test_the_text_review_names_changed_paths_outside_submissions_first():
    from atari5_spec_maintainers.contributions.report import ChangedFiles, report_text

    text = report_text([], ChangedFiles((), ("contributions/old",), (".ci/run", "data/scores.csv")))
    assert text.splitlines()[0].startswith("needs a maintainer")
    assert "  contributions/old" in text and "  .ci/run" in text and "  data/scores.csv" in text
