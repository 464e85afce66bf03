"""The paper's tables, computed from the data.

Each ``tableNN`` function returns a DataFrame laid out like the published
reference table of the same number (published/), with computed values at full
precision; :mod:`atari5_spec.method.verification` compares the two at the printed
precision and ``atari5-spec reproduce`` writes them as CSV and Markdown.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..data.paths import output_directory, write_output
from ..data.writing import frame_csv_text
from . import training
from .reference import human_normalised, inverse_log_transform, log_transform

__all__ = ["algorithm_estimates", "table02", "table03", "table08", "table09",
           "per_game_table", "table12", "reproduce_tables", "write_tables", "TABLE3_ALGORITHMS"]

# The algorithms the paper's Table 3 shows (MuZero, Agent57, Ape-X, IQN, Rainbow DQN).
TABLE3_ALGORITHMS = ["muzero", "agent57", "ape-x", "iqn", "rainbow-noop"]


def algorithm_estimates(rows: pd.DataFrame, coefficients: pd.DataFrame, normalisation: pd.DataFrame,
                        subset: str = "Atari-5") -> pd.Series:
    """Subset estimate of every algorithm in ``rows`` that has all the subset's games.

    ``coefficients`` is a version's subset_coefficients table, ``normalisation``
    its constants; ``rows`` are score rows (one value per algorithm and game).
    """
    model = coefficients[coefficients["subset"] == subset].sort_values("position")
    games = model["game_id"].tolist()
    constants = normalisation.set_index("game_id")
    picked = rows[rows["game_id"].isin(games)].drop_duplicates(["algorithm_id", "game_id"])
    raw = picked.pivot(index="algorithm_id", columns="game_id", values="score")[games].dropna()
    z = human_normalised(raw.to_numpy(), constants.loc[games, "random_score"].to_numpy(),
                         constants.loc[games, "human_score"].to_numpy())
    log_estimate = log_transform(z) @ model["coefficient"].to_numpy(float)
    return pd.Series(inverse_log_transform(log_estimate), index=raw.index, name=subset)


def table02(tables: dict) -> pd.DataFrame:
    """Table 2: games, cross-validated R^2 and relative error of each subset model."""
    models = tables["subset_models"]
    return pd.DataFrame({"subset": models["subset"], "games": models["games"],
                         "r2": models["cv_r2"], "rel_err_percent": models["rel_err_percent"]})


def table03(dataset, tables: dict, rows: pd.DataFrame, algorithm_ids=TABLE3_ALGORITHMS) -> pd.DataFrame:
    """Table 3: true 57-game median beside the Atari-5 estimate, and the relative error in %.

    ``rows`` are the version's training rows (the five algorithms are in the
    paper's training set), so later corrections do not change a pinned table.
    """
    rows = rows[rows["algorithm_id"].isin(algorithm_ids)]
    medians = training.algorithm_summary(rows, dataset.games)["median"]
    estimates = algorithm_estimates(rows, tables["subset_coefficients"], tables["normalisation"])
    names = dataset.algorithms.set_index("algorithm_id")["name"]
    out = pd.DataFrame({"algorithm": [names[a] for a in algorithm_ids], "algorithm_id": algorithm_ids,
                        "median": medians.reindex(algorithm_ids).to_numpy(),
                        "atari5": estimates.reindex(algorithm_ids).to_numpy()})
    out["rel_err_percent"] = 100 * (out["atari5"] - out["median"]).abs() / out["median"]
    return out


def table08(dataset, rows: pd.DataFrame) -> pd.DataFrame:
    """Table 8: the training algorithms with their game counts and medians, best first."""
    summary = training.algorithm_summary(rows, dataset.games)
    names = dataset.algorithms.set_index("algorithm_id")["name"]
    out = pd.DataFrame({"algorithm": [names[a] for a in summary.index], "algorithm_id": summary.index,
                        "games": summary["n_games"].to_numpy(), "median": summary["median"].to_numpy()})
    return out.sort_values(["median", "algorithm_id"], ascending=[False, True]).reset_index(drop=True)


def table09(tables: dict) -> pd.DataFrame:
    """Table 9: coefficients of every searched subset model (no intercept)."""
    coefficients = tables["subset_coefficients"]
    return coefficients[coefficients["subset"] != "DQN-7"].reset_index(drop=True)


def per_game_table(tables: dict, subset: str) -> pd.DataFrame:
    """Tables 10 (subset='Atari-5') and 11 ('Atari-10'): per-game models with intercept."""
    models = tables["per_game_models"]
    return models[models["subset"] == subset][["target_game_id", "term", "coefficient"]].reset_index(drop=True)


def table12(dataset) -> pd.DataFrame:
    """Table 12: the normalisation constants of the 57 games."""
    games = dataset.games[dataset.games["in_57"].astype(bool)]
    return pd.DataFrame({"game": games["name"], "game_id": games["game_id"],
                         "random": games["random_score"], "human": games["human_score"]}).reset_index(drop=True)


def reproduce_tables(dataset, tables: dict, rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """All reproducible tables of the paper, keyed by their published file stem."""
    return {
        "table02_subsets": table02(tables),
        "table03_atari5_scores": table03(dataset, tables, rows),
        "table08_algorithms": table08(dataset, rows),
        "table09_subset_coefficients": table09(tables),
        "table10_atari5_per_game": per_game_table(tables, "Atari-5"),
        "table11_atari10_per_game": per_game_table(tables, "Atari-10"),
        "table12_normalisation": table12(dataset),
    }


def markdown(frame: pd.DataFrame, places: dict[str, int] | None = None) -> str:
    """A GitHub Markdown table, numbers at the paper's printed precision where given."""
    places = places or {}

    def cell(column, value):
        if isinstance(value, float) and column in places:
            return f"{value:.{places[column]}f}"
        return str(value)

    header = "| " + " | ".join(frame.columns) + " |\n|" + "---|" * len(frame.columns) + "\n"
    body = "".join("| " + " | ".join(cell(c, v) for c, v in zip(frame.columns, row)) + " |\n"
                   for row in frame.itertuples(index=False))
    return header + body


PRINTED_PLACES = {
    "table02_subsets": {"r2": 3, "rel_err_percent": 1},
    "table03_atari5_scores": {"median": 0, "atari5": 0, "rel_err_percent": 1},
    "table08_algorithms": {"median": 1},
    "table09_subset_coefficients": {"coefficient": 4},
    "table10_atari5_per_game": {"coefficient": 3},
    "table11_atari10_per_game": {"coefficient": 3},
    "table12_normalisation": {},
}


def write_tables(computed: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    """Write each table as CSV (full precision) and Markdown (printed precision)."""
    out = output_directory(out)  # never inside a data package (published/ holds the paper's tables), no links
    written = []
    for stem, frame in computed.items():
        written.append(write_output(out / f"{stem}.csv", frame_csv_text(frame, list(frame.columns))))
        written.append(write_output(out / f"{stem}.md", markdown(frame, PRINTED_PLACES.get(stem))))
    return written
