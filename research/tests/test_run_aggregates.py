"""``atari5-spec aggregate``: your own per-seed runs, compared with rliable on the same input."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
import scipy.stats

from atari5_spec import cli
from atari5_spec_research.analyses import run_aggregates as ra
from atari5_spec_research.analyses.runs_input import normalised_runs, runs_from_text

metrics = pytest.importorskip("rliable.metrics", reason="rliable is a test dependency: pip install '.[test]'")


def rliable_library():
    """rliable's bootstrap module, or a skip saying why it does not import.

    rliable 1.2 pins arch < 8, and arch 7 fails to import with pandas >= 3
    (``deprecate_kwarg`` changed); rliable.metrics has no such dependency.
    """
    try:
        from rliable import library
    except Exception as error:  # noqa: BLE001 - any import failure of the optional stack means skip
        pytest.skip(f"rliable.library does not import here ({type(error).__name__}: {error}); "
                    "rliable 1.2 needs arch < 8, which needs pandas < 3")
    return library


def simulated_runs(n_agents=3, n_seeds=5, n_games=12, seed=0):
    rng = np.random.default_rng(seed)
    scores = {f"agent-{i}": rng.lognormal(0.0, 1.0, size=(n_seeds, n_games)) * (0.5 + 0.3 * i)
              for i in range(n_agents)}
    scores["agent-0"][:, 0] = 0.25  # constant runs: ties, and identical runs against a copy below
    return scores


# --- point estimates: rliable.metrics, exactly ------------------------------------------------------------


def test_point_estimates_equal_rliable():
    scores = simulated_runs()
    scores["copy"] = scores["agent-1"].copy()  # identical runs: rliable's P = 0.5 branch
    result = ra.aggregate_runs(scores, list(range(12)), n_resamples=50)
    table = result.metrics.set_index(["agent", "metric"])["estimate"]
    for agent, x in scores.items():
        assert table[(agent, "iqm")] == metrics.aggregate_iqm(x)
        assert table[(agent, "median")] == metrics.aggregate_median(x)
        assert table[(agent, "mean")] == metrics.aggregate_mean(x)
        assert table[(agent, "optimality_gap")] == metrics.aggregate_optimality_gap(x, gamma=1)
    for row in result.improvement.itertuples(index=False):
        theirs = metrics.probability_of_improvement(scores[row.agent_x], scores[row.agent_y])
        assert row.probability == pytest.approx(theirs, abs=1e-15)
    pair = result.improvement.set_index(["agent_x", "agent_y"]).loc[("agent-1", "copy")]
    assert pair["probability"] == 0.5


def test_batched_statistics_equal_the_single_ones():
    scores = simulated_runs()["agent-2"]
    batch = np.stack([scores, scores[::-1], scores[[0, 0, 1, 2, 3]]])
    batched = ra.batch_statistics(batch)
    for i, x in enumerate(batch):
        single = ra.point_statistics(x)
        for metric in ra.METRICS:
            assert batched[metric][i] == pytest.approx(single[metric], rel=1e-12)


def test_performance_profile_is_the_share_above_tau():
    x = np.array([[0.0, 0.5, 1.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(ra.performance_profile(x, [0.0, 1.0, 2.5]), [5 / 6, 2 / 6, 1 / 6])  # strictly above
    profile = ra.performance_profile(np.stack([x, x + 1]), np.array([1.0]))
    np.testing.assert_allclose(profile[:, 0], [2 / 6, 5 / 6])


# --- intervals: within Monte Carlo error of rliable ----------------------------------------------------------


def reference_intervals(scores, statistic, n_resamples, seed):
    """rliable's documented procedure, one resample at a time: ``np.random.choice`` of seeds per game, percentile."""
    state = np.random.RandomState(seed)
    n_seeds, n_games = scores.shape
    values = [statistic(scores[state.choice(n_seeds, (n_seeds, n_games), replace=True), np.arange(n_games)])
              for _ in range(n_resamples)]
    return np.percentile(values, [2.5, 97.5])


