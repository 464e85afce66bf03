"""Issue 46 item 4: ``relative_score`` / ``score --relative-to`` compare measured medians when both sides have 40+ games."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import atari5_spec
from atari5_spec.scoring.baselines import algorithm_baseline, seed_runs
from atari5_spec.scoring.measured_ratio import MIN_GAMES, RESAMPLES, SEED, measured_comparison

REPOSITORY = Path(__file__).resolve().parents[1]
FIXTURES = Path("tests") / "fixtures" / "measured_medians"


@pytest.fixture(scope="module")
def games():
    """game id -> (random, human) for the 57 games, from data/games.csv."""
    with (REPOSITORY / "data" / "games.csv").open(newline="", encoding="utf-8") as handle:
        return {r["game_id"]: (float(r["random_score"]), float(r["human_score"])) for r in csv.DictReader(handle)
                if r["in_57"].lower() == "true"}


def direct_median(scores: dict, common, games) -> float:
    """numpy on its own: the median over ``common`` of 100 (x - random) / (human - random)."""
    raw = np.array([scores[g] for g in common])
    random, human = np.array([games[g][0] for g in common]), np.array([games[g][1] for g in common])
    return float(np.median(100.0 * (raw - random) / (human - random)))


def test_the_measured_ratio_is_the_ratio_of_two_entries_normalised_medians(games):
    # two dataset entries with different game sets (56 and 54 of the 57): the ratio is over the games both have
    agent, baseline = algorithm_baseline("noisy-dqn-noop"), algorithm_baseline("noisynet-dueling")
    result = atari5_spec.relative_score(agent.scores, "noisynet-dueling", n_bootstrap=0)
    m = result.measured
    common = [g for g in games if g in agent.scores and g in baseline.scores]
    assert (m.agent_games, m.baseline_games, m.n_games) == (
        sum(g in agent.scores for g in games), sum(g in baseline.scores for g in games), len(common))
    assert m.n_games < m.agent_games and m.games == tuple(common)  # the agent's 2 games more are left out
    assert m.agent_median == pytest.approx(direct_median(agent.scores, common, games), rel=1e-12)
    assert m.baseline_median == pytest.approx(direct_median(baseline.scores, common, games), rel=1e-12)
    assert m.ratio == pytest.approx(direct_median(agent.scores, common, games)
                                    / direct_median(baseline.scores, common, games), rel=1e-12)
    assert m.atari5_ratio == result.ratio  # the Atari-5 ratio beside it
    # neither has per-seed scores in the package: no seed interval, so no measured direction
    assert m.interval is None and m.decision is None and "noisynet-dueling" in m.note


def test_the_seed_bootstrap_is_deterministic_and_holds_the_measured_ratio():
    # the agent's runs (5 seeds per game) against an entry whose seeds are in data/seed_scores.csv
    runs = seed_runs("dopamine-rainbow")
    first, second = (atari5_spec.relative_score(runs, "dopamine-iqn", n_bootstrap=0).measured for _ in range(2))
    assert first == second
    low, high = first.interval
    assert low <= first.ratio <= high and low < high
    assert (first.n_resamples, first.bootstrap_seed, first.level) == (RESAMPLES, SEED, 0.95)
    assert first.baseline_seeds == "data/seed_scores.csv (dopamine-iqn)" and first.note == ""
    assert first.decision == ("higher" if low > 1 else "lower" if high < 1 else "cannot tell")
    # the bootstrap ignores --bootstrap and --seed (pinned), follows the level
    other = atari5_spec.relative_score(runs, "dopamine-iqn", n_bootstrap=200, seed=7, confidence=0.8).measured
    assert other.ratio == first.ratio and low <= other.interval[0] <= other.interval[1] <= high


def test_a_package_entry_whose_seeds_are_not_its_published_numbers_gets_no_interval():
    entry = algorithm_baseline("dopamine-iqn")
    changed = entry._replace(scores={**entry.scores, "alien": entry.scores["alien"] + 1.0})
    m = atari5_spec.relative_score(seed_runs("dopamine-rainbow"), changed, n_bootstrap=0).measured
    assert m.ratio is not None and m.interval is None and m.decision is None
    assert "alien" in m.note and "data/seed_scores.csv" in m.note


def test_below_40_games_on_either_side_there_is_no_measured_comparison():
    entry = algorithm_baseline("dopamine-rainbow")
    five = {g: entry.scores[g] for g in ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")}
    assert atari5_spec.relative_score(five, "dopamine-iqn", n_bootstrap=0).measured is None
    forty = dict(list(entry.scores.items())[:MIN_GAMES]) | five
    forty = dict(list(forty.items())[-MIN_GAMES:])
    assert len(forty) == MIN_GAMES and set(five) <= set(forty)
    assert atari5_spec.relative_score(forty, "dopamine-iqn", n_bootstrap=0).measured.n_games == MIN_GAMES
    fewer = {g: v for g, v in forty.items() if g != next(g for g in forty if g not in five)}
    assert atari5_spec.relative_score(fewer, "dopamine-iqn", n_bootstrap=0).measured is None
    # 40 on each side but fewer in common: none either
    normalised = {f"g{i}": float(i) for i in range(50)}
    other = {f"g{i}": float(i) for i in range(15, 65)}
    assert measured_comparison(normalised, other, [f"g{i}" for i in range(65)], {}, None, None, 0.95) is None


def test_a_baseline_at_random_play_has_medians_but_no_ratio():
    canonical = [f"g{i}" for i in range(45)]
    m = measured_comparison({g: 50.0 for g in canonical}, {g: -1.0 for g in canonical}, canonical, {}, None, None,
                            0.95)
    assert m.ratio is None and m.baseline_median == -1.0 and "random" in m.note


@pytest.mark.parametrize("baseline", ["baseline_5.csv", "rainbow-noop"])
def test_a_five_game_comparison_has_no_measured_part(run, monkeypatch, baseline):
    # below 40 games nothing is measured: no line, no JSON key (the outputs were checked byte-identical to the
    # ones before the measured comparison when it was added, commit ed736e1)
    monkeypatch.chdir(REPOSITORY)
    source = str(FIXTURES / baseline) if baseline.endswith(".csv") else baseline
    common = ["score", str(FIXTURES / "agent_5.csv"), "--relative-to", source, "--bootstrap", "500"]
    for extra in ([], ["--explain"]):
        status, out, _ = run(*common, *extra)
        assert status == 0 and "measured ratio of medians over the" not in out
    status, out, _ = run(*common, "--format", "json")
    assert status == 0 and "measured" not in json.loads(out)["relative"]


def test_score_prints_the_measured_ratio_beside_the_atari5_ratio(run, tmp_path):
    runs = seed_runs("dopamine-rainbow")
    path = tmp_path / "runs.csv"
    path.write_text("game,score,seed\n" + "".join(f"{g},{v!r},{i}\n" for g, values in runs.items()
                                                  for i, v in enumerate(values)), encoding="utf-8")
    result = atari5_spec.relative_score(runs, "dopamine-iqn", n_bootstrap=0)
    m = result.measured
    status, out, _ = run("score", str(path), "--relative-to", "dopamine-iqn", "--bootstrap", "0")
    assert status == 0
    lines = out.splitlines()
    assert f"measured ratio of medians over the {m.n_games} games both have: {m.ratio:.3f} " \
           f"(Atari-5 ratio: {result.ratio:.3f})" in lines
    assert f"  {m.level:.0%} seed interval: {m.interval[0]:.3f} to {m.interval[1]:.3f} (seed noise only; " \
           f"{RESAMPLES:,} resamples, seed {SEED})" in lines
    status, out, _ = run("score", str(path), "--relative-to", "dopamine-iqn", "--bootstrap", "0", "--json")
    measured = json.loads(out)["relative"]["measured"]
    assert measured["ratio"] == m.ratio and measured["interval"] == list(m.interval)
    assert measured["n_games"] == m.n_games and measured["decision"] == m.decision


def test_relative_scores_frame_carries_the_measured_comparison():
    five = {g: v for g, v in algorithm_baseline("dopamine-rainbow").scores.items()
            if g in ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")}
    results = atari5_spec.relative_scores({"five": five, "runs": seed_runs("dopamine-rainbow")}, "dopamine-iqn",
                                          n_bootstrap=0)
    frame = results.to_frame()
    m = results["runs"].measured
    assert frame.loc["runs", "measured_ratio"] == m.ratio and frame.loc["runs", "measured_games"] == m.n_games
    assert (frame.loc["runs", "measured_low"], frame.loc["runs", "measured_high"]) == m.interval
    assert np.isnan(frame.loc["five", "measured_ratio"]) and frame.loc["five", "measured_games"] == 0
