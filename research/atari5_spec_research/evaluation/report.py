"""The evaluation as text, JSON and a figure (what ``atari5-spec evaluate`` prints)."""

from __future__ import annotations

import io
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from atari5_spec.data.paths import write_output
from atari5_spec_research.evaluation import LEVEL, VersionEvaluation, group_summary

__all__ = ["format_text", "as_json", "plot_heldout", "SUBSET"]

SUBSET = "Atari-5"


def _budget(value) -> str:
    from atari5_spec.data.frames import format_frames

    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else format_frames(int(value))


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    return [line(header)] + [line(r) for r in rows]


def heldout_rows(result: VersionEvaluation, subset: str = SUBSET) -> pd.DataFrame:
    rows = result.errors[(result.errors["subset"] == subset) & (result.errors["kind"] == "held-out")].copy()
    rows["_order"] = [(a.split("@")[0], -1 if (b is None or (isinstance(b, float) and math.isnan(b))) else b)
                      for a, b in zip(rows["agent"], rows["budget"])]
    return rows.sort_values("_order", kind="stable").drop(columns="_order")


def format_text(result: VersionEvaluation, data_version: str, subset: str = SUBSET) -> str:
    lines = [f"Out-of-sample evaluation of coefficient version {result.version} (data {data_version}), {subset}", ""]
    held = heldout_rows(result, subset)
    lines.append(f"Held-out agents: outside the version's training set, with at least 40 of the 57 games "
                 f"({len(held)}); ratio = (1 + estimate) / (1 + true median)")
    lines += _table(["agent", "budget", "sticky", "true median", "estimate", "ratio"],
                    [[r.agent, _budget(r.budget), r.sticky, f"{r.true_median:,.1f}", f"{r.estimate:,.1f}",
                      f"{r.ratio:.2f}"] for r in held.itertuples()])
    lines += ["", "Error by group (relative error = ln(10) x mean |log10 error|, the paper's measure; "
                  "ratios: geometric mean and range)"]
    summary = group_summary(result.errors, subset)
    lines += _table(["held out by", "group", "n", "rel. err.", "mean ratio", "range"],
                    [[r.kind, r.group, r.n, f"{r.rel_err_percent:.1f}%", f"{r.mean_ratio:.2f}",
                      f"{r.min_ratio:.2f}-{r.max_ratio:.2f}"] for r in summary.itertuples()])
    loso = result.errors[(result.errors["subset"] == subset) & (result.errors["kind"] == "leave-one-paper-out")]
    own = result.in_sample_rel_err.get(subset)
    lines += ["", f"Leave-one-paper-out on the training set ({len(loso)} algorithms with the {subset} games, "
                  f"{loso['paper'].nunique()} papers): relative error {group_rel(loso):.1f}% "
                  f"(the version's own 10-fold CV: {own:.1f}%)" if own is not None else ""]
    if result.nested is not None:
        nested = result.nested
        chosen = Counter(g for games in nested.chosen for g in games)
        same = sum(1 for games in nested.chosen if set(games) == set(result.subset_games[subset]))
        lines.append(f"Nested cross-validation of select-then-fit ({len(nested.chosen)} outer folds, the "
                     f"{nested.k}-game search rerun inside each): relative error {nested.rel_err_percent:.1f}% on "
                     f"{len(nested.errors)} held-out predictions; the version's games chosen in {same} of "
                     f"{len(nested.chosen)} folds; games chosen (folds): "
                     + ", ".join(f"{g} {n}" for g, n in sorted(chosen.items(), key=lambda x: (-x[1], x[0]))))
    lines += ["", f"Prediction interval coverage at {LEVEL:.0%}, pooled calibration (each agent's interval "
                  "calibrated on the other papers' errors, around its point estimate; the in-range calibration: "
                  "atari5-spec evaluate --designs):"]
    coverage = result.coverage
    lines += _table(["subset", "held out by", "covered", "coverage", "runs", "papers", "runs wholly covered (exact 95%)"],
                    [[r.subset, r.kind, f"{r.covered}/{r.n}", f"{r.coverage:.1%}", r.runs, r.papers,
                      f"{r.runs_covered}/{r.runs} ({r.runs_low:.0%}-{r.runs_high:.0%})"] for r in coverage.itertuples()])
    return "\n".join(lines) + "\n"


