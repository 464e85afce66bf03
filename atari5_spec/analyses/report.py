"""``atari5-spec report``: the structure analyses as pictures and one self-contained HTML page.

:func:`analyse` runs every analysis of :mod:`atari5_spec.structure` on the
paper's training table once; :func:`write_report` draws the pictures (PNG)
and writes ``report.html``, which embeds them as base64 data URIs and holds
the tables inline, with no external URL, script or font, so that it can be
opened offline or attached to an e-mail.

matplotlib is an optional extra (``pip install 'atari5-spec[plot]'``). The
figures are drawn on ``matplotlib.figure.Figure`` with the Agg canvas, never
through pyplot, so nothing global is touched; PNGs carry no software or time
stamp, so the same data give the same bytes.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..data.errors import InputError
from ..data.published import matches_printed, published_rows
from ..method import coefficients as coef
from ..method import training
from . import structure
from .irt_output import format_irt, irt_as_dict, irt_estimation_text  # noqa: F401 (re-exported)

__all__ = ["Analyses", "analyse", "format_irt", "irt_as_dict", "require_matplotlib", "write_report", "FIGURE_FILES", "HTML_FILE",
           "ICC_GAMES"]

FIGURE_FILES = {
    "predicted_vs_true": "predicted_vs_true.png",
    "single_game_ranking": "single_game_ranking.png",
    "per_game_r2": "per_game_r2.png",
    "fairness": "fairness.png",
    "game_correlations": "game_correlations.png",
    "item_characteristic_curves": "item_characteristic_curves.png",
    "irt_difficulties": "irt_difficulties.png",
}
HTML_FILE = "report.html"
ICC_GAMES = ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")  # the Atari-5 games
_DPI = 100
PNG_METADATA = {"Software": None}   # no matplotlib version stamp: bytes depend on the data only


class Analyses(NamedTuple):
    """Everything the report shows, computed once from the data."""

    X: pd.DataFrame
    y: pd.Series
    games: pd.DataFrame                  # the games table (names, categories)
    ranking: pd.DataFrame                # structure.single_game_ranking
    per_game: dict                       # subset -> structure.per_game_fit_summary
    fairness: structure.FairnessCheck
    correlations: pd.DataFrame
    pairs: pd.DataFrame
    go_explore: structure.OutOfSampleCase
    figures: pd.DataFrame                # structure.compare_with_paper
    irt: structure.IrtResult
    irt_published: pd.DataFrame
    rank_correlation: structure.RankCorrelation
    table8: pd.DataFrame                 # medians via aggregates.median_score beside Table 8
    aggregates: pd.DataFrame
    out_of_fold: pd.DataFrame            # structure.out_of_fold_estimates of Atari-5 (10-fold CV)
    algorithm_names: pd.Series           # algorithm id -> published name
    smallest_eigenvalue: float           # of the pairwise-complete correlation matrix
    # Agents outside the version's training set (atari5-spec evaluate), with columns
    # algorithm_id, median and estimate (%); Go-Explore is drawn on its own.
    held_out: pd.DataFrame | None = None


def analyse(dataset, version: str = coef.PAPER_VERSION) -> Analyses:
    """Run the papers' analyses on the Atari-5 paper's training table with coefficient version ``version``."""
    _, tables = coef.read_version(dataset.root / "coefficients", version)
    subset_coefficients = tables["subset_coefficients"]
    rows = training.training_rows(dataset, pool_only=True)
    X, y = training.training_matrix(rows, dataset.games, dataset.algorithms)
    per_game = {subset: structure.per_game_fit_summary(X, structure.subset_weights(subset_coefficients, subset).index)
                for subset in ("Atari-5", "Atari-10")}
    go_explore = structure.out_of_sample_case(dataset, subset_coefficients, tables["normalisation"])
    normalised = structure.normalised_matrix(rows, dataset, X.index)
    irt_fit = structure.training_irt(dataset)
    correlations = structure.game_correlations(X)
    return Analyses(
        X=X, y=y, games=dataset.games,
        ranking=structure.single_game_ranking(X, y),
        per_game=per_game,
        fairness=structure.fairness_by_tertile(X, y, structure.subset_weights(subset_coefficients, "Atari-5")),
        correlations=correlations,
        pairs=structure.ranked_pairs(X, correlations),
        go_explore=go_explore,
        figures=structure.compare_with_paper(structure.paper_figures(X, y, subset_coefficients, go_explore),
                                             dataset.root),
        irt=irt_fit.result,
        irt_published=irt_fit.published,
        rank_correlation=irt_fit.rank_correlation,
        table8=_table8_check(structure.table8_medians(normalised), dataset.root),
        aggregates=structure.aggregate_summary(normalised),
        out_of_fold=structure.out_of_fold_estimates(
            X, y, structure.subset_weights(subset_coefficients, "Atari-5").index),
        algorithm_names=dataset.algorithms.set_index("algorithm_id")["name"].astype(str),
        smallest_eigenvalue=structure.smallest_eigenvalue(correlations),
        held_out=_held_out(dataset, version),
    )


def _table8_check(medians: pd.DataFrame, root: Path) -> pd.DataFrame:
    """Computed medians beside Table 8's printed ones, with whether they match at 1 decimal."""
    printed = {row["algorithm_id"]: row for row in published_rows("table08_algorithms", root)}
    out = medians.copy()
    out["paper_median"] = [printed[a]["median"] if a in printed else "" for a in out["algorithm_id"]]
    out["matches"] = [a in printed and matches_printed(m, printed[a]["median"]) and str(n) == printed[a]["games"]
                      for a, n, m in zip(out["algorithm_id"], out["games"], out["median"])]
    return out.sort_values(["median", "algorithm_id"], ascending=[False, True]).reset_index(drop=True)


