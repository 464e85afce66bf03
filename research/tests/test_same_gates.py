"""The same gates from Python and from the command line (issue: a new user's notebook and shell).

Written from the user's side: ``atari5_spec_research.aggregate`` and ``atari5-spec aggregate`` on the same data.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import atari5_spec
import atari5_spec_research
from atari5_spec.cli.main import main

# SLM-Lab-like table: two benchmark games and two outside the 57, three seeds
ROWS = [(agent, game, seed, base + 10 * seed + (100 if agent == "B" else 0))
        for agent in ("A", "B") for game, base in (("Pong", 1), ("Breakout", 30), ("Adventure", 0), ("Air Raid", 500))
        for seed in range(3)]


@pytest.fixture
def runs_file(tmp_path):
    path = tmp_path / "runs.csv"
    pd.DataFrame(ROWS, columns=["agent", "game", "seed", "score"]).to_csv(path, index=False)
    return path


def test_aggregate_from_python_leaves_games_outside_the_57_out_with_the_commands_note(runs_file, capsys, tmp_path):
    frame = pd.read_csv(runs_file)
    result = atari5_spec_research.aggregate(frame, n_resamples=50)          # was: KeyError: 'adventure'
    assert result.games == ["breakout", "pong"]
    assert result.notes == ("ignored, outside the 57 games of the benchmark (no random and human scores): "
                            "adventure, air_raid",)
    from_file = atari5_spec_research.aggregate(runs_file, n_resamples=50)    # the command's file, from Python
    assert from_file.notes == result.notes
    pd.testing.assert_frame_equal(from_file.to_frame(), result.to_frame())
    assert main(["aggregate", str(runs_file), "--resamples", "50", "--json"]) == 0
    captured = capsys.readouterr()
    assert f"note: {result.notes[0]}" in captured.err
    printed = json.loads(captured.out)
    assert printed["notes"] == list(result.notes)
    assert printed["agents"]["A"]["iqm"]["estimate"] == pytest.approx(result.to_frame().loc["A", ("iqm", "estimate")])


def test_aggregate_from_python_refuses_what_the_command_refuses(runs_file):
    with pytest.raises(atari5_spec.InputError, match="resamples"):
        atari5_spec_research.aggregate(runs_file, n_resamples=0)
    with pytest.raises(atari5_spec.InputError, match="between 0 and 1"):
        atari5_spec_research.aggregate(runs_file, confidence=95)
    with pytest.raises(atari5_spec.InputError, match="no such file"):
        atari5_spec_research.aggregate(runs_file.with_name("missing.csv"))


def test_one_run_per_game_gets_a_note_on_its_zero_width_intervals(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text("agent,game,seed,score\nA,Pong,0,1\nA,Breakout,0,30\nB,Pong,0,5\nB,Breakout,0,40\n",
                    encoding="utf-8")
    result = atari5_spec_research.aggregate(path, n_resamples=50)
    frame = result.to_frame()
    assert (frame[("iqm", "low")] == frame[("iqm", "high")]).all()   # degenerate, as the issue saw
    assert any("one run per game" in n and "zero width" in n for n in result.notes)
    assert main(["aggregate", str(path), "--resamples", "50"]) == 0
    assert "note: A, B: one run per game" in capsys.readouterr().err
    three = atari5_spec_research.aggregate(pd.DataFrame(ROWS, columns=["agent", "game", "seed", "score"]), n_resamples=50)
    assert not any("zero width" in n for n in three.notes)


def test_figure_path_is_checked_before_any_work_and_named(runs_file, tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    package = tmp_path / "clone"
    package.mkdir()
    (package / "datapackage.json").write_text("{}", encoding="utf-8")
    monkeypatch.chdir(package)
    calls = []
    import atari5_spec_research.analyses.agent_runs as agent_runs

    monkeypatch.setattr(agent_runs, "aggregate_runs", lambda *a, **k: calls.append(1))
    assert main(["aggregate", str(runs_file), "--figure", "out.png"]) == 1
    captured = capsys.readouterr()
    assert "--figure out.png" in captured.err and "inside the data package" in captured.err
    assert captured.out == "" and calls == []          # nothing computed, nothing printed


def test_score_predict_leaderboard_take_the_commands_scores_file(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("game,score,seed\nALE/BattleZone-v5,35000,0\nALE/BattleZone-v5,30000,1\nDouble Dunk,-1.5,0\n"
                    "Double Dunk,0,1\nname_this_game,12000,0\nname_this_game,11000,1\nPhoenix,9000,0\nPhoenix,8000,1\n"
                    "Q*bert,15000,0\nQ*bert,14000,1\n", encoding="utf-8")
    from_python = atari5_spec.score(path)                 # a Path, or str(path): the command's file
    assert atari5_spec.score(str(path)) == from_python
    assert main(["score", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["estimate"] == pytest.approx(from_python.estimate)
    assert tuple(printed["prediction_interval"][k] for k in ("low", "high")) == pytest.approx(
        tuple(from_python.prediction_interval))
    assert atari5_spec.predict(path).subset == "Atari-5"
    assert atari5_spec.leaderboard(path).user_estimate == pytest.approx(from_python.estimate)
    with pytest.raises(atari5_spec.InputError, match="no such file"):
        atari5_spec.score(tmp_path / "missing.csv")
