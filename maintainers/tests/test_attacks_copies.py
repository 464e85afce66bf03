"""Issue 47 item 2, "every new folder against every other and every entry": the copy attacks, each from the
contributor's side, the workflow run on a hostile branch pushed to a local bare origin (test_review_workflow.py).

a. DreamerV3's scores times 1.03-1.07 per game (a different factor per game) under a new name were "ready to
   merge" (the copy rule was 1% around one factor): near-copies are now judged by how nearly constant the
   per-game ratio is, with bands measured below every real rerun pair in data/ (lookalikes.rerun_spreads).
b. Two new folders of one pull request with the same scores under two names were both "ready to merge":
   every new folder is compared with every other.
c. A pull request carrying its own merge of such folders was accepted as byte-identical, the replay having
   approved the copy itself: the replay now reports every hold a human run shows, and the verdict is not ready.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
import yaml

from test_contribution_attacks import _fit_rows
from test_contributions import make_submission, metadata
from test_review_workflow import RECORDED, _add_submission, _dreamerv3_correction, _git, _push_pull_request, github, run_workflow  # noqa: F401


def _spread_factors(scores) -> list[float]:
    """A different factor per game in 1.03-1.07: half the non-zero games at 1.030-1.034, half at 1.066-1.070,
    the middle one or two at 1.05 (so that the median is 1.05 and no other game is within 1% of it: the old
    rule saw no copy). A zero stays zero whatever its factor."""
    nonzero = [i for i, v in enumerate(scores) if float(v) != 0]
    m = len(nonzero)
    middle = {nonzero[m // 2]} if m % 2 else {nonzero[m // 2 - 1], nonzero[m // 2]}
    factors, k = [], 0
    for i in range(len(scores)):
        if i in middle:
            factors.append(1.05)
        else:  # the others alternate low and high: as many on each side of the median
            factors.append(1.03 + 0.002 * (k % 3) if k % 2 == 0 else 1.07 - 0.002 * (k % 3))
            k += 1 if float(scores[i]) != 0 else 0
    return factors


def _scaled_csv(rows, factors) -> str:
    from atari5_spec.data.loading import load

    names = load().games.set_index("game_id")["name"]
    return "game,score\n" + "".join(f"{names[r.game_id]},{float(r.score) * f:.6f}\n"
                                    for r, f in zip(rows.itertuples(), factors))


# --- the rule, on numbers -----------------------------------------------------------------------------------------

def test_near_copies_are_judged_by_how_constant_the_ratio_is_not_by_its_size(dataset):
    from atari5_spec_maintainers.contributions.lookalikes import near_copies

    rows = _fit_rows(dataset, "dreamerv3")
    base = dict(zip(rows.game_id, rows.score.astype(float)))
    factors = _spread_factors(list(rows.score))
    spread = {g: v * f for (g, v), f in zip(base.items(), factors)}
    (found, *_) = near_copies(spread, dataset.scores)
    assert found.algorithm_id == "dreamerv3" and found.near == found.shared == 57
    assert round(found.low, 3) == 1.03 and round(found.high, 3) == 1.07 and round(found.factor, 3) == 1.05
    for factor in (1.5, 0.2, 40.0):  # scale-free: any constant factor is a copy
        (found, *_) = near_copies({g: v * factor for g, v in base.items()}, dataset.scores)
        assert found.algorithm_id == "dreamerv3" and found.near == 57 and math.isclose(found.factor, factor)
    # Three quarters copied, a quarter of the games changed at will: still a copy.
    partial = {g: v * (1.05 if i % 4 else 3.0 + i) for i, (g, v) in enumerate(sorted(base.items()))}
    (found, *_) = near_copies(partial, dataset.scores)
    assert found.algorithm_id == "dreamerv3" and found.near == 43 and found.shared == 57


def test_the_bands_lie_below_every_real_rerun_pair_and_a_real_rerun_is_no_copy(dataset):
    """The thresholds are measured: every split of an entry's seeds into two halves, and the algorithm held
    from two sources, spread game by game more than the bands (the figures lookalikes.py and the CHANGELOG
    state), and no such pair is called a copy of the other."""
    from atari5_spec_maintainers.contributions.lookalikes import (SCORE_TOLERANCE, SPREAD_BAND, near_copies,
                                                                   rerun_spreads)

    spreads = rerun_spreads(dataset)
    assert len(spreads) >= 30
    assert (round(spreads["q50"].min(), 4), round(spreads["q75"].min(), 4)) == (0.0232, 0.0375)
    assert spreads.iloc[0]["pair"].split(" / ") == ["adam-mse", "dopamine-dqn-adam-mse"]
    assert math.log1p(SCORE_TOLERANCE) < 0.5 * spreads["q50"].min()
    assert math.log1p(SPREAD_BAND) < 0.7 * spreads["q75"].min()
    # drq's 50-against-50 seed means, the closest real pair of seed halves: neither is a copy of the other.
    seeds = dataset.seed_scores[dataset.seed_scores.algorithm_id == "drq"]
    table = seeds.pivot_table(index="game_id", columns="seed", values="score", aggfunc="mean")
    even, odd = table[table.columns[::2]].mean(axis=1), table[table.columns[1::2]].mean(axis=1)
    other = odd.rename("score").reset_index().assign(algorithm_id="drq-odd", use_in_fit=True)
    assert near_copies(dict(even), other) == []


def test_no_two_entries_of_data_with_different_numbers_are_called_copies(dataset):
    """Every entry with 20 games or more against the rest of data/: the only near-copies found are entries
    that hold the same published table (most of their numbers exactly equal)."""
    from atari5_spec_maintainers.contributions.lookalikes import near_copies

    scores = dataset.scores
    fit = scores[scores.use_in_fit.astype(bool) & ~scores.score_id.isin(scores.supersedes.dropna())]
    found = []
    for algorithm_id, rows in fit.groupby("algorithm_id"):
        if len(rows) >= 20:
            found += [(algorithm_id, c) for c in near_copies(dict(zip(rows.game_id, rows.score)),
                                                             scores[scores.algorithm_id != algorithm_id])]
    assert found and all(c.equal >= 0.85 * c.near for _, c in found), [
        (a, c) for a, c in found if c.equal < 0.85 * c.near]


# --- the attacks, through the workflow -----------------------------------------------------------------------------

def _world_agent(work: Path) -> None:
    """Attack a: DreamerV3's 57 scores times 1.03-1.07, a different factor per game, under a new name."""
    from atari5_spec.data.loading import load

    rows = _fit_rows(load(work), "dreamerv3")
    make_submission(work / "contributions", "world-agent", meta=metadata(name="WorldModelAgent"),
                    scores=_scaled_csv(rows, _spread_factors(list(rows.score))))