# --------------------------------------------------------------------------
# Pictures
# --------------------------------------------------------------------------


def require_matplotlib():
    """The matplotlib pieces the report needs, or InputError saying how to install them."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise InputError("the report needs matplotlib: pip install 'atari5-spec[plot]'") from error
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
    from .irt import item_characteristic_curve

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


# --------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------


def _table(frame: pd.DataFrame, digits: dict[str, int] | None = None) -> str:
    """An HTML table with numbers at the given decimals (default 3); everything escaped."""
    digits = digits or {}
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, row):
            if isinstance(value, (bool, np.bool_)):
                text = "yes" if value else "no"
            elif isinstance(value, (float, np.floating)):
                text = "" if np.isnan(value) else f"{value:.{digits.get(column, 3)}f}"
            else:
                text = str(value)
            cells.append(f"<td>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _irt_table(analyses: Analyses) -> pd.DataFrame:
    items = analyses.irt.items.sort_values(["difficulty", "discrimination"], na_position="last")
    published = analyses.irt_published
    names = _names(analyses.games)
    return pd.DataFrame({
        "game": [names.get(g, g) for g in items.index],
        "difficulty": items["difficulty"].to_numpy(),
        "difficulty_se": items["difficulty_se"].to_numpy(),
        "discrimination": items["discrimination"].to_numpy(),
        "discrimination_se": items["discrimination_se"].to_numpy(),
        "discriminating": items["discriminating"].to_numpy(),
        "human_level_percent": 100 * items["success_rate"].to_numpy(),
        "n": items["n"].to_numpy(),
        "paper_difficulty": published["difficulty"].reindex(items.index).to_numpy(),
        "paper_discrimination": published["discrimination"].reindex(items.index).to_numpy(),
    })


def _with_names(frame: pd.DataFrame, columns: dict[str, pd.Series]) -> pd.DataFrame:
    """``frame`` with id columns replaced by display names (column -> id-to-name mapping)."""
    out = frame.copy()
    for column, names in columns.items():
        out[column] = [names.get(value, value) for value in out[column]]
    return out


_TERTILES = {1: "low", 2: "middle", 3: "high"}
_MEASURES = {"abs_rel_err": "absolute relative error", "rel_err": "relative error"}


def _fairness_tables(analyses: Analyses) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fairness tables in the plot's unit (%), tertiles and measures by name."""
    tertiles = analyses.fairness.tertiles
    summary = pd.DataFrame({
        "tertile": [_TERTILES.get(t, t) for t in tertiles["tertile"]], "n": tertiles["n"],
        "lowest_median_percent": tertiles["min_median"], "highest_median_percent": tertiles["max_median"],
        "mean_absolute_relative_error_percent": 100 * tertiles["mean_abs_rel_err"],
        "mean_relative_error_percent": 100 * tertiles["mean_rel_err"],
    })
    tests = analyses.fairness.tests
    tests = pd.DataFrame({"measure": [_MEASURES[m] for m in tests["measure"]],
                          "tertile_a": [_TERTILES.get(t, t) for t in tests["tertile_a"]],
                          "tertile_b": [_TERTILES.get(t, t) for t in tests["tertile_b"]],
                          "t": tests["t"], "p_value": tests["p_value"], "significant": tests["significant"]})
    return summary, tests


