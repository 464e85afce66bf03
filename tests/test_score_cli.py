"""``atari5-spec score``, ``predict`` and ``leaderboard`` on the command line: inputs, errors, output shapes."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from scoring_support import dataset_subset_scores, write_csv

from atari5_spec.cli import main
from atari5_spec.data.published import matches_printed, published_rows
from atari5_spec.method.pinned import load_coefficient_set


@pytest.fixture(scope="session")
def atari5_games():
    return load_coefficient_set().subsets["Atari-5"].games


@pytest.fixture(scope="session")
def table3():
    return published_rows("table03_atari5_scores")


@pytest.fixture()
def table3_csv(tmp_path, dataset, table3, atari5_games):
    """A scores CSV per Table 3 algorithm, written with Gymnasium v4 ids."""
    def write(index):
        raw = dataset_subset_scores(dataset, table3[index]["algorithm_id"], atari5_games)
        lines = [f"{g.title().replace('_', '')}NoFrameskip-v4,{v!r}" for g, v in raw.items()]
        return write_csv(tmp_path / f"{table3[index]['algorithm_id']}.csv", "game,score", lines)
    return write


def test_score_from_csv_prints_estimate_signature_and_hint(run, table3_csv, table3):
    status, out, err = run("score", str(table3_csv(0)))
    assert status == 0, err
    first = out.splitlines()[0]
    assert first.startswith("Atari-5 score: ")
    assert matches_printed(float(first.split()[2].replace(",", "")), table3[0]["atari5"], truncate=True)
    assert "Paste this line in your paper" in out
    assert "Atari-5|coef:" in out
    assert "never with 57-game medians" in run("score", str(table3_csv(0)), "--explain")[1]


def test_score_from_arguments_in_paper_spellings(run, dataset, table3, atari5_games):
    raw = dataset_subset_scores(dataset, table3[1]["algorithm_id"], atari5_games)
    from atari5_spec.scoring.estimate import games_table

    names = {row["game_id"]: row["name"] for row in games_table()}
    arguments = [a for g, v in raw.items() for a in ("--score", f"{names[g]}={v!r}")]
    status, out, _ = run("score", "--json", *arguments)
    assert status == 0
    assert matches_printed(json.loads(out)["estimate"], table3[1]["atari5"], truncate=True)


def test_json_shape(run, table3_csv):
    status, out, _ = run("score", str(table3_csv(2)), "--json")
    assert status == 0
    data = json.loads(out)
    assert data["subset"] == "Atari-5"
    assert isinstance(data["estimate"], float) and data["signature"].startswith("Atari-5|")
    assert data["interval"] is None and data["bootstrap"] is None
    assert [s["subset"] for s in data["other_subsets"]] == ["Atari-1", "Atari-3"]
    for subset in data["other_subsets"]:
        assert set(subset) >= {"subset", "estimate", "signature", "games"}
    assert {entry["subset"] for entry in data["not_computable"]} == {"Atari-10", "Atari-3-Val", "Atari-5-Val"}
    assert len(data["games"]) == 5 and all(g["n_seeds"] == 1 for g in data["games"])


def test_seeds_from_stdin_give_a_reproducible_interval(atari5_games, monkeypatch, capsys):
    lines = ["game,score,seed"] + [f"{g},{(1000 * (i + 1) + 37 * s) / (100 if g == 'double_dunk' else 1)},{s}"
                                   for i, g in enumerate(atari5_games) for s in range(4)]
    outputs = []
    for _ in range(2):
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
        assert main(["score", "-", "--json", "--bootstrap", "500", "--seed", "3"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0]["interval"] == outputs[1]["interval"] is not None
    assert outputs[0]["bootstrap"]["n_resamples"] == 500 and outputs[0]["bootstrap"]["seed"] == 3
    assert "boot:500,seed=3,ci=95" in outputs[0]["signature"]


def test_json_file_forms(run, tmp_path, dataset, table3, atari5_games):
    raw = dataset_subset_scores(dataset, table3[0]["algorithm_id"], atari5_games)
    mapping = tmp_path / "mapping.json"
    mapping.write_text(json.dumps({f"ALE/{g.title().replace('_', '')}-v5": v for g, v in raw.items()}))
    records = tmp_path / "records.json"
    records.write_text(json.dumps([{"game": g, "score": v} for g, v in raw.items()]))
    estimates = [json.loads(run("score", str(path), "--json")[1])["estimate"] for path in (mapping, records)]
    assert estimates[0] == estimates[1]
    assert matches_printed(estimates[0], table3[0]["atari5"], truncate=True)


def test_relative_to_a_baseline(run, table3_csv):
    agent, baseline = table3_csv(3), table3_csv(4)
    status, out, _ = run("score", str(agent), "--relative-to", str(baseline), "--json")
    assert status == 0
    data = json.loads(out)
    assert data["relative"]["ratio"] == pytest.approx(data["estimate"] / data["relative"]["baseline_estimate"])
    status, text, _ = run("score", str(agent), "--relative-to", str(baseline))
    assert text.startswith(f"ratio to {baseline}: {data['relative']['ratio']:.3f}")
    status, text, _ = run("score", str(agent), "--relative-to", str(baseline), "--explain")
    assert "Relative to the baseline" in text and f"{data['relative']['ratio']:.3f}" in text


def test_missing_games_report_what_is_needed(run, tmp_path, atari5_games):
    partial = write_csv(tmp_path / "partial.csv", "game,score", [f"{g},{5 if g == 'double_dunk' else 5000}"
                                                                      for g in atari5_games[:3]])
    status, out, err = run("score", str(partial))
    assert status == 1
    assert out.startswith("Atari-5 score: not computable: needs " + ", ".join(atari5_games[3:]) + " (not given)")
    status, out, err = run("score", str(partial), "--explain")
    assert "Atari-5 score: not computable, missing " + ", ".join(atari5_games[3:]) in out
    assert "Not computable" in out and "Atari-10" in out
    assert "error: Atari-5 needs" in err


# --- bad input: exit 1, the place named, no traceback ------------------------------------------------------------

@pytest.mark.parametrize("body, message", [
    ("game,score\nbattle_zone,30000\nbatle_zone,1\n", r"bad\.csv, line 3: unknown game 'batle_zone'; did you mean battle_zone"),
    ("game,score\nbattle_zone,30000\nqbert,twelve\n", r"bad\.csv, line 3, column 'score': 'twelve' is not a number"),
    ("game,score\nbattle_zone,30000\n\nqbert,nan\n", r"bad\.csv, line 4, column 'score': 'nan' is not a finite score"),
    ("game,score\nbattle_zone,-inf\n", r"bad\.csv, line 2, column 'score': '-inf' is not a finite score"),
    ("game,score\nqbert,1\nQ*bert,2\n", r"bad\.csv, line 3: qbert is given again \(first at bad\.csv, line 2\)"),
    ("game,score,seed\nqbert,1,0\nqbert,2,0\n", r"bad\.csv, line 3: qbert seed 0 is given again"),
    ("name,value\nqbert,1\n", r"bad\.csv, line 1: no 'game' column"),
])
def test_bad_csv(body, message, run, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(body)
    status, out, err = run("score", str(path))
    assert status == 1
    assert err.startswith("error: ")
    assert __import__("re").search(message, err), err
    assert "Traceback" not in err


@pytest.mark.parametrize("body, message", [
    ('{\n  "qbert": 1000,\n  "phoenix": NaN\n}\n', r"bad\.json, line 3 \('phoenix'\): nan is not a finite score"),
    ('[\n  {"game": "qbert", "score": 1},\n  {"game": "qbert", "score": 2}\n]\n', r"bad\.json, line 3 \(record 2\): qbert is given again"),
    ('{"qbert": 1, "qbert": 2}', r"appears twice"),
    ('{"qbert": 1,,}', r"bad\.json, line 1: not valid JSON"),
])
def test_bad_json(body, message, run, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(body)
    status, _, err = run("score", str(path))
    assert status == 1
    assert __import__("re").search(message, err), err


def test_bad_arguments(run, tmp_path):
    assert run("score", "--score", "qbert")[0] == 1
    assert run("score", "--score", "qbert=1", "--score", "qbert=2")[0] == 1
    assert run("score", str(tmp_path / "absent.csv"))[0] == 1
    status, _, err = run("score")
    assert status == 1 and "no scores" in err
    status, _, err = run("score", "--score", "qbert=1", "--subset", "Atari-99")
    assert status == 1 and "unknown subset" in err


def test_unknown_coefficient_version(capsys):
    assert main(["score", "--score", "qbert=1", "--coefficients", "no-such-version"]) == 1
    assert "no coefficient version 'no-such-version'" in capsys.readouterr().err


def test_implausible_score_is_refused_with_the_place_or_scored_knowingly(run, dataset, table3_csv, tmp_path):
    path = table3_csv(0)
    best = dataset.scores.groupby("game_id")["score"].max()
    text = path.read_text().replace("QbertNoFrameskip-v4,", f"QbertNoFrameskip-v4,{float(best['qbert']) * 100!r}#")
    fixed = tmp_path / "high.csv"
    fixed.write_text("\n".join(line.split("#")[0] for line in text.splitlines()) + "\n")
    status, out, err = run("score", str(fixed))
    assert status == 1 and "high.csv, line" in err and "--allow-implausible" in err and out == ""
    status, out, err = run("score", str(fixed), "--allow-implausible")
    assert status == 0, err
    assert "scored past the gate" in err and "Atari-5 score:" in out and "gate:implausible-allowed" in out


def test_real_process_exit_status_and_no_traceback(tmp_path):
    path = write_csv(tmp_path / "bad.csv", "game,score", ["qbert,oops"])
    command = [sys.executable, "-m", "atari5_spec.cli", "score", str(path)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 1
    assert "bad.csv, line 2" in done.stderr and "Traceback" not in done.stderr


def test_score_refuses_an_edited_pinned_interval_table_naming_the_hash_mismatch(package_copy, atari5_games,
                                                                                 monkeypatch, capsys):
    """A hand-edited interval table is refused with its file, both hashes and the fix (the one hash check,
    atari5_spec.data.registry.hash_mismatch, that verify reports too), never scored as 'no calibration'."""
    from conftest import tamper_interval_table

    from atari5_spec.data.registry import hash_mismatch

    relative, recorded, found = tamper_interval_table(package_copy)
    message = hash_mismatch(relative, recorded, (package_copy / relative).read_bytes())
    # the template, checked once: the file, expected and found hashes, how to fix it
    assert message.startswith(relative) and f"expected {recorded}, found {found}" in message
    assert f"git checkout -- {relative}" in message
    monkeypatch.chdir(package_copy)
    plausible = {"battle_zone": 30000, "double_dunk": -2, "name_this_game": 10000, "phoenix": 8000, "qbert": 15000}
    scores = [f"--score={game}={plausible[game]}" for game in atari5_games]
    assert main(["score", *scores]) == 1
    assert capsys.readouterr() == ("", f"error: {message}\n")
    assert main(["score", *scores, "--relative-to", "dqn"]) == 1  # the ratio reads the same table
    assert capsys.readouterr() == ("", f"error: {message}\n")


# --- predict, leaderboard ----------------------------------------------------------------------------------------

def test_predict_runs(run, table3_csv):
    status, out, _ = run("predict", str(table3_csv(0)))
    assert status == 0
    assert "Zaxxon" in out and "R^2" in out and "signature: Atari-5 per-game|" in out
    status, out, _ = run("predict", str(table3_csv(0)), "--json")
    data = json.loads(out)
    assert len(data["predictions"]) == 57


def test_predict_atari10_needs_its_games(run, table3_csv):
    status, _, err = run("predict", str(table3_csv(0)), "--subset", "Atari-10")
    assert status == 1 and "Atari-10 predictions need" in err


@pytest.mark.slow
def test_leaderboard_runs_and_ranks_the_user(run, table3_csv, table3):
    status, out, _ = run("leaderboard")
    assert status == 0
    assert table3[0]["algorithm"] in out and "never with 57-game medians" in out
    status, out, _ = run("leaderboard", str(table3_csv(3)), "--json")
    data = json.loads(out)
    assert data["user"]["rank"] >= 1
    assert any(r["algorithm_id"] == table3[3]["algorithm_id"] for r in data["rows"])