def group_rel(errors: pd.DataFrame) -> float:
    from atari5_spec_research.evaluation.errors import relative_error_percent

    return relative_error_percent(errors["log_error"])


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (np.floating,)):
        return _clean(float(value))
    if isinstance(value, (np.integer,)):
        return int(value)
    if value is pd.NA:
        return None
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


def as_json(result: VersionEvaluation, data_version: str, subset: str = SUBSET) -> dict:
    out = {
        "version": result.version, "data_version": data_version, "subset": subset, "level": LEVEL,
        "training_algorithms": list(result.training_algorithms),
        "errors": _records(result.errors),
        "groups": _records(group_summary(result.errors, subset)),
        "in_sample_rel_err_percent": {k: _clean(v) for k, v in result.in_sample_rel_err.items()},
        "coverage": _records(result.coverage),
        "nested_cv": None,
    }
    if result.nested is not None:
        out["nested_cv"] = {"k": result.nested.k, "rel_err_percent": result.nested.rel_err_percent,
                            "chosen": [list(g) for g in result.nested.chosen],
                            "errors": _records(result.nested.errors)}
    return out


def plot_heldout(results: list[VersionEvaluation], path: Path, subset: str = SUBSET) -> Path:
    """Estimate vs true 57-game median (log axes): held-out agents coloured by sticky actions, training agents
    (leave-one-paper-out) in grey; one panel per version."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"sticky": "#d62728", "no sticky": "#1f77b4", "not stated": "#7f7f7f"}
    figure, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 5.6), squeeze=False)
    for axis, result in zip(axes[0], results):
        errors = result.errors[result.errors["subset"] == subset]
        loso = errors[errors["kind"] == "leave-one-paper-out"]
        axis.scatter(1 + loso["true_median"], 1 + loso["estimate"], s=14, color="#bbbbbb",
                     label="training agents (leave-one-paper-out)")
        held = errors[errors["kind"] == "held-out"]
        for group, colour in colours.items():
            chosen = held[held["sticky"] == group]
            if len(chosen):
                axis.scatter(1 + chosen["true_median"], 1 + chosen["estimate"], s=30, color=colour,
                             edgecolor="black", linewidth=0.4, label=f"held-out agents, {group}")
        limits = [1, 1.3 * float(max(errors["true_median"].max(), errors["estimate"].max()) + 1)]
        axis.plot(limits, limits, color="black", linewidth=0.8, label="estimate = true")
        axis.set(xscale="log", yscale="log", xlim=limits, ylim=limits,
                 xlabel="1 + true 57-game median human-normalised score (%)",
                 ylabel=f"1 + {subset} estimate (%)", title=f"{result.version}: {subset} estimate vs true median")
        axis.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    path = write_output(path, buffer.getvalue(), "--figure")  # the output policy: no links, not in a package
    plt.close(figure)
    return path


def pinned_markdown(root: Path, version: str, subset: str = SUBSET) -> str:
    """Markdown tables of a version's pinned out-of-sample errors (calibration/<version>.csv): every agent,
    then the summary by how it was held out, with the prediction interval's measured coverage."""
    from atari5_spec.method.calibration import read_calibration

    calibration = read_calibration(Path(root) / "coefficients" / version, "pooled")  # the first calibration
    rows = pd.DataFrame([r for r in calibration.rows if r["subset"] == subset])
    for column in ("estimate", "true_median", "log_error", "ratio", "budget"):
        rows[column] = pd.to_numeric(rows[column])
    rows = rows.sort_values(["kind", "algorithm_id", "budget"], kind="stable")
    lines = [f"| agent | held out by | budget | sticky actions | true 57-game median | {subset} estimate | "
             "ratio (1 + estimate) / (1 + true median) |",
             "|---|---|---|---|---:|---:|---:|"]
    lines += [f"| {r.agent} | {r.kind} | {_budget(r.budget)} | {r.sticky} | {r.true_median:,.1f} | "
              f"{r.estimate:,.1f} | {r.ratio:.2f} |" for r in rows.itertuples()]
    lines += ["", "| held out by | n | relative error | mean ratio | range | 95% interval covers (runs, papers; exact "
              "bounds over runs) |", "|---|---:|---:|---:|---:|---:|"]
    from atari5_spec_research.evaluation.errors import relative_error_percent

    for kind, group in rows.groupby("kind", sort=True):
        e = calibration.coverage_evidence(subset, LEVEL, kind)
        ratios = group["ratio"].to_numpy(float)
        lines.append(f"| {kind} | {len(group)} | {relative_error_percent(group['log_error']):.1f}% | "
                     f"{float(np.exp(np.mean(np.log(ratios)))):.2f} | {ratios.min():.2f}-{ratios.max():.2f} | "
                     f"{e.covered}/{e.n} ({e.coverage:.1%}); {e.runs} runs, {e.papers} papers; runs "
                     f"{e.runs_low:.0%}-{e.runs_high:.0%} |")
    return "\n".join(lines) + "\n"