def _held_out(dataset, version: str) -> pd.DataFrame:
    """The version's Atari-5 estimate of every held-out agent (atari5_spec.evaluation), Go-Explore aside."""
    from ..method.evaluation import version_errors

    _, errors = version_errors(dataset, version)
    held = errors[(errors["subset"] == "Atari-5") & (errors["kind"] == "held-out")
                  & (errors["algorithm_id"] != structure.GO_EXPLORE_ID)]
    return pd.DataFrame({"algorithm_id": held["agent"].to_numpy(), "median": held["true_median"].to_numpy(),
                         "estimate": held["estimate"].to_numpy()})


def _out_of_fold_table(analyses: Analyses) -> pd.DataFrame:
    in_sample, out_of_fold = analyses.fairness.algorithms, analyses.out_of_fold
    rows = [("in-sample (pinned coefficients)", len(in_sample), 100 * in_sample["abs_rel_err"].mean(),
             100 * in_sample["abs_rel_err"].median()),
            ("out-of-fold (10-fold CV)", len(out_of_fold), 100 * out_of_fold["rel_err"].abs().mean(),
             100 * out_of_fold["rel_err"].abs().median())]
    if analyses.held_out is not None and len(analyses.held_out):
        error = (analyses.held_out["estimate"] / analyses.held_out["median"] - 1.0).abs()
        rows.append(("held-out agents", len(error), 100 * error.mean(), 100 * error.median()))
    return pd.DataFrame.from_records(rows, columns=["estimates", "algorithms", "mean_absolute_relative_error_percent",
                                                   "median_absolute_relative_error_percent"])


_STYLE = """
body { font-family: sans-serif; max-width: 1200px; margin: 1em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: right; }
th { background: #eee; }
td:first-child { text-align: left; }
img { max-width: 100%; border: 1px solid #ddd; }
.note { color: #555; font-size: 0.9em; }
"""


