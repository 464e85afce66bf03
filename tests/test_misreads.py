"""No silent misreads: rows with more cells than the header, non-finite or non-integer seeds and returns,
oversized inputs and control characters in names are errors naming the line (or escaped when printed)."""

import pytest

from atari5_spec.analyses.run_aggregates import aggregate_runs, format_run_aggregates
from atari5_spec.analyses.runs_input import normalised_runs, runs_from_text
from atari5_spec.cli import main
from atari5_spec.contributions.curves import read_runs
from atari5_spec.data.errors import InputError
from atari5_spec.data.limits import escaped

HEADER = "agent,game,seed,score\n"


@pytest.mark.parametrize("text, message", [
    (HEADER + "A,pong,0,1,234\n", "line 2: 5 cells under a header of 4 columns; quote values"),
    (HEADER + "A,pong,0\n", "line 2: 3 cells under a header of 4 columns; fill the missing cells"),
    (HEADER + "A,pong,1.7,3\n", "line 2, column 'seed': '1.7' is not a run id"),
    (HEADER + "A,pong,nan,3\n", "line 2, column 'seed': 'nan' is not a run id"),
    (HEADER + "A,pong,0,nan\n", "line 2, column 'score': 'nan' is not a finite score"),
    (HEADER + "A,pong,0,1e400\n", "line 2, column 'score'"),
    (HEADER + 'A,pong,0,"' + "9" * 140_000 + '"\n', "line 2: field larger than field limit"),
])
def test_hostile_runs_are_errors_naming_the_line(dataset, text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        runs_from_text(text, "runs.csv", dataset.games)


def test_too_many_runs_of_a_game_are_refused(dataset, monkeypatch):
    import atari5_spec.analyses.runs_input as runs_input

    monkeypatch.setattr(runs_input, "MAX_RUNS_PER_GAME", 3)
    text = HEADER + "".join(f"A,pong,{s},1\n" for s in range(4))
    with pytest.raises(InputError, match="line 5: more than 3 runs of pong"):
        runs_from_text(text, "runs.csv", dataset.games)


def test_too_many_agents_are_refused(dataset, monkeypatch):
    import atari5_spec.analyses.runs_input as runs_input

    monkeypatch.setattr(runs_input, "MAX_AGENTS", 2)
    with pytest.raises(InputError, match="line 4, column 'agent': more than 2 agents"):
        runs_from_text(HEADER + "A,pong,0,1\nB,pong,0,1\nC,pong,0,1\n", "runs.csv", dataset.games)


def test_too_many_resamples_are_refused(tmp_path, capsys):
    runs = tmp_path / "runs.csv"
    runs.write_text(HEADER + "A,pong,0,1\n")
    assert main(["aggregate", str(runs), "--resamples", "100000000"]) == 1
    assert "from 1 to 100,000" in capsys.readouterr().err


def test_names_are_printed_with_control_characters_escaped(dataset):
    hostile = "evil\x1b[2J\x07\u202eagent"
    runs = runs_from_text(HEADER + f"{hostile},pong,0,1\n{hostile},pong,1,3\nB,pong,0,2\nB,pong,1,2\n",
                          "runs.csv", dataset.games)
    agg = normalised_runs(runs, dataset.games)
    text = format_run_aggregates(aggregate_runs(agg.scores, agg.games, n_resamples=20))
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert escaped(hostile) == "evil\\x1b[2J\\x07\\u202eagent" and escaped(hostile) in text
    assert escaped("a\x00b") == "a\\x00b"


def test_a_nul_in_a_runs_file_is_refused_on_every_python(dataset):
    with pytest.raises(InputError, match=r"runs.csv, line 3: a NUL character \(U\+0000\)"):
        runs_from_text(HEADER + "A,pong,0,1\nev\x00il,pong,1,3\n", "runs.csv", dataset.games)


@pytest.mark.parametrize("text, message", [
    ("game,seed,frames,return\nPong,0,1,234,5\n", "line 2: 5 cells under a header of 4 columns"),
    ("game,seed,frames,return\nPo\x00ng,0,1,2\n", r"line 2: a NUL character \(U\+0000\)"),
    ("game,seed,frames,return\nPong,0,100,nan\n", "line 2, column 'return': 'nan' is not a number"),
    ("game,seed,frames,return\nPong,0,nan,3\n", "line 2, column 'frames': 'nan' is not a number"),
    ("game,seed,frames,return\nPong,1.7,100,3\n", "line 2, column 'seed': '1.7' is not a whole number"),
    ("game,seed,frames,return\nPong,0,100,1e400\n", "line 2, column 'return'"),
    ("game,seed,frames,return\nPong,0,100\n", "line 2: 3 cells under a header of 4 columns"),
    ('[{"task": "pong", "seed": 1.7, "xs": [1], "ys": [2]}]', "seed 1.7 is not a whole number"),
    ('[{"task": "pong", "seed": "3", "xs": [1], "ys": [2]}]', "seed '3' is not a whole number"),
    ('[{"task": "pong", "seed": null, "xs": [1], "ys": [2]}]', "seed None is not a whole number"),
    ('[{"task": "pong", "seed": [1], "xs": [1], "ys": [2]}]', "seed \\[1\\] is not a whole number"),
    ('[{"task": "pong", "seed": 1, "xs": [NaN], "ys": [2]}]', "xs must be increasing finite numbers"),
    ('[{"task": "pong", "seed": 1, "xs": [1], "ys": [NaN]}]', "NaN is not a return"),
    ('[{"task": "pong", "seed": 1, "xs": [1, 2], "ys": [1e308, 1e308]}]', "ys must be finite numbers"),
])
def test_hostile_curves_are_errors(tmp_path, text, message):
    path = tmp_path / "curves.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_runs(path)
