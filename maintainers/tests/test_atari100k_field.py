"""The Atari 100k field: its 26 games in data/games.csv, and its ranking by the measured 26-game median."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from atari5_spec.data.validation import validate_dataset
from atari5_spec.scoring.field import regime_field
from atari5_spec.scoring.ranking import leaderboard

# Entries imported from their repositories' results files: each reports exactly the field's games.
FROM_RESULTS_FILES = ("iris", "spr", "drq-eps", "efficientzero", "muzero-atari100k", "diamond", "dreamerv3-atari100k")


@pytest.fixture(scope="module")
def board(dataset):
    return leaderboard(dataset=dataset, regime="atari-100k")


def per_game(dataset, algorithm_id: str) -> pd.Series:
    rows = dataset.scores[(dataset.scores.algorithm_id == algorithm_id) & dataset.scores.use_in_fit.astype(bool)]
    return rows.groupby("game_id")["score"].first()


def test_the_marked_games_are_the_games_the_field_reports(dataset):
    field = regime_field("atari-100k", dataset.benchmark_games)
    assert field is not None and len(field.games) == 26
    assert {"battle_zone", "qbert"} <= set(field.games)
    assert not {"double_dunk", "name_this_game", "phoenix"} & set(field.games)
    for algorithm_id in FROM_RESULTS_FILES:  # the list in the data agrees with what the field's files hold
        assert tuple(sorted(per_game(dataset, algorithm_id).index)) == field.games, algorithm_id


def test_every_entry_of_the_regime_with_the_26_games_is_ranked_by_its_measured_median(dataset, board):
    games = dataset.games.set_index("game_id")
    field = board.field
    regime = dataset.algorithms.loc[dataset.algorithms.regime == "atari-100k", "algorithm_id"]
    expected = {}
    for algorithm_id in regime:  # recomputed here from the raw rows, independently of scoring/field.py
        raw = per_game(dataset, algorithm_id)
        if set(field.games) <= set(raw.index):  # every atari-100k entry with the 26 games, none left out
            z = [100 * (raw[g] - games.loc[g, "random_score"]) / (games.loc[g, "human_score"] - games.loc[g, "random_score"])
                 for g in field.games]
            expected[algorithm_id] = float(pd.Series(z).median())
    assert {r.algorithm_id for r in board.rows} == set(expected)
    assert len(board.rows) >= 15
    for row in board.rows:
        assert row.field_median == pytest.approx(expected[row.algorithm_id], rel=1e-12)
    medians = [r.field_median for r in board.rows]
    assert medians == sorted(medians, reverse=True)
    assert [r.rank for r in board.rows] == list(range(1, len(board.rows) + 1))


def test_the_subset_score_is_shown_only_where_an_entry_has_its_games(board):
    by_id = {r.algorithm_id: r for r in board.rows}
    assert by_id["bbf"].estimate is not None and by_id["iris"].estimate is None
    assert all(r.regime == "atari-100k" for r in board.rows)


def test_a_users_agent_is_ranked_in_the_field_by_its_26_games(dataset, board):
    iris = per_game(dataset, "iris").to_dict()
    mine = leaderboard(iris, dataset=dataset, regime="atari-100k")
    assert mine.user_field_median == pytest.approx(next(r.field_median for r in board.rows if r.algorithm_id == "iris"))
    assert mine.user_rank == 1 + sum(r.field_median > mine.user_field_median for r in board.rows)
    assert mine.user_estimate is None  # no Atari-5 score without Double Dunk, Name This Game and Phoenix
    fewer = dict(iris)
    fewer.pop("alien")
    assert leaderboard(fewer, dataset=dataset, regime="atari-100k").user_rank is None


def test_other_regimes_keep_the_subset_ranking(dataset):
    board = leaderboard(dataset=dataset, regime="200M")
    assert board.field is None and board.ranked_by == "Atari-5 score"
    assert all(r.field_median is None for r in board.rows)


def test_a_package_without_the_table_ranks_the_regime_by_the_subset_as_before(dataset):
    old = dataset._replace(benchmark_games=None)  # a package made before data 1.32.0
    board = leaderboard(dataset=old, regime="atari-100k")
    assert board.field is None
    assert {r.algorithm_id for r in board.rows} == {"bbf", "bbf-rr2", "bbf-sticky", "bbf-rr2-sticky"}


def test_validation_holds_the_benchmark_to_canonical_games_listed_once(dataset):
    def problems(table):
        return [p for p in validate_dataset(dataset._replace(benchmark_games=table))
                if p.file == "data/benchmark_games.csv"]

    assert problems(dataset.benchmark_games) == []
    outside = dataset.benchmark_games.copy()
    outside.loc[outside.index[0], "game_id"] = "air_raid"  # in games.csv, not one of the 57
    assert any("canonical" in p.message for p in problems(outside))
    twice = pd.concat([dataset.benchmark_games, dataset.benchmark_games.iloc[:1]], ignore_index=True)
    assert any("twice" in p.message for p in problems(twice))


def test_the_command_prints_and_serialises_the_field_ranking(run, board, tmp_path):
    code, out, _ = run("leaderboard", "--only-regime", "atari-100k")
    assert code == 0 and "atari-100k field:" in out and "26-game median" in out
    assert "not predicted" in out
    code, out, _ = run("leaderboard", "--only-regime", "atari-100k", "--json")
    data = json.loads(out)
    assert data["ranked_by"] == board.ranked_by and len(data["field_games"]) == 26
    assert [r["algorithm_id"] for r in data["rows"]] == [r.algorithm_id for r in board.rows]
    assert all(r["field_median"] is not None for r in data["rows"])


def test_the_command_says_which_field_games_a_user_left_out(run, dataset, tmp_path):
    iris = per_game(dataset, "iris").to_dict()
    iris.pop("pong")
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(iris), encoding="utf-8")
    code, out, _ = run("leaderboard", "--only-regime", "atari-100k", str(path))
    assert code == 0 and "Your agent is not ranked in the atari-100k field" in out and "pong" in out


def test_a_submission_of_the_regime_is_ranked_by_its_field_median(package_copy):
    """The review bot's summary of an Atari 100k submission without the Atari-5 games: its 26-game median and
    its rank in the regime, where the Atari-5 leaderboard can say nothing."""
    import shutil

    from atari5_spec_maintainers.contributions.report import report_markdown, summarise_submission
    from atari5_spec.data.loading import load

    from pathlib import Path

    folder = package_copy / "contributions" / "iris-rerun"
    shutil.copytree(Path(__file__).resolve().parents[2] / "contributions" / "iris", folder)
    metadata = folder / "metadata.yaml"
    metadata.write_text(metadata.read_text("utf-8").replace("name: IRIS", "name: IRIS rerun", 1), "utf-8")
    summary = summarise_submission(folder, package_copy)
    assert summary.report.merge is not None and summary.estimate is None
    board = leaderboard(dataset=load(package_copy), regime="atari-100k")
    iris = next(r for r in board.rows if r.algorithm_id == "iris")
    assert summary.field_median == pytest.approx(iris.field_median)
    assert summary.regime_rank == iris.rank and summary.n_regime == len(board.rows)
    text = report_markdown([summary])
    assert f"26-game median {iris.field_median:,.1f}: would rank {iris.rank} of {len(board.rows) + 1}" in text
