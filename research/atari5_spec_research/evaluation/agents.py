"""The agents the evaluation looks at: every published configuration with enough games, at every budget.

An *agent* here is one row of numbers that has a true 57-game median: an
algorithm's published per-game numbers (key = its algorithm_id), or an
algorithm's learning curves at one training budget (key
``<algorithm_id>@<budget>``, e.g. ``dreamerv3@50M``: the mean over the seeds
that reach the budget, per game). Each agent carries the facts the
evaluation groups by: its paper (all entries of one paper are held out
together), protocol (sticky actions), regime and budget.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from atari5_spec.data.frames import format_frames
from atari5_spec.data.validation import regime_label
from atari5_spec.method.reference import human_normalised, log_transform
from atari5_spec.method.training import candidate_rows, canonical_games

__all__ = ["Agents", "agent_scores", "algorithm_info", "sticky_group", "MIN_GAMES"]

MIN_GAMES = 40  # the paper's inclusion rule: a true median needs at least 40 of the 57 games
EXCLUDED_FROM_EVALUATION = ("duplicate", "reference-scores")  # the same numbers as another entry, or no agent


class Agents(NamedTuple):
    """``info``: one row per agent (index: key); ``z``: human-normalised score per canonical game (NaN: missing)."""

    info: pd.DataFrame
    z: pd.DataFrame

    def phi(self) -> pd.DataFrame:
        return pd.DataFrame(log_transform(self.z.to_numpy()), index=self.z.index, columns=self.z.columns)


def sticky_group(probability) -> str:
    """'sticky' (p > 0), 'no sticky' (p = 0) or 'not stated'."""
    if probability is None or pd.isna(probability):
        return "not stated"
    return "sticky" if float(probability) > 0 else "no sticky"


def _paper(algorithms: pd.DataFrame) -> pd.Series:
    """The paper an entry's numbers come from: its paper_title, else its source (for untitled compilations)."""
    return algorithms["paper_title"].astype(object).where(algorithms["paper_title"].notna(),
                                                          "source:" + algorithms["source_id"].astype(str))


def algorithm_info(algorithms: pd.DataFrame, ids) -> pd.DataFrame:
    """The grouping facts of algorithm entries (their published numbers), indexed by algorithm_id."""
    entry = algorithms.set_index("algorithm_id").loc[list(ids)]
    return pd.DataFrame({
        "algorithm_id": entry.index, "name": entry["name"].astype(str).to_numpy(),
        "paper": _paper(algorithms.set_index("algorithm_id")).loc[entry.index].to_numpy(),
        "budget": entry["training_frames"].astype(float).to_numpy(), "is_budget_checkpoint": False,
        "sticky": [sticky_group(p) for p in entry["sticky_action_probability"]],
        "regime": entry["regime"].astype(object).where(entry["regime"].notna(), None).to_numpy(),
    }, index=entry.index)


def _normalised(frame: pd.DataFrame, games: pd.DataFrame) -> pd.Series:
    constants = games.set_index("game_id")
    return pd.Series(human_normalised(frame["score"].to_numpy(float),
                                      constants.loc[frame["game_id"], "random_score"].to_numpy(float),
                                      constants.loc[frame["game_id"], "human_score"].to_numpy(float)),
                     index=frame.index)


def agent_scores(dataset, min_games: int = MIN_GAMES) -> Agents:
    """Every agent with at least ``min_games`` of the 57 games, with its true median and grouping facts."""
    games57 = canonical_games(dataset.games)
    algorithms = dataset.algorithms.set_index("algorithm_id")
    rows = candidate_rows(dataset.scores, dataset.algorithms.assign(exclusion=pd.NA), dataset.games)
    rows = rows.assign(z=_normalised(rows, dataset.games))
    finals = rows.groupby(["algorithm_id", "game_id"])["z"].first().unstack("game_id")
    budget_frames = []
    budgets = dataset.budget_scores
    if budgets is not None and len(budgets):
        budgets = budgets[budgets["game_id"].isin(games57)]
        budgets = budgets.assign(z=_normalised(budgets, dataset.games))
        means = budgets.groupby(["algorithm_id", "training_frames", "game_id"])["z"].mean().unstack("game_id")
        for (algorithm_id, frames), values in means.iterrows():
            if frames == algorithms.at[algorithm_id, "training_frames"]:
                continue  # the published per-game numbers are this budget
            budget_frames.append(values.rename(f"{algorithm_id}@{format_frames(int(frames))}")
                                 .to_frame().T.assign(_algorithm=algorithm_id, _budget=int(frames)))
    z = finals.reindex(columns=games57).assign(_algorithm=finals.index, _budget=np.nan)
    z["_budget"] = algorithms["training_frames"].reindex(z.index).astype(float).to_numpy()
    if budget_frames:
        z = pd.concat([z] + [b.reindex(columns=list(games57) + ["_algorithm", "_budget"]) for b in budget_frames])
    meta = z[["_algorithm", "_budget"]]
    z = z[games57].astype(float)
    n_games = z.notna().sum(axis=1)
    entries = algorithms.loc[meta["_algorithm"]]
    keep = ((n_games >= min_games).to_numpy() & entries["kind"].eq("agent").to_numpy()
            & ~entries["exclusion"].isin(EXCLUDED_FROM_EVALUATION).to_numpy())
    z, meta, n_games = z[keep], meta[keep], n_games[keep]
    entry = algorithms.loc[meta["_algorithm"]]
    checkpoint = z.index.str.contains("@")
    info = algorithm_info(dataset.algorithms, meta["_algorithm"]).set_axis(z.index)
    info["budget"] = meta["_budget"].to_numpy()
    info["is_budget_checkpoint"] = checkpoint
    # a checkpoint's regime is its budget's (dreamerv3@10M is a 10M agent), not its algorithm's
    info["regime"] = [regime_label(b) if c else r for b, c, r in zip(info["budget"], checkpoint, info["regime"])]
    info["exclusion"] = entry["exclusion"].astype(object).where(entry["exclusion"].notna(), None).to_numpy()
    info["in_paper_pool"] = entry["in_paper_pool"].astype(bool).to_numpy()
    info["n_games"] = n_games.to_numpy()
    info["true_median"] = z.median(axis=1, skipna=True).to_numpy()
    info.index.name = z.index.name = "agent"
    order = sorted(info.index)
    return Agents(info.loc[order], z.loc[order])
