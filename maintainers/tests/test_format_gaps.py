"""Format limits real files hit (issue 20), each tested on a small fixture written from the real file.

Fixtures (tests/fixtures/format_gaps/):
* bbf_uneven_runs.csv: BBF's per-run rows (google-research bigger_better_faster/scores/RR8_BBF.csv, via
  contributions/bbf) for three games with different numbers of runs;
* slm_lab_outside_the_57.csv: SLM-Lab's Phase 4 table (kengz/SLM-Lab docs/BENCHMARKS.md) for the Atari-5 games
  and the four games it reports outside the 57;
* openrlbenchmark_plus_minus_forms.csv: openrlbenchmark's "mean ± std" cells (contributions/ppo2-baselines)
  rewritten in the other forms tables print (+-, ±, (± x), +/-, no spaces, non-breaking spaces).
"""

from pathlib import Path

import pytest
import yaml

from atari5_spec.cli import main
from atari5_spec_maintainers.contributions import check_submission
from atari5_spec.data.errors import InputError
from atari5_spec.data.frames import agent_steps_note, parse_budget
from atari5_spec.data.rawvalues import raw_value_number

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "format_gaps"
META = {"name": "TestAgent",
        "paper": {"title": "A Test Agent for Atari", "authors": ["Ada Example"], "year": 2024, "arxiv": "2401.12345",
                  "location": "Table 5"},
        "protocol": {"start_condition": "no-op", "sticky_action_probability": 0.25, "max_episode_frames": 108000,
                     "training_frames": 200000000, "seeds": 3, "statistic": "mean"},
        "contributor": {"name": "Grace Hopper", "github": "grace-hopper"}}


def submission(package: Path, scores: bytes, submission_id="test-agent", **protocol) -> Path:
    folder = package / "contributions" / submission_id
    folder.mkdir(parents=True)
    meta = yaml.safe_load(yaml.safe_dump(META))
    meta["protocol"].update(protocol)
    (folder / "metadata.yaml").write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    (folder / "scores.csv").write_bytes(scores)
    return folder


def test_per_game_run_counts_warn_once_not_per_game(package_copy):
    report = check_submission(submission(package_copy, (FIXTURES / "bbf_uneven_runs.csv").read_bytes()))
    assert report.ok
    seed_warnings = [w for w in report.warnings if w.column == "seed"]
    assert len(seed_warnings) == 1
    assert "for 2 game(s) (asteroids 4, berzerk 2)" in seed_warnings[0].message
    assert "runs per game range over 2-4" in seed_warnings[0].message
    assert len(report.merge.seed_scores) == 9  # every run kept
    fit = {r["game_id"]: r["score"] for r in report.merge.scores}
    assert fit["asteroids"] == pytest.approx((1176.699951171875 + 1431.0999755859375 + 1424.199951171875
                                              + 1623.5999755859375) / 4)


def test_games_outside_the_57_are_stored_with_one_note_and_never_scored(package_copy):
    report = check_submission(submission(package_copy, (FIXTURES / "slm_lab_outside_the_57.csv").read_bytes()))
    assert report.ok
    outside = [w for w in report.warnings if "outside the 57" in w.message]
    assert len(outside) == 1 and "air_raid, carnival, journey_escape, pooyan" in outside[0].message
    assert report.merge.outside_games == ("air_raid", "carnival", "journey_escape", "pooyan")
    assert "4 of games outside the 57 (never in fits)" in report.merge.counts()


def test_a_real_ale_game_the_package_does_not_list_is_not_a_misspelling(package_copy, capsys):
    folder = submission(package_copy, (FIXTURES / "slm_lab_outside_the_57.csv").read_bytes()
                        + b"Adventure,0\n")
    report = check_submission(folder)
    [problem] = report.problems
    assert problem.row == 11 and problem.column == "game"
    assert "'Adventure' is the ALE game adventure, outside the 57-game benchmark" in problem.message
    assert "venture" not in problem.fix.replace("adventure", "")
    scores = [a for g, v in (("Battle Zone", 27176.78), ("Double Dunk", -3.03), ("Name This Game", 6879.23),
                             ("Phoenix", 13923.26), ("Q*bert", 15460.48), ("Adventure", 0), ("Air Raid", 7042.84))
              for a in ("--score", f"{g}={v}")]
    assert main(["score", *scores, "--bootstrap", "0", "--explain"]) == 0
    captured = capsys.readouterr()
    assert "ignored (no normalisation constants in paper-2023): adventure, air_raid" in captured.out + captured.err


