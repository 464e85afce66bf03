"""The public sticky-action baselines (issue 33, scripts/import_2027.py): Dopamine's 16 agent configurations and
Cleanba's 12 distinct configurations, merged through `contribute add`.

Checked here: every row names its upstream file and line; the configurations are distinct; Cleanba's
duplicates across files are recorded as cross-checks whose verdicts recompute; each Dopamine configuration
keeps its five runs per game, the per-game number being their mean; the protocol each source states is
recorded; the learning curves are kept at the stated resolution; and the leaderboard shows them with their
protocol and curves. The import script's run identification is tested on synthetic files in its two layouts.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from atari5_spec.data.frames import format_frames
from atari5_spec.scoring.estimate import as_coefficient_set, model_estimate
from atari5_spec.scoring.ranking import leaderboard

ROOT = Path(__file__).resolve().parents[1]
NETWORKS = {"": ("dqn", "c51", "rainbow", "iqn", "quantile", "dqn-adam-mse"),
            "impala-": ("dqn", "c51", "rainbow", "iqn", "qr-dqn"), "cnn-": ("dqn", "c51", "rainbow", "iqn", "qr-dqn")}
DOPAMINE = tuple(f"dopamine-{net}{agent}" for net, agents in NETWORKS.items() for agent in agents)
CLEANBA = ("cleanba-ppo-sync-1gpu", "cleanba-impala-1gpu", "cleanba-monobeast-impala-1gpu-10cpu",
           "cleanba-moolib-impala-1gpu", "cleanba-monobeast-impala-1gpu-80cpu", "cleanba-moolib-impala-8gpu",
           "cleanba-impala-8gpu", "cleanba-ppo-sync-8gpu", "cleanba-cleanrl-ppo-1gpu", "cleanba-ppo-8gpu",
           "cleanba-impala-sync-8gpu", "cleanba-ppo-fair-1gpu")
BUDGETS = {10_000_000, 50_000_000, 100_000_000}
# Games of Dopamine's files a configuration has no final score for, and why (scripts/import_2027.py): the runs of
# QR-DQN with the CNN on Montezuma's Revenge cannot be told apart after iteration 55 (four rows per iteration).
NO_FINAL = {("dopamine-cnn-qr-dqn", "montezuma_revenge")}


@pytest.fixture(scope="module")
def imported(dataset):
    present = set(dataset.algorithms.algorithm_id)
    if not set(DOPAMINE + CLEANBA) <= present:
        pytest.fail(f"not imported: {sorted(set(DOPAMINE + CLEANBA) - present)}")
    return dataset


def rows_of(frame, ids):
    return frame[frame.algorithm_id.isin(ids)]


def test_every_row_names_the_contribution_line_and_the_upstream_file_and_line(imported):
    dopamine = re.compile(r"^contributions/(?P<id>dopamine-[a-z0-9-]+)/scores\.csv:\d+(-\d+)?.*; google/dopamine@"
                          r"(?P<commit>[0-9a-f]{40}):baselines/atari/data (?P<game>[a-z]+)(?P<net>_Impala|_CNN)?\.json "
                          r"lines (?P<lines>[\d,-]+) \(run (?P<run>[0-4]), iterations (?P<first>\d+)-(?P<last>\d+)\)$")
    for table in ("seed_scores", "budget_scores"):
        frame = rows_of(getattr(imported, table), DOPAMINE)
        assert len(frame)
        for row in frame.itertuples():
            m = dopamine.match(row.provenance)
            assert m, row.provenance
            assert m["id"] == row.algorithm_id and int(m["run"]) == row.seed
            assert (m["net"] or "_").lower().strip("_") in row.algorithm_id
            last = int(m["last"])  # the iterations used end at the budget: iteration i ends at (i + 1)M frames
            if table == "budget_scores":
                assert (last + 1) * 1_000_000 == row.last_frame == row.training_frames
                assert (int(m["first"]) + 1) * 1_000_000 == row.first_frame and row.points == 5
            else:
                # the run's last point reaches 200M frames within the curve rule's 2.5% (iterations 194-199)
                assert 194 <= last <= 199 and last - int(m["first"]) == 4
            lines = [int(x) for x in re.split(r"[,-]", m["lines"])]
            assert lines == sorted(lines)
    cleanba = re.compile(r"^contributions/(?P<id>cleanba-[a-z0-9-]+)/scores\.csv:\d+; vwxyzjn/cleanba@"
                         r"d1f8979c33e4e1c3d4e67f460afcebb42b6889d4:static/cleanba/(?P<file>\w+)\.csv "
                         r"(?P=file)\.csv line \d+$")
    scores = rows_of(imported.scores, CLEANBA)
    assert len(scores) == 12 * 57 - 4  # ppo_vs_impala_fair.csv has 53 games
    for row in scores.itertuples():
        m = cleanba.match(row.provenance)
        assert m and m["id"] == row.algorithm_id, row.provenance


def test_the_configurations_are_distinct(imported):
    per_game = rows_of(imported.scores, DOPAMINE + CLEANBA).pivot_table(index="game_id", columns="algorithm_id",
                                                                          values="score", aggfunc="first")
    assert set(per_game.columns) == set(DOPAMINE + CLEANBA) and len(DOPAMINE) == 16 and len(CLEANBA) == 12
    for a in per_game.columns:
        for b in per_game.columns:
            if a < b:
                both = per_game[[a, b]].dropna()
                same = (both[a] == both[b]).sum()
                assert same <= 0.1 * len(both), (a, b, same, len(both))
    names = imported.algorithms.set_index("algorithm_id").loc[list(DOPAMINE + CLEANBA), "name"]
    assert names.is_unique


def test_cleanba_duplicates_across_files_are_recorded_as_cross_checks(imported):
    checks = rows_of(imported.cross_checks, CLEANBA)
    for row in checks.itertuples():
        a, b = float(row.value_a), float(row.value_b)
        assert abs(row.relative_difference - (b - a) / max(abs(a), abs(b), 1.0)) < 1e-6
        assert not row.agree or a == b
        assert "static/cleanba/" in row.source_a and "static/cleanba/" in row.source_b
    counted = checks.groupby("algorithm_id").size().to_dict()
    # moolib 1 GPU: in smootheness.csv (12 games) and smootheness_complete.csv (57) under another name, same cells
    moolib = checks[checks.algorithm_id == "cleanba-moolib-impala-1gpu"]
    assert counted["cleanba-moolib-impala-1gpu"] == 12 + 57 and moolib.agree.all()
    assert moolib.source_b.str.contains("as 'Moolib \\(Resnet CNN\\) 1 A100, 10 CPU'").all()
    # the same name, one cell apart: Cleanba PPO (Sync) 1 GPU in smootheness_complete.csv, Alien
    ppo = checks[(checks.algorithm_id == "cleanba-ppo-sync-1gpu") & ~checks.agree.astype(bool)]
    assert list(ppo.game_id) == ["alien"] and "smootheness_complete.csv" in ppo.source_b.iloc[0]
    # sync_or_not_sync.csv's 'Cleanba PPO (sync)' shares the name, not the numbers: a disagreement on every game
    sync = checks[(checks.algorithm_id == "cleanba-ppo-sync-8gpu") & checks.source_b.str.contains("sync_or_not_sync")]
    assert len(sync) == 57 and not sync.agree.astype(bool).any()
    # configurations only in one file have no cross-check; each other configuration has one per file and game
    assert "cleanba-cleanrl-ppo-1gpu" not in counted and "cleanba-ppo-fair-1gpu" not in counted
    assert counted["cleanba-impala-1gpu"] == 53 + 12 + 57  # ppo_vs_impala_fair, smootheness, smootheness_complete
    notes = imported.algorithms.set_index("algorithm_id")
    for algorithm_id in CLEANBA:
        metadata = (ROOT / "contributions" / algorithm_id / "metadata.yaml").read_text(encoding="utf-8")
        assert ("data/cross_checks.csv" in metadata) == (algorithm_id in counted), algorithm_id
        assert notes.loc[algorithm_id, "sticky_action_probability"] == 0.25


def test_two_dopamine_entries_are_compared_with_the_revisiting_entries_they_match(imported):
    """Derived, not stated (upstream README): REVISITING.csv's 'Adam MSE' and 'RMSProp Huber' columns, which the
    Atari-5 selection was trained on, match Dopamine's DQN (Adam + MSE) and DQN runs; recorded game by game."""
    checks = imported.cross_checks[imported.cross_checks.algorithm_id.isin(["dopamine-dqn-adam-mse", "dopamine-dqn"])]
    scores = imported.scores[imported.scores.use_in_fit.astype(bool)]
    for dopamine, revisiting in (("dopamine-dqn-adam-mse", "adam-mse"), ("dopamine-dqn", "rmsprop-huber")):
        rows = checks[checks.algorithm_id == dopamine].set_index("game_id")
        theirs = scores[scores.algorithm_id == revisiting].set_index("game_id").score
        mine = scores[scores.algorithm_id == dopamine].set_index("game_id").score
        assert set(rows.index) == set(theirs.index) & set(mine.index) and len(rows) >= 50
        assert (rows.value_a == theirs[rows.index]).all() and ((rows.value_b - mine[rows.index]).abs() < 1e-9).all()
        within = (rows.value_b - rows.value_a).abs() <= 0.2 * rows[["value_a", "value_b"]].abs().max(axis=1) + 1e-9
        assert (within == rows.agree.astype(bool)).all()
        ratio = (rows.value_b / rows.value_a).median()
        assert 0.95 < ratio < 1.05, (dopamine, ratio)  # the same runs, likely: the median ratio is about 1
    assert checks.note.str.contains("derived, not stated").all()


