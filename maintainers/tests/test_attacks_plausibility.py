"""Issue 47 item 5, "plausibility as data": the per-game bound `score` applies (SPEC.md section 1.1,
above-game-bound) holds a contribution for a maintainer, and the review's first lines state the rank change.

a. 57 scores at 20x the best published per game were "ready to merge" at rank 1 (the review even crashed on
   them in `score`'s gate): now held, naming each game, its score and its bound; the estimate is computed
   knowingly, so the review still says where it would rank.
b. Just under every bound stays ready to merge (a genuine record can come near it).
c. The rank line's numbers are a leaderboard's, computed on the package with and without the merge.
"""

from __future__ import annotations

import shutil

import pytest

from test_contribution_attacks import _fit_rows
from test_contributions import make_submission, metadata
from test_review_workflow import _git, _push_pull_request, github, run_workflow  # noqa: F401


def _bounds(dataset):
    """The reference's bounds, computed here from the reference's function on data/ directly."""
    from atari5_spec.method.reference import upper_bounds

    games = dataset.games[dataset.games.in_57.astype(bool)]
    constants = {g: (float(r), float(h)) for g, r, h in zip(games.game_id, games.random_score, games.human_score)}
    best = dataset.scores.groupby("game_id").score.max().astype(float).to_dict()
    return upper_bounds(constants, best), best


def _table(dataset, values: dict[str, float]) -> str:
    names = dataset.games.set_index("game_id")["name"]
    return "game,score\n" + "".join(f"{names[g]},{v:.6f}\n" for g, v in sorted(values.items()))


def _twenty_times_best(root, name="super-agent"):
    from atari5_spec.data.loading import load

    dataset = load(root)
    _, best = _bounds(dataset)
    games = dataset.games.loc[dataset.games.in_57.astype(bool), "game_id"]
    return make_submission(root / "contributions", name, meta=metadata(name="SuperAgent"),
                           scores=_table(dataset, {g: 20 * best[g] for g in games}))


def test_twenty_times_the_best_published_is_held_naming_every_game_its_score_and_bound(package_copy):
    from atari5_spec.data.loading import load
    from atari5_spec.method.reference import games_above_bounds

    from atari5_spec_maintainers.contributions.report import report_markdown, summarise_submission

    dataset = load(package_copy)
    bounds, best = _bounds(dataset)
    folder = _twenty_times_best(package_copy)
    summary = summarise_submission(folder)
    report = summary.report
    assert report.ok and report.merge is not None
    held = [w for w in report.holds if "plausibility bound" in w.message]
    assert len(held) == 1, report.warnings
    expected = games_above_bounds({r["game_id"]: [r["score"]] for r in report.merge.scores}, bounds)
    assert len(expected) >= 50  # a game whose best is below random play (skiing) is not above at 20x
    assert held[0].message.startswith(f"{len(expected)} game(s) with a score above its plausibility bound")
    for game in expected:
        value = next(r["score"] for r in report.merge.scores if r["game_id"] == game)
        assert f"{game} {value:,.6g} > bound {bounds[game]:,.6g} (best published {best[game]:,.6g})" \
            in held[0].message
    assert summary.rank == 1 and summary.rank_before is None and summary.rank_after == 1
    text = report_markdown([summary])
    assert "ready to merge" not in text.split("###")[1].splitlines()[0]
    assert "**needs a maintainer**" in text and "above its plausibility bound" in text