def _section(title: str, *parts: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{''.join(parts)}</section>"


def _paragraph(text: str) -> str:
    return f"<p class=\"note\">{html.escape(text)}</p>"


def _image(png: bytes, alt: str) -> str:
    return f"<img alt=\"{html.escape(alt)}\" src=\"data:image/png;base64,{base64.b64encode(png).decode('ascii')}\">"


def report_html(analyses: Analyses, pngs: dict[str, bytes]) -> str:
    """The report page: pictures as data URIs and the tables, no external resources."""
    rc = analyses.rank_correlation
    names, algorithm_names = _names(analyses.games), analyses.algorithm_names
    fairness_summary, fairness_tests = _fairness_tables(analyses)
    table8_ok = int(analyses.table8["matches"].sum())
    atari5, atari10 = analyses.per_game["Atari-5"], analyses.per_game["Atari-10"]
    irt_result = analyses.irt
    flat = [names.get(g, g) for g in irt_result.items.index[~irt_result.items["discriminating"]]]
    skiing = (analyses.correlations["skiing"].drop("skiing").sort_values().head(6)
              .rename("pearson_r").rename_axis("game").reset_index())
    held_out_note = ("Held-out agents: none." if analyses.held_out is None or not len(analyses.held_out) else
                     f"Green diamonds: {len(analyses.held_out)} held-out agents, never trained on (results after "
                     "2022, learning-curve budgets and entries the inclusion rule left out; atari5-spec evaluate "
                     "lists them).")
    aggregates = analyses.aggregates
    aggregates = pd.DataFrame({
        "algorithm": [algorithm_names.get(a, a) for a in aggregates["algorithm_id"]],
        "games": aggregates["games"], "mean_percent": aggregates["mean"], "median_percent": aggregates["median"],
        "iqm_percent": aggregates["iqm"], "optimality_gap_percent": 100 * aggregates["optimality_gap"]})
    parts = [
        _paragraph("Units: human-normalised scores are in % (0 = random play, 100 = the average human) "
                   "everywhere on this page; R² and probabilities are fractions from 0 to 1. "
                   "'In-sample' means computed on the algorithms the coefficients were fitted on."),
        _section("Paper figures (Atari-5, sections 5.1-6) computed from the data",
                 _paragraph("'rounded' / 'truncated': the computed value prints as the paper's at its printed "
                            "precision when rounded / when cut toward zero. The Skiing correlations match only "
                            "when truncated: consistent with truncation (as the paper's Table 3 truncates)."),
                 _table(analyses.figures, {"computed": 4})),
        _section("Atari-5 estimate vs true median (out-of-fold, with the in-sample estimates beside)",
                 _paragraph("Blue: each training algorithm predicted by the model fitted on the other nine folds "
                            "(the subset search's 10-fold cross-validation), an honest estimate of the error on "
                            "new agents. Grey: the pinned coefficients' in-sample estimates of the same "
                            "algorithms. Red star: Go-Explore, never trained on. " + held_out_note),
                 _image(pngs["predicted_vs_true"], "Atari-5 estimate vs true median, out-of-fold and in-sample"),
                 _table(_out_of_fold_table(analyses), {"mean_absolute_relative_error_percent": 1,
                                                       "median_absolute_relative_error_percent": 1})),
        _section("Single-game predictiveness (section 5.1, in-sample R²)",
                 _image(pngs["single_game_ranking"], "single-game R2 ranking"),
                 _table(_with_names(analyses.ranking.head(10), {"game": names}),
                        {"intercept": 3, "slope": 3, "r2": 3})),
        _section("Per-game models (section 5.5, in-sample)",
                 _paragraph("Variance explained = 1 - sum of residual SS / sum of total SS over the 57 games, each "
                            "on the rows its model was fitted on (predictor games count, with no residual). "
                            "Hatched bars are a subset's own games: R² = 1 by construction, not a finding."),
                 _table(pd.DataFrame({
                     "subset": ["Atari-5", "Atari-10"],
                     "variance_explained_percent": [100 * structure.variance_explained(s) for s in (atari5, atari10)],
                     "mean_r2_percent": [100 * s["r2"].mean() for s in (atari5, atari10)],
                     "games_r2_gt_0_8": [len(structure.well_predicted_games(s)) for s in (atari5, atari10)],
                 }), {"variance_explained_percent": 2, "mean_r2_percent": 2}),
                 _image(pngs["per_game_r2"], "per-game R2")),
        _section("Fairness across tertiles (section 5.4, in-sample)",
                 _image(pngs["fairness"], "fairness by tertile"),
                 _table(fairness_summary, {"lowest_median_percent": 1, "highest_median_percent": 1,
                                           "mean_absolute_relative_error_percent": 1,
                                           "mean_relative_error_percent": 1}),
                 _table(fairness_tests, {"t": 3, "p_value": 3}),
                 _paragraph(f"{int(fairness_tests['significant'].sum())} of {len(fairness_tests)} Welch t-tests "
                            "significant at 0.05.")),
        _section("Structure within the ALE (section 6)",
                 _image(pngs["game_correlations"], "game correlation heatmap"),
                 _paragraph("Pearson correlations of log-normalised scores on pairwise complete observations: each "
                            "cell rests on the algorithms that have both games. This matrix is not positive "
                            f"semi-definite (smallest eigenvalue {analyses.smallest_eigenvalue:.2f}), so it is no "
                            "correlation matrix of any one set of agents: no PCA or factor analysis on it."),
                 _paragraph("Most correlated pairs:"),
                 _table(_with_names(analyses.pairs.head(12), {"game_a": names, "game_b": names})
                        .rename(columns={"pcc": "pearson_r", "n": "algorithms"}), {"pearson_r": 3}),
                 _paragraph("Skiing's most negative correlations (Skiing's scores are in seconds and barely "
                            "vary among the agents):"),
                 _table(_with_names(skiing, {"game": names}), {"pearson_r": 3})),
        _section("Item response theory (Martinez-Plumed & Hernandez-Orallo 2017)",
                 _paragraph(f"2PL fit on {len(irt_result.abilities)} agents x {len(irt_result.items)} games "
                            f"('human level' = normalised score >= 100%); {irt_estimation_text(irt_result)}; "
                            f"converged: {irt_result.converged}. Dropped games without both outcomes: "
                            f"{', '.join(names.get(g, g) for g in irt_result.dropped) or 'none'}. "
                            f"Games that do not discriminate (likelihood-ratio test of a = 0 at 5%), so get no "
                            f"difficulty: {', '.join(flat) or 'none'}. Spearman rank correlation of difficulty "
                            f"with the IRT paper's Table 1 over the {rc.n} games both fits call discriminating "
                            f"(paper: a >= {structure.PUBLISHED_DISCRIMINATING_MIN:g}): {rc.rho:.3f} "
                            f"(p = {rc.p_value:.2g}). Standard errors from the observed information."),
                 _image(pngs["item_characteristic_curves"], "item characteristic curves with 95% bands"),
                 _image(pngs["irt_difficulties"], "difficulties with 95% intervals"),
                 _table(_irt_table(analyses), {"difficulty_se": 3, "discrimination_se": 3, "human_level_percent": 0,
                                               "paper_difficulty": 3, "paper_discrimination": 3})),
        _section("Aggregates of the training algorithms (Bellemare et al. 2013; rliable)",
                 _paragraph(f"Table 8 medians through aggregates.median_score: {table8_ok} of "
                            f"{len(analyses.table8)} match the paper at 1 decimal. Over the games each algorithm "
                            "has, one published number per game (so no intervals); optimality gap = mean "
                            "shortfall below human level, in % of human. For your own per-seed runs, with "
                            "intervals: atari5-spec aggregate."),
                 _table(aggregates, {"mean_percent": 1, "median_percent": 1, "iqm_percent": 1,
                                     "optimality_gap_percent": 1})),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>atari5-spec structure report</title>"
            f"<style>{_STYLE}</style></head><body><h1>atari5-spec: structure of the ALE score data</h1>"
            + "".join(parts) + "</body></html>\n")


def write_report(analyses: Analyses, out: Path | str) -> list[Path]:
    """Draw every picture as PNG into ``out`` and write ``report.html`` there; return the paths written."""
    import io

    from ..data.paths import output_directory, write_output

    out = output_directory(out)  # the path policy: never inside a data package, never through links
    written, pngs = [], {}
    for key, plot in _PLOTS.items():
        buffer = io.BytesIO()
        plot(analyses).savefig(buffer, format="png", dpi=_DPI, metadata=PNG_METADATA)
        pngs[key] = buffer.getvalue()
        written.append(write_output(out / FIGURE_FILES[key], pngs[key]))
    written.append(write_output(out / HTML_FILE, report_html(analyses, pngs)))
    return written
