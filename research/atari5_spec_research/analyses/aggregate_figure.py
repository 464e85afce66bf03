"""The picture of ``atari5-spec aggregate --figure``: rliable's interval plots, profiles and P(X > Y), or, for
learning curves, the sample-efficiency plot (IQM and median against frames with bands).

Drawn on ``matplotlib.figure.Figure`` with the Agg canvas (no pyplot, nothing
global); matplotlib is the optional ``plot`` extra.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from atari5_spec_research.analyses.report.figures import PNG_METADATA, new_figure
from atari5_spec_research.analyses.run_aggregates import METRICS, RunAggregates
from atari5_spec_research.analyses.sample_efficiency import CURVE_METRICS, CurveAggregates

__all__ = ["plot_run_aggregates", "plot_sample_efficiency", "figure_bytes", "write_run_aggregates_figure"]

FIGURE_FORMATS = (".png", ".svg")
SVG_METADATA = {"Date": None, "Creator": None}  # no date or matplotlib version: bytes depend on the data only
SVG_HASHSALT = "atari5-spec"                    # fixed ids of clip paths and glyphs (matplotlib draws them at random)

_TITLES = {"iqm": "IQM", "median": "Median", "mean": "Mean", "optimality_gap": "Optimality gap"}
_UNIT = "human-normalised score (1.0 = human)"


def plot_run_aggregates(result: RunAggregates):
    """Top: the four aggregates with intervals; bottom: performance profiles and P(X > Y)."""
    agents = list(result.seeds)
    figure = new_figure(13, 4.0 + 0.35 * len(agents) + 4.2)
    grid = figure.add_gridspec(2, 4, height_ratios=[1.0 + 0.12 * len(agents), 2.2])
    table = result.metrics.set_index(["agent", "metric"])
    colours = {agent: f"C{i % 10}" for i, agent in enumerate(agents)}
    positions = np.arange(len(agents))[::-1]
    for column, metric in enumerate(METRICS):
        axes = figure.add_subplot(grid[0, column])
        for position, agent in zip(positions, agents):
            row = table.loc[(agent, metric)]
            axes.plot([row["low"], row["high"]], [position, position], color=colours[agent], linewidth=6,
                      alpha=0.5, solid_capstyle="butt")
            axes.plot([row["estimate"]], [position], "|", color="black", markersize=12)
        axes.set_yticks(positions, agents if column == 0 else [""] * len(agents))
        axes.set_title(_TITLES[metric] + (" (lower is better)" if metric == "optimality_gap" else ""))
        axes.set_xlabel(_UNIT, fontsize=8)
        axes.grid(True, axis="x", alpha=0.3)
    profile_axes = figure.add_subplot(grid[1, :2])
    for agent in agents:
        profile = result.profiles[agent]
        profile_axes.plot(profile["tau"], profile["fraction"], color=colours[agent], label=agent)
        profile_axes.fill_between(profile["tau"], profile["low"], profile["high"], color=colours[agent], alpha=0.2)
    profile_axes.axvline(1.0, color="black", linewidth=0.8, linestyle="--", label="human level")
    profile_axes.set_xlabel(f"threshold tau, {_UNIT}")
    profile_axes.set_ylabel("fraction of runs x games with score > tau")
    profile_axes.set_ylim(0, 1.02)
    profile_axes.set_title(f"Performance profiles ({100 * result.confidence:g}% bootstrap bands)")
    profile_axes.legend(fontsize=8)
    profile_axes.grid(True, alpha=0.3)
    matrix_axes = figure.add_subplot(grid[1, 2:])
    matrix = np.full((len(agents), len(agents)), np.nan)
    index = {agent: i for i, agent in enumerate(agents)}
    for row in result.improvement.itertuples(index=False):
        matrix[index[row.agent_x], index[row.agent_y]] = row.probability
        matrix[index[row.agent_y], index[row.agent_x]] = 1.0 - row.probability
    image = matrix_axes.imshow(matrix, cmap="RdBu_r", vmin=0, vmax=1)
    for i in range(len(agents)):
        for j in range(len(agents)):
            if i != j and len(agents) <= 12:
                matrix_axes.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7)
    matrix_axes.set_xticks(range(len(agents)), agents, rotation=90, fontsize=8)
    matrix_axes.set_yticks(range(len(agents)), agents, fontsize=8)
    matrix_axes.set_xlabel("Y")
    matrix_axes.set_ylabel("X")
    matrix_axes.set_title("Probability of improvement P(X > Y)")
    figure.colorbar(image, ax=matrix_axes, shrink=0.8, label="P(X > Y) (probability, 0-1)")
    degenerate = [note for note in result.notes if "zero width" in note]
    if degenerate:  # zero-width bars are not precision: say so on the picture itself
        figure.suptitle("note: " + "; ".join(degenerate), fontsize=8, color="firebrick", wrap=True)
    return figure


def plot_sample_efficiency(result: CurveAggregates):
    """IQM and median against frames (rliable's sample-efficiency plot): a line per agent, its band shaded."""
    figure = new_figure(11, 4.4)
    agents = list(result.seeds)
    for column, metric in enumerate(CURVE_METRICS):
        axes = figure.add_subplot(1, len(CURVE_METRICS), column + 1)
        for i, agent in enumerate(agents):
            rows = result.curves[(result.curves["agent"] == agent) & (result.curves["metric"] == metric)]
            millions = rows["frames"].to_numpy(float) / 1e6
            axes.plot(millions, rows["estimate"], color=f"C{i % 10}", marker="o", markersize=3, label=agent)
            axes.fill_between(millions, rows["low"], rows["high"], color=f"C{i % 10}", alpha=0.2, linewidth=0)
        axes.set_xlabel(f"emulator frames (millions; {result.x})")
        axes.set_ylabel(f"{_TITLES[metric]}, {_UNIT}")
        axes.set_title(f"{_TITLES[metric]} ({100 * result.confidence:g}% stratified bootstrap bands, "
                       f"{len(result.games)} games)", fontsize=10)
        axes.grid(True, alpha=0.3)
        if column == 0:
            axes.legend(fontsize=8)
    degenerate = [note for note in result.notes if "zero width" in note]
    if degenerate:
        figure.suptitle("note: " + "; ".join(degenerate), fontsize=8, color="firebrick", wrap=True)
    return figure


def figure_bytes(figure, suffix: str) -> bytes:
    """The figure as PNG or SVG bytes, the same bytes for the same figure (no dates, versions or random ids)."""
    import io

    import matplotlib

    buffer = io.BytesIO()
    if suffix == ".svg":
        with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT}):
            figure.savefig(buffer, format="svg", metadata=SVG_METADATA)
    else:
        figure.savefig(buffer, format="png", dpi=100, metadata=PNG_METADATA)
    return buffer.getvalue()


def figure_suffix(path: str | Path) -> str:
    """``.png`` or ``.svg`` from the --figure path, or InputError naming the formats."""
    from atari5_spec.data.errors import InputError

    suffix = Path(path).suffix.lower()
    if suffix not in FIGURE_FORMATS:
        raise InputError(f"--figure {path}: name a .png or .svg file (the format follows the file name)")
    return suffix


def write_run_aggregates_figure(result: RunAggregates | CurveAggregates, path: str | Path) -> Path:
    """Draw :func:`plot_run_aggregates` (or, for curves, :func:`plot_sample_efficiency`) to a PNG or SVG."""
    from atari5_spec.data.paths import write_output

    figure = plot_sample_efficiency(result) if isinstance(result, CurveAggregates) else plot_run_aggregates(result)
    data = figure_bytes(figure, figure_suffix(path))
    return write_output(path, data, "--figure")  # the output policy: no links, not in a package
