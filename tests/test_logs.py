"""Issue 45 (items 2, 3): `score PATH` reads the play file and the logs researchers have.

Every fixture is written here by hand (the TensorBoard run with TensorBoard's own event writer), and every
score is checked against the same per-seed means typed by hand through `--score`: a reader that averaged the
wrong episodes, lost a seed or took the wrong game gives another estimate or another seed count.
"""

import json
import math
import random
import sys

import pytest

import atari5_spec
from atari5_spec.cli.main import main
from atari5_spec.data.errors import InputError
from atari5_spec.scoring.logs import TRAINING_WINDOW, detect_format, read_log
from atari5_spec.scoring.signature import parse_signature

GAMES = ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")
ENV_IDS = {"battle_zone": "BattleZone", "double_dunk": "DoubleDunk", "name_this_game": "NameThisGame",
           "phoenix": "Phoenix", "qbert": "Qbert"}
EPISODE_COLUMNS = ("game,seed,episode,score,frames,truncated,protocol,policy,ale_py_version,gymnasium_version,"
                   "rom_sha256")
ROM = "0" * 64


def _returns(game: str, seed: int, count: int) -> list[float]:
    """Plausible raw returns of one run: Battle Zone in thousands (as the ALE counts it), Double Dunk small."""
    stream = random.Random(f"{game}-{seed}")
    if game == "battle_zone":
        return [1000.0 * stream.randint(5, 40) for _ in range(count)]
    if game == "double_dunk":
        return [float(stream.randint(-10, 6)) for _ in range(count)]
    scale = {"name_this_game": 9000, "phoenix": 5000, "qbert": 9000}[game]
    return [float(stream.randint(scale // 2, scale * 2)) for _ in range(count)]


def _typed(capsys, means: dict[str, list[float]]) -> dict:
    """`score --score GAME=v1, v2 ... --format json` with the per-seed means typed by hand."""
    arguments = ["score", "--format", "json"]
    for game, values in means.items():
        arguments += ["--score", f"{game}=" + ", ".join(repr(v) for v in values)]
    assert main(arguments) == 0
    return json.loads(capsys.readouterr().out)


def _read(capsys, path, *options) -> dict:
    assert main(["score", str(path), "--format", "json", *options]) == 0
    return json.loads(capsys.readouterr().out)


def _same_numbers(from_file: dict, typed: dict) -> None:
    assert from_file["estimate"] == typed["estimate"]
    assert from_file["seed_interval"] == typed["seed_interval"]
    assert from_file["prediction_interval"] == typed["prediction_interval"]
    assert [(g["game_id"], g["raw_mean"], g["n_seeds"]) for g in from_file["games"]] == \
        [(g["game_id"], g["raw_mean"], g["n_seeds"]) for g in typed["games"]]


def _mean(values) -> float:
    return math.fsum(values) / len(values)


# --- the episode table `play` writes ------------------------------------------------------------------------------

def _episode_table(path, episodes=3, protocol="machado-2018", order=None):
    rows = []
    for game in GAMES:
        for seed in (0, 1):
            for episode, value in enumerate(_returns(game, seed, episodes)):
                rows.append(f"{game},{seed},{episode},{value:g},2000,false,{protocol},random,0.12.1,1.4.0,{ROM},x")
    (order or (lambda r: r))(rows)
    path.write_text(EPISODE_COLUMNS + ",note\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return {game: [_mean(_returns(game, seed, episodes)) for seed in (0, 1)] for game in GAMES}


def test_the_episode_table_scores_as_its_per_seed_means_typed_by_hand(tmp_path, capsys):
    means = _episode_table(tmp_path / "episodes.csv", order=random.Random(3).shuffle)  # any row order, extra column
    from_file, typed = _read(capsys, tmp_path / "episodes.csv"), _typed(capsys, means)
    _same_numbers(from_file, typed)
    assert from_file["protocol"]["protocol_id"] == "machado-2018"
    assert from_file["protocol"]["sticky_action_probability"] == 0.25  # the protocol's, from data/protocols.csv
    assert from_file["protocol"]["max_episode_frames"] == 108000
    signed, plain = parse_signature(from_file["signature"]), parse_signature(typed["signature"])
    assert signed.protocol == "machado-2018" and plain.protocol is None
    assert str(signed).replace("|protocol:machado-2018", "") == str(plain)
    assert [(r["episodes"], r["first_episode"], r["last_episode"]) for r in from_file["log"]["runs"]] == [(3, 1, 3)] * 10


def test_the_text_names_the_protocol_and_the_episodes_used(tmp_path, capsys):
    _episode_table(tmp_path / "episodes.csv")
    assert main(["score", str(tmp_path / "episodes.csv")]) == 0
    out = capsys.readouterr().out
    assert "protocol: machado-2018" in out and "30 used, 3 per run" in out and "|protocol:machado-2018|" in out


def test_api_and_json_lines_give_the_same_result(tmp_path):
    means = _episode_table(tmp_path / "episodes.csv", episodes=4)
    header = EPISODE_COLUMNS.split(",")
    lines = (tmp_path / "episodes.csv").read_text().splitlines()[1:]
    records = [dict(zip(header, line.split(",")[:len(header)])) for line in lines]
    (tmp_path / "episodes.jsonl").write_text("\n".join(json.dumps(
        dict(r, seed=int(r["seed"]), episode=int(r["episode"]), score=float(r["score"]))) for r in records) + "\n")
    from_csv = atari5_spec.score(tmp_path / "episodes.csv")
    from_jsonl = atari5_spec.score(str(tmp_path / "episodes.jsonl"))
    typed = atari5_spec.score(means)
    assert from_csv.estimate == from_jsonl.estimate == typed.estimate
    assert from_jsonl.log.kind == "jsonl" and from_csv.log.kind == "episodes"
    assert from_csv.protocol.protocol_id == from_jsonl.protocol.protocol_id == "machado-2018"
    assert from_csv.signature == from_jsonl.signature


def test_an_unknown_or_mixed_protocol_is_refused_naming_the_line(tmp_path):
    _episode_table(tmp_path / "e.csv", protocol="machado-2019")
    with pytest.raises(InputError, match=r"e.csv, line 2: protocol 'machado-2019' is not one of data/protocols.csv"):
        read_log(str(tmp_path / "e.csv"))
    _episode_table(tmp_path / "e.csv")
    lines = (tmp_path / "e.csv").read_text().splitlines()
    lines[-1] = lines[-1].replace("machado-2018", "atari-100k")
    (tmp_path / "e.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"e.csv, line 2: protocol 'machado-2018', but e.csv, line 31 says "
                                         r"'atari-100k': one file holds the episodes of one protocol"):
        read_log(str(tmp_path / "e.csv"))


def test_a_bad_cell_is_refused_with_file_line_and_column(tmp_path, capsys):
    _episode_table(tmp_path / "e.csv")
    lines = (tmp_path / "e.csv").read_text().splitlines()
    cells = lines[4].split(",")
    lines[4] = ",".join(cells[:3] + ["1e400"] + cells[4:])
    (tmp_path / "e.csv").write_text("\n".join(lines) + "\n")
    assert main(["score", str(tmp_path / "e.csv")]) == 1
    err = capsys.readouterr().err
    assert "e.csv, line 5, column 'score'" in err and "Traceback" not in err


# --- Stable-Baselines3 Monitor files -------------------------------------------------------------------------------

def _monitor_folder(folder, episodes=120, env="ALE/{}-v5", header_extra=""):
    folder.mkdir()
    means = {}
    for game in GAMES:
        (folder / game).mkdir()
        for seed in (0, 1):
            values = _returns(game, seed, episodes)
            text = (f'#{{"t_start": 1700000000.0, "env_id": "{env.format(ENV_IDS[game])}"{header_extra}}}\nr,l,t\n'
                    + "".join(f"{v},{400 + i},{i}.5\n" for i, v in enumerate(values)))
            (folder / game / f"{seed}.monitor.csv").write_text(text)
            means.setdefault(game, []).append(values)
    return means


def test_a_monitor_folder_scores_as_the_last_100_episodes_typed_by_hand(tmp_path, capsys):
    returns = _monitor_folder(tmp_path / "logs")
    assert detect_format(str(tmp_path / "logs")) == "sb3-monitor"
    from_file = _read(capsys, tmp_path / "logs")
    _same_numbers(from_file, _typed(capsys, {g: [_mean(r[-TRAINING_WINDOW:]) for r in runs]
                                             for g, runs in returns.items()}))
    assert from_file["log"]["window"] == 100 and {r["first_episode"] for r in from_file["log"]["runs"]} == {21}
    assert from_file["protocol"]["sticky_action_probability"] == 0.25  # ALE/*-v5
    last = _read(capsys, tmp_path / "logs", "--last", "7")
    _same_numbers(last, _typed(capsys, {g: [_mean(r[-7:]) for r in runs] for g, runs in returns.items()}))


def test_monitor_env_ids_say_the_protocol_and_the_text_says_it_was_inferred(tmp_path, capsys):
    _monitor_folder(tmp_path / "v4", episodes=5, env="{}NoFrameskip-v4")
    assert main(["score", str(tmp_path / "v4")]) == 0
    out = capsys.readouterr().out
    assert "sticky-action probability 0 from the *-v4 game ids" in out and "inferred" in out
    assert "the last 100 of each run" in out
    _monitor_folder(tmp_path / "envpool", episodes=5, env="{}-v5")
    assert read_log(str(tmp_path / "envpool")).sticky_action_probability == 0.0


def test_a_monitor_without_env_id_or_with_life_loss_episodes_is_refused(tmp_path, capsys):
    _monitor_folder(tmp_path / "lives", episodes=3, header_extra=', "terminal_on_life_loss": true')
    assert main(["score", str(tmp_path / "lives")]) == 1
    err = capsys.readouterr().err
    assert "line 1, 'terminal_on_life_loss': the episodes end at a life loss" in err and "Traceback" not in err
    (tmp_path / "one.monitor.csv").write_text('#{"t_start": 1.0}\nr,l,t\n1.0,2,3\n')
    with pytest.raises(InputError, match=r"one.monitor.csv, line 1: the header names no env_id"):
        read_log(str(tmp_path / "one.monitor.csv"))


def test_clipped_battle_zone_returns_are_refused_with_the_reason(tmp_path, capsys):
    folder = tmp_path / "clipped"
    _monitor_folder(folder, episodes=3)
    (folder / "battle_zone" / "0.monitor.csv").write_text(
        '#{"t_start": 1.0, "env_id": "ALE/BattleZone-v5"}\nr,l,t\n12.0,400,1\n9.0,400,2\n')
    assert main(["score", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "not multiples of 1,000" in err and "clipped returns" in err and "--allow-implausible" in err
    assert main(["score", str(folder), "--allow-implausible"]) == 0
    assert "gate:implausible-allowed" in capsys.readouterr().out


# --- CleanRL TensorBoard runs ---------------------------------------------------------------------------------------

def _tensorboard_runs(folder):
    pytest.importorskip("tensorboard", reason='TensorBoard is not installed: pip install "atari5-spec[logs]"')
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    returns = {}
    for game in GAMES:
        for seed in (1, 2):
            # CleanRL: runs/{env_id}__{exp_name}__{seed}__{time}; the '/' of ALE/X-v5 makes a folder ALE/
            run = folder / "ALE" / f"{ENV_IDS[game]}-v5__ppo_atari__{seed}__1700000000"
            run.mkdir(parents=True)
            writer = EventFileWriter(str(run))
            values = _returns(game, seed, 30)
            for step, value in enumerate(values):
                writer.add_event(event_pb2.Event(wall_time=1.7e9 + step, step=128 * step, summary=summary_pb2.Summary(
                    value=[summary_pb2.Summary.Value(tag="charts/episodic_return", simple_value=value),
                           summary_pb2.Summary.Value(tag="charts/episodic_length", simple_value=99.0)])))
            writer.close()
            returns.setdefault(game, []).append(values)
    return returns


def test_cleanrl_tensorboard_runs_score_as_the_numbers_typed_by_hand(tmp_path, capsys):
    returns = _tensorboard_runs(tmp_path / "runs")
    from_file = _read(capsys, tmp_path / "runs", "--last", "20")
    _same_numbers(from_file, _typed(capsys, {g: [_mean(r[-20:]) for r in runs] for g, runs in returns.items()}))
    assert sorted({r["seed"] for r in from_file["log"]["runs"]}) == ["1", "2"]
    assert {r["game"] for r in from_file["log"]["runs"]} == {f"ALE/{ENV_IDS[g]}-v5" for g in GAMES}
    assert from_file["protocol"]["sticky_action_probability"] == 0.25


def test_without_tensorboard_the_message_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    run = tmp_path / "runs" / "BreakoutNoFrameskip-v4__dqn__1__1700000000"
    run.mkdir(parents=True)
    (run / "events.out.tfevents.1700000000.host.1.0").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    monkeypatch.setitem(sys.modules, "tensorboard.backend.event_processing", None)
    assert main(["score", str(tmp_path / "runs")]) == 1
    err = capsys.readouterr().err
    assert 'pip install "atari5-spec[logs]"' in err and "Traceback" not in err


# --- a W&B CSV export ----------------------------------------------------------------------------------------------

def test_a_wandb_panel_export_scores_as_the_numbers_typed_by_hand(tmp_path, capsys):
    runs = [(game, seed, f"{ENV_IDS[game]}NoFrameskip-v4__dqn__{seed}__1700000000") for game in GAMES for seed in (3, 4)]
    header = ["Step"]
    for _, _, name in runs:
        header += [f"{name} - charts/episodic_return", f"{name} - charts/episodic_return__MIN",
                   f"{name} - charts/episodic_return__MAX"]
    values = {name: _returns(game, seed, 12) for game, seed, name in runs}
    lines = [",".join(f'"{h}"' for h in header)]
    for step in range(24):  # each run logs every other step: the blanks are steps it did not log
        cells = [str(step * 1000)]
        for index, (_, _, name) in enumerate(runs):
            logged = (step + index) % 2 == 0 and (step + index) // 2 < 12
            value = values[name][(step + index) // 2] if logged else ""
            cells += [f"{value}" if logged else "", "0" if logged else "", "1e9" if logged else ""]
        lines.append(",".join(cells))
    (tmp_path / "wandb_export.csv").write_text("\n".join(lines) + "\n")
    assert detect_format(str(tmp_path / "wandb_export.csv"), (tmp_path / "wandb_export.csv").read_text()) == "wandb-csv"
    from_file = _read(capsys, tmp_path / "wandb_export.csv", "--last", "5")
    expected = {}
    for index, (game, seed, name) in enumerate(runs):
        logged = [values[name][(step + index) // 2] for step in range(24)
                  if (step + index) % 2 == 0 and (step + index) // 2 < 12]
        expected.setdefault(game, []).append(_mean(logged[-5:]))
    _same_numbers(from_file, _typed(capsys, expected))
    assert from_file["protocol"]["sticky_action_probability"] == 0.0


def test_a_run_name_that_does_not_say_the_game_is_refused(tmp_path):
    (tmp_path / "w.csv").write_text('Step,"my-run - charts/episodic_return"\n1,300\n')
    with pytest.raises(InputError, match=r"w.csv, line 1, column 'my-run - charts/episodic_return': the run name "
                                         r"'my-run' does not say the env id and the seed"):
        read_log(str(tmp_path / "w.csv"))


# --- a JSON-lines episode list, and the options --------------------------------------------------------------------

def test_a_json_lines_episode_list_with_env_ids(tmp_path, capsys):
    lines, expected = [], {}
    for game in GAMES:
        for seed in (0, 1, 2):
            values = _returns(game, seed, 4)
            lines += [json.dumps({"env_id": f"ALE/{ENV_IDS[game]}-v5", "seed": seed, "episodic_return": v})
                      for v in values]
            expected.setdefault(game, []).append(_mean(values))
    (tmp_path / "eval.jsonl").write_text("\n".join(lines) + "\n")
    from_file = _read(capsys, tmp_path / "eval.jsonl")
    _same_numbers(from_file, _typed(capsys, expected))
    assert from_file["log"]["kind"] == "jsonl" and from_file["log"]["window"] is None
    _same_numbers(_read(capsys, tmp_path / "eval.jsonl", "--log-format", "jsonl", "--last", "1"),
                  _typed(capsys, {game: [_returns(game, seed, 4)[-1] for seed in (0, 1, 2)] for game in GAMES}))


def test_log_options_need_a_log(tmp_path, capsys):
    (tmp_path / "s.csv").write_text("game,score\nbattle_zone,30000\n")
    assert main(["score", str(tmp_path / "s.csv"), "--last", "5"]) == 1
    assert "is a scores file" in capsys.readouterr().err
    assert main(["score", "--score", "battle_zone=30000", "--log-format", "jsonl"]) == 1
    assert "give its path" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "s.csv"), "--last", "0"]) == 1
    assert "1 or more" in capsys.readouterr().err


def test_a_signature_with_a_protocol_reads_back():
    text = ("Atari-5|coef:paper-2023@071b0e4b|norm:agent57-human|phi:log10p1|protocol:machado-2018|data:1.95.0|"
            "spec:1.2|v:1.2.0")
    parsed = parse_signature(text)
    assert parsed.protocol == "machado-2018" and parsed.format == "1.2" and str(parsed) == text
    with pytest.raises(InputError, match="protocol: a protocol id"):
        parse_signature(text.replace("machado-2018", "Machado 2018"))


# --- played by the harness (ale-py) ---------------------------------------------------------------------------------

def test_a_played_file_scores_as_its_per_seed_means_typed_by_hand(tmp_path, capsys):
    pytest.importorskip("ale_py", reason='ale-py is not installed: pip install "atari5-spec[ale]"')
    import pandas as pd

    out = tmp_path / "played.csv"
    assert main(["play", "random", "--games", "qbert", "--seeds", "2", "--episodes", "2", "--jobs", "1",
                 "--out", str(out)]) == 0  # random Q*bert loses its lives in a few hundred frames
    capsys.readouterr()
    others = {"battle_zone": [31000.0, 29000.0], "double_dunk": [-1.5, 0.5], "name_this_game": [12000.0, 11000.0],
              "phoenix": [8000.0, 7000.0]}
    given = [a for game, values in others.items() for a in ("--score", f"{game}=" + ", ".join(map(repr, values)))]
    from_file = _read(capsys, out, *given)
    per_seed = pd.read_csv(out).groupby("seed").score.mean().tolist()
    _same_numbers(from_file, _typed(capsys, others | {"qbert": per_seed}))
    assert parse_signature(from_file["signature"]).protocol == "machado-2018"


def test_signature_check_recomputes_from_the_episode_table_and_its_protocol(tmp_path, capsys):
    from atari5_spec.cli.score_output import paste_line
    from atari5_spec.scoring.signature_check import check_signature
    from atari5_spec.scoring.logs import read_log

    _episode_table(tmp_path / "e.csv")
    line = paste_line(atari5_spec.score(tmp_path / "e.csv"))
    check = check_signature(line, read_log(str(tmp_path / "e.csv")))
    assert check.matches and {c.field: c.status for c in check.fields}["protocol"] == "matches"
    unsigned = check_signature(line.replace("|protocol:machado-2018", ""), read_log(str(tmp_path / "e.csv")))
    assert unsigned.differing == ("protocol",)


def test_more_episodes_than_a_scores_file_may_hold_are_refused(tmp_path, monkeypatch):
    import atari5_spec.scoring.logs as logs

    monkeypatch.setattr(logs, "MAX_SCORE_ROWS", 50)
    _monitor_folder(tmp_path / "many", episodes=30)
    with pytest.raises(InputError, match=r"more than 50 episodes in all \(at 1.monitor.csv\)"):
        read_log(str(tmp_path / "many"))