@pytest.mark.slow
def test_intervals_match_rliables_procedure_within_monte_carlo_error():
    scores = simulated_runs(n_agents=2, n_games=20, seed=1)
    result = ra.aggregate_runs(scores, list(range(20)), n_resamples=4000, seed=3)
    table = result.metrics.set_index(["agent", "metric"])
    functions = {"iqm": metrics.aggregate_iqm, "median": metrics.aggregate_median, "mean": metrics.aggregate_mean,
                 "optimality_gap": metrics.aggregate_optimality_gap}
    for agent, x in scores.items():
        for metric, function in functions.items():
            low, high = reference_intervals(x, function, 4000, seed=11)
            ours = table.loc[(agent, metric)]
            # Two independent sets of 4,000 resamples: percentiles differ by a few % of the width.
            tolerance = 0.12 * (high - low)
            assert abs(ours["low"] - low) < tolerance and abs(ours["high"] - high) < tolerance, (agent, metric)


@pytest.mark.slow
def test_intervals_match_rliable_library():
    library = rliable_library()
    scores = simulated_runs(n_agents=2, n_games=20, seed=2)
    result = ra.aggregate_runs(scores, list(range(20)), n_resamples=4000, seed=5)
    table = result.metrics.set_index(["agent", "metric"])
    np.random.seed(7)  # rliable draws from numpy's global generator
    points, intervals = library.get_interval_estimates(
        scores, lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_median(x),
                                    metrics.aggregate_mean(x), metrics.aggregate_optimality_gap(x)]), reps=4000)
    for agent in scores:
        for k, metric in enumerate(("iqm", "median", "mean", "optimality_gap")):
            ours = table.loc[(agent, metric)]
            low, high = intervals[agent][:, k]
            assert ours["estimate"] == points[agent][k]
            assert abs(ours["low"] - low) < 0.12 * (high - low) and abs(ours["high"] - high) < 0.12 * (high - low)


def test_bootstrap_is_stratified_by_game():
    # Constant runs within each game: every stratified resample is the data, so intervals collapse.
    scores = {"a": np.tile(np.linspace(0, 2, 8), (4, 1)), "b": np.tile(np.linspace(1, 3, 8), (3, 1))}
    result = ra.aggregate_runs(scores, list(range(8)), n_resamples=200)
    assert (result.metrics["low"] == result.metrics["estimate"]).all()
    assert (result.metrics["high"] == result.metrics["estimate"]).all()


def test_same_seed_same_result_other_seed_other_intervals():
    scores = simulated_runs()
    first = ra.aggregate_runs(scores, list(range(12)), n_resamples=300, seed=1)
    again = ra.aggregate_runs(scores, list(range(12)), n_resamples=300, seed=1)
    other = ra.aggregate_runs(scores, list(range(12)), n_resamples=300, seed=2)
    assert json.dumps(ra.run_aggregates_as_dict(first)) == json.dumps(ra.run_aggregates_as_dict(again))
    assert not np.array_equal(first.metrics["low"], other.metrics["low"])


def test_welch_tests_count_wins_losses_and_ties():
    rng = np.random.default_rng(4)
    a = rng.normal(10.0, 0.1, size=(5, 4))
    b = a.copy()
    b[:, 0] += 5.0  # b clearly better on game 0
    b[:, 1] -= 5.0  # a clearly better on game 1
    b[:, 2] += rng.normal(0.0, 0.1, size=5)  # noise: a tie at alpha = 0.01
    result = ra.aggregate_runs({"a": a, "b": b}, list(range(4)), n_resamples=20)
    row = result.welch.iloc[0]
    assert (row["wins"], row["losses"]) == (1, 1) and row["ties"] == 2