def test_each_dopamine_configuration_keeps_five_runs_per_game_and_the_mean_is_published(imported):
    seeds = rows_of(imported.seed_scores, DOPAMINE)
    runs = seeds.groupby(["algorithm_id", "game_id"]).size()
    assert (runs == 5).all(), runs[runs != 5]
    games = set(imported.games.loc[imported.games.in_57.astype(bool), "game_id"]) - {"defender", "surround"}
    assert len(games) == 55
    for algorithm_id in DOPAMINE:
        have = set(seeds.loc[seeds.algorithm_id == algorithm_id, "game_id"])
        assert have == games - {g for a, g in NO_FINAL if a == algorithm_id}, algorithm_id
    published = rows_of(imported.scores, DOPAMINE).set_index(["algorithm_id", "game_id"]).score
    means = seeds.groupby(["algorithm_id", "game_id"]).score.mean()
    assert (published.loc[means.index] - means).abs().max() < 1e-6
    entries = imported.algorithms.set_index("algorithm_id").loc[list(DOPAMINE)]
    assert (entries.seeds == 5).all() and (entries.statistic == "mean").all()


def test_the_protocol_each_source_states_is_recorded(imported):
    entries = imported.algorithms.set_index("algorithm_id")
    dopamine = entries.loc[list(DOPAMINE)]
    assert (dopamine.sticky_action_probability == 0.25).all()
    assert (dopamine.training_frames == 200_000_000).all() and (dopamine.regime == "200M").all()
    assert (dopamine.max_episode_frames == 108_000).all()
    assert dopamine.exclusion.isna().all()  # compared and fitted like any 200M entry
    # Not stated: which returns Value holds (JAX trains without evaluation phases, TensorFlow with), no-op starts
    assert dopamine.start_condition.isna().all() and dopamine.evaluation.isna().all()
    assert dopamine.protocol_note.str.contains("dqn.gin at 9f616b9").all()
    assert dopamine.protocol_note.str.contains("dqn.gin at 163a9c0").all()
    assert dopamine.protocol_note.str.contains("lines 26-27 'Sticky actions with probability 0.25").all()
    evidence = imported.protocol_evidence[imported.protocol_evidence.algorithm_id.isin(DOPAMINE + CLEANBA)]
    stated = evidence.set_index(["algorithm_id", "field"])
    for algorithm_id in DOPAMINE:
        assert stated.loc[(algorithm_id, "sticky_action_probability"), "status"] == "stated"
        assert float(stated.loc[(algorithm_id, "training_frames"), "value"]) == 200_000_000
    for algorithm_id in CLEANBA:
        assert stated.loc[(algorithm_id, "training_frames"), "status"] == "not-stated"
    assert (evidence.verification == "read").all()
    cleanba = entries.loc[list(CLEANBA)]
    assert (cleanba.sticky_action_probability == 0.25).all() and (cleanba.env_family == "v5").all()
    for column in ("training_frames", "seeds", "max_episode_frames", "start_condition", "evaluation"):
        assert cleanba[column].isna().all(), column  # the files and README do not say
    assert cleanba.protocol_note.str.contains("line 14").all()


