"""``atari5-spec aggregate`` on learning curves (a frames column): IQM and median against frames with bands.

Point estimates are compared with ``rliable.metrics`` (exactly); bands with a direct numpy computation of
rliable's stratified bootstrap over a (runs, games, points) array (the same random numbers give the same bands),
and with ``rliable.library.get_interval_estimates`` where it imports (within the bootstrap noise measured here).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from atari5_spec import cli
from atari5_spec_research.analyses import sample_efficiency as se
from atari5_spec_research.analyses.agent_runs import aggregate, aggregate_curves
from atari5_spec.data.errors import InputError

FIXTURE = Path(__file__).parent / "fixtures" / "curves_runs.csv"
SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "aggregate-curves.schema.json"
metrics = pytest.importorskip("rliable.metrics", reason="rliable is a test dependency: pip install '.[test]'")


def synthetic_curves(n_runs=5, n_games=6, n_points=4, seed=0):
    """(runs, games, points) fractions that grow with the point, log-normal across runs and games."""
    rng = np.random.default_rng(seed)
    growth = np.linspace(0.2, 1.5, n_points)
    return rng.lognormal(0.0, 0.6, size=(n_runs, n_games, n_points)) * growth


def direct_bands(x, n_resamples, seed, confidence=0.95):
    """rliable's StratifiedBootstrap over a (runs, games, points) array written out plainly: per resample a run
    index for every (run slot, game, point), then rliable.metrics at each point; percentile interval."""
    rng = np.random.default_rng(seed)
    n_runs, n_games, n_points = x.shape
    iqm, median = np.empty((n_resamples, n_points)), np.empty((n_resamples, n_points))
    for r in range(n_resamples):
        index = rng.integers(0, n_runs, size=(n_runs, n_games, n_points))
        resampled = np.take_along_axis(x, index, axis=0)  # x[index[i, g, p], g, p]
        iqm[r] = [metrics.aggregate_iqm(resampled[:, :, p]) for p in range(n_points)]
        median[r] = [metrics.aggregate_median(resampled[:, :, p]) for p in range(n_points)]
    tail = 100 * (1 - confidence) / 2
    return {m: np.percentile(v, [tail, 100 - tail], axis=0) for m, v in (("iqm", iqm), ("median", median))}


# --- the method: arrays in, arrays out ------------------------------------------------------------------------


def test_point_estimates_equal_rliable_at_every_point():
    x = synthetic_curves()
    point = se.curve_point_estimates(x)
    for p in range(x.shape[2]):
        assert point["iqm"][p] == metrics.aggregate_iqm(x[:, :, p])
        assert point["median"][p] == metrics.aggregate_median(x[:, :, p])


def test_bands_equal_rliables_procedure_on_the_same_random_numbers():
    x = synthetic_curves(n_runs=4, n_games=5, n_points=3)  # 60 cells: even, so chunked draws equal one draw each
    bands = se.curve_intervals({"A": x}, n_resamples=300, seed=7)["A"]
    direct = direct_bands(x, 300, seed=7)
    for metric in se.CURVE_METRICS:
        np.testing.assert_allclose(bands[metric].low, direct[metric][0], rtol=1e-12)
        np.testing.assert_allclose(bands[metric].high, direct[metric][1], rtol=1e-12)
        assert np.all(bands[metric].low <= bands[metric].estimate + 1e-12)


def test_bands_equal_rliables_library_within_bootstrap_noise():
    try:
        from rliable import library
    except Exception as error:  # noqa: BLE001 - any import failure of the optional stack means skip
        pytest.skip(f"rliable.library does not import here ({type(error).__name__}: {error}); rliable 1.2 needs "
                    "arch < 8, which needs pandas < 3")
    x = synthetic_curves()
    iqm = lambda s: np.array([metrics.aggregate_iqm(s[..., p]) for p in range(s.shape[-1])])  # noqa: E731
    # rliable's own draws seeded: unseeded, its ends fell outside 4 noise 1 time in 30 (floors job, CI of session 15)
    point, theirs = library.get_interval_estimates({"A": x}, iqm, reps=2000, random_state=np.random.RandomState(0))
    ours = se.curve_intervals({"A": x}, n_resamples=2000)["A"]["iqm"]
    np.testing.assert_array_equal(ours.estimate, point["A"])
    # The noise: the spread of our band's ends over 10 bootstrap seeds; rliable's ends lie within 4 of it.
    ends = np.array([[b.low, b.high] for b in (se.curve_intervals({"A": x}, n_resamples=2000, seed=s)["A"]["iqm"]
                                               for s in range(10))])
    noise = ends.std(axis=0)
    assert np.all(np.abs(np.array([ours.low, ours.high]) - theirs["A"]) <= 4 * noise + 1e-9)


def test_runs_are_resampled_within_each_game_and_point():
    x = np.broadcast_to(np.arange(6.0)[None, :, None] * np.array([1.0, 2.0, 3.0]), (4, 6, 3)).copy()
    x[:, :, 1] += np.arange(4.0)[:, None]  # only the middle point varies between runs
    bands = se.curve_intervals({"A": x}, n_resamples=200)["A"]
    for metric in se.CURVE_METRICS:
        width = bands[metric].high - bands[metric].low
        assert width[0] == 0 and width[2] == 0 and width[1] > 0  # a game's runs never mix with another game's


def test_chunks_draw_the_numbers_of_one_draw(monkeypatch):
    x = synthetic_curves(n_runs=3, n_games=4, n_points=5)
    whole = se.curve_intervals({"A": x, "B": x[::-1] * 1.1}, n_resamples=50, seed=3)
    monkeypatch.setattr(se, "CHUNK_ELEMENTS", 4 * x.size)  # 4 resamples per chunk
    chunked = se.curve_intervals({"A": x, "B": x[::-1] * 1.1}, n_resamples=50, seed=3)
    for agent in whole:
        for metric in se.CURVE_METRICS:
            np.testing.assert_array_equal(whole[agent][metric].low, chunked[agent][metric].low)
            np.testing.assert_array_equal(whole[agent][metric].high, chunked[agent][metric].high)


def test_arrays_are_checked():
    with pytest.raises(ValueError, match=r"shape \(n_runs, n_games, n_points\)"):
        se.curve_intervals({"A": np.ones((3, 4))})
    x = synthetic_curves()
    x[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match=r"\[1, 2, 3\] is not finite.*nothing is interpolated"):
        se.curve_intervals({"A": x})


def test_api_takes_rliable_shaped_arrays(dataset):
    games = ["battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert"]
    x = synthetic_curves(n_games=5)
    result = aggregate_curves({"A": x}, frames=[1_000_000, 2_000_000, 5_000_000, 10_000_000], games=games,
                              n_resamples=100, dataset=dataset)
    np.testing.assert_array_equal(result.to_frame().loc["A"][("iqm", "estimate")].to_numpy(),
                                  se.curve_point_estimates(x)["iqm"])
    with pytest.raises(InputError, match="frames values must increase"):
        aggregate_curves({"A": x}, frames=[4, 3, 2, 1], games=games, dataset=dataset)


# --- the command ------------------------------------------------------------------------------------------------


def run(capsys, *arguments):
    code = cli.main(["aggregate", *map(str, arguments)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_fixture_curves_equal_rliable_on_the_normalised_file(capsys, dataset):
    code, out, _ = run(capsys, FIXTURE, "--format", "json", "--resamples", "200")
    assert code == 0
    result = json.loads(out)
    assert result["x"] == {"unit": "emulator frames", "read_from": "column 'frames'", "interpolation": "none"}
    constants = dataset.games.set_index("game_id")
    import pandas as pd

    raw = pd.read_csv(FIXTURE, comment="#")
    for agent, entry in result["agents"].items():
        assert entry["frames"] == [1_000_000, 2_000_000, 5_000_000, 10_000_000] and entry["runs"] == 3
        own = raw[raw["agent"] == agent]
        for p, frames in enumerate(entry["frames"]):
            at = own[own["frames"] == frames].pivot(index="seed", columns="game", values="score")
            at = at[result["games"]]
            c = constants.loc[result["games"]]
            x = ((at - c["random_score"]) / (c["human_score"] - c["random_score"])).to_numpy(float)
            assert entry["iqm"]["estimate"][p] == pytest.approx(metrics.aggregate_iqm(x), rel=1e-12)
            assert entry["median"]["estimate"][p] == pytest.approx(metrics.aggregate_median(x), rel=1e-12)
            assert entry["iqm"]["low"][p] <= entry["iqm"]["estimate"][p] <= entry["iqm"]["high"][p]


def test_json_output_follows_its_schema(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    code, out, _ = run(capsys, FIXTURE, "--json", "--resamples", "50")
    assert code == 0
    jsonschema.validate(json.loads(out), json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_same_seed_same_bytes_other_seed_other_bands(capsys, dataset):
    outputs = [run(capsys, FIXTURE, "--resamples", "300") for _ in range(2)]
    assert outputs[0] == outputs[1] and outputs[0][0] == 0
    as_json = [json.dumps(se.curves_as_dict(aggregate_curves(FIXTURE, n_resamples=300, seed=seed, dataset=dataset)))
               for seed in (0, 0, 1)]
    assert as_json[0] == as_json[1] and as_json[2] != as_json[0]


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_figure_is_byte_identical_across_runs(tmp_path, capsys, suffix):
    pytest.importorskip("matplotlib")
    paths = [tmp_path / f"curves{i}{suffix}" for i in range(2)]
    for path in paths:
        assert run(capsys, FIXTURE, "--figure", path, "--resamples", "100")[0] == 0
    first = paths[0].read_bytes()
    assert first == paths[1].read_bytes() and len(first) > 10_000
    if suffix == ".svg":
        text = first.decode("utf-8")
        assert "fast-learner" in text and "<dc:date>" not in text and "Matplotlib v" not in text


def test_steps_with_a_frame_skip_are_frames(tmp_path, capsys):
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    header = lines.index("agent,game,seed,frames,score")
    rows = [line.split(",") for line in lines[header + 1:]]
    steps = tmp_path / "steps.csv"
    steps.write_text("agent,game,seed,agent_steps,score\n" + "".join(
        f"{a},{g},{s},{int(f) // 4},{v}\n" for a, g, s, f, v in rows), encoding="utf-8")
    code, out, err = run(capsys, steps, "--json", "--resamples", "100")
    assert code == 1 and out == "" and "column 'agent_steps': agent steps are read only with the frame skip" in err
    from_frames = json.loads(run(capsys, FIXTURE, "--json", "--resamples", "100")[1])
    code, out, err = run(capsys, steps, "--frame-skip", "4", "--json", "--resamples", "100")
    assert code == 0
    from_steps = json.loads(out)
    assert from_steps["x"]["read_from"] == "column 'steps' x frame skip 4"
    assert from_steps["agents"] == from_frames["agents"]


def test_a_file_with_frames_is_not_read_as_final_scores(dataset):
    with pytest.raises(InputError, match="learning curves: aggregate them with .*aggregate_curves"):
        aggregate(FIXTURE, n_resamples=10, dataset=dataset)


HEADER = "agent,game,seed,frames,score\n"


def grid(rows=((0, 1_000_000), (0, 2_000_000), (1, 1_000_000), (1, 2_000_000)), games=("pong", "breakout")):
    return "".join(f"A,{g},{s},{f},{3 + s}\n" for g in games for s, f in rows)


@pytest.mark.parametrize("text, message", [
    (HEADER + 'A,pong,0,"35,000",3\n', "line 2, column 'frames': '35,000' has thousands separators: write 35000"),
    (HEADER + "A,pong,0,35,000,3\n", "line 2: 6 cells under a header of 5 columns"),
    (HEADER + "A,pong,0,10M,3\n", "line 2, column 'frames': '10M' uses a thousands suffix: write the full number, "
                                  "10000000"),
    (HEADER + "A,pong,0,1.5,3\n", "line 2, column 'frames': '1.5' is not a whole number of frames"),
    (HEADER + "A,pong,0,-5,3\n", "line 2, column 'frames': '-5' is not a number of frames"),
    (HEADER + "A,pong,0,100,3\nA,pong,0,200,4\n", "line 3, column 'frames': the largest point, 200 frames, is "
                                                  "below every published training budget"),
    ("agent,game,seed,timestep,score\nA,pong,0,1000000,3\n", "line 1, column 'timestep': the name does not say "
                                                             "whether it counts emulator frames or agent steps"),
    ("agent,game,seed,steps,score\nA,pong,0,1000000,3\n", "line 1, column 'steps': agent steps are read only with "
                                                          "the frame skip"),
    ("agent,game,seed,frames,steps,score\nA,pong,0,4,1,3\n", "line 1: columns 'frames', 'steps' both say when"),
    (HEADER + grid() + "A,pong,0,5000000,4\n", "line 6, column 'frames': agent 'A', game breakout, seed '0' has no "
                                               "score at 1 of the agent's 3 frames points (5000000); other runs have "
                                               "them"),
    (HEADER + grid() + "A,pong,1,2000000,9\n", "line 10: agent 'A', game pong, seed '1' at 2000000 frames "
                                               "already given on line 5"),
    (HEADER + grid() + grid(games=("pong",)).replace("A,", "B,"), "agent 'B' has no runs of breakout"),
])
def test_bad_curve_files_say_where_and_how_to_fix(tmp_path, capsys, text, message):
    path = tmp_path / "runs.csv"
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, path)
    assert code == 1 and out == ""
    assert err.startswith(f"error: {path}") and message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_frame_skip_without_steps_is_refused(capsys):
    code, _, err = run(capsys, FIXTURE, "--frame-skip", "4")
    assert code == 1 and "frames already count the skipped frames" in err


def test_figure_format_follows_the_name(tmp_path, capsys):
    code, _, err = run(capsys, FIXTURE, "--figure", tmp_path / "curves.pdf")
    assert code == 1 and "name a .png or .svg file" in err and not (tmp_path / "curves.pdf").exists()
