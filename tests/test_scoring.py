"""Scoring through the public API: Table 3, game names, inputs, intervals, signatures, predict, leaderboard."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scoring_support import dataset_subset_scores

import atari5_spec
from atari5_spec.data.errors import InputError
from atari5_spec.data.ids import resolve_game
from atari5_spec.data.published import matches_printed, published_rows
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec.scoring.estimate import (
    REPORTED_SUBSETS,
    games_table,
    load_aliases,
    score,
    model_estimate,
)
from atari5_spec.scoring.prediction import predict
from atari5_spec.scoring.ranking import leaderboard
from atari5_spec.scoring.relative import relative_score


@pytest.fixture(scope="session")
def coefficients():
    """The package's default pinned version (paper-2023)."""
    return load_coefficient_set()


@pytest.fixture(scope="session")
def atari5_games(coefficients):
    return coefficients.subsets["Atari-5"].games


@pytest.fixture(scope="session")
def table3():
    return published_rows("table03_atari5_scores")


def seeded_runs(games, n_seeds, rng_seed=1):
    """Per-seed scores spread around each game's human score (a plausible agent)."""
    rng = np.random.default_rng(rng_seed)
    human = {row["game_id"]: float(row["human_score"]) for row in games_table() if row["human_score"]}
    return {g: list(human[g] * (1.0 + 0.3 * rng.standard_normal(n_seeds))) for g in games}


# --- Table 3 ---------------------------------------------------------------------------------------------------

def test_table3_reproduced_through_the_public_api(dataset, table3, atari5_games):
    for row in table3:
        raw = dataset_subset_scores(dataset, row["algorithm_id"], atari5_games)
        assert set(raw) == set(atari5_games), row["algorithm_id"]
        result = atari5_spec.score(raw)
        # Table 3 truncates (1975.8 is printed 1,975): compare at printed precision, truncating.
        assert matches_printed(result.estimate, row["atari5"], truncate=True), (row["algorithm"], result.estimate)


def test_input_forms_agree(dataset, table3, atari5_games):
    raw = dataset_subset_scores(dataset, table3[0]["algorithm_id"], atari5_games)
    expected = score(raw).estimate
    as_lists = {g: [v] for g, v in raw.items()}
    as_records = [{"game": g, "score": v} for g, v in raw.items()]
    as_tuples = [(g, v) for g, v in raw.items()]
    import pandas as pd

    as_frame = pd.DataFrame(as_records)
    for form in (as_lists, as_records, as_tuples, as_frame):
        assert score(form).estimate == expected


# --- game names ------------------------------------------------------------------------------------------------

def test_every_spelling_family_resolves_for_all_57_games():
    aliases = load_aliases()
    canonical = [row for row in games_table() if row["in_57"] == "true"]
    assert len(canonical) == 57
    for row in canonical:
        game_id, gymnasium = row["game_id"], row["gymnasium_id"]
        v4 = gymnasium.removeprefix("ALE/").replace("-v5", "NoFrameskip-v4")
        spellings = [game_id, row["name"], gymnasium, v4, row["name"].upper(), f"  {row['name'].lower()} ",
                     gymnasium.replace("-v5", "-ram-v5"), v4.replace("NoFrameskip", "Deterministic")]
        for spelling in spellings:
            assert resolve_game(spelling, aliases) == game_id, spelling
    for row in published_rows("table12_normalisation"):
        assert resolve_game(row["game"], aliases) == row["game_id"], row["game"]


@pytest.mark.parametrize("spelling, game_id", [
    ("Ms Pacman", "ms_pacman"), ("MsPacMan", "ms_pacman"), ("Ms. Pac-Man", "ms_pacman"),
    ("Montezuma Revenge", "montezuma_revenge"), ("Montezuma's Revenge", "montezuma_revenge"),
    ("Up n Down", "up_n_down"), ("Yars Revenge", "yars_revenge"), ("Yar's Revenge", "yars_revenge"),
    ("QBert", "qbert"), ("Q*Bert", "qbert"), ("Riverraid", "riverraid"), ("River Raid", "riverraid"),
    ("Kung Fu Master", "kung_fu_master"), ("KungFuMaster", "kung_fu_master"), ("S. Invaders", "space_invaders"),
    ("DoubleDdunk", "double_dunk"), ("H.E.R.O.", "hero"), ("Pitfall", "pitfall"), ("Private eye", "private_eye"),
    ("James Bond 007", "jamesbond"), ("BattleZoneNoFrameskip-v4", "battle_zone"), ("battle_zone.bin", "battle_zone"),
])
def test_paper_and_common_spellings(spelling, game_id):
    assert resolve_game(spelling, load_aliases()) == game_id