def test_vectorised_welch_tests_agree_with_the_per_game_ones():
    from atari5_spec_research.analyses import aggregates

    rng = np.random.default_rng(12)
    x = rng.normal(0.0, 1.0, size=(5, 40))
    y = rng.normal(0.0, 1.0, size=(4, 40)) + rng.choice([-3.0, 0.0, 3.0], size=40)
    x[:, :3], y[:, :3] = 1.0, [[1.0], [1.0], [1.0], [1.0]] * np.array([1.0, 2.0, 0.5])  # constant games
    assert ra.welch_win_loss(x, y) == aggregates.paired_win_loss(x, y, alpha=0.01)


def test_score_distribution_is_the_ale_papers():
    scores = {"a": np.array([[0.0, 1.0, 2.0, 4.0], [0.0, 1.0, 2.0, 4.0]])}
    result = ra.aggregate_runs(scores, list(range(4)), n_resamples=10, thresholds=[0.0, 1.0, 3.0])
    np.testing.assert_allclose(result.score_distribution["a"], [1.0, 0.75, 0.25])  # at least tau, per game
    np.testing.assert_allclose(result.profiles["a"]["fraction"], [0.75, 0.5, 0.25])  # strictly above tau


# --- the command ---------------------------------------------------------------------------------------------


def runs_csv(scores, games, dataset, spelling="name"):
    """Raw scores that normalise back to ``scores``, one game spelling per run."""
    table = dataset.games.set_index("game_id")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["agent", "game", "seed", "score"])
    for agent, matrix in scores.items():
        for seed, row in enumerate(matrix):
            for game, value in zip(games, row):
                random, human = table.loc[game, "random_score"], table.loc[game, "human_score"]
                name = table.loc[game, spelling] if seed % 2 else game
                writer.writerow([agent, name, seed, repr(float(random + value * (human - random)))])
    return out.getvalue()


@pytest.fixture(scope="module")
def five_games():
    return ["battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert"]


