"""docs/out-of-sample.md says what the pinned errors and the evaluation command give."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import atari5_spec
from atari5_spec.data.datapackage import package_root
from atari5_spec_research.evaluation import agent_scores, evaluate_version
from atari5_spec_research.evaluation.refits import candidate_table, categories, compare_versions, refit_candidates
from atari5_spec_research.evaluation.report import pinned_markdown
from atari5_spec.method.pinned import load_coefficient_set

DOCS = Path(__file__).resolve().parents[2] / "docs" / "out-of-sample.md"


def block(text: str, name: str) -> str:
    return text.split(f"<!-- {name}:start -->\n")[1].split(f"<!-- {name}:end -->")[0]


@pytest.mark.parametrize("version", ["paper-2023", "refit-2026-11"])
def test_docs_tables_are_the_pinned_errors(version):
    assert block(DOCS.read_text(encoding="utf-8"), version) == pinned_markdown(package_root(), version)


@pytest.fixture(scope="module")
def evaluated():
    data = atari5_spec.load(scores="all")
    agents = agent_scores(data)
    results = [evaluate_version(data, v, agents, nested=False) for v in ("paper-2023", "refit-2026-11")]
    return data, agents, results


@pytest.mark.slow
def test_docs_side_by_side_table_is_what_evaluate_computes(evaluated):
    data, agents, results = evaluated
    table = compare_versions(results, categories(agents, data)).set_index("category")
    text = DOCS.read_text(encoding="utf-8")
    labels = {"after 2022, sticky, 200M": "after 2022, sticky actions, 200M frames",
              "after 2022, other": "after 2022, other", "budget checkpoint": "learning-curve budget checkpoints",
              "paper pool": "paper pool", "all": "all"}
    for category, label in labels.items():
        row = table.loc[category]
        line = next(x for x in text.splitlines() if x.startswith(f"| {label}"))
        assert re.findall(r"[\d.]+%", line) == [f"{row['paper-2023']:.1f}%", f"{row['refit-2026-11']:.1f}%"], line
        assert f"| {int(row['n'])} |" in line


@pytest.mark.slow
def test_docs_refit_candidate_figures_are_what_evaluate_computes(evaluated):
    data, agents, _ = evaluated
    games = load_coefficient_set("paper-2023").subsets["Atari-5"].games
    table = candidate_table(refit_candidates(agents, data, games), categories(agents, data)).set_index("category")
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    overall = table.loc["all"]
    assert (f"published numbers only ({overall['finals']:.1f}%), plus learning-curve budgets as extra agents "
            f"({overall['finals+budgets']:.1f}%)") in text


README = Path(__file__).resolve().parents[2] / "README.md"
# The README's generated table (analyses.contributed_results) labels agents by name and budget.
README_AGENTS = {"DreamerV3, 200M frames": "dreamerv3", "MuZero (learning curves), 200M frames": "muzero-curves",
                 "PPO (DreamerV3 authors' runs), 200M frames": "ppo-dreamerv3",
                 "PPO (CleanRL, envpool), 40M frames": "ppo-cleanrl-envpool",
                 "PPO2 (openai/baselines), 40M frames": "ppo2-baselines"}


def test_readme_accuracy_figures_are_the_pinned_errors():
    from atari5_spec.method.calibration import read_calibration
    from atari5_spec_research.evaluation.errors import relative_error_percent

    # the pinned formula's misses on held-out agents (the in-range edition: every held-out agent scored with the
    # version's own formula)
    calibration = read_calibration(package_root() / "coefficients" / "paper-2023", "in-range")
    rows = {r["agent"]: r for r in calibration.rows if r["subset"] == "Atari-5"}
    text = README.read_text(encoding="utf-8")
    for label, agent in README_AGENTS.items():
        line = next(x for x in text.splitlines() if x.startswith(f"| {label} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        row = rows[agent]
        assert cells[2:] == [f"{float(row['true_median']):,.1f}", f"{float(row['estimate']):,.1f}",
                             f"{float(row['ratio']):.2f}"], line
    held = [r for r in rows.values() if r["kind"] == "held-out"]
    ratios = sorted(float(r["ratio"]) for r in held)
    error = relative_error_percent([float(r["log_error"]) for r in held])
    flat = " ".join(text.split())
    assert f"misses by {error:.0f}% on average, from {ratios[0]:.2f}x to {ratios[-1]:.2f}x" in flat
    n = len(held)
    assert f"| {n} | {error:.1f}% | {ratios[0]:.2f}-{ratios[-1]:.2f} |" in text
    # the sample sizes say how many runs and papers the agents are (checkpoints count one agent each)
    runs, papers = len({r["algorithm_id"] for r in held}), len({r["paper"] for r in held})
    line = next(x for x in text.splitlines() if x.startswith("| held-out agents: results after 2022"))
    assert f"({runs} runs from {papers} papers" in line and f"| {n} |" in line
    sticky = [r for r in held if r["sticky"] == "sticky"]
    line = next(x for x in text.splitlines() if x.startswith("| of which with sticky actions"))
    assert (f"{len({r['algorithm_id'] for r in sticky})} runs from {len({r['paper'] for r in sticky})} papers)"
            in line and f"| {len(sticky)} |" in line)


def test_generated_accuracy_blocks_are_current():
    """docs/out-of-sample.md (designs, intervals) and docs/method.md (accuracy) are what the generator writes from the
    pinned calibrations: python scripts/update_accuracy_docs.py."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("update_accuracy_docs",
                                                  Path(__file__).resolve().parents[2] / "scripts" /
                                                  "update_accuracy_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path, generated in module.blocks().items():
        text = path.read_text(encoding="utf-8")
        for name, content in generated.items():
            assert block(text, name) == content, f"{path.name} {name}: rerun python scripts/update_accuracy_docs.py"


