"""The results after 2022 in data/, recomputed independently from raw upstream files.

tests/fixtures/upstream_2023_sample.json.gz holds, in the upstream formats, every
raw run of two games (Double Dunk, Q*bert) of each imported curves file and their
rows of the Open RL Benchmark table (written by scripts/import_2023.py). These
tests recompute the numbers from those raw values with plain numpy, without the
package's curve code, and compare them with what the data package holds.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from atari5_spec.data.loading import load

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "upstream_2023_sample.json.gz"
CURVE_AGENTS = {"dreamerv3": 200_000_000, "dreamerv3-atari100k": 400_000, "muzero-curves": 200_000_000,
                "ppo-dreamerv3": 200_000_000, "ppo-dreamerv3-atari100k": 400_000}
TABLE_AGENTS = {"ppo2-baselines": 1, "ppo-cleanrl-envpool": 2}


@pytest.fixture(scope="module")
def data():
    return load()


@pytest.fixture(scope="module")
def raw():
    return json.loads(gzip.decompress(FIXTURE.read_bytes()))


def score_at(xs, ys, budget):
    """The documented rule, written out again: mean of the last 5 non-null points at or below the budget,
    for a run whose curve reaches within max(2.5% of the budget, 108000 frames) of it."""
    xs = np.array(xs, float)
    ys = np.array([np.nan if y is None else y for y in ys], float)
    have = ~np.isnan(ys)
    if not have.any() or xs[have].max() < budget - max(0.025 * budget, 108_000):
        return None
    below = have & (xs <= budget)
    return float(np.mean(ys[below][-5:])) if below.any() else None


def test_every_new_agent_has_all_its_games_protocol_and_pinned_provenance(data):
    algorithms = data.algorithms.set_index("algorithm_id")
    sources = data.sources.set_index("source_id")
    for agent, frames in {**CURVE_AGENTS, **{a: 40_000_000 for a in TABLE_AGENTS}}.items():
        row = algorithms.loc[agent]
        n_games = 26 if frames == 400_000 else 57
        fit = data.scores[(data.scores.algorithm_id == agent) & data.scores.use_in_fit]
        assert fit.game_id.nunique() == len(fit) == n_games, agent
        assert row.training_frames == frames and not row.in_paper_pool and pd_isna(row.exclusion) == (frames > 400_000)
        assert row.statistic in ("mean", "single-seed") and isinstance(row.protocol_note, str), agent
        source = sources.loc[row.source_id]
        assert re.fullmatch(r"[0-9a-f]{40}", source.commit) and source.licence == "MIT", agent
        assert fit.provenance.str.contains(f"; {source.repository}@{source.commit}:{source.repository_path}",
                                           regex=False).all(), agent
    assert algorithms.loc["dreamerv3", "sticky_action_probability"] == 0.25
    assert algorithms.loc["ppo2-baselines", "env_family"] == "NoFrameskip-v4"


def pd_isna(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or str(value) == "<NA>"


@pytest.mark.parametrize("agent", sorted(CURVE_AGENTS))
def test_budget_and_seed_scores_equal_the_rule_applied_to_the_raw_runs(data, raw, agent):
    runs = raw["dreamerv3-repo"][agent]
    assert runs, f"the fixture has no runs of {agent}"
    budgets = data.budget_scores[data.budget_scores.algorithm_id == agent]
    seeds = data.seed_scores[data.seed_scores.algorithm_id == agent].set_index(["game_id", "seed"]).score
    final = CURVE_AGENTS[agent]
    checked = 0
    for run in runs:
        game = run["task"].split("_", 1)[1]
        stored = budgets[(budgets.game_id == game) & (budgets.seed == run["seed"])].set_index("training_frames").score
        for budget in sorted(set(stored.index) | {final}):
            expected = score_at(run["xs"], run["ys"], budget)
            if expected is None:
                assert budget not in stored.index and (budget != final or (game, run["seed"]) not in seeds.index)
                continue
            assert stored[budget] == pytest.approx(expected, rel=1e-12, abs=1e-9), (agent, game, run["seed"], budget)
            checked += 1
        if score_at(run["xs"], run["ys"], final) is not None:
            assert seeds[(game, run["seed"])] == pytest.approx(score_at(run["xs"], run["ys"], final), rel=1e-12)
    assert checked >= len(runs)


@pytest.mark.parametrize("agent", sorted(CURVE_AGENTS))
def test_the_per_game_number_is_the_mean_over_the_runs_that_reach_the_final_budget(data, raw, agent):
    final = CURVE_AGENTS[agent]
    fit = data.scores[(data.scores.algorithm_id == agent) & data.scores.use_in_fit].set_index("game_id").score
    for game in ("double_dunk", "qbert"):
        values = [score_at(r["xs"], r["ys"], final) for r in raw["dreamerv3-repo"][agent]
                  if r["task"] == f"atari_{game}"]
        values = [v for v in values if v is not None]
        if agent.endswith("atari100k") and not values:
            continue  # Atari 100k has 26 games
        assert fit[game] == pytest.approx(np.mean(values), rel=1e-12), (agent, game)


@pytest.mark.parametrize("agent", sorted(TABLE_AGENTS))
def test_mean_plus_minus_std_cells_become_score_std_and_verbatim_raw_value(data, raw, agent):
    fit = data.scores[(data.scores.algorithm_id == agent) & data.scores.use_in_fit].set_index("game_id")
    names = {"DoubleDunkNoFrameskip-v4": "double_dunk", "QbertNoFrameskip-v4": "qbert"}
    for row in raw["openrlbenchmark"]:
        cell = row[TABLE_AGENTS[agent]]
        mean, std = (float(part) for part in cell.split("±"))
        stored = fit.loc[names[row[0]]]
        assert (stored["score"], stored["std"], stored["raw_value"]) == (mean, std, cell)