def test_aggregate_leaves_games_outside_the_57_out_with_a_note(tmp_path, capsys):
    runs = tmp_path / "runs.csv"
    runs.write_text("agent,game,seed,score\nA,Pong,0,1\nA,Pong,1,3\nA,Air Raid,0,3\nA,Air Raid,1,4\n"
                    "A,Adventure,0,0\nA,Adventure,1,0\n", encoding="utf-8")
    assert main(["aggregate", str(runs), "--resamples", "50"]) == 0
    captured = capsys.readouterr()
    assert "note: ignored, outside the 57 games of the benchmark (no random and human scores): adventure, " \
           "air_raid" in captured.err
    assert "1 agent(s) x 1 games" in captured.out


def test_mean_plus_minus_std_in_every_printed_form_keeps_its_text(package_copy):
    raw = (FIXTURES / "openrlbenchmark_plus_minus_forms.csv").read_bytes()
    report = check_submission(submission(package_copy, raw, seeds=None))
    assert report.ok, report.problems
    rows = {r["game_id"]: r for r in report.merge.scores}
    expected = {"alien": (1705.80, 439.74, "1705.80\u00a0±\u00a0439.74"),
                "battle_zone": (19980.00, 1355.21, "19980.00±1355.21"),
                "double_dunk": (-12.96, 0.31, "-12.96 +- 0.31"),
                "qbert": (15228.25, 920.95, "15228.25+-920.95"),
                "name_this_game": (6815.63, 1098.95, "6815.63 (± 1098.95)"),
                "phoenix": (9517.73, 1176.62, "9517.73 +/- 1176.62")}
    for game, (score, std, text) in expected.items():
        assert (rows[game]["score"], rows[game]["std"], rows[game]["raw_value"]) == (score, std, text)
        assert raw_value_number(text) == (score, std)  # data validation reads the same text back


@pytest.mark.parametrize("text, frames", [("400k", 400_000), ("10M", 10_000_000), ("200e6", 200_000_000),
                                          ("200_000_000", 200_000_000), ("1.5B", 1_500_000_000)])
def test_budgets_in_the_units_people_write(text, frames):
    assert parse_budget(text) == frames


def test_a_budget_that_looks_like_agent_steps_gets_a_note(capsys):
    assert "400k at frame skip 4" in agent_steps_note(100_000)
    assert agent_steps_note(400_000) is None and agent_steps_note(200_000_000) is None
    with pytest.raises(InputError, match="budget '1.5' must be a positive whole number"):
        parse_budget("1.5")
    scores = [a for g, v in (("Battle Zone", 27176.78), ("Double Dunk", -3.03), ("Name This Game", 6879.23),
                             ("Phoenix", 13923.26), ("Q*bert", 15460.48)) for a in ("--score", f"{g}={v}")]
    assert main(["score", *scores, "--bootstrap", "0", "--frames", "100k"]) == 0  # a unit: read as written
    assert "note: --frames 100k: 100k frames is below Atari 100k's 400k frames" in capsys.readouterr().err
    assert main(["score", *scores, "--bootstrap", "0", "--frames", "100000"]) == 1  # no unit: refused (issue 32)
    assert "100,000 frames is below every published training budget" in capsys.readouterr().err


def test_an_entry_out_of_fits_is_not_summarised_as_used_by_fits(package_copy):
    # SLM-Lab's SAC: 2M frames, below the budget fits compare
    report = check_submission(submission(package_copy, (FIXTURES / "slm_lab_outside_the_57.csv").read_bytes(),
                                         training_frames=2_000_000, seeds=4))
    summary = report.merge.counts()
    assert "used by fits" not in summary and "5 per-game scores (kept out of fits: training-budget)" in summary