def test_docs_quote_the_measured_in_range_figures():
    from atari5_spec.method.calibration import conformal_quantile, read_calibration

    calibration = read_calibration(package_root() / "coefficients" / "paper-2023", "in-range")
    q = conformal_quantile(calibration.errors("Atari-5", estimate=100.0), 0.95)
    pooled = conformal_quantile(calibration.errors("Atari-5"), 0.95)
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert f"q = {q:.3f} in log10(1 + z) instead of {pooled:.3f}" in text


def test_docs_prose_figures_are_the_measured_designs():
    """The figures the prose of docs/out-of-sample.md quotes about the design choice are what the comparison gives."""
    import pandas as pd

    from atari5_spec.method.calibration import read_calibration
    from atari5_spec_research.evaluation.designs import pair_designs, pair_error_summary, single_designs

    calibration = read_calibration(package_root() / "coefficients" / "paper-2023", "pooled")
    rows = pd.DataFrame([r for r in calibration.rows if r["subset"] == "Atari-5"])
    for column in ("estimate", "true_median", "log_error", "ratio"):
        rows[column] = pd.to_numeric(rows[column])
    from atari5_spec_research.evaluation.designs import difficulty

    rows["difficulty"] = difficulty(atari5_spec.load(scores="all"), "paper-2023", rows)
    single = single_designs(rows).set_index(["design", "group"])
    pairs = pair_designs(rows).set_index(["design", "pairs"])
    shared = pair_error_summary(rows)
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    width = lambda d, g: f"{single.loc[(d, g), 'median_width']:.2f}"  # noqa: E731
    assert f"({width('in-range', 'in range')} against {width('pooled', 'in range')} for pooled" in text
    tuned, tuned_held = single.loc[("normalised, b chosen inside", "in range")], single.loc[
        ("normalised, b chosen inside", "in range, held-out")]
    assert (f"it covers {int(tuned.covered)}/{int(tuned.n)} ({tuned.covered / tuned.n:.1%}) in range and "
            f"{int(tuned_held.covered)} of the {int(tuned_held.n)} in-range held-out agents") in text
    held = rows[(rows["estimate"] >= 40) & (rows["kind"] == "held-out")]
    assert (f"{int(tuned_held.n)} in-range held-out agents ({held['algorithm_id'].nunique()} runs from "
            f"{held['paper'].nunique()} papers)") in text
    conformal, summed = pairs.loc[("pairs", "all pairs")], pairs.loc[("sum of singles", "all pairs")]
    assert f"narrower ({conformal.median_width:.2f}) but covers only {conformal.covered / conformal.n:.1%}" in text
    assert f"covers {summed.covered / summed.n:.1%} at a width of {summed.median_width:.2f}" in text
    # on the first edition one-paper pairs did not err less (the edition score uses: docs/comparisons.md)
    assert shared["one paper"]["median"] >= shared["two papers"]["median"]
    assert "On the first edition above, pairs from one paper did not share their error" in text


def test_docs_protocol_figures_are_what_score_reports():
    """The protocol paragraph's figures are the default calibration's protocol shifts, as `score --explain` prints
    them for sticky (ALE/*-v5) and no-sticky (*-v4) agents: numbers in the paragraph's order."""
    from atari5_spec.method.calibration import read_calibration

    calibration = read_calibration(package_root() / "coefficients" / "paper-2023")  # what score uses
    sticky, plain = calibration.shift("Atari-5", "sticky"), calibration.shift("Atari-5", "no sticky")
    counts = calibration.training_protocols("Atari-5")
    assert sticky.mean_low < 1 < sticky.mean_high and plain.mean_low < 1 < plain.mean_high  # no direction claimed
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    start = text.index("`ALE/*-v5`") + len("`ALE/*-v5`")
    figures = re.findall(r"\d+\.\d+|\d+", text[start:text.index("adjusted:", start)])
    two = lambda *values: [f"{v:.2f}" for v in values]  # noqa: E731
    assert figures == [str(sticky.n), str(sticky.n_papers), *two(sticky.low, sticky.high, sticky.mean,
                                                                   sticky.mean_low, sticky.mean_high),
                       "1", "4", str(plain.n), str(plain.n_papers), *two(plain.mean_low, plain.mean_high), "1",
                       str(sum(counts.values())), "2023",
                       *(str(counts[k]) for k in sorted(counts, key=lambda k: (k != "sticky", k)))]  # sticky first
