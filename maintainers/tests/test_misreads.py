"""No silent misreads: rows with more cells than the header, non-finite or non-integer seeds and returns,
oversized inputs and control characters in names are errors naming the line (or escaped when printed)."""

import pytest

from atari5_spec_research.analyses.run_aggregates import aggregate_runs, format_run_aggregates
from atari5_spec_research.analyses.runs_input import normalised_runs, runs_from_text
from atari5_spec.cli import main
from atari5_spec_maintainers.contributions.curves import read_curves
from atari5_spec.data.errors import InputError
from atari5_spec.data.limits import escaped

HEADER = "agent,game,seed,score\n"


@pytest.mark.parametrize("text, message", [
    (HEADER + "A,pong,0,1,234\n", "line 2, column 'score': 5 cells under a header of 4 columns: '1,234' has a "
                                 "thousands separator ',' that splits it into 2 cells: write 1234"),
    (HEADER + "A,pong,0,1,2,3\n", "line 2: 6 cells under a header of 4 columns: quote values"),
    (HEADER + "A,pong,0\n", "line 2: 3 cells under a header of 4 columns: fill the missing cells"),
    (HEADER + "A,pong,1.7,3\n", "line 2, column 'seed': '1.7' is not a run id"),
    (HEADER + "A,pong,nan,3\n", "line 2, column 'seed': 'nan' is not a run id"),
    (HEADER + "A,pong,0,nan\n", "line 2, column 'score': 'nan' is not a finite score"),
    (HEADER + "A,pong,0,1e400\n", "line 2, column 'score'"),
    (HEADER + 'A,pong,0,"' + "9" * 140_000 + '"\n', "line 2: 140,011 characters, more than the limit of 65,536 for a line"),
])
def test_hostile_runs_are_errors_naming_the_line(dataset, text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        runs_from_text(text, "runs.csv", dataset.games)


def test_too_many_runs_of_a_game_are_refused(dataset, monkeypatch):
    import atari5_spec_research.analyses.runs_input as runs_input

    monkeypatch.setattr(runs_input, "MAX_RUNS_PER_GAME", 3)
    text = HEADER + "".join(f"A,pong,{s},1\n" for s in range(4))
    with pytest.raises(InputError, match="line 5: more than 3 runs of pong"):
        runs_from_text(text, "runs.csv", dataset.games)


def test_too_many_agents_are_refused(dataset, monkeypatch):
    import atari5_spec_research.analyses.runs_input as runs_input

    monkeypatch.setattr(runs_input, "MAX_AGENTS", 2)
    with pytest.raises(InputError, match="line 4, column 'agent': more than 2 agents"):
        runs_from_text(HEADER + "A,pong,0,1\nB,pong,0,1\nC,pong,0,1\n", "runs.csv", dataset.games)


def test_the_agent_limit_refuses_a_small_file_of_many_agents_before_any_work(tmp_path, capsys):
    # issue 47: 35 KB with 500 agents took aggregate 48 CPU-s and 1.08 GB; the limit is 50 (1,225 pairs)
    import time

    runs = tmp_path / "runs.csv"
    runs.write_text(HEADER + "".join(f"a{i},pong,0,{i}\n" for i in range(500)))
    started = time.process_time()
    assert main(["aggregate", str(runs)]) == 1
    assert "line 52, column 'agent': more than 50 agents" in capsys.readouterr().err
    assert time.process_time() - started < 5


def test_a_gzip_that_unpacks_far_beyond_its_size_is_refused_early(tmp_path):
    # issue 47: a 49 KB gzip unpacking to 512 MB made `contribute curves` peak at 1.26 GB; now it may unpack to at
    # most 50 times its size (+1 MiB)
    import gzip
    import tracemalloc

    from atari5_spec_maintainers.contributions.curves import MAX_UNPACK_RATIO, read_curves

    bomb = tmp_path / "curves.json.gz"
    bomb.write_bytes(gzip.compress(b"[" + b" " * (200 << 20) + b"]", 9))
    assert bomb.stat().st_size < 400_000
    tracemalloc.start()
    with pytest.raises(InputError, match=f"unpacks to more than .* \\({MAX_UNPACK_RATIO} times its size"):
        read_curves(bomb)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 << 20, peak


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
        read_curves(path)


# --- the one input gate (issue 32): no value is read in a second way ------------------------------------------

FIVE = "battle_zone,35000\ndouble_dunk,-1.5\nname_this_game,12000\nphoenix,9000\nqbert,15000\n"


@pytest.mark.parametrize("body, fragments", [
    ("game,score\nbattle_zone,35,000\n" + FIVE.split("\n", 1)[1],
     ["comma.csv, line 2, column 'score'", "3 cells under a header of 2 columns", "'35,000' has a thousands "
      "separator", "write 35000"]),
    ('game,score\nbattle_zone,"35,000"\n' + FIVE.split("\n", 1)[1],
     ["comma.csv, line 2, column 'score'", "'35,000' has thousands separators: write 35000"]),
    ("game,score\nbattle_zone,35k\n" + FIVE.split("\n", 1)[1],
     ["comma.csv, line 2, column 'score'", "'35k' uses a thousands suffix: write the full number, 35000"]),
    ("game,score\nbattle_zone,1,2,3\n", ["comma.csv, line 2: 4 cells under a header of 2 columns: quote values"]),
    ("game;score\nbattle_zone;35000\n", ["comma.csv, line 1: the columns are separated by semicolons, not commas",
                                          "save the file as comma-separated values"]),
    ("game\tscore\nbattle_zone\t35000\n", ["comma.csv, line 1: the columns are separated by tabs"]),
])
def test_score_refuses_a_table_it_could_misread(run, tmp_path, body, fragments):
    path = tmp_path / "comma.csv"
    path.write_text(body)
    status, out, err = run("score", str(path))
    assert status == 1 and out == "" and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_the_same_row_quoted_correctly_gives_the_readme_score(run, tmp_path):
    """The refusal above is about the comma, not the number: written plainly, 35000 scores 116.9."""
    path = tmp_path / "plain.csv"
    path.write_text("game,score\n" + FIVE)
    status, out, _ = run("score", str(path))
    assert status == 0 and "116.9" in out.splitlines()[0]


@pytest.mark.parametrize("argument, fragments", [
    ("qbert=15,000", ["--score 'qbert=15,000': '15,000' reads as one number with thousands separators or as 2 "
                      "seeds", "write 15000 for one score", "or 'qbert=15, 000' (a space after each comma) for seeds"]),
    ("qbert=1,234,567", ["as 3 seeds", "write 1234567"]),
    ("qbert=12k", ["--score 'qbert=12k': '12k' uses a thousands suffix: write the full number, 12000"]),
    ("qbert=1.5M", ["write the full number, 1500000"]),
])
def test_score_arguments_that_look_like_one_number_are_refused(run, argument, fragments):
    status, out, err = run("score", "--score", argument)
    assert status == 1 and out == "" and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_seeds_written_with_a_space_after_the_comma_are_seeds():
    from atari5_spec.scoring.input import observations_from_arguments

    observations = observations_from_arguments(["qbert=15, 0", "pong=1,2,3"])
    assert [(o.game, o.score, o.seed) for o in observations] == [
        ("qbert", "15", "0"), ("qbert", "0", "1"), ("pong", "1", "0"), ("pong", "2", "1"), ("pong", "3", "2")]


@pytest.mark.parametrize("value, fragment", [
    ("200", "--frames: budget '200': 200 frames is below every published training budget (the smallest, Atari "
            "100k, is 400,000 frames): write the unit, e.g. 200M"),
    ("100000", "100,000 frames is below every published training budget"),
    ("399_999", "399,999 frames is below"),
])
def test_a_budget_without_a_unit_below_any_real_budget_is_refused(run, value, fragment):
    for command in (["score", *[f"--score={a}" for a in FIVE.replace(",", "=").split()], "--frames", value],
                    ["leaderboard", "--only-frames", value]):
        status, out, err = run(*command)
        assert status == 1 and out == "" and fragment in err, (command, err)


@pytest.mark.parametrize("value, frames", [("200M", 200_000_000), ("400000", 400_000), ("200e6", 200_000_000),
                                           ("100k", 100_000), ("4e5", 400_000)])
def test_budgets_with_a_unit_or_at_a_real_size_are_read(value, frames):
    from atari5_spec.data.frames import parse_training_budget

    assert parse_training_budget(value) == frames


def test_aggregate_refuses_the_same_inputs_through_the_same_gate(run, tmp_path):
    runs = tmp_path / "runs.csv"
    for body, fragment in (("agent,game,seed,score\nA,pong,0,\"1,234\"\n", "line 2, column 'score': '1,234' has "
                                                                          "thousands separators: write 1234"),
                           ("agent;game;seed;score\nA;pong;0;1\n", "line 1: the columns are separated by semicolons"),
                           ("agent,game,seed,score\nA,pong,0,12k\n", "'12k' uses a thousands suffix")):
        runs.write_text(body)
        status, out, err = run("aggregate", str(runs))
        assert status == 1 and fragment in err, err


def test_one_gate_one_message_for_score_aggregate_and_contribute(dataset):
    """The same bad cell gets the same words from all three readers (they share data.input_gate)."""
    from atari5_spec_maintainers.contributions.scores_table import score_text_problem
    from atari5_spec.scoring.input import group_runs, observations_from_csv
    from atari5_spec.data.ids import game_aliases

    for cell in ('"35,000"', "12k", '"1,5"', "nan", "\uff11\uff12", "\u22121", "twelve"):
        text = cell.strip('"')
        with pytest.raises(InputError) as scored:
            group_runs(observations_from_csv(f"game,score\npong,{cell}\n", "s.csv"), game_aliases(dataset.games))
        with pytest.raises(InputError) as aggregated:
            runs_from_text(f"agent,game,seed,score\nA,pong,0,{cell}\n", "r.csv", dataset.games)
        message, fix = score_text_problem(text)
        assert str(scored.value) == f"s.csv, line 2, column 'score': {message}: {fix}"
        assert str(aggregated.value) == f"r.csv, line 2, column 'score': {message}: {fix}"


def test_contribute_refuses_a_training_budget_below_any_real_one(dataset, tmp_path):
    import yaml

    from atari5_spec_maintainers.contributions.reading import read_submission
    from conftest import filled_in_template

    folder = tmp_path / "small-budget-agent"
    folder.mkdir()
    meta = filled_in_template()
    meta["protocol"]["training_frames"] = 200
    (folder / "metadata.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    (folder / "scores.csv").write_text("game,score\n" + FIVE)
    submission, problems = read_submission(folder, dataset, check_ids=False)
    assert submission is None
    found = [p for p in problems if p.column == "protocol.training_frames"]
    assert found and "200 frames is below every published training budget" in found[0].message
    assert "400000" in found[0].fix


def test_gate_patterns_are_linear_on_long_hostile_input():
    """Length and character checks come before every pattern: a 100,000-character cell is answered at once."""
    import time

    from atari5_spec.data.input_gate import number_problem, split_score_argument

    for hostile in ("1," * 50_000, "1,000" * 20_000 + "x", "9" * 100_000 + "k"):
        start = time.perf_counter()
        assert number_problem(hostile) is not None
        try:
            split_score_argument("pong=" + hostile)
        except InputError:
            pass
        assert time.perf_counter() - start < 0.5