def _twins(work: Path) -> None:
    """Attack b: the same 57 scores (ppo2-baselines' perturbed: no entry's) under two names, two folders."""
    _add_submission(work, "ppo2-rerun")
    shutil.copytree(work / "contributions" / "ppo2-rerun", work / "contributions" / "ppo2-twin")
    meta_path = work / "contributions" / "ppo2-twin" / "metadata.yaml"
    meta = yaml.safe_load(meta_path.read_text(encoding="utf-8"))
    meta["name"] = "Proximal Twin"
    meta_path.write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")


@pytest.mark.slow
def test_dreamerv3_times_1_03_to_1_07_per_game_needs_a_maintainer_naming_the_entry_and_the_range(github):
    _world_agent(github / "author")
    run = run_workflow(github, _push_pull_request(github))
    assert run["statuses"][-1][1] == 1, run["statuses"]  # the last step, "fail unless ready to merge", fails
    _, comment = run["comments"]
    assert "Verdict: needs a maintainer" in comment and "Verdict: ready to merge" not in comment
    finding = next(line for line in comment.splitlines() if "near-copy" in line)
    assert "57 of the 57 scores are those of 'dreamerv3' ('DreamerV3') in data/ times 1.03-1.07 game by game" \
        in finding, finding


@pytest.mark.slow
def test_two_new_folders_with_the_same_scores_each_name_the_other(github):
    _twins(github / "author")
    run = run_workflow(github, _push_pull_request(github))
    assert run["statuses"][-1][1] == 1, run["statuses"]  # the last step, "fail unless ready to merge", fails
    _, comment = run["comments"]
    assert "Verdict: needs a maintainer.** 2 of 2 submission(s) have findings" in comment, comment
    sections = comment.split("### `")
    rerun = next(s for s in sections if s.startswith("ppo2-rerun`"))
    twin = next(s for s in sections if s.startswith("ppo2-twin`"))
    assert "scores equal those of the submission folder contributions/ppo2-twin/" in rerun, rerun
    assert "scores equal those of the submission folder contributions/ppo2-rerun/" in twin, twin


