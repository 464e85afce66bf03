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

from . import coefficients as coef
from . import structure, training
from .errors import InputError
from .published import published_rows, matches_printed

__all__ = ["Analyses", "analyse", "format_irt", "require_matplotlib", "write_report", "FIGURE_FILES", "HTML_FILE",
           "ICC_GAMES"]

FIGURE_FILES = {
    "predicted_vs_true": "predicted_vs_true.png",
    "single_game_ranking": "single_game_ranking.png",
    "per_game_r2": "per_game_r2.png",
    "fairness": "fairness.png",
    "game_correlations": "game_correlations.png",
    "item_characteristic_curves": "item_characteristic_curves.png",
}
HTML_FILE = "report.html"
ICC_GAMES = ("battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert")  # the Atari-5 games
_DPI = 100
_PNG_METADATA = {"Software": None}   # no matplotlib version stamp: bytes depend on the data only


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


def analyse(dataset, version: str = coef.PAPER_VERSION) -> Analyses:
    """Run the seeds' analyses on the paper's training table with coefficient version ``version``."""
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
    )


def _table8_check(medians: pd.DataFrame, root: Path) -> pd.DataFrame:
    """Computed medians beside Table 8's printed ones, with whether they match at 1 decimal."""
    printed = {row["algorithm_id"]: row for row in published_rows("table08_algorithms", root)}
    out = medians.copy()
    out["paper_median"] = [printed[a]["median"] if a in printed else "" for a in out["algorithm_id"]]
    out["matches"] = [a in printed and matches_printed(m, printed[a]["median"]) and str(n) == printed[a]["games"]
                      for a, n, m in zip(out["algorithm_id"], out["games"], out["median"])]
    return out.sort_values(["median", "algorithm_id"], ascending=[False, True]).reset_index(drop=True)


STEEP_DISCRIMINATION = 20.0  # beyond this a 2PL curve is practically a step on the ability scale


def format_irt(fit: structure.TrainingIrt, abilities: bool = False) -> str:
    """``atari5-spec irt``: per game difficulty and discrimination (easiest first) beside seed 003's."""
    result, published = fit.result, fit.published
    items = result.items.sort_values(["difficulty"])
    lines = [f"2PL IRT (seed 003) on {len(result.abilities)} agents x {len(items) + len(result.dropped)} games, "
             "response = human-normalised score >= 100",
             f"{'game':<20} {'difficulty':>10} {'discrim.':>10} {'human-level':>11} {'n':>3}   "
             f"{'seed003 b':>9} {'seed003 a':>9}"]
    for game, item in items.iterrows():
        theirs = published.loc[game] if game in published.index else None
        b = "" if theirs is None or pd.isna(theirs["difficulty"]) else f"{theirs['difficulty']:.3f}"
        a = "" if theirs is None or pd.isna(theirs["discrimination"]) else f"{theirs['discrimination']:.3f}"
        steep = " *" if abs(item["discrimination"]) > STEEP_DISCRIMINATION else ""
        lines.append(f"{game:<20} {item['difficulty']:>10.3f} {item['discrimination']:>10.3f} "
                     f"{item['success_rate']:>11.2f} {int(item['n']):>3}   {b:>9} {a:>9}{steep}")
    rc = fit.rank_correlation
    lines += [
        "",
        f"dropped (no variance after binarising): {', '.join(result.dropped) or 'none'}",
        f"* |discrimination| > {STEEP_DISCRIMINATION:g}: the game splits the agents almost perfectly, so the "
        "likelihood keeps rising as the curve steepens; read it as 'a step', not as an estimate",
        f"converged: {result.converged}; marginal log-likelihood {result.log_likelihood:.3f}",
        f"Spearman rank correlation of difficulty with seed 003 Table 1 over {rc.n} shared games: "
        f"{rc.rho:.3f} (p = {rc.p_value:.3f})",
    ]
    if abilities:
        lines += ["", f"{'algorithm':<24} {'ability':>8}"]
        for algorithm, theta in result.abilities.sort_values(ascending=False, kind="stable").items():
            lines.append(f"{algorithm:<24} {theta:>8.3f}")
    return "\n".join(lines)


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


def _new_figure(width: float, height: float):
    Figure, FigureCanvasAgg = require_matplotlib()
    figure = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(figure)  # attaches the Agg canvas (no pyplot, no global backend switch)
    return figure


