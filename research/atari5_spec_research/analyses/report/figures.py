"""The report's pictures, drawn on ``matplotlib.figure.Figure`` with the Agg canvas (never pyplot)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from atari5_spec.data.errors import InputError
from atari5_spec_research.analyses import structure
from atari5_spec_research.analyses.report.analysis import Analyses

FIGURE_FILES = {
    "predicted_vs_true": "predicted_vs_true.png",
    "single_game_ranking": "single_game_ranking.png",
    "per_game_r2": "per_game_r2.png",
    "fairness": "fairness.png",
    "game_correlations": "game_correlations.png",
    "item_characteristic_curves": "item_characteristic_curves.png",
    "irt_difficulties": "irt_difficulties.png",
}
ICC_GAMES = ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")  # the Atari-5 games
_DPI = 100
PNG_METADATA = {"Software": None}   # no matplotlib version stamp: bytes depend on the data only


def require_matplotlib():
    """The matplotlib pieces the report needs, or InputError saying how to install them."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise InputError("the report needs matplotlib: pip install 'atari5-spec-research[plot]'") from error
    return Figure, FigureCanvasAgg


def new_figure(width: float, height: float):
    Figure, FigureCanvasAgg = require_matplotlib()
    figure = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(figure)  # attaches the Agg canvas (no pyplot, no global backend switch)
    return figure


def _names(games: pd.DataFrame) -> pd.Series:
    return games.set_index("game_id")["name"].astype(str)


def plot_predicted_vs_true(analyses: Analyses):
    """Atari-5 estimate against the true 57-game median, log axes: out-of-fold, in-sample, Go-Explore.

    The training algorithms are drawn with their out-of-fold estimates (each
    predicted by the model fitted on the other nine folds, as the search's
    cross-validation), the pinned coefficients' in-sample estimates as small
    grey marks beside them, Go-Explore (never trained on, section 5.3) as a
    star, and held-out agents once ``analyses.held_out`` exists.
    """
    figure = new_figure(6.8, 6.0)
    axes = figure.add_subplot()
    in_sample, out_of_fold = analyses.fairness.algorithms, analyses.out_of_fold
    axes.scatter(in_sample["median"], in_sample["estimate"], s=14, marker="x", color="#999999", zorder=2,
                 label="in-sample (pinned coefficients, fitted on these algorithms)")
    axes.scatter(out_of_fold["median"], out_of_fold["estimate"], s=30, color="#4c72b0", zorder=3,
                 label=f"out-of-fold, 10-fold CV ({len(out_of_fold)} training algorithms)")
    case = analyses.go_explore
    axes.scatter([case.median], [case.estimate], marker="*", s=180, color="#c44e52", zorder=4,
                 label=f"Go-Explore (not trained on): {case.estimate:.0f}% vs {case.median:.0f}%")
    values = [in_sample["median"], in_sample["estimate"], out_of_fold["estimate"], pd.Series([case.estimate])]
    if analyses.held_out is not None and len(analyses.held_out):
        held = analyses.held_out
        axes.scatter(held["median"], held["estimate"], marker="D", s=36, color="#55a868", zorder=4,
                     label=f"held-out agents ({len(held)}, never trained on)")
        values += [held["median"], held["estimate"]]
    low = 0.8 * min(v.min() for v in values)
    high = 1.25 * max(v.max() for v in values)
    axes.plot([low, high], [low, high], color="black", linewidth=0.8, linestyle="--", label="estimate = median")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_xlabel("true median human-normalised score over the 57 games (%, 100 = human)")
    axes.set_ylabel("Atari-5 estimate of the median (%, 100 = human)")
    axes.set_title("Atari-5 estimate vs true median: out-of-fold and in-sample")
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, which="major", alpha=0.3)
    return figure


def plot_single_game_ranking(analyses: Analyses):
    """Section 5.1, Figure 2: single-game R^2, least predictive left, most predictive right."""
    ranking = analyses.ranking.iloc[::-1]
    names = _names(analyses.games)
    figure = new_figure(12, 4.8)
    axes = figure.add_subplot()
    positions = np.arange(len(ranking))
    axes.bar(positions, ranking["r2"], color="#4c72b0")
    axes.set_xticks(positions, [names.get(g, g) for g in ranking["game"]], rotation=90, fontsize=7)
    axes.set_xlim(-0.6, len(ranking) - 0.4)
    axes.set_ylim(0, 1)
    axes.set_ylabel("R$^2$ predicting log10(1 + median), 0-1")
    axes.set_title("Predictive power of each game alone (OLS with intercept, in-sample R$^2$)")
    axes.grid(True, axis="y", alpha=0.3)
    return figure