def _maintainer_adds(author: Path, folder: str, *extra: str) -> None:
    from atari5_spec.cli import main

    assert main(["contribute", "add", str(author / "contributions" / folder), *extra]) == 0


@pytest.mark.slow
def test_a_pull_request_carrying_its_own_merge_of_a_copy_is_not_ready_the_replay_reports_it(github):
    """The attacker commits `contribute add --approved` of both twins on the branch: the data/ changes are
    byte-identical to the replay, and the replay, never approving, reports the copy of each."""
    from atari5_spec_maintainers.contributions.pull_request import _replayed, pull_request_changes

    author = github / "author"
    _twins(author)
    _git(author, "add", "-A")
    _git(author, "commit", "-qm", "two folders")
    _maintainer_adds(author, "ppo2-rerun", "--approved")
    _maintainer_adds(author, "ppo2-twin", "--approved")
    head = _push_pull_request(github)
    base = _git(github / "origin.git", "rev-parse", "main")
    changes, replay = _replayed(author, pull_request_changes(author, base, head))
    assert replay is not None and replay.error is None and not replay.differing and not replay.missing
    found = [(folder, w.message) for folder, w in replay.findings]
    # The first sees the second beside it in contributions/; the second sees the first in data/ (merged).
    assert [folder for folder, _ in found] == ["contributions/ppo2-rerun", "contributions/ppo2-twin"], found
    assert "equal those of the submission folder contributions/ppo2-twin/" in found[0][1]
    assert "equal those of 'ppo2-rerun' ('PPO2 Rerun') in data/" in found[1][1]
    run = run_workflow(github, head)
    assert run["statuses"][-1][1] == 1, run["statuses"]  # the last step, "fail unless ready to merge", fails
    _, comment = run["comments"]
    assert "Verdict: needs a maintainer" in comment and "byte-identical" in comment
    assert "The merge the pull request carries, replayed" in comment and "the replay approves none" in comment \
        and "- `contributions/ppo2-twin`: **needs a maintainer**:" in comment


@pytest.mark.slow
def test_the_recorded_contributors_correction_carrying_its_merge_stays_ready(github):
    """The replay decides a correction by the pull request's author, as the review does: the recorded
    contributor's erratum with its merge committed is ready; the same sent by a stranger is not."""
    from atari5_spec_maintainers.contributions.pull_request import review_pull_request

    author = github / "author"
    base = _git(github / "origin.git", "rev-parse", "main")
    _dreamerv3_correction(author, 0.55)
    _git(author, "add", "-A")
    _git(author, "commit", "-qm", "erratum")
    _maintainer_adds(author, "dreamerv3-erratum", "--approved")
    head = _push_pull_request(github)
    review = review_pull_request(author, base, head, author=RECORDED)
    assert review.ready is True and "byte-identical" in review.text, review.text
    review = review_pull_request(author, base, head, author="mallory")
    assert review.ready is False  # the folder reads as merged in this working tree: only the replay holds it


# --- d. the same code base, named ----------------------------------------------------------------------------------

def test_a_new_entry_from_a_repository_in_data_names_the_entries_from_it(package_copy):
    """A new A3C taken from chainer/chainerrl's results: the review names the three ChainerRL entries of data/ (a
    note for the reviewer, not a hold); from a repository data/ has no numbers from, no note."""
    from atari5_spec_maintainers.contributions import check_submission

    upstream = {"repository": "Chainer/ChainerRL", "commit": "0" * 40, "path": "examples/atari/results.csv"}
    folder = make_submission(package_copy / "contributions", "a3c-rerun", meta=metadata(upstream=upstream))
    report = check_submission(folder)
    notes = [w for w in report.warnings if w.column == "upstream.repository"]
    assert report.ok and report.holds == [] and len(notes) == 1
    assert [name for name in ("chainerrl-dqn", "chainerrl-iqn", "chainerrl-rainbow") if name in notes[0].message] \
        == ["chainerrl-dqn", "chainerrl-iqn", "chainerrl-rainbow"]
    upstream["repository"] = "example/elsewhere"
    folder = make_submission(package_copy / "contributions", "a3c-other", meta=metadata(upstream=upstream))
    assert [w for w in check_submission(folder).warnings if w.column == "upstream.repository"] == []
