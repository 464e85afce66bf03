"""Out-of-sample evaluation, prediction intervals and protocol awareness."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import atari5_spec
from atari5_spec.cli import main
from atari5_spec.method import coefficients as coef
from atari5_spec.method import training
from atari5_spec.method.calibration import conformal_quantile, read_calibration, sticky_from_game_ids
from atari5_spec_research.evaluation import agent_scores, coverage_table, version_errors
from atari5_spec_research.evaluation.agents import algorithm_info
from atari5_spec_research.evaluation.errors import loso_errors, nested_cv
from atari5_spec.method.fitting import fit_no_intercept
from atari5_spec.method.pinned import load_coefficient_set


@pytest.fixture(scope="module")
def data():
    return atari5_spec.load(scores="all")


@pytest.fixture(scope="module")
def agents(data):
    return agent_scores(data)


@pytest.fixture(scope="module")
def paper(data, agents):
    return version_errors(data, "paper-2023", agents)


def raw_scores(data, algorithm_id, games):
    rows = training.candidate_rows(data.scores, data.algorithms.assign(exclusion=None), data.games)
    rows = rows[rows.algorithm_id == algorithm_id].groupby("game_id").score.first()
    return {g: float(rows[g]) for g in games}


def test_held_out_agents_are_outside_the_training_set_and_include_every_new_result(data, paper):
    trained, errors = paper
    held = errors[(errors.subset == "Atari-5") & (errors.kind == "held-out")]
    assert not set(held.algorithm_id) & set(trained)
    expected = {"dreamerv3", "muzero-curves", "ppo-dreamerv3", "ppo2-baselines", "ppo-cleanrl-envpool",
                "go-explore-2021"}
    assert expected <= set(held.agent)
    for budget in ("10M", "25M", "50M", "100M"):
        assert f"dreamerv3@{budget}" in set(held.agent)
    # Atari 100k entries have 26 games: no true 57-game median
    assert not held.algorithm_id.str.endswith("atari100k").any()


def test_a_held_out_estimate_is_exactly_what_score_gives_for_the_same_numbers(data, paper):
    _, errors = paper
    row = errors[(errors.subset == "Atari-5") & (errors.agent == "dreamerv3")].iloc[0]
    model = load_coefficient_set("paper-2023").subsets["Atari-5"]
    result = atari5_spec.score(raw_scores(data, "dreamerv3", model.games), n_bootstrap=0)
    assert result.estimate == pytest.approx(row.estimate, rel=1e-12)
    zs = data.scores[(data.scores.algorithm_id == "dreamerv3") & data.scores.use_in_fit]
    z = training.normalised_scores(zs, data.games)
    z = z[z.game_id.isin(training.canonical_games(data.games))]
    assert row.true_median == pytest.approx(float(np.median(z.normalised)), rel=1e-12)
    assert row.ratio == pytest.approx((1 + row.estimate) / (1 + row.true_median))


def test_leave_one_paper_out_never_fits_on_the_papers_own_agents(data):
    manifest, tables = coef.read_version_tables(data.root / "coefficients", "paper-2023")
    X, y = training.training_matrix(tables["training_rows"], data.games, data.algorithms)
    info = algorithm_info(data.algorithms, X.index)
    games = list(load_coefficient_set("paper-2023").subsets["Atari-5"].games)
    errors = loso_errors(X, y, info, "Atari-5", games).set_index("agent")
    rainbow = info.index[info.paper == info.loc["rainbow-noop", "paper"]]
    assert len(rainbow) > 1  # the Rainbow paper's seven columns are held out together
    keep = X[games].notna().all(axis=1) & ~X.index.isin(rainbow)
    weights = fit_no_intercept(X.loc[keep, games].to_numpy(), y[keep].to_numpy())
    expected = y["rainbow-noop"] - X.loc["rainbow-noop", games].to_numpy() @ weights
    assert errors.loc["rainbow-noop", "log_error"] == pytest.approx(expected, abs=1e-12)


def test_coverage_is_measured_leave_one_paper_out(paper):
    _, errors = paper
    table = coverage_table(errors).set_index(["subset", "kind"])
    atari5 = errors[errors.subset == "Atari-5"]
    covered = 0
    held = atari5[atari5.kind == "held-out"]
    for error, own in zip(held.log_error, held.paper):
        others = np.sort(np.abs(atari5.loc[atari5.paper != own, "log_error"].to_numpy()))
        rank = math.ceil((len(others) + 1) * 0.95)
        covered += abs(error) <= others[rank - 1]
    assert table.loc[("Atari-5", "held-out"), "covered"] == covered
    assert table.loc[("Atari-5", "held-out"), "n"] == len(held)


def test_pinned_calibration_is_what_the_data_gives(data, paper):
    calibration = read_calibration(data.root / "coefficients" / "paper-2023", "in-range")
    _, errors = paper
    pinned = {(r["subset"], r["agent"]): float(r["log_error"]) for r in calibration.rows}
    computed = {(r.subset, r.agent): r.log_error for r in errors.itertuples()}
    # Agents merged after the version was pinned are new evidence for a new calibration version (the pinned
    # one never changes): every pinned error must still be what the data gives.
    assert pinned.keys() <= computed.keys()
    assert max(abs(pinned[k] - computed[k]) for k in pinned) < 1e-9


@pytest.mark.slow
def test_nested_cross_validation_reruns_the_search_in_every_outer_fold(data):
    _, tables = coef.read_version_tables(data.root / "coefficients", "paper-2023")
    X, y = training.training_matrix(tables["training_rows"], data.games, data.algorithms)
    result = nested_cv(X, y, k=5, n_splits=3)
    assert len(result.chosen) == 3 and all(len(games) == 5 for games in result.chosen)
    assert set(result.errors.fold) == {1, 2, 3}
    assert result.errors.agent.is_unique and set(result.errors.agent) <= set(X.index)
    # optimism: the nested error is not below the selected model's own cross-validated error
    assert result.rel_err_percent > load_coefficient_set("paper-2023").subsets["Atari-5"].rel_err_percent


def test_conformal_quantile():
    errors = [0.1, -0.2, 0.05, -0.3]
    assert conformal_quantile(errors, 0.5) == 0.2  # ceil(5 * 0.5) = 3rd smallest of .05 .1 .2 .3
    assert conformal_quantile(errors, 0.95) == math.inf  # too few errors for 95%


@pytest.mark.parametrize("names, expected", [
    (["ALE/BattleZone-v5", "ALE/Qbert-v5"], 0.25),
    (["BattleZoneNoFrameskip-v4", "QbertNoFrameskip-v4"], 0.0),
    (["ALE/BattleZone-v5", "QbertNoFrameskip-v4"], None),
    (["battle_zone", "Q*bert"], None),
])
def test_sticky_actions_from_game_ids(names, expected):
    assert sticky_from_game_ids(names)[0] == expected


FIVE = {"ALE/BattleZone-v5": [30000, 32000, 35000], "ALE/DoubleDunk-v5": [-1, 0, -2],
        "ALE/NameThisGame-v5": [12000, 11000, 13000], "ALE/Phoenix-v5": [9000, 9500, 8000],
        "ALE/Qbert-v5": [15000, 16000, 14000]}


def test_prediction_interval_holds_the_seed_interval_and_the_estimate_is_untouched():
    plain = atari5_spec.score({k.split("/")[1]: v for k, v in FIVE.items()})
    result = atari5_spec.score(FIVE, training_frames=200_000_000)
    assert result.estimate == plain.estimate  # the protocol never adjusts the estimate, to the last bit
    pi, seeds = result.prediction_interval, result.seed_interval
    assert pi.low < seeds[0] < result.estimate < seeds[1] < pi.high
    default = read_calibration(load_coefficient_set("paper-2023").path)  # the newest pinned edition of the default
    assert pi.level == 0.95 and pi.calibration == f"{default.name}@{default.digest}"
    assert result.protocol.sticky_action_probability == 0.25 and "v5" in result.protocol.source
    assert any("held-out agents with sticky actions" in m for m in result.protocol.messages)


def test_one_seed_says_the_seed_part_is_unknown():
    result = atari5_spec.score({k: v[0] for k, v in FIVE.items()})
    assert result.seed_interval is None
    assert result.prediction_interval.seed_part.startswith("unknown")
    assert result.prediction_interval.low < result.estimate < result.prediction_interval.high


def test_score_json_has_prediction_interval_and_the_seed_interval_named_as_such(capsys, tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("game,seed,score\n" + "".join(f"{g},{i},{s}\n" for g, v in FIVE.items() for i, s in enumerate(v)))
    assert main(["score", str(path), "--json", "--sticky-actions", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["prediction_interval"]["level"] == 0.95 and len(out["prediction_interval"]["interval"]) == 2
    assert "out-of-sample" in out["prediction_interval"]["covers"]
    assert out["seed_interval"] == out["interval"]
    assert out["protocol"]["sticky_action_probability"] == 0.0 and out["protocol"]["source"] == "as given"


@pytest.mark.parametrize("option", [["--sticky-actions", "1.5"], ["--frames", "-3"], ["--frames", "2.5"]])
def test_bad_protocol_options_are_user_errors(capsys, option):
    code = main(["score", "--score", "battle_zone=1", "--score", "double_dunk=1", "--score", "name_this_game=1",
                 "--score", "phoenix=1", "--score", "qbert=1", *option])
    assert code == 1 and "error:" in capsys.readouterr().err


@pytest.mark.slow
def test_evaluate_command_text_json_and_figure(capsys, tmp_path):
    figure = tmp_path / "heldout.png"
    assert main(["evaluate", "--no-nested", "--json", "--figure", str(figure)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["version"] == "paper-2023" and out["nested_cv"] is None
    assert {"held-out", "leave-one-paper-out"} == {e["kind"] for e in out["errors"]}
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["evaluate", "--no-nested", "--version", "paper-2023", "--version", "refit-2026-11"]) == 0
    text = capsys.readouterr().out
    assert "Side by side" in text and "refit-2026-11" in text


def test_refit_version_keeps_the_papers_games_and_adds_the_new_results(data):
    paper_set, refit = load_coefficient_set("paper-2023"), load_coefficient_set("refit-2026-11")
    assert {k: m.games for k, m in paper_set.subsets.items()} == {k: m.games for k, m in refit.subsets.items()}
    manifest, _ = coef.read_version_tables(data.root / "coefficients", "refit-2026-11")
    assert {"dreamerv3", "muzero-curves", "ppo-dreamerv3"} <= set(manifest["training"]["algorithms"])
    assert coef.read_index(data.root / "coefficients")["default"] == "paper-2023"