def test_the_learning_curves_are_kept_at_the_stated_resolution(imported):
    subsets = as_coefficient_set("paper-2023").subsets
    curve_games = {g for name, model in subsets.items() if name.startswith("Atari-") for g in model.games}
    assert len(curve_games) == 15  # Atari-10 and Atari-5-Val: every game an Atari-n subset reads
    budget = rows_of(imported.budget_scores, DOPAMINE)
    assert set(budget.training_frames) == BUDGETS and set(budget.game_id) == curve_games
    assert (budget.points == 5).all() and (budget.last_frame == budget.training_frames).all()
    per_budget = budget.groupby(["algorithm_id", "training_frames", "game_id"]).size()
    assert len(per_budget) == 16 * 15 * len(BUDGETS) and (per_budget == 5).all()
    assert len(budget) == 16 * 15 * 5 * len(BUDGETS)  # 3,600 rows: the stated choice, not every iteration
    for algorithm_id in DOPAMINE:
        metadata = " ".join((ROOT / "contributions" / algorithm_id / "metadata.yaml").read_text(encoding="utf-8").split())
        assert "Budget rows at 10M, 50M, 100M for the 15 games of the Atari-n subsets; final rows at 200M" in metadata
        assert "Curve resolution:" in metadata
    assert not len(rows_of(imported.budget_scores, CLEANBA))  # Cleanba's files hold final numbers only