def test_unknown_game_suggests_the_closest_names():
    with pytest.raises(InputError, match=r"unknown game 'Battle Zoen'.*battle_zone"):
        score({"Battle Zoen": 1.0})


# --- subsets -----------------------------------------------------------------------------------------------------

def test_every_subset_the_games_allow_is_scored(coefficients):
    all_games = {g for name in REPORTED_SUBSETS for g in coefficients.subsets[name].games}
    runs = {g: v[0] for g, v in seeded_runs(sorted(all_games), 1).items()}
    result = score(runs)
    assert result.not_computable == {}
    assert [s.subset for s in result.other_subsets] == [s for s in REPORTED_SUBSETS if s != "Atari-5"]
    for subset in result.other_subsets:
        model = coefficients.subsets[subset.subset]
        assert subset.estimate == pytest.approx(float(model_estimate(runs, model, coefficients.constants)))
        assert subset.signature.startswith(subset.subset + "|")


def test_missing_games_raise_unless_partial_results_are_asked_for(coefficients):
    atari3 = coefficients.subsets["Atari-3"].games
    given = {g: v[0] for g, v in seeded_runs(atari3, 1).items()}
    with pytest.raises(InputError, match="Atari-5 needs .*computed instead: Atari-1, Atari-3"):
        score(given)  # the API fails as the command line does, instead of returning estimate=None silently
    result = score(given, partial=True)
    assert result.estimate is None and result.signature is None
    assert set(result.not_computable["Atari-5"]) == set(coefficients.subsets["Atari-5"].games) - set(atari3)
    assert {s.subset for s in result.other_subsets} == {"Atari-1", "Atari-3"}
    assert "Atari-10" in result.not_computable


def test_subset_by_any_spelling_and_unknown_subset(dataset, table3, atari5_games):
    raw = dataset_subset_scores(dataset, table3[0]["algorithm_id"], atari5_games)
    assert score(raw, subset="atari3").subset == "Atari-3"
    with pytest.raises(InputError, match="unknown subset"):
        score(raw, subset="Atari-7")


def test_estimate_is_the_paper_formula(coefficients, atari5_games):
    runs = seeded_runs(atari5_games, 4)
    result = score(runs)
    model = coefficients.subsets["Atari-5"]
    log_score = 0.0
    for game, weight in zip(model.games, model.coefficients):
        random, human = coefficients.constants[game]
        z = 100.0 * (np.mean(runs[game]) - random) / (human - random)
        assert result.normalised[game] == pytest.approx(z)
        log_score += weight * math.log10(1.0 + max(0.0, z))
    assert result.estimate == pytest.approx(10 ** log_score - 1.0)


# --- seeds and intervals ---------------------------------------------------------------------------------------

def test_interval_is_reproducible_and_contains_the_estimate(atari5_games):
    runs = seeded_runs(atari5_games, 5)
    first = score(runs, n_bootstrap=2000, seed=7)
    again = score(runs, n_bootstrap=2000, seed=7)
    other = score(runs, n_bootstrap=2000, seed=8)
    assert first.interval == again.interval
    assert first.interval != other.interval
    assert first.interval[0] < first.estimate < first.interval[1]
    assert first.n_seeds == {g: 5 for g in atari5_games}
    assert first.bootstrap.n_resamples == 2000 and first.bootstrap.seed == 7
    assert "resampled with replacement" in first.bootstrap.method
    assert "|seeds:5,5,5,5,5|boot:2000,seed=7,ci=95|" in first.signature


def test_interval_does_not_depend_on_other_games_given(coefficients, atari5_games):
    runs = seeded_runs(atari5_games, 4)
    extra = seeded_runs(coefficients.subsets["Atari-3-Val"].games, 4, rng_seed=2)
    alone = score(runs, n_bootstrap=1000)
    with_more = score({**runs, **extra}, n_bootstrap=1000)
    assert alone.interval == with_more.interval


def test_no_interval_with_a_single_seed(atari5_games):
    runs = seeded_runs(atari5_games, 3)
    runs[atari5_games[0]] = runs[atari5_games[0]][:1]
    result = score(runs)
    assert result.interval is None
    assert any("single seed" in note for note in result.notes)
    assert "boot:" not in result.signature and "seeds:1,3,3,3,3" in result.signature


