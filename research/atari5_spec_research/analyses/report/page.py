"""The report as one self-contained HTML page (tables inline, pictures as data URIs), and writing it."""

from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np
import pandas as pd

from atari5_spec_research.analyses import structure
from atari5_spec_research.analyses.irt_output import irt_estimation_text
from atari5_spec_research.analyses.report.analysis import Analyses
from atari5_spec_research.analyses.report.figures import _DPI, _PLOTS, FIGURE_FILES, PNG_METADATA, _names

HTML_FILE = "report.html"


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

    from atari5_spec.data.paths import output_directory, write_output

    out = output_directory(out)  # the path policy: never inside a data package, never through links
    written, pngs = [], {}
    for key, plot in _PLOTS.items():
        buffer = io.BytesIO()
        plot(analyses).savefig(buffer, format="png", dpi=_DPI, metadata=PNG_METADATA)
        pngs[key] = buffer.getvalue()
        written.append(write_output(out / FIGURE_FILES[key], pngs[key]))
    written.append(write_output(out / HTML_FILE, report_html(analyses, pngs)))
    return written