def test_a_score_below_random_says_how_far_not_to_check_the_sign():
    from atari5_spec.scoring.estimate import plausibility_warnings

    # Double Dunk: random -18.55, human -16.4 (Agent57's table); -22.38 is a genuine published score
    [warning] = plausibility_warnings({"double_dunk": -22.38}, {"double_dunk": (-18.55, -16.4)},
                                      {"double_dunk": (-22.0, 24.0)})
    assert "3.83 points below random play (-18.55), 1.8 times the human-random gap" in warning
    assert "sign" not in warning


# --- the leaderboard shows the protocol ---------------------------------------------------------------------------

def test_atari_100k_entries_are_ranked_in_their_own_regime(dataset):
    from atari5_spec.scoring.ranking import leaderboard

    default = leaderboard(dataset=dataset)
    assert "atari-100k" in default.other_regimes
    assert not any(r.regime == "atari-100k" for r in default.rows)
    short = leaderboard(dataset=dataset, regime="atari-100k")
    ids = {r.algorithm_id for r in short.rows}
    assert {"bbf", "bbf-sticky", "bbf-rr2", "bbf-rr2-sticky"} <= ids
    assert all(r.regime == "atari-100k" and r.training_frames == 400_000 for r in short.rows)
    assert [r.rank for r in short.rows] == list(range(1, len(short.rows) + 1))
    assert short.filters == ("regime atari-100k",)


def test_sticky_and_frames_filters_select_peers_by_protocol(dataset):
    from atari5_spec.scoring.ranking import leaderboard

    sticky = leaderboard(dataset=dataset, sticky="yes")
    assert sticky.rows and all(r.sticky_action_probability > 0 for r in sticky.rows)
    none = leaderboard(dataset=dataset, sticky="no", frames=200_000_000)
    assert none.rows and all(r.sticky_action_probability == 0 and r.training_frames == 200_000_000
                             for r in none.rows)
    assert "chainerrl-rainbow" in {r.algorithm_id for r in none.rows}


def test_leaderboard_cli_prints_the_protocol_columns(capsys):
    assert main(["leaderboard", "--regime", "atari-100k"]) == 0
    out = capsys.readouterr().out
    assert "regime atari-100k" in out and "statistic" in out and "seeds" in out
    assert "BBF" in out and "atari-100k    400k" in out


# --- one rule for run ids ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", ["-1", "+3", "run-a", "1.0", "７"])
def test_contribute_and_aggregate_refuse_the_same_run_ids(package_copy, tmp_path, capsys, seed):
    report = check_submission(submission(package_copy, f"game,score,seed\nPhoenix,35000,{seed}\n".encode()))
    assert [(p.row, p.column) for p in report.problems] == [(2, "seed")]
    assert "is not a run id" in report.problems[0].message
    runs = tmp_path / "runs.csv"
    runs.write_text(f"agent,game,seed,score\nA,Pong,{seed},1\n", encoding="utf-8")
    assert main(["aggregate", str(runs)]) == 1
    assert "column 'seed'" in capsys.readouterr().err


def test_a_run_id_is_one_run_however_it_is_padded(tmp_path, capsys):
    runs = tmp_path / "runs.csv"
    runs.write_text("agent,game,seed,score\nA,Pong,7,1\nA,Pong,007,2\n", encoding="utf-8")
    assert main(["aggregate", str(runs)]) == 1
    assert "seed '7' already given on line 2" in capsys.readouterr().err


def test_an_entry_with_too_few_games_is_not_summarised_as_used_by_fits(package_copy):
    report = check_submission(submission(package_copy, (FIXTURES / "slm_lab_outside_the_57.csv").read_bytes()))
    assert "5 per-game scores (kept out of fits: 5 of the 57 games, fits need 40)" in report.merge.counts()
