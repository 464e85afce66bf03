"""The in-range calibration, the ratio interval, and labels that say what every interval covers."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import atari5_spec
from atari5_spec.cli.main import main
from atari5_spec.data.datapackage import package_root
from atari5_spec.method.calibration import (
    Calibration,
    combine_half_widths,
    conformal_quantile,
    ratio_summary,
    CALIBRATION_METHODS,
    read_calibration,
    split_name,
)
from atari5_spec.scoring.estimate import protocol_check

FIVE = {"battle_zone": [30000, 32000, 35000], "double_dunk": [-1, 0, -2], "name_this_game": [12000, 11000, 13000],
        "phoenix": [9000, 9500, 8000], "qbert": [15000, 16000, 14000]}
STRONG = {"battle_zone": [90000, 95000, 99000], "double_dunk": [20, 21, 22], "name_this_game": [25000, 26000, 27000],
          "phoenix": [90000, 95000, 99000], "qbert": [40000, 42000, 44000]}


@pytest.fixture(scope="module")
def calibration():
    return read_calibration(package_root() / "coefficients" / "paper-2023")


def _fallback_order(root, version="paper-2023"):
    """The pinned calibrations in the order score falls back through them: methods in CALIBRATION_METHODS order,
    each method's editions newest first."""
    from atari5_spec.method.calibration import pinned_calibration_names

    names = pinned_calibration_names(root, version)
    return [n for method in CALIBRATION_METHODS
            for n in sorted((n for n in names if split_name(n)[1] == method), key=lambda n: -split_name(n)[2])]


def test_default_calibration_is_the_pinned_reselected_one(calibration):
    # the newest pinned edition of the first method (formula since its second edition, data 1.77.0, by the rule of
    # docs/out-of-sample.md; reselected before it: the games chosen again without each paper, issue 24)
    first = next(iter(CALIBRATION_METHODS))
    assert first == "formula" and calibration.method == first
    assert calibration.name == _fallback_order(package_root())[0] == "paper-2023.formula.3"
    in_range = calibration.errors("Atari-5", estimate=100.0)
    assert len(in_range) < len(calibration.errors("Atari-5"))  # the extrapolation errors are left out in range
    assert conformal_quantile(in_range, 0.95) < conformal_quantile(calibration.errors("Atari-5"), 0.95)
    assert calibration.group(39.9) == "extrapolation" and calibration.group(40.0) == "in range"
    claim = calibration.claim("Atari-5", 100.0, 0.95)  # leave-one-paper-out, in range, at 95%
    assert claim.status in ("shown", "widened") and claim.evidence.coverage >= 0.90
    assert claim.evidence.runs < claim.evidence.n and claim.evidence.papers < claim.evidence.runs


def test_an_edited_calibration_is_not_used_by_default(tmp_path):
    root = package_root()
    (tmp_path / "coefficients" / "paper-2023").mkdir(parents=True)
    shutil.copytree(root / "calibration", tmp_path / "calibration")
    shutil.copy(root / "datapackage.json", tmp_path / "datapackage.json")
    order = _fallback_order(root)
    assert order == ["paper-2023.formula.3", "paper-2023.formula.2", "paper-2023.formula", "paper-2023.reselected.3",
                     "paper-2023.reselected.2", "paper-2023.reselected", "paper-2023.in-range.2", "paper-2023.in-range",
                     "paper-2023"]
    assert read_calibration(tmp_path / "coefficients" / "paper-2023").name == order[0]
    for name, falls_back_to in zip(order, order[1:]):
        edited = tmp_path / "calibration" / f"{name}.csv"  # an edited newest edition: the older pinned one is used
        edited.write_bytes(edited.read_bytes().replace(b"0.1", b"0.2", 1))
        assert read_calibration(tmp_path / "coefficients" / "paper-2023").name == falls_back_to


@pytest.mark.parametrize("seed_to_model", [0.25, 0.5, 1.0, 2.0, 4.0])
def test_root_sum_square_keeps_the_level(calibration, seed_to_model):
    """Model error drawn from the pinned in-range errors, seed noise normal with its own 95% half-width s:
    the combined half-width sqrt(q^2 + s^2) covers their sum at least 94% of the time."""
    errors = np.array(calibration.errors("Atari-5", estimate=100.0))
    q = conformal_quantile(errors, 0.95)
    s = seed_to_model * q
    rng = np.random.default_rng(7)
    total = rng.choice(errors, 200_000) + rng.normal(0, s / 1.96, 200_000)
    coverage = np.mean(np.abs(total) <= combine_half_widths(q, s))
    assert coverage >= 0.94, coverage
    assert combine_half_widths(q, s) < q + s  # narrower than adding the half-widths