def _names(games: pd.DataFrame) -> pd.Series:
    return games.set_index("game_id")["name"].astype(str)


def plot_predicted_vs_true(analyses: Analyses):
    """Atari-5 estimate against the true 57-game median, log axes; Go-Explore marked (section 5.3)."""
    figure = _new_figure(6.4, 5.6)
    axes = figure.add_subplot()
    frame = analyses.fairness.algorithms
    colours = {1: "#4c72b0", 2: "#dd8452", 3: "#55a868"}
    for tertile, group in frame.groupby("tertile"):
        axes.scatter(group["median"], group["estimate"], s=28, color=colours.get(tertile, "grey"),
                     label=f"training algorithms, tertile {tertile}", zorder=3)
    case = analyses.go_explore
    axes.scatter([case.median], [case.estimate], marker="*", s=180, color="#c44e52", zorder=4,
                 label=f"Go-Explore (not trained on): {case.estimate:.0f} vs {case.median:.0f}")
    low = 0.8 * min(frame["median"].min(), frame["estimate"].min())
    high = 1.25 * max(frame["median"].max(), frame["estimate"].max(), case.estimate)
    axes.plot([low, high], [low, high], color="black", linewidth=0.8, linestyle="--", label="estimate = median")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_xlabel("true median human-normalised score (57 games, %)")
    axes.set_ylabel("Atari-5 estimate (%)")
    axes.set_title(f"Atari-5 estimate vs true median ({len(frame)} algorithms with all five games)")
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, which="major", alpha=0.3)
    return figure


def plot_single_game_ranking(analyses: Analyses):
    """Section 5.1, Figure 2: single-game R^2, least predictive left, most predictive right."""
    ranking = analyses.ranking.iloc[::-1]
    names = _names(analyses.games)
    figure = _new_figure(12, 4.8)
    axes = figure.add_subplot()
    positions = np.arange(len(ranking))
    axes.bar(positions, ranking["r2"], color="#4c72b0")
    axes.set_xticks(positions, [names.get(g, g) for g in ranking["game"]], rotation=90, fontsize=7)
    axes.set_xlim(-0.6, len(ranking) - 0.4)
    axes.set_ylim(0, 1)
    axes.set_ylabel("R$^2$ predicting log10(1 + median)")
    axes.set_title("Predictive power of each game alone (OLS with intercept, in-sample R$^2$)")
    axes.grid(True, axis="y", alpha=0.3)
    return figure


def plot_per_game_r2(analyses: Analyses):
    """Sections 5.5 (Figure 4): each game's per-game model R^2 from the Atari-5 and Atari-10 games."""
    atari5, atari10 = analyses.per_game["Atari-5"]["r2"], analyses.per_game["Atari-10"]["r2"]
    order = atari5.sort_values(kind="stable").index
    names = _names(analyses.games)
    figure = _new_figure(12, 4.8)
    axes = figure.add_subplot()
    positions = np.arange(len(order))
    axes.bar(positions - 0.2, atari5[order], width=0.4, label="Atari-5", color="#4c72b0")
    axes.bar(positions + 0.2, atari10[order], width=0.4, label="Atari-10", color="#dd8452")
    axes.axhline(structure.WELL_PREDICTED_R2, color="black", linewidth=0.8, linestyle="--",
                 label=f"R$^2$ = {structure.WELL_PREDICTED_R2}")
    axes.set_xticks(positions, [names.get(g, g) for g in order], rotation=90, fontsize=7)
    axes.set_xlim(-0.6, len(order) - 0.4)
    axes.set_ylim(0, 1.02)
    axes.set_ylabel("R$^2$ of the per-game model")
    axes.set_title("How well the subset's games predict each game's log-normalised score")
    axes.legend(loc="upper left", fontsize=8)
    axes.grid(True, axis="y", alpha=0.3)
    return figure


