"""The results contributed since the 2022 scrape: true 57-game median, Atari-5 estimate and their ratio.

The README's table of results after 2022 is this module's output (a test keeps it so), not typed: one row per
contributed algorithm (data/sources.csv kind ``contribution``, not a correction) with at least 40 of the 57
games and all of the subset's games, at its published budget. Entries kept out of fits (Atari 100k, short
budgets) are listed too, with their regime: the table describes the estimate's behaviour on them, it does not
rank them. Ratio = (1 + estimate) / (1 + true median), as ``atari5-spec evaluate`` defines it.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from atari5_spec.data.frames import format_frames
from atari5_spec.method import training
from atari5_spec.scoring.estimate import as_coefficient_set, model_estimate

__all__ = ["ContributedResult", "contributed_results", "results_markdown", "README_BLOCK"]

README_BLOCK = "results-after-2022"


class ContributedResult(NamedTuple):
    algorithm_id: str
    label: str             # 'DreamerV3, 200M frames'
    protocol: str          # 'sticky 0.25', 'no sticky' or 'not stated'
    true_median: float     # median human-normalised score over the 57 games it has (>= 40)
    estimate: float        # the subset's estimate
    ratio: float           # (1 + estimate) / (1 + true median)


def _protocol_text(probability) -> str:
    if probability is None or pd.isna(probability):
        return "not stated"
    return f"sticky {float(probability):g}" if float(probability) > 0 else "no sticky"


def contributed_results(dataset, coefficients=None, subset: str = "Atari-5") -> list[ContributedResult]:
    """One row per contributed algorithm with >= 40 of the 57 games and the subset's games, by true median."""
    coefficient_set = as_coefficient_set(coefficients)
    model = coefficient_set.subsets[subset]
    sources = dataset.sources.set_index("source_id")
    algorithms = dataset.algorithms.set_index("algorithm_id")
    contributed = [a for a, source in algorithms["source_id"].items()
                   if source in sources.index and sources.loc[source, "kind"] == "contribution"]
    # Every algorithm counts here, excluded from fits or not: exclusion only changes what fits may use.
    rows = training.candidate_rows(dataset.scores, dataset.algorithms.assign(exclusion=pd.NA), dataset.games)
    rows = rows[rows["algorithm_id"].isin(contributed)]
    summary = training.algorithm_summary(rows, dataset.games)
    out = []
    for algorithm_id, facts in summary.iterrows():
        own = rows[rows["algorithm_id"] == algorithm_id].groupby("game_id")["score"].first()
        if facts["n_games"] < training.PAPER_RULE.min_games or not set(model.games) <= set(own.index):
            continue
        estimate = float(model_estimate(own.to_dict(), model, coefficient_set.constants))
        median = float(facts["median"])
        frames = algorithms.loc[algorithm_id, "training_frames"]
        label = str(algorithms.loc[algorithm_id, "name"]) + (
            "" if pd.isna(frames) else f", {format_frames(int(frames))} frames")
        out.append(ContributedResult(algorithm_id, label,
                                     _protocol_text(algorithms.loc[algorithm_id, "sticky_action_probability"]),
                                     median, estimate, (1 + estimate) / (1 + median)))
    return sorted(out, key=lambda r: (-r.true_median, r.algorithm_id))


def results_markdown(results: list[ContributedResult]) -> str:
    """The README table."""
    lines = ["| agent | protocol | true median | Atari-5 | ratio (1 + Atari-5) / (1 + true median) |",
             "|---|---|---:|---:|---:|"]
    from atari5_spec.data.markdown import markdown_text

    lines += [f"| {markdown_text(r.label)} | {markdown_text(r.protocol)} | {r.true_median:,.1f} | {r.estimate:,.1f} | {r.ratio:.2f} |"
              for r in results]
    return "\n".join(lines) + "\n"