def test_a_shift_whose_papers_straddle_one_claims_no_direction():
    straddle = ratio_summary([(0.8, "paper A"), (0.85, "paper A"), (1.2, "paper B"), (1.1, "paper C")])
    assert straddle.mean_low < 1 < straddle.mean_high and straddle.direction == "cannot tell"
    assert "cannot tell" in straddle.text("with sticky actions") and "tend to be" not in straddle.text("x")
    one_paper = ratio_summary([(1.3, "paper A"), (1.4, "paper A")])
    assert one_paper.mean_low is None and one_paper.direction == "cannot tell"
    clear = ratio_summary([(1.30, "A"), (1.32, "B"), (1.35, "C"), (1.31, "D")])
    assert clear.direction == "over-estimated" and "tend to be over-estimated" in clear.text("x")


def test_protocol_message_with_straddling_agents_states_n_papers_and_interval():
    rows = tuple(dict(subset="Atari-5", agent=f"a{i}", paper=p, kind="held-out", sticky="sticky",
                      budget="200000000", ratio=str(r), estimate="100", log_error="0")
                 for i, (p, r) in enumerate([("A", 0.8), ("B", 1.25), ("C", 0.95), ("C", 1.05)]))
    check = protocol_check("Atari-5", Calibration("test", rows, "00000000", "in-range"), "test", 0.25, 200_000_000,
                           "as given")
    text = " ".join(check.messages)
    assert "4 held-out agents" in text and "3 papers" in text and "95% interval over papers" in text
    assert "cannot tell" in text and "on average" not in text and "tend to be" not in text


def test_ratio_interval_decides_only_when_it_excludes_one():
    result = atari5_spec.relative_score(STRONG, FIVE)
    pi = result.prediction_interval
    assert pi.low < result.ratio < pi.high and pi.level == 0.95
    assert pi.low > 1 and pi.decision == "higher" and "higher" in pi.statement and "(95%)" in pi.statement
    assert "plain ratio" in pi.definition and "pairs" in pi.coverage
    same = atari5_spec.relative_score(FIVE, FIVE)
    assert same.prediction_interval.low < 1 < same.prediction_interval.high
    assert same.prediction_interval.decision == "cannot tell" and "cannot tell" in same.prediction_interval.statement
    # the ratio interval is wider than the seed-only one and holds it
    assert pi.low < result.interval[0] and result.interval[1] < pi.high


