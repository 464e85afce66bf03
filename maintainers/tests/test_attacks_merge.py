"""Issue 35, "a merge the review can verify": the attacks on the documented merge, each from the contributor's side.

* After the maintainer's documented ``contribute add`` on the pull request's branch the review (1.2.0) said
  "needs a maintainer" for the maintainer's own rows; a later push that only appended a row superseding
  DreamerV3's Alien score (hash re-recorded) left the comment identical. Now the review replays
  ``contribute add`` on the merge base (contributions/merge_replay.py): byte-identical data/,
  datapackage.json and CHANGELOG.md are accepted, anything else is listed, appended rows like edits.
* A stranger's correction, a near-copy times 1.015 behind an invisible name, look-alike names, a copy of
  another submission folder: each needs a maintainer; ``contribute add`` prints the same warnings as
  ``check`` and refuses those findings unless ``--approved``.

The workflow is run on a hostile branch pushed to a local bare origin as in test_review_workflow.py.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from test_contribution_attacks import _fit_rows, _rerecord_hash, _scores_csv
from test_contributions import make_submission, metadata
from test_review_workflow import _add_submission, _git, _push_pull_request, github, run_workflow  # noqa: F401


def _maintainer_adds(author: Path, folder: str, *extra: str) -> None:
    """The documented merge: `atari5-spec contribute add contributions/<id>` on the pull request's branch."""
    from atari5_spec.cli import main

    assert main(["contribute", "add", str(author / "contributions" / folder), *extra]) == 0


@pytest.mark.slow
def test_the_maintainers_documented_merge_is_ready_and_a_later_append_needs_a_maintainer(github, capsys):
    author = github / "author"
    _add_submission(author, "ppo2-rerun")
    _maintainer_adds(author, "ppo2-rerun")
    merged = _push_pull_request(github)
    run = run_workflow(github, merged)
    running, comment = run["comments"]  # "review running for <head>", then the verdict
    assert [status for _, status, _ in run["statuses"]] == [0] * len(run["statuses"]), comment
    assert "Verdict: ready to merge" in comment and "needs a maintainer" not in comment
    assert "Merged by `contribute add`: `CHANGELOG.md`, `data/algorithms.csv`" in comment
    assert "`datapackage.json`" in comment and "byte-identical" in comment

    # A later push appends a row superseding DreamerV3's Alien score and re-records the hash.
    scores = author / "data" / "scores.csv"
    text = scores.read_text(encoding="utf-8")
    table = list(csv.DictReader(io.StringIO(text)))
    alien = next(r for r in table if r["algorithm_id"] == "dreamerv3" and r["game_id"] == "alien"
                 and r["use_in_fit"] == "true")
    row = {**alien, "score_id": str(max(int(r["score_id"]) for r in table) + 1), "score": "1.0",
           "raw_value": "1.0", "supersedes": alien["score_id"]}
    line = io.StringIO()
    csv.DictWriter(line, fieldnames=list(table[0]), lineterminator="\n").writerow(row)
    appended = line.getvalue().rstrip("\n")
    scores.write_text(text + line.getvalue(), encoding="utf-8")
    _rerecord_hash(author, "data/scores.csv")
    run2 = run_workflow_again(github, _push_pull_request(github))
    _, comment2 = run2["comments"]
    assert comment2 != comment and run2["statuses"][-1][1] == 1
    assert "Verdict: needs a maintainer" in comment2 and "ready to merge" not in comment2.split("### Submissions")[0]
    assert "- `data/scores.csv`: differs from what `contribute add`" in comment2
    assert f"appended: {appended}`" in comment2
    assert "- `datapackage.json`: differs" in comment2


def run_workflow_again(root: Path, head: str) -> dict:
    """run_workflow on a fresh checkout (the runner's checkout is made anew for every push)."""
    import shutil

    for used in ("checkout", "runner-temp"):
        shutil.rmtree(root / used, ignore_errors=True)
    (root / "step-summary.md").unlink(missing_ok=True)
    return run_workflow(root, head)