def plot_per_game_r2(analyses: Analyses):
    """Sections 5.5 (Figure 4): each game's per-game model R^2 from the Atari-5 and Atari-10 games.

    A subset's own games predict themselves (R^2 = 1 by construction): their
    bars are hatched and pale, so that they are not read as findings.
    """
    atari5, atari10 = analyses.per_game["Atari-5"], analyses.per_game["Atari-10"]
    order = atari5["r2"].sort_values(kind="stable").index
    names = _names(analyses.games)
    figure = new_figure(12, 5.0)
    axes = figure.add_subplot()
    positions = np.arange(len(order))
    for offset, summary, label, colour in ((-0.2, atari5, "Atari-5", "#4c72b0"),
                                           (0.2, atari10, "Atari-10", "#dd8452")):
        trivial = summary["rss"].reindex(order).to_numpy() == 0.0
        r2 = summary["r2"].reindex(order).to_numpy()
        axes.bar(positions[~trivial] + offset, r2[~trivial], width=0.4, color=colour, label=label)
        axes.bar(positions[trivial] + offset, r2[trivial], width=0.4, color=colour, alpha=0.3, hatch="//",
                 edgecolor=colour, label=f"{label}: one of its own games (R$^2$ = 1 by construction)")
    axes.axhline(structure.WELL_PREDICTED_R2, color="black", linewidth=0.8, linestyle="--",
                 label=f"R$^2$ = {structure.WELL_PREDICTED_R2}")
    axes.set_xticks(positions, [names.get(g, g) for g in order], rotation=90, fontsize=7)
    axes.set_xlim(-0.6, len(order) - 0.4)
    axes.set_ylim(0, 1.02)
    axes.set_ylabel("in-sample R$^2$ of the per-game model (0-1)")
    axes.set_title("How well the subset's games predict each game's log-normalised score (in-sample)")
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, axis="y", alpha=0.3)
    return figure


def plot_fairness(analyses: Analyses):
    """Section 5.4 (Figure 3): absolute and signed relative error of the Atari-5 estimate per tertile."""
    frame = analyses.fairness.algorithms
    tertiles = sorted(frame["tertile"].unique())
    figure = new_figure(9, 4)
    for position, (measure, label) in enumerate((("abs_rel_err", "absolute relative error (accuracy)"),
                                                 ("rel_err", "relative error (bias)")), start=1):
        axes = figure.add_subplot(1, 2, position)
        data = [100 * frame.loc[frame["tertile"] == t, measure].to_numpy() for t in tertiles]
        axes.boxplot(data, showmeans=True)
        axes.set_xticks(np.arange(1, len(tertiles) + 1), ["low", "middle", "high"][: len(tertiles)])
        axes.axhline(0, color="black", linewidth=0.6)
        axes.set_ylabel(f"{label}, %")
        axes.set_xlabel("tertile of true median human-normalised score")
        axes.grid(True, axis="y", alpha=0.3)
    figure.suptitle("Fairness of Atari-5 estimates across low, medium and high performers (in-sample)")
    return figure


def correlation_order(correlations: pd.DataFrame, games: pd.DataFrame) -> list[str]:
    """Games grouped by category (alphabetical), ordered within a category by average-linkage clustering.

    Clustering uses the distance 1 - PCC (pairwise complete); optimal leaf
    ordering makes the order deterministic and neighbours similar.
    """
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    category = games.set_index("game_id")["category"].astype(str)
    order = []
    for _, members in sorted(pd.Series(correlations.index, index=correlations.index)
                             .groupby(lambda g: category.get(g, "Other"))):
        members = sorted(members)
        if len(members) < 3:
            order += members
            continue
        distance = (1.0 - correlations.loc[members, members].fillna(0.0)).to_numpy(copy=True)
        np.fill_diagonal(distance, 0.0)
        distance = np.clip((distance + distance.T) / 2, 0.0, None)
        tree = linkage(squareform(distance, checks=False), method="average", optimal_ordering=True)
        order += [members[i] for i in leaves_list(tree)]
    return order