def test_relative_json_keeps_the_top_level_interval_and_adds_the_ratio_interval(tmp_path, capsys):
    agent, baseline = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, runs in ((agent, STRONG), (baseline, FIVE)):
        path.write_text("game,seed,score\n" + "".join(f"{g},{i},{s}\n" for g, v in runs.items()
                                                      for i, s in enumerate(v)))
    assert main(["score", str(agent), "--relative-to", str(baseline), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["prediction_interval"]["interval"]) == 2
    relative = out["relative"]
    assert relative["prediction_interval"]["low"] < relative["ratio"] < relative["prediction_interval"]["high"]
    assert "plain ratio" in relative["ratio_definition"] and "seed" in relative["interval_covers"]
    assert main(["score", str(agent), "--relative-to", str(baseline), "--explain"]) == 0
    text = capsys.readouterr().out
    assert "prediction interval for the ratio of the true 57-game medians" in text and "plain ratio" in text


def test_one_seed_every_interval_says_the_seed_part_is_unknown(tmp_path, capsys):
    path = tmp_path / "one.csv"
    path.write_text("game,score\n" + "".join(f"{g},{v[0]}\n" for g, v in FIVE.items()))
    assert main(["score", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seed_interval"] is None and out["seed_interval_covers"].startswith("unknown")
    assert out["prediction_interval"]["seed_part"].startswith("unknown")
    for other in out["other_subsets"]:
        assert other["seed_interval_covers"].startswith("unknown") and other["prediction_interval"]["level"] == 0.95
    assert main(["score", str(path), "--explain"]) == 0
    text = capsys.readouterr().out
    others = text.split("Other subsets")[1].split("\n\n")[0]
    assert "prediction interval for the 57-game median" in others and "seed part unknown" in others


def test_seed_intervals_are_labelled_seed_noise_only(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text("game,seed,score\n" + "".join(f"{g},{i},{s}\n" for g, v in FIVE.items() for i, s in enumerate(v)))
    assert main(["score", str(path), "--explain"]) == 0
    text = capsys.readouterr().out
    for line in text.splitlines():
        if "interval" in line and "%" in line and "prediction interval" not in line:
            assert "seed" in line, line  # an interval that is not a prediction interval says it is seed noise


def test_low_estimate_is_labelled_extrapolation_and_its_unmeasured_interval_withheld():
    from atari5_spec.method.calibration import read_calibration_intervals, read_named_calibration
    from atari5_spec.method.pinned import load_coefficient_set
    from atari5_spec.scoring.estimate import _prediction_interval

    low = {"battle_zone": 3000, "double_dunk": -18, "name_this_game": 3000, "phoenix": 1500, "qbert": 500}
    result = atari5_spec.score(low)
    # below 40 the reselected errors hold fewer than 20 agents: a 95% claim cannot be measured, so none is made
    assert result.estimate < 40 and result.prediction_interval is None
    note = next(n for n in result.notes if n.startswith("Atari-5: no 95% prediction interval"))
    assert "extrapolation" in note and "at least 20" in note
    coefficients = load_coefficient_set("paper-2023")
    old = read_named_calibration(coefficients.path, "paper-2023.in-range.2")  # the edition before claims
    pi = _prediction_interval(coefficients.subsets["Atari-5"], {g: (v,) for g, v in low.items()}, result.estimate,
                              None, old, 0.95, read_calibration_intervals(coefficients.path, old))
    assert pi.range == "extrapolation" and "EXTRAPOLATION" in pi.coverage


def test_verify_recomputes_every_calibration_and_edition():
    from atari5_spec_maintainers.pinning.calibrations import calibration_mismatches, calibration_names, pinned_calibration_names

    assert calibration_names("paper-2023") == {"reselected": "paper-2023.reselected", "formula": "paper-2023.formula",
                                               "in-range": "paper-2023.in-range", "pooled": "paper-2023"}
    names = pinned_calibration_names(package_root(), "paper-2023")
    assert names == ["paper-2023.formula", "paper-2023.formula.2", "paper-2023.formula.3", "paper-2023.reselected",
                     "paper-2023.reselected.2", "paper-2023.reselected.3", "paper-2023.in-range", "paper-2023.in-range.2",
                     "paper-2023"]
    data = atari5_spec.load(scores="all")
    compared = {}
    for name in names:
        compared[name], problems = calibration_mismatches(data, name, 1e-9)
        assert compared[name] > 400 and problems == []
    assert compared["paper-2023.in-range.2"] > compared["paper-2023.in-range"]  # the old edition: only its agents
    for method in ("formula", "reselected"):  # the second editions hold the 28 new never-selected agents too
        assert compared[f"paper-2023.{method}.2"] > compared[f"paper-2023.{method}"]


def test_one_baseline_many_agents_gives_each_pair_its_interval():
    results = atari5_spec.relative_scores({"strong": STRONG, "same": FIVE}, FIVE, n_bootstrap=500)
    assert list(results) == ["same", "strong"]
    assert results["strong"].prediction_interval.decision == "higher"
    assert results["same"].prediction_interval.decision == "cannot tell"
    single = atari5_spec.relative_score(STRONG, FIVE, n_bootstrap=500)
    assert results["strong"].prediction_interval == single.prediction_interval


@pytest.mark.parametrize("name", [None, "paper-2023.reselected"])
def test_design_comparison_agrees_with_what_score_reports(calibration, name):
    """Two implementations, one measurement: the design table (pandas) and the calibration score reads (no pandas),
    on score's default and on the reselected calibration (the default until data 1.77.0)."""
    import pandas as pd

    from atari5_spec.method.calibration import read_named_calibration
    from atari5_spec_research.evaluation.designs import pair_designs, single_designs
    from atari5_spec_research.pair_evaluation import two_paper_bands
    from atari5_spec.method.pairs import pair_agents

    if name is not None:
        calibration = read_named_calibration(package_root() / "coefficients" / "paper-2023", name)
        assert calibration.name == name
    rows = pd.DataFrame([r for r in calibration.rows if r["subset"] == "Atari-5"]).drop(columns=["range"])
    for column in ("estimate", "true_median", "log_error", "ratio"):
        rows[column] = pd.to_numeric(rows[column])
    single = single_designs(rows).set_index(["design", "group"])
    for group in ("in range", "extrapolation"):
        expected = calibration.coverage("Atari-5", 0.95, None, group)
        assert (single.loc[("in-range", group), "covered"], single.loc[("in-range", group), "n"]) == expected
    pairs = pair_designs(rows).set_index(["design", "pairs"])
    row = pairs.loc[("root-sum-square of singles", "two papers")]
    assert (row.covered, row.n) == calibration.pair_coverage("Atari-5", 0.95)
    # wrong-way decisions as the ratio evaluation (docs/comparisons.md, "two-papers") counts them: none on the
    # reselected errors; the formula default makes a few (9 of 4612 two-paper pairs on paper-2023.formula.2)
    measured = two_paper_bands(pair_agents(calibration, "Atari-5"), 0.95)
    assert (measured.evidence.covered, measured.evidence.n) == (row.covered, row.n)
    assert row.wrong_way == measured.wrong_way
    if calibration.method == "reselected":
        assert row.wrong_way == 0


def test_leaderboard_neighbours_each_get_a_ratio_interval():
    from atari5_spec.scoring.comparison import neighbour_comparisons

    comparisons = neighbour_comparisons(FIVE, k=2, n_bootstrap=200)
    assert len(comparisons) == 4
    estimates = [c.row.estimate for c in comparisons]
    assert estimates == sorted(estimates, reverse=True)
    for c in comparisons:
        pi = c.relative.prediction_interval
        assert pi.low < c.relative.ratio < pi.high and "plain ratio" in pi.definition
        assert (c.row.estimate > c.relative.agent.estimate) == (c.relative.ratio < 1)
        assert pi.decision == "cannot tell" or (pi.low > 1) == (pi.decision == "higher")