def _stranger_correction(dataset) -> str:
    """56 of DreamerV3's 57 scores cut to 55%, the way a stranger would submit it."""
    rows = _fit_rows(dataset, "dreamerv3")
    rows = rows[rows.score != 0]  # a zero stays zero at 55%: not a change
    assert len(rows) >= 56
    return _scores_csv(rows.iloc[:56], 0.55)


@pytest.mark.slow
def test_a_strangers_correction_needs_a_maintainer_and_add_refuses_it_unless_approved(package_copy, package_git,
                                                                                        run, dataset, monkeypatch):
    meta = metadata(name=None, protocol=None, corrects="dreamerv3",
                    contributor={"name": "Mallory", "github": "mallory"})
    make_submission(package_copy / "contributions", "dreamerv3-fix", meta=meta, scores=_stranger_correction(dataset))
    package_git("add", "-A")
    package_git("commit", "-qm", "pull request")
    monkeypatch.chdir(package_copy)
    status, out, _ = run("contribute", "review", "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1 and "Verdict: needs a maintainer" in out and "ready to merge" not in out, out
    assert "**needs a maintainer**: contributions/dreamerv3-fix/metadata.yaml: the correction of 'dreamerv3'" in out
    folder = str(package_copy / "contributions" / "dreamerv3-fix")
    status, out, _ = run("contribute", "add", folder)
    assert status == 1 and "nothing was written" in out
    assert "needs a maintainer: " in out and "`contribute add --approved`" in out
    assert package_git("status", "--porcelain") == ""  # nothing written
    status, out, _ = run("contribute", "add", folder, "--approved")
    assert status == 0 and "approved: " in out and "the correction of 'dreamerv3' is sent by someone not known here" in out, out


@pytest.mark.slow
def test_a_copy_times_1_015_needs_a_maintainer_and_behind_a_hangul_filler_is_refused(package_copy, run, dataset):
    scores = _scores_csv(_fit_rows(dataset, "dreamerv3"), 1.015)
    make_submission(package_copy / "contributions", "world-agent", meta=metadata(name="WorldModelAgent"),
                    scores=scores)
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "world-agent"))
    assert status == 0 and "needs a maintainer: " in out, out
    assert "57 of the 57 scores are those of 'dreamerv3' ('DreamerV3') in data/ times 1.015 game by game" in out
    make_submission(package_copy / "contributions", "dreamer-filler", meta=metadata(name="DreamerV3\u3164"),
                    scores=scores)
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "dreamer-filler"))
    assert status == 1 and "U+3164 (HANGUL FILLER)" in out, out


LOOK_ALIKES = ["Dr\u0435amerV3", "DREAMER-V3", "\uff24\uff52\uff45\uff41\uff4d\uff45\uff52\uff36\uff13",
               "DreamerV\u0417", "Dreamer\u13d93", "DreamerV\ua7ab", "D\u0433eamerV3", "\U0001d403reamerV3",
               "Dre\u03b1mer V3", "Dreamer\u21643", "Drearner V3", "DreamerV\uff13", "Dr\u0435\u0430m\u0435rV3"]


def test_thirteen_look_alike_names_share_dreamerv3s_skeleton():
    from atari5_spec_maintainers.contributions.lookalikes import skeleton

    assert [name for name in LOOK_ALIKES if skeleton(name) != skeleton("DreamerV3")] == []
    assert skeleton("Rainbow") != skeleton("Rainbow-IQN") and skeleton("DQN") != skeleton("DDQN")
    assert skeleton("IMPALA") != skeleton("Ape-X") and skeleton("MuZero") != skeleton("Muesli")


def test_the_confusables_data_is_unicodes_pinned_file():
    from atari5_spec_maintainers.contributions.lookalikes import _prototypes

    table = _prototypes()
    assert len(table) > 6000 and table[ord("\u0430")] == "a" and table[ord("m")] == "rn"