def test_the_leaderboard_shows_them_with_protocol_and_curves(imported, run):
    board = leaderboard(dataset=imported)
    by_id = {row.algorithm_id: row for row in board.rows}
    assert set(DOPAMINE) | {"cleanba-impala-1gpu"} <= set(by_id)
    coefficients = as_coefficient_set(None)
    model, constants = coefficients.subsets["Atari-5"], coefficients.constants
    budget = imported.budget_scores
    for algorithm_id in DOPAMINE:
        row = by_id[algorithm_id]
        assert (row.sticky_action_probability, row.seeds, row.evaluation, row.training_frames) == \
            (0.25, 5, None, 200_000_000)
        assert [frames for frames, _, _ in row.curve] == sorted(BUDGETS)
        for frames, value, runs in row.curve:  # recomputed here from the budget rows
            at = budget[(budget.algorithm_id == algorithm_id) & (budget.training_frames == frames)]
            means = at[at.game_id.isin(model.games)].groupby("game_id").score.mean()
            assert value == pytest.approx(float(model_estimate(means.to_dict(), model, constants)), rel=1e-12)
            assert runs == at[at.game_id.isin(model.games)].groupby("game_id").size().min()
    assert by_id["cleanba-impala-1gpu"].curve == ()
    status, out, _ = run("leaderboard")
    assert status == 0
    curves = out.split("Learning curves:")[1]
    dqn = next(line for line in curves.splitlines() if "DQN (Dopamine)" in line)
    for frames, value, _ in by_id["dopamine-dqn"].curve:
        assert f"{format_frames(frames)} {value:,.1f} (5 runs)" in dqn
    assert dqn.rstrip().endswith("; -")  # the evaluation Dopamine's files do not state
    status, out, _ = run("leaderboard", "--json")
    row = next(r for r in json.loads(out)["rows"] if r["algorithm_id"] == "dopamine-dqn")
    assert [c[0] for c in row["curve"]] == sorted(BUDGETS) and row["evaluation"] is None
    btr = next(r for r in json.loads(out)["rows"] if r["algorithm_id"] == "btr")  # an earlier curve import, one run
    assert [c[0] for c in btr["curve"]] == [10_000_000, 25_000_000, 50_000_000, 100_000_000]


# --- the import script's reading of Dopamine's two layouts, on synthetic files ---------------------------------

def _write(path: Path, records: list[dict]) -> None:
    path.write_bytes(gzip.compress(json.dumps(records, indent=1).encode("utf-8")))


@pytest.fixture(scope="module")
def script():
    sys.path.insert(0, str(ROOT / "scripts"))
    import import_2027

    return import_2027


def test_runs_are_blocks_in_game_files_and_positions_in_network_files(tmp_path, script):
    blocks = [dict(Iteration=i, Value=float(100 * run + i), Agent="DQN") for run in range(5) for i in range(3)]
    _write(tmp_path / "pong.json.gz", blocks + [dict(Iteration=0, Value=9.5, Agent="C51")])
    runs = script.dopamine_runs(tmp_path / "pong.json.gz", "DQN", blocks=True)
    assert sorted(runs) == [0, 1, 2, 3, 4]
    assert [v for _, v, _ in runs[3]] == ["300.0", "301.0", "302.0"]
    assert runs[0][1][2] == 4 + 5 * 1  # the line of the second record's Value
    # iteration by iteration; iteration 2 has four rows: its runs cannot be told apart, so it is left out
    interleaved = [dict(Iteration=i, Value=float(100 * run + i), Agent="QR-DQN") for i in range(3) for run in range(5)
                   if not (i == 2 and run == 4)]
    _write(tmp_path / "pong_CNN.json.gz", interleaved)
    runs = script.dopamine_runs(tmp_path / "pong_CNN.json.gz", "QR-DQN", blocks=False)
    assert sorted(runs) == [0, 1, 2, 3, 4] and all(len(points) == 2 for points in runs.values())
    assert [v for _, v, _ in runs[4]] == ["400.0", "401.0"]


def test_a_run_counts_at_a_budget_by_the_packages_curve_rule(tmp_path, script):
    records = [dict(Iteration=i, Value=float(i), Agent="DQN") for _ in range(5) for i in range(199)]
    _write(tmp_path / "alien.json.gz", records)
    rows = pd.DataFrame(script.dopamine_rows(tmp_path / "alien.json.gz", "DQN", blocks=True, budgets=(10_000_000,)),
                        columns=["game", "score", "seed", "frames", "points", "first", "last", "provenance"])
    at_10m = rows[rows.frames == 10_000_000]
    final = rows[rows.frames == ""]
    assert len(at_10m) == len(final) == 5
    assert set(at_10m.score) == {"7"}  # the mean of iterations 5-9, which end at 6M-10M frames
    assert set(final.score) == {"196"}  # iterations 194-198: the last run of 199M frames counts at 200M
    assert final.provenance.iloc[0] == "alien.json lines 974-994 (run 0, iterations 194-198)"