def interval_markdown(root: Path, version: str, subset: str = SUBSET) -> str | None:
    """Coverage and width of the default calibration's 95% interval for the ratio of two agents (measured
    leave-one-paper-out on its pinned errors); None without a calibration beyond the pooled one. Single agents:
    :func:`~atari5_spec_research.evaluation.claims_report.claims_markdown` (with the runs and papers behind them)."""
    from atari5_spec.method.calibration import read_calibration
    from atari5_spec_research.evaluation.designs import pair_designs

    calibration = read_calibration(Path(root) / "coefficients" / version)
    if calibration is None or calibration.method == "pooled":
        return None
    rows = pd.DataFrame([r for r in calibration.rows if r["subset"] == subset])
    for column in ("estimate", "true_median", "log_error", "ratio"):
        rows[column] = pd.to_numeric(rows[column])
    pairs = pair_designs(rows, LEVEL)
    pairs = pairs[pairs["design"] == "root-sum-square of singles"].set_index("pairs")
    lines = [f"| {LEVEL:.0%} ratio interval, `{version}` {subset}, calibration `{calibration.name}` | pairs | covered "
             "(leave-one-paper-out) | median width (high / low) |", "|---|---:|---:|---:|"]
    from atari5_spec_research.pair_evaluation import BANDS, same_setup_designs, two_paper_bands
    from atari5_spec.method.pairs import pair_agents

    agents = pair_agents(calibration, subset)  # the evidence behind each pair figure: runs, papers, clustered interval
    two = two_paper_bands(agents, LEVEL)
    one = next(r for r in same_setup_designs(agents, LEVEL) if r.design == "two papers" and r.pairs == "one paper")
    for key, label, evidence in (
            ("two papers", "ratio of two in-range agents' medians, agents from two papers", two.evidence),
            ("one paper", "ratio of two in-range agents' medians, agents from one paper", one.evidence)):
        r = pairs.loc[key]
        label += (f" ({evidence.runs} runs, {evidence.papers} papers; 95% interval {evidence.low:.0%}-"
                  f"{evidence.high:.0%}, clustered by paper)")
        lines.append(f"| {label} | {r.n} | {r.covered} ({r.covered / r.n:.1%}) | {r.median_width:.2f} |")
    from atari5_spec.method.calibration import read_calibration_intervals
    from atari5_spec.method.decision_margin import margin_results, two_paper_pair_set
    from atari5_spec.method.reference import pinned_margin

    def banded(counts) -> str:
        return ", ".join(f"{name} apart {d}/{n} ({d / n:.0%})" for (name, _, _), (d, n) in zip(BANDS, counts) if n)

    lines += ["", f"Of the pairs from two papers, the {LEVEL:.0%} interval excludes 1, by true ratio: "
              f"{banded(two.bands)}; {two.wrong_way} of them the wrong way."]
    # What `score` decides: the interval widened by the margin pinned in the interval table (issue 33)
    k = pinned_margin(read_calibration_intervals(Path(root) / "coefficients" / version, calibration),
                      "ratio-two-papers", subset, LEVEL)
    if k is None:
        lines.append("`score` states no direction here: its interval table pins no decision margin.")
    else:
        results = margin_results([two_paper_pair_set(agents, LEVEL)])
        shown = next(r for r in results if r.margin == k)
        nested = next(r for r in results if r.margin is None)
        lines.append(f"`score` states a direction only when the interval with its log half-widths times the pinned "
                     f"decision margin ({k:g}) excludes 1: {banded(shown.bands)}; {shown.wrong_way} the wrong way "
                     f"in sample, {nested.wrong_way} with the margin chosen without each pair's papers (nested).")
    lines.append("Ratios are plain ratios of 57-game medians; same-setup comparisons, every margin and the edges "
                 "where no direction is stated: docs/comparisons.md.")
    return "\n".join(lines) + "\n"