def test_records_with_seeds(atari5_games):
    runs = seeded_runs(atari5_games, 3)
    records = [{"game": g, "score": v, "seed": s} for g, values in runs.items() for s, v in enumerate(values)]
    assert score(records, seed=3).interval == score(runs, seed=3).interval


def test_bad_settings(atari5_games):
    runs = seeded_runs(atari5_games, 2)
    with pytest.raises(InputError, match="confidence"):
        score(runs, confidence=95)
    with pytest.raises(InputError, match="bootstrap"):
        score(runs, n_bootstrap=-1)


# --- bad values --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, message", [
    (float("nan"), "not a finite score"), (float("inf"), "not a finite score"), ("abc", "not a number"),
    (None, "not a score"), (True, "not a score"),
])
def test_bad_values(value, message):
    with pytest.raises(InputError, match=message):
        score({"battle_zone": value})


def test_duplicate_games():
    with pytest.raises(InputError, match="given again"):
        score([("battle_zone", 1.0), ("Battle Zone", 2.0)])
    with pytest.raises(InputError, match="seed 1 is given again"):
        score([("qbert", 1.0, 1), ("qbert", 2.0, 1)])


def test_implausible_scores_are_refused_or_scored_knowingly(dataset, table3, atari5_games):
    raw = dataset_subset_scores(dataset, table3[0]["algorithm_id"], atari5_games)
    best = dataset.scores.groupby("game_id")["score"].max()
    high = dict(raw, qbert=best["qbert"] * 100)
    with pytest.raises(InputError, match="qbert.*above"):
        score(high)
    result = score(high, allow_implausible=True)
    assert result.estimate is not None and len(result.implausible_allowed) == 1
    assert result.parsed_signature.gate == "implausible-allowed"
    assert all("gate:implausible-allowed" in s.signature for s in result.other_subsets)
    low = dict(raw, phoenix=-1e7)
    assert any(w.startswith("phoenix:") and "below random" in w for w in score(low).warnings)
    assert score(raw).warnings == ()


def test_the_gate_holds_both_sides_of_a_ratio(dataset, table3, atari5_games):
    """Issue 45: one gate, the baseline's given scores too (before, relative_score checked neither side)."""
    raw = dataset_subset_scores(dataset, table3[0]["algorithm_id"], atari5_games)
    implausible = dict(raw, double_dunk=150.0)
    with pytest.raises(InputError, match="^baseline: .*double_dunk"):
        atari5_spec.relative_score(raw, implausible)
    with pytest.raises(InputError, match="^scores.*double_dunk"):
        atari5_spec.relative_score(implausible, raw)
    knowingly = atari5_spec.relative_score(raw, implausible, allow_implausible=True)
    assert knowingly.parsed_signature.gate == "implausible-allowed"
    assert knowingly.baseline.implausible_allowed and not knowingly.agent.implausible_allowed
    assert knowingly.ratio == score(raw).estimate / score(implausible, allow_implausible=True).estimate
    assert atari5_spec.relative_score(raw, dict(raw, qbert=raw["qbert"] * 1.5)).parsed_signature.gate is None


# --- signature, versions -----------------------------------------------------------------------------------------

def test_signature_fields(coefficients, atari5_games):
    result = score({g: v[0] for g, v in seeded_runs(atari5_games, 1).items()})
    fields = result.signature.split("|")
    assert fields[0] == "Atari-5"
    assert fields[1] == f"coef:{coefficients.version}@{coefficients.digest}"
    assert fields[2] == f"cal:{result.prediction_interval.calibration}"  # the pinned errors behind the interval
    assert fields[3] == "norm:agent57-human"  # the paper's Table 12 constants
    assert fields[4] == "phi:log10p1"
    assert fields[-3].startswith("data:") and fields[-1] == f"v:{atari5_spec.__version__}"
    assert fields[-2] == "spec:1.2"  # the SPEC.md version the number follows


def test_unknown_version_is_an_input_error():
    with pytest.raises(InputError, match="no coefficient version 'no-such-version'"):
        load_coefficient_set("no-such-version")


def test_edited_pinned_version_is_refused(tmp_path, coefficients):
    import shutil

    copy = tmp_path / coefficients.version
    shutil.copytree(coefficients.path, copy)
    text = (copy / "subset_coefficients.csv").read_text()
    (copy / "subset_coefficients.csv").write_text(text.replace(",0.", ",1.", 1))
    with pytest.raises(InputError, match="differs from the hash in its manifest"):
        load_coefficient_set(copy)