def test_aggregate_command_json_matches_rliable(tmp_path, capsys, dataset, five_games):
    scores = simulated_runs(n_agents=3, n_games=5, seed=6)
    path = tmp_path / "runs.csv"
    path.write_text(runs_csv(scores, five_games, dataset, spelling="gymnasium_id"), encoding="utf-8")
    assert cli.main(["aggregate", str(path), "--json", "--resamples", "500"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["agents"]) == list(scores) and out["games"] == sorted(five_games)
    order = [five_games.index(g) for g in sorted(five_games)]
    for agent, x in scores.items():
        x = x[:, order]
        entry = out["agents"][agent]
        for metric, function in (("iqm", metrics.aggregate_iqm), ("median", metrics.aggregate_median),
                                 ("mean", metrics.aggregate_mean),
                                 ("optimality_gap", metrics.aggregate_optimality_gap)):
            # The raw scores went through the constants and back: equal up to that round trip.
            assert entry[metric]["estimate"] == pytest.approx(function(x), rel=1e-9, abs=1e-12)
            assert entry[metric]["low"] <= entry[metric]["estimate"] <= entry[metric]["high"]
    assert len(out["probability_of_improvement"]) == 3 and len(out["welch_tests"]["pairs"]) == 3


@pytest.mark.slow
def test_aggregate_command_text_and_figure(tmp_path, capsys, dataset, five_games):
    pytest.importorskip("matplotlib")
    import matplotlib.image

    path = tmp_path / "runs.csv"
    path.write_text(runs_csv(simulated_runs(n_agents=2, n_games=5), five_games, dataset), encoding="utf-8")
    figure = tmp_path / "aggregates.png"
    assert cli.main(["aggregate", str(path), "--figure", str(figure), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "iqm" in out and "P(agent-0 > agent-1)" in out and "Welch" in out and f"wrote {figure}" in out
    image = matplotlib.image.imread(figure)
    assert image.shape[0] > 300 and len(np.unique(image.reshape(-1, image.shape[-1]), axis=0)) > 20


@pytest.mark.parametrize("text, message", [
    ("agent,game,score\nA,pong,1\n", "line 1: no 'seed' column"),
    ("agent,game,seed,score\nA,pongg,1,3\n", "line 2, column 'game': unknown game 'pongg'; did you mean pong"),
    ("agent,game,seed,score\nA,pong,1,abc\n", "line 2, column 'score': 'abc' is not a number"),
    ("agent,game,seed,score\nA,pong,1,3\nA,Pong,1,4\n", "line 3: agent 'A', game pong, seed '1' already given on "
                                                        "line 2"),
    ("agent,game,seed,score\nA,pong,1,3\nB,breakout,1,4\n", "agent 'A' has no runs of breakout"),
    ("agent,game,seed,score\nA,pong,1,3\nA,breakout,2,4\n", "agent 'A' has seed '1' for some games but not for "
                                                          "breakout"),
])
def test_bad_runs_files_say_where_and_how_to_fix(tmp_path, capsys, text, message):
    path = tmp_path / "runs.csv"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["aggregate", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}") and message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_runs_are_normalised_with_the_agent57_constants(dataset):
    runs = runs_from_text("agent,game,seed,score\nA,Pong,0,21\nA,pong,1,-20.7\n", "runs", dataset.games)
    matrix = normalised_runs(runs, dataset.games).scores["A"]
    pong = dataset.games.set_index("game_id").loc["pong"]
    expected = (np.array([21.0, -20.7]) - pong["random_score"]) / (pong["human_score"] - pong["random_score"])
    np.testing.assert_allclose(matrix[:, 0], expected)
    assert scipy.stats.trim_mean(matrix, 0.25, axis=None) == ra.point_statistics(matrix)["iqm"]


# --- the input gate of `score` (atari5_spec.data.limits) and standard input, in `aggregate` ---------------------

GATED_RUNS = ("agent,game,seed,score\nA,double_dunk,0,150\nA,double_dunk,1,-10\n"
              "A,battle_zone,0,10000\nA,battle_zone,1,12000\n")
FRACTION_RUNS = "agent,game,seed,score\n" + "".join(
    f"A,{g},{s},{v}\n" for g, v in (("battle_zone", 0.4), ("double_dunk", -0.5), ("name_this_game", 0.2),
                                     ("phoenix", 0.9), ("qbert", 0.1)) for s in (0, 1))


def test_aggregate_reads_standard_input_as_the_file(tmp_path, capsys, monkeypatch, dataset):
    text = ("agent,game,seed,score\nA,pong,0,10\nA,pong,1,12\nA,qbert,0,5000\nA,qbert,1,7000\n"
            "B,pong,0,-3\nB,pong,1,1\nB,qbert,0,800\nB,qbert,1,1200\n")
    path = tmp_path / "runs.csv"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["aggregate", str(path), "--json", "--resamples", "200"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))
    assert cli.main(["aggregate", "-", "--json", "--resamples", "200"]) == 0
    assert json.loads(capsys.readouterr().out) == from_file


def test_aggregate_refuses_a_score_above_the_games_bound_with_the_place(tmp_path, capsys, monkeypatch):
    from atari5_spec.method.reference import upper_bounds
    from atari5_spec.scoring.estimate import published_extremes

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(GATED_RUNS.encode("utf-8")), encoding="utf-8"))
    assert cli.main(["aggregate", "-"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: <stdin>, line 2, column 'score': double_dunk 150 is above")
    assert "--allow-implausible" in err and err.count("\n") == 1 and "Traceback" not in err
    bound = upper_bounds({"double_dunk": (-18.6, -16.4)}, {"double_dunk": published_extremes()["double_dunk"][1]})
    assert -10 < bound["double_dunk"] < 150


def test_aggregate_refuses_fractions_and_allow_implausible_says_what_it_let_through(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text(FRACTION_RUNS, encoding="utf-8")
    assert cli.main(["aggregate", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}, line 2, column 'score' (agent 'A'): every score is within 2")
    assert "human-normalised fractions" in err and err.count("\n") == 1
    assert cli.main(["aggregate", str(path), "--allow-implausible", "--json", "--resamples", "100"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["agents"]["A"]
    assert captured.err.count("note: scored past the gate (--allow-implausible)") == 1