def plot_fairness(analyses: Analyses):
    """Section 5.4 (Figure 3): absolute and signed relative error of the Atari-5 estimate per tertile."""
    frame = analyses.fairness.algorithms
    tertiles = sorted(frame["tertile"].unique())
    figure = _new_figure(9, 4)
    for position, (measure, label) in enumerate((("abs_rel_err", "absolute relative error (accuracy)"),
                                                 ("rel_err", "relative error (bias)")), start=1):
        axes = figure.add_subplot(1, 2, position)
        data = [100 * frame.loc[frame["tertile"] == t, measure].to_numpy() for t in tertiles]
        axes.boxplot(data, showmeans=True)
        axes.set_xticks(np.arange(1, len(tertiles) + 1), ["low", "medium", "high"][: len(tertiles)])
        axes.axhline(0, color="black", linewidth=0.6)
        axes.set_ylabel(f"{label}, %")
        axes.set_xlabel("tertile of true median")
        axes.grid(True, axis="y", alpha=0.3)
    figure.suptitle("Fairness of Atari-5 estimates across low, medium and high performers")
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
    figure = _new_figure(11, 10)
    axes = figure.add_subplot()
    image = axes.imshow(matrix, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
    labels = [f"{names.get(g, g)} ({category.get(g, '?')})" for g in order]
    axes.set_xticks(np.arange(len(order)), labels, rotation=90, fontsize=6)
    axes.set_yticks(np.arange(len(order)), labels, fontsize=6)
    boundaries = [i for i in range(1, len(order)) if category.get(order[i]) != category.get(order[i - 1])]
    for boundary in boundaries:
        axes.axhline(boundary - 0.5, color="black", linewidth=0.8)
        axes.axvline(boundary - 0.5, color="black", linewidth=0.8)
    figure.colorbar(image, ax=axes, shrink=0.7, label="Pearson correlation (pairwise complete)")
    axes.set_title("Correlation between games' log-normalised scores, grouped by category")
    return figure


def plot_item_characteristic_curves(analyses: Analyses, games=ICC_GAMES):
    """Seed 003 (Figures 4-6): 2PL item characteristic curves, with the algorithms' abilities as ticks."""
    from .irt import item_characteristic_curve

    items = analyses.irt.items
    games = [g for g in games if g in items.index]
    names = _names(analyses.games)
    theta = np.linspace(-4, 4, 401)
    figure = _new_figure(10, 4.8)
    axes = figure.add_subplot()
    for game in games:
        b, a = items.loc[game, "difficulty"], items.loc[game, "discrimination"]
        axes.plot(theta, item_characteristic_curve(theta, b, a), linewidth=1.6,
                  label=f"{names.get(game, game)} (b = {b:.2f}, a = {a:.2f})")
    abilities = analyses.irt.abilities.to_numpy()
    axes.plot(abilities, np.full_like(abilities, -0.04), "|", color="black", markersize=10,
              label="algorithms' abilities (EAP)")
    axes.set_xlim(theta[0], theta[-1])
    axes.set_ylim(-0.08, 1.02)
    axes.set_xlabel("ability θ")
    axes.set_ylabel("P(score ≥ human)")
    axes.set_title("2PL item characteristic curves of the Atari-5 games")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    axes.grid(True, alpha=0.3)
    return figure


_PLOTS = {
    "predicted_vs_true": plot_predicted_vs_true,
    "single_game_ranking": plot_single_game_ranking,
    "per_game_r2": plot_per_game_r2,
    "fairness": plot_fairness,
    "game_correlations": plot_game_correlations,
    "item_characteristic_curves": plot_item_characteristic_curves,
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
    items = analyses.irt.items.sort_values("difficulty")
    published = analyses.irt_published
    return pd.DataFrame({
        "game_id": items.index,
        "difficulty": items["difficulty"].to_numpy(),
        "discrimination": items["discrimination"].to_numpy(),
        "share_human_level": items["success_rate"].to_numpy(),
        "n": items["n"].to_numpy(),
        "seed003_difficulty": published["difficulty"].reindex(items.index).to_numpy(),
        "seed003_discrimination": published["discrimination"].reindex(items.index).to_numpy(),
    })


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
    fairness_tests = analyses.fairness.tests
    table8_ok = int(analyses.table8["matches"].sum())
    atari5, atari10 = analyses.per_game["Atari-5"], analyses.per_game["Atari-10"]
    parts = [
        _section("Paper figures (Atari-5, sections 5.1-6) computed from the data",
                 _paragraph("'rounded' / 'truncated': the computed value prints as the paper's at its printed "
                            "precision when rounded / when cut toward zero."),
                 _table(analyses.figures, {"computed": 4})),
        _section("Atari-5 estimate vs true median", _image(pngs["predicted_vs_true"], "predicted vs true median")),
        _section("Single-game predictiveness (section 5.1)",
                 _image(pngs["single_game_ranking"], "single-game R2 ranking"),
                 _table(analyses.ranking.head(10), {"intercept": 3, "slope": 3, "r2": 3})),
        _section("Per-game models (section 5.5)",
                 _paragraph("Variance explained = 1 - sum of residual SS / sum of total SS over the 57 games, each "
                            "on the rows its model was fitted on (predictor games count, with no residual)."),
                 _table(pd.DataFrame({
                     "subset": ["Atari-5", "Atari-10"],
                     "variance_explained_percent": [100 * structure.variance_explained(s) for s in (atari5, atari10)],
                     "mean_r2_percent": [100 * s["r2"].mean() for s in (atari5, atari10)],
                     "games_r2_gt_0_8": [len(structure.well_predicted_games(s)) for s in (atari5, atari10)],
                 }), {"variance_explained_percent": 2, "mean_r2_percent": 2}),
                 _image(pngs["per_game_r2"], "per-game R2")),
        _section("Fairness across tertiles (section 5.4)",
                 _image(pngs["fairness"], "fairness by tertile"),
                 _table(analyses.fairness.tertiles, {"min_median": 1, "max_median": 1,
                                                     "mean_abs_rel_err": 4, "mean_rel_err": 4}),
                 _table(fairness_tests, {"t": 3, "p_value": 3}),
                 _paragraph(f"{int(fairness_tests['significant'].sum())} of {len(fairness_tests)} Welch t-tests "
                            "significant at 0.05.")),
        _section("Structure within the ALE (section 6)",
                 _image(pngs["game_correlations"], "game correlation heatmap"),
                 _paragraph("Most correlated pairs (Pearson, log-normalised scores, pairwise complete):"),
                 _table(analyses.pairs.head(12), {"pcc": 3}),
                 _paragraph("Skiing's most negative correlations:"),
                 _table(analyses.correlations["skiing"].drop("skiing").sort_values().head(6)
                        .rename("pcc").rename_axis("game").reset_index(), {"pcc": 3})),
        _section("Item response theory (seed 003)",
                 _paragraph(f"2PL fit on {len(analyses.irt.abilities)} agents x {len(analyses.irt.items)} games "
                            f"('human level' = normalised score >= 100); dropped games without both outcomes: "
                            f"{', '.join(analyses.irt.dropped) or 'none'}; converged: {analyses.irt.converged}. "
                            f"Spearman rank correlation of difficulty with seed 003's Table 1 over {rc.n} shared "
                            f"games: {rc.rho:.3f} (p = {rc.p_value:.3f}). Discriminations in the tens or more mean "
                            "the game splits the algorithms almost perfectly: read them as 'very steep'."),
                 _image(pngs["item_characteristic_curves"], "item characteristic curves"),
                 _table(_irt_table(analyses), {"share_human_level": 2, "seed003_difficulty": 3,
                                               "seed003_discrimination": 3})),
        _section("Aggregates of the training algorithms (seed 004, rliable)",
                 _paragraph(f"Table 8 medians through aggregates.median_score: {table8_ok} of "
                            f"{len(analyses.table8)} match the paper at 1 decimal. IQM and optimality gap on "
                            "fractions of human (gamma = 1), over the games each algorithm has."),
                 _table(analyses.aggregates, {"mean": 1, "median": 1, "iqm": 1, "optimality_gap": 3})),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>atari5-spec structure report</title>"
            f"<style>{_STYLE}</style></head><body><h1>atari5-spec: structure of the ALE score data</h1>"
            + "".join(parts) + "</body></html>\n")


def write_report(analyses: Analyses, out: Path | str) -> list[Path]:
    """Draw every picture as PNG into ``out`` and write ``report.html`` there; return the paths written."""
    import io

    from .paths import output_directory, write_output

    out = output_directory(out)  # the path policy: never inside a data package, never through links
    written, pngs = [], {}
    for key, plot in _PLOTS.items():
        buffer = io.BytesIO()
        plot(analyses).savefig(buffer, format="png", dpi=_DPI, metadata=_PNG_METADATA)
        pngs[key] = buffer.getvalue()
        written.append(write_output(out / FIGURE_FILES[key], pngs[key]))
    written.append(write_output(out / HTML_FILE, report_html(analyses, pngs)))
    return written