# --- relative scores ---------------------------------------------------------------------------------------------

def test_relative_to_a_baseline(dataset, table3, atari5_games):
    agent = dataset_subset_scores(dataset, table3[3]["algorithm_id"], atari5_games)
    baseline = dataset_subset_scores(dataset, table3[4]["algorithm_id"], atari5_games)
    result = relative_score(agent, baseline)
    assert result.ratio == pytest.approx(result.agent.estimate / result.baseline.estimate)
    assert result.signature.startswith("Atari-5 ratio|")
    assert relative_score(agent, agent).ratio == 1.0


def test_relative_interval_with_seeds(atari5_games):
    agent, baseline = seeded_runs(atari5_games, 4, 1), seeded_runs(atari5_games, 4, 2)
    result = relative_score(agent, baseline, n_bootstrap=2000)
    assert result.interval[0] < result.ratio < result.interval[1]
    assert result.interval == relative_score(agent, baseline, n_bootstrap=2000).interval


# --- predict and leaderboard -------------------------------------------------------------------------------------

@pytest.mark.parametrize("subset", ["Atari-5", "Atari-10"])
def test_predict_all_57_games(subset, coefficients):
    predictors = coefficients.subsets[subset].games
    runs = {g: v[0] for g, v in seeded_runs(predictors, 1).items()}
    result = predict(runs, subset=subset)
    assert len(result.predictions) == 57
    for p in result.predictions:
        random, human = coefficients.constants[p.game_id]
        assert p.raw == pytest.approx(random + (human - random) * p.normalised / 100.0)
        if p.is_predictor:
            assert p.given_raw == pytest.approx(runs[p.game_id]) and p.raw == pytest.approx(runs[p.game_id])
    assert sum(p.is_predictor for p in result.predictions) == len(predictors)


def test_predict_needs_the_subset_games():
    with pytest.raises(InputError, match="predictions need"):
        predict({"qbert": 1000.0})


def test_leaderboard_ranks_the_table3_algorithms_and_the_user(dataset, table3, atari5_games):
    board = leaderboard(dataset=dataset)
    by_id = {row.algorithm_id: row for row in board.rows}
    for row in table3:
        assert matches_printed(by_id[row["algorithm_id"]].estimate, row["atari5"], truncate=True)
        assert matches_printed(by_id[row["algorithm_id"]].median, row["median"], truncate=True)
    estimates = [row.estimate for row in board.rows]
    assert estimates == sorted(estimates, reverse=True)
    agent = dataset_subset_scores(dataset, table3[3]["algorithm_id"], atari5_games)
    mine = leaderboard(agent, dataset=dataset)
    assert mine.user_rank == by_id[table3[3]["algorithm_id"]].rank  # ties rank level with the algorithm


# --- speed -------------------------------------------------------------------------------------------------------

def test_score_path_does_not_import_pandas(atari5_games):
    arguments = [a for g in atari5_games for a in ("--score", f"{g}={10 if g == 'double_dunk' else 1000}")]
    code = ("import sys\nfrom atari5_spec.cli import main\ncode = main(sys.argv[1:])\n"
            "assert 'pandas' not in sys.modules, 'pandas was imported'\nraise SystemExit(code)")
    done = subprocess.run([sys.executable, "-c", code, "score", *arguments], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- citation ----------------------------------------------------------------------------------------------------

def test_citation_cff_names_the_package_version_and_the_paper():
    import re
    from pathlib import Path

    import yaml

    from atari5_spec.data.datapackage import read_descriptor

    repository = Path(__file__).resolve().parents[1]
    citation = yaml.safe_load((repository / "CITATION.cff").read_text(encoding="utf-8"))
    # the [project] version line (tomllib needs Python 3.11; the floors job runs 3.10)
    version = re.search(r'^version = "([^"]+)"$', (repository / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == version.group(1) == atari5_spec.__version__
    paper = citation["preferred-citation"]
    paper_source = read_descriptor(repository)["sources"][0]
    assert paper_source["title"].startswith(paper["title"])
    assert paper_source["path"] == paper["url"]
    assert [a["family-names"] for a in paper["authors"]] == ["Aitchison", "Sweetser", "Hutter"]
    assert paper["year"] == 2023 and str(paper["volume"]) == "202"
