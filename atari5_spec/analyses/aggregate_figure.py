"""The picture of ``atari5-spec aggregate --figure``: rliable's interval plots, profiles and P(X > Y).

Drawn on ``matplotlib.figure.Figure`` with the Agg canvas (no pyplot, nothing
global); matplotlib is the optional ``plot`` extra.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .report.figures import PNG_METADATA, new_figure
from .run_aggregates import METRICS, RunAggregates

__all__ = ["plot_run_aggregates", "write_run_aggregates_figure"]

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


def write_run_aggregates_figure(result: RunAggregates, path: str | Path) -> Path:
    """Draw :func:`plot_run_aggregates` to a PNG at ``path``."""
    import io

    from ..data.paths import write_output

    buffer = io.BytesIO()
    plot_run_aggregates(result).savefig(buffer, format="png", dpi=100, metadata=PNG_METADATA)
    return write_output(path, buffer.getvalue(), "--figure")  # the output policy: no links, not in a package
