"""The Python API as a researcher uses it in a notebook: the shapes they hold go in, short results come out."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import atari5_spec
import atari5_spec_research
from atari5_spec_research.analyses.run_aggregates import aggregate_runs, run_aggregates_as_dict
from atari5_spec.data.errors import InputError

FIVE = {"battle_zone": 35000.0, "double_dunk": -1.5, "name_this_game": 12000.0, "phoenix": 9000.0, "qbert": 15000.0}
SEEDS = {game: [value * (1 + 0.1 * seed) for seed in range(3)] for game, value in FIVE.items()}


def summary(result):
    """What a score says: the estimate and both intervals."""
    return result.estimate, result.seed_interval, tuple(result.prediction_interval[:2])


# --- score(): every shape researchers hold ----------------------------------------------------------------

def test_score_takes_a_series_of_game_to_score():
    assert summary(atari5_spec.score(pd.Series(FIVE))) == summary(atari5_spec.score(FIVE))


def test_score_takes_long_and_wide_frames_and_numpy_columns_alike():
    long = pd.DataFrame([(g, v, s) for g, values in SEEDS.items() for s, v in enumerate(values)],
                        columns=["game", "score", "seed"])
    wide = long.pivot(index="seed", columns="game", values="score")           # one row per seed
    wide_with_seed_column = wide.reset_index()                                  # seed as a column
    wide_unnamed = wide.reset_index(drop=True)                                  # seeds = row positions
    numpy_columns = {game: np.array(values) for game, values in SEEDS.items()}
    records = long.to_dict("records")
    by_game_and_seed = long.set_index(["game", "seed"])["score"]                # a Series on (game, seed)
    expected = summary(atari5_spec.score(SEEDS))
    assert expected[1] is not None  # three seeds: there is a seed interval to compare
    for shape in (long, wide, wide_with_seed_column, wide_unnamed, numpy_columns, records, by_game_and_seed):
        assert summary(atari5_spec.score(shape)) == expected, type(shape)


def test_a_wide_frame_with_a_missing_run_names_row_and_column():
    wide = pd.DataFrame(SEEDS)
    wide.loc[1, "qbert"] = np.nan
    with pytest.raises(InputError, match=r"row 2 \(seed 1\), column 'qbert': no score \(NaN\)"):
        atari5_spec.score(wide)


def test_a_long_frame_with_an_unknown_game_names_the_record():
    long = pd.DataFrame({"game": ["battle_zone", "qbrt"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"DataFrame\), record 2.*qbert"):
        atari5_spec.score(long, partial=True)


def test_results_print_short_and_say_what_each_interval_covers():
    one_seed, three_seeds = atari5_spec.score(FIVE), atari5_spec.score(SEEDS)
    for result in (one_seed, three_seeds):
        text = repr(result)
        assert len(text) < 300 and "\n" not in text
        assert f"estimate={result.estimate:.1f}" in text and "[57-game median]" in text
        assert "interval=None" not in text and "raw_means" not in text
    assert "seed_interval=unknown" in repr(one_seed)
    assert "[seed noise only]" in repr(three_seeds)
    relative = atari5_spec.relative_score(SEEDS, FIVE)
    assert repr(relative).startswith("RelativeResult(ratio=") and len(repr(relative)) < 300


# --- the rliable-ready matrix ---------------------------------------------------------------------------

def _seed_rows(algorithm_id):
    path = atari5_spec.load().root / "data" / "seed_scores.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle) if row["algorithm_id"] == algorithm_id]


def test_human_normalised_runs_is_rliable_shaped_and_computed_from_the_tables(dataset):
    matrix = atari5_spec_research.human_normalised_runs("ppo-dreamerv3", dataset)
    games = sorted(dataset.games.loc[dataset.games["in_57"].astype(bool), "game_id"])
    assert matrix.games == games and matrix.scores.shape == (5, 57) and matrix.note == ""
    constants = dataset.games.set_index("game_id")
    # By hand, from the CSV text: seed 0 of Pong.
    row = next(r for r in _seed_rows("ppo-dreamerv3") if r["game_id"] == "pong" and r["seed"] == "0")
    random, human = constants.loc["pong", ["random_score", "human_score"]].astype(float)
    assert matrix.scores[matrix.runs.index("0"), games.index("pong")] == pytest.approx(
        (float(row["score"]) - random) / (human - random), rel=1e-12)
    assert list(matrix.to_frame().columns) == games


def test_uneven_runs_per_game_are_cut_to_a_rectangle_and_say_so(dataset):
    matrix = atari5_spec_research.human_normalised_runs("dreamerv3", dataset)
    counts = pd.Series([r["game_id"] for r in _seed_rows("dreamerv3")]).value_counts()
    assert matrix.scores.shape == (counts.min(), 57)
    assert f"{counts.sum() - counts.min() * 57} of {counts.sum()} runs left out" in matrix.note


def test_an_algorithm_without_seeds_is_its_published_row(dataset):
    matrix = atari5_spec_research.human_normalised_runs("agent57", dataset, games=["Pong", "ALE/Qbert-v5"])
    assert matrix.runs == ["published"] and matrix.games == ["pong", "qbert"] and matrix.scores.shape == (1, 2)
    with pytest.raises(InputError, match="not in the data package"):
        atari5_spec_research.human_normalised_runs("no-such-agent", dataset)


def test_rliable_reads_the_matrix_as_is(dataset):
    metrics = pytest.importorskip("rliable.metrics")
    matrix = atari5_spec_research.human_normalised_runs("ppo-dreamerv3", dataset)
    ours = atari5_spec_research.aggregate({"PPO": matrix.scores}, n_resamples=10, dataset=dataset).to_frame()
    assert ours.loc["PPO", ("iqm", "estimate")] == pytest.approx(metrics.aggregate_iqm(matrix.scores), rel=1e-12)


# --- aggregate(): the command's computation --------------------------------------------------------------

RUNS = """agent,game,seed,score
A,pong,0,10
A,pong,1,12
A,qbert,0,4000
A,qbert,1,5200
B,pong,0,-3
B,pong,1,1.5
B,qbert,0,900
B,qbert,1,1100
"""


@pytest.mark.slow
def test_aggregate_of_a_long_frame_equals_the_command(tmp_path, dataset):
    path = tmp_path / "runs.csv"
    path.write_text(RUNS)
    done = subprocess.run([sys.executable, "-m", "atari5_spec.cli", "aggregate", str(path), "--json",
                           "--resamples", "300", "--package", str(dataset.root)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result = atari5_spec_research.aggregate(pd.read_csv(path), n_resamples=300, dataset=dataset)
    assert run_aggregates_as_dict(result) == json.loads(done.stdout)


def test_aggregate_of_arrays_is_rliables_shape(dataset):
    rng = np.random.default_rng(0)
    runs = {"A": rng.uniform(0, 2, (4, 3)), "B": rng.uniform(0, 1, (4, 3))}
    result = atari5_spec_research.aggregate(runs, games=["pong", "qbert", "Breakout"], n_resamples=100, dataset=dataset)
    direct = aggregate_runs(runs, ["pong", "qbert", "breakout"], n_resamples=100)
    assert run_aggregates_as_dict(result) == run_aggregates_as_dict(direct)
    frame = result.to_frame()
    assert list(frame.index) == ["A", "B"] and frame.loc["B", ("seeds", "")] == 4
    iqm = result.metrics.set_index(["agent", "metric"]).loc[("A", "iqm"), "estimate"]
    assert frame.loc["A", ("iqm", "estimate")] == iqm
    assert repr(result).startswith("RunAggregates(2 agents x 3 games")


def test_aggregate_refuses_what_it_cannot_read(dataset):
    with pytest.raises(InputError, match=r"runs\['A'\]: expected an array of shape \(n_runs, 2\)"):
        atari5_spec_research.aggregate({"A": np.ones((3, 5))}, games=["pong", "qbert"], dataset=dataset)
    with pytest.raises(InputError, match=r"runs\['A'\]\[1, 0\] \(pong\): not a finite score"):
        atari5_spec_research.aggregate({"A": np.array([[1.0, 2.0], [np.nan, 1.0]])}, games=["pong", "qbert"], dataset=dataset)
    bad = pd.read_csv(__import__("io").StringIO(RUNS)).assign(game=lambda f: f["game"].replace("qbert", "qbrt"))
    with pytest.raises(InputError, match=r"runs DataFrame \(line 2 is its first row\), line 4, column 'game'"):
        atari5_spec_research.aggregate(bad, dataset=dataset)


def test_the_readme_shows_the_notebook_api():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for call in ("atari5_spec.score(", "atari5_spec_research.aggregate(", "atari5_spec_research.human_normalised_runs("):
        assert call in readme, call


def test_load_gives_the_fits_row_per_algorithm_and_game_and_every_row_on_request():
    """Issue 32: a pivot of load().scores counted some numbers twice unless the user knew to filter use_in_fit."""
    data = atari5_spec.load()
    every = atari5_spec.load(scores="all")
    assert data.score_rows == "fit" and every.score_rows == "all"
    assert not data.scores.duplicated(["algorithm_id", "game_id"]).any()
    assert every.scores.duplicated(["algorithm_id", "game_id"]).any()  # what the default hides
    # computed here from the file with plain pandas: the use_in_fit rows no row supersedes, first by score_id
    raw = pd.read_csv(every.root / "data" / "scores.csv")
    superseded = set(raw["supersedes"].dropna().astype(int))
    fit = raw[raw["use_in_fit"] & ~raw["score_id"].isin(superseded)].sort_values("score_id")
    fit = fit.drop_duplicates(["algorithm_id", "game_id"])
    assert sorted(data.scores["score_id"].astype(int)) == sorted(fit["score_id"])
    assert "one per algorithm and game" in repr(data)
    assert data.complete().score_rows == "all" and len(data.complete().scores) == len(every.scores)
    pivot = data.scores.pivot(index="algorithm_id", columns="game_id", values="score")  # no duplicate-entry error
    assert pivot.shape[0] == data.scores["algorithm_id"].nunique()
    with pytest.raises(atari5_spec.InputError, match="scores='some'"):
        atari5_spec.load(scores="some")