@pytest.mark.slow
def test_a_look_alike_name_needs_a_maintainer(package_copy, run):
    make_submission(package_copy / "contributions", "new-agent", meta=metadata(name="DreamerV\ua7ab"))
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "new-agent"))
    assert status == 0 and "needs a maintainer: " in out and "looks like that of 'dreamerv3'" in out, out


def test_a_copy_of_another_submission_folder_needs_a_maintainer(package_copy, run):
    make_submission(package_copy / "contributions", "first-agent", meta=metadata(name="FirstAgent"))
    make_submission(package_copy / "contributions", "copied-agent", meta=metadata(name="CopiedAgent"))
    status, out, _ = run("contribute", "check", str(package_copy / "contributions" / "copied-agent"))
    assert status == 0 and "needs a maintainer: " in out, out
    assert "5 of the 5 scores equal those of the submission folder contributions/first-agent/" in out


@pytest.mark.slow
def test_contribute_add_prints_the_warnings_check_prints(package_copy, run):
    scores = "game,score\nBattle Zone,41230.5\nDouble Dunk,-1.2\nName This Game,12450\nPhoenix,35120.7\nQ*bert,18230\n"
    make_submission(package_copy / "contributions", "few-games", meta=metadata(name="FewGamesAgent"), scores=scores)
    folder = str(package_copy / "contributions" / "few-games")
    _, checked, _ = run("contribute", "check", folder)
    warnings = [line for line in checked.splitlines() if line.startswith("warning: ")]
    assert warnings, checked
    status, added, _ = run("contribute", "add", folder)
    assert status == 0 and all(line in added.splitlines() for line in warnings), added


# --- issue 47 item 3: a branch's own merge is no shortcut ------------------------------------------------------------

def test_a_branch_carrying_its_own_merge_of_a_strangers_correction_shows_the_finding_against_the_base(github, capsys):
    """A hostile branch: last week's erratum of DreamerV3 (the recorded handle claimed) with its merge committed,
    as `contribute add --approved` writes it. `check` said "already merged" (exit 0) and showed nothing; with
    --base main, and by default against origin/main, it checks against the merge base's data and shows the
    finding the review shows, exit 1. Only without any base (not a git repository) is it "already merged"."""
    from atari5_spec.cli import main
    from test_review_workflow import _dreamerv3_correction, _git

    author = github / "author"
    _git(author, "checkout", "-qb", "hostile")
    _dreamerv3_correction(author, 0.55)
    folder = str(author / "contributions" / "dreamerv3-erratum")
    assert main(["contribute", "add", folder, "--approved"]) == 0
    _git(author, "add", "-A")
    _git(author, "commit", "-qm", "erratum, merged")
    capsys.readouterr()
    for base in (["--base", "main"], []):  # [] : origin/main, pushed by the fixture
        assert main(["contribute", "check", folder, *base]) == 1
        out = capsys.readouterr().out
        assert "needs a maintainer: " in out and "the correction of 'dreamerv3' is sent by someone not known here" \
            in out, out
        assert "merged on this branch only" in out and "NOT ready to merge" in out
    assert main(["contribute", "add", folder, "--base", "main"]) == 1
    out = capsys.readouterr().out
    assert "the correction of 'dreamerv3' is sent by someone not known here" in out and "nothing to add" in out
    # The same finding as the review's check of the folder against the base's data (one code path).
    from atari5_spec_maintainers.contributions import check_submission
    from atari5_spec_maintainers.contributions.merging import check_submissions

    base = _git(author, "merge-base", "main", "HEAD")
    (report,) = check_submissions([folder], base="main")
    assert report.merged_base == base and [w.message for w in report.holds] and all(
        w.message in out for w in report.holds)
    assert check_submission(folder).merged_base is None  # without a base: as before
    assert main(["contribute", "check", str(author / "contributions" / "dreamerv3")]) == 0  # merged on the base
    assert "already merged as source" in capsys.readouterr().out