def test_just_under_every_bound_stays_ready(package_copy):
    from atari5_spec.data.loading import load

    from atari5_spec_maintainers.contributions import check_submission

    dataset = load(package_copy)
    bounds, _ = _bounds(dataset)
    rows = _fit_rows(dataset, "dreamerv3")
    values = dict(zip(rows.game_id, rows.score.astype(float) * (1.1 + 0.07 * (rows.index % 9))))
    first, second = sorted(values)[:2]
    values[first], values[second] = bounds[first] * 0.999, bounds[second] * 0.999
    folder = make_submission(package_copy / "contributions", "near-record",
                             meta=metadata(name="NearRecord"), scores=_table(dataset, values))
    report = check_submission(folder)
    assert report.ok and report.holds == [], report.warnings
    shutil.rmtree(folder)  # (beside it, the next folder would be its copy)
    values[first] = bounds[first] * 1.001  # and just over one: held, that game only
    folder = make_submission(package_copy / "contributions", "over-record",
                             meta=metadata(name="OverRecord"), scores=_table(dataset, values))
    (held,) = check_submission(folder).holds
    assert held.message.startswith("1 game(s) with a score above") and f" {first} " in held.message \
        and f" {second} " not in held.message


@pytest.mark.parametrize("kind", ["new", "correction"])
def test_the_rank_line_is_the_leaderboard_with_and_without_the_merge(package_copy, kind):
    """The review's numbers against the leaderboard of the package before, and after `contribute add` wrote
    the merge for real."""
    from atari5_spec.cli import main
    from atari5_spec.data.loading import load
    from atari5_spec.scoring.ranking import leaderboard

    from atari5_spec_maintainers.contributions.report import report_markdown, report_text, summarise_submission

    (package_copy / "CHANGELOG.md").write_text("# Changelog\n\n## [Unreleased]\n", encoding="utf-8")
    dataset = load(package_copy)
    if kind == "new":
        folder, entry = _twenty_times_best(package_copy), "super-agent"
    else:  # DreamerV3 divided by 100: a correction that moves it down the leaderboard
        rows = _fit_rows(dataset, "dreamerv3")
        rows = rows[rows.score != 0]
        folder = make_submission(package_copy / "contributions", "dreamerv3-erratum",
                                 meta=metadata(name=None, protocol=None, corrects="dreamerv3"),
                                 scores=_table(dataset, dict(zip(rows.game_id, rows.score.astype(float) / 100))))
        entry = "dreamerv3"
    summary = summarise_submission(folder)
    before = leaderboard(dataset=dataset)
    assert main(["contribute", "add", str(folder), "--approved"]) == 0
    after = leaderboard(dataset=load(package_copy))
    rank_before = next((r.rank for r in before.rows if r.algorithm_id == entry), None)
    rank_after = next(r.rank for r in after.rows if r.algorithm_id == entry)
    assert (summary.ranked_id, summary.rank_before, summary.n_before, summary.rank_after, summary.n_after) == \
        (entry, rank_before, len(before.rows), rank_after, len(after.rows))
    first_lines = report_markdown([summary]).split("###")[1].splitlines()[:3]
    text = report_text([summary]).splitlines()[0]
    if kind == "new":
        assert rank_before is None and len(after.rows) == len(before.rows) + 1
        line = f"SuperAgent would enter the leaderboard at rank {rank_after} of {len(after.rows)}"
    else:
        assert rank_after > rank_before and len(after.rows) == len(before.rows)
        line = f"moves DreamerV3 from rank {rank_before} to {rank_after} of {len(after.rows)}"
    assert f"**Rank: {line}" in first_lines[2] and line in text, (first_lines, text)


@pytest.mark.slow
def test_twenty_times_the_best_through_the_workflow_needs_a_maintainer(github):
    _twenty_times_best(github / "author")
    run = run_workflow(github, _push_pull_request(github))
    assert run["statuses"][-1][1] == 1, run["statuses"]  # the last step, "fail unless ready to merge", fails
    _, comment = run["comments"]
    assert "Verdict: needs a maintainer" in comment and "Verdict: ready to merge" not in comment
    assert "above its plausibility bound" in comment
    verdict = comment.index("Verdict: needs a maintainer")
    from atari5_spec.scoring.ranking import leaderboard

    ranked = leaderboard().ranked + 1  # the package's ranking with the new entry in it
    rank = comment.index(f"- Rank: `super-agent`: SuperAgent would enter the leaderboard at rank 1 of {ranked}.")
    assert verdict < rank < comment.index("### Submissions")  # the review's first lines