def plot_game_correlations(analyses: Analyses):
    """Section 6: PCC heatmap of log-normalised scores, games grouped by category."""
    order = correlation_order(analyses.correlations, analyses.games)
    matrix = analyses.correlations.loc[order, order].to_numpy(float)
    names = _names(analyses.games)
    category = analyses.games.set_index("game_id")["category"].astype(str)
    figure = new_figure(11, 10)
    axes = figure.add_subplot()
    image = axes.imshow(matrix, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    labels = [f"{names.get(g, g)} ({category.get(g, '?')})" for g in order]
    axes.set_xticks(np.arange(len(order)), labels, rotation=90, fontsize=6)
    axes.set_yticks(np.arange(len(order)), labels, fontsize=6)
    axes.set_xlabel("game (category)")
    axes.set_ylabel("game (category)")
    boundaries = [i for i in range(1, len(order)) if category.get(order[i]) != category.get(order[i - 1])]
    for boundary in boundaries:
        axes.axhline(boundary - 0.5, color="black", linewidth=0.8)
        axes.axvline(boundary - 0.5, color="black", linewidth=0.8)
    figure.colorbar(image, ax=axes, shrink=0.7, label="Pearson correlation r (pairwise complete, -1 to 1)")
    axes.set_title("Correlation between games' log-normalised scores, grouped by category")
    return figure


def plot_item_characteristic_curves(analyses: Analyses, games=ICC_GAMES):
    """IRT paper (Figures 4-6): 2PL item characteristic curves, with the algorithms' abilities as ticks.

    Each curve's 95% band comes from sampling (a, c) from the normal
    approximation of its standard errors (a fixed seed, so the picture is
    deterministic). A game that does not discriminate gets no curve.
    """
    from atari5_spec_research.analyses.irt import item_characteristic_curve

    items = analyses.irt.items
    games = [g for g in games if g in items.index]
    names = _names(analyses.games)
    theta = np.linspace(-4, 4, 401)
    rng = np.random.default_rng(0)
    figure = new_figure(10.5, 4.8)
    axes = figure.add_subplot()
    for k, game in enumerate(games):
        item = items.loc[game]
        name = names.get(game, game)
        if not item["discriminating"]:
            axes.plot([], [], linestyle="none", label=f"{name}: does not discriminate (no curve, no difficulty)")
            continue
        a, b = item["discrimination"], item["difficulty"]
        curve = item_characteristic_curve(theta, b, a)
        draws_a = rng.normal(a, item["discrimination_se"], 400)
        draws_c = rng.normal(item["intercept"], item["intercept_se"], 400)
        band = np.percentile(item_characteristic_curve(theta[:, None], -draws_c / draws_a, draws_a), [2.5, 97.5],
                             axis=1)
        axes.fill_between(theta, band[0], band[1], color=f"C{k}", alpha=0.15, linewidth=0)
        axes.plot(theta, curve, color=f"C{k}", linewidth=1.6,
                  label=f"{name} (b = {b:.2f} ± {item['difficulty_se']:.2f}, a = {a:.2f} ± "
                        f"{item['discrimination_se']:.2f})")
    abilities = analyses.irt.abilities.to_numpy()
    axes.plot(abilities, np.full_like(abilities, -0.04), "|", color="black", markersize=10,
              label="algorithms' abilities (EAP)")
    axes.set_xlim(theta[0], theta[-1])
    axes.set_ylim(-0.08, 1.02)
    axes.set_xlabel("ability θ (standard deviations of the agents' ability distribution)")
    axes.set_ylabel("P(score ≥ human) (probability)")
    axes.set_title("2PL item characteristic curves of the Atari-5 games (± SE: 95% bands)")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes.grid(True, alpha=0.3)
    return figure


def plot_irt_difficulties(analyses: Analyses):
    """Every discriminating game's difficulty with its 95% interval (± 1.96 SE), beside the IRT paper's."""
    items = analyses.irt.items
    located = items[items["discriminating"]].sort_values("difficulty")
    flat = items.index[~items["discriminating"]]
    names = _names(analyses.games)
    published = analyses.irt_published
    figure = new_figure(7.5, 0.17 * len(located) + 1.8)
    axes = figure.add_subplot()
    positions = np.arange(len(located))
    axes.errorbar(located["difficulty"], positions, xerr=1.96 * located["difficulty_se"], fmt="o", markersize=4,
                  color="#4c72b0", ecolor="#4c72b0", elinewidth=1, label="this fit (± 1.96 SE)")
    theirs = published["difficulty"].reindex(located.index)
    theirs_discriminating = published["discrimination"].reindex(located.index) >= structure.PUBLISHED_DISCRIMINATING_MIN
    shown = theirs.notna() & theirs_discriminating
    axes.scatter(theirs[shown], positions[shown.to_numpy()], marker="x", color="#c44e52", s=22, zorder=3,
                 label="IRT paper's Table 1 (its population, 2013-2017)")
    axes.set_yticks(positions, [f"{names.get(g, g)} ({100 * r:.0f}%)" for g, r in located["success_rate"].items()],
                    fontsize=7)
    axes.set_xlabel("difficulty b (ability θ at which P(score ≥ human) = 0.5, in SDs of ability)")
    axes.set_title("IRT difficulty with 95% intervals; (%) = share of agents at human level")
    if len(flat):
        axes.text(0.99, 0.01, "no difficulty (do not discriminate): " + ", ".join(names.get(g, g) for g in flat),
                  transform=axes.transAxes, ha="right", va="bottom", fontsize=7)
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, axis="x", alpha=0.3)
    return figure


_PLOTS = {
    "predicted_vs_true": plot_predicted_vs_true,
    "single_game_ranking": plot_single_game_ranking,
    "per_game_r2": plot_per_game_r2,
    "fairness": plot_fairness,
    "game_correlations": plot_game_correlations,
    "item_characteristic_curves": plot_item_characteristic_curves,
    "irt_difficulties": plot_irt_difficulties,
}
