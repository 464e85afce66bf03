"""Out-of-sample evaluation of coefficient versions: how far the estimate misses the 57-game median.

>>> import atari5_spec
>>> from atari5_spec_research.evaluation import evaluate_version
>>> result = evaluate_version(atari5_spec.load(), "paper-2023")  # doctest: +SKIP
>>> result.errors    # doctest: +SKIP
>>> result.coverage  # doctest: +SKIP

(skipped in the doctest run: about 12 s; ``result.errors`` has one row per
(subset, agent): estimate, true median, log error, ratio; ``result.coverage``
the prediction-interval coverage, measured leave-one-paper-out.)

See :mod:`atari5_spec_research.evaluation.errors` for what each error means, and
``atari5-spec evaluate`` for the command line.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from atari5_spec.method.calibration import conformal_quantile
from atari5_spec.method.pinned import load_coefficient_set
from atari5_spec_research.evaluation.agents import Agents, agent_scores, algorithm_info
from atari5_spec_research.evaluation.errors import ERROR_COLUMNS, NestedResult, heldout_errors, loso_errors, nested_cv, relative_error_percent

__all__ = ["VersionEvaluation", "evaluate_version", "group_summary", "coverage_table", "agent_scores",
           "relative_error_percent", "ERROR_COLUMNS", "LEVEL"]

LEVEL = 0.95


class VersionEvaluation(NamedTuple):
    """Everything measured out of sample for one coefficient version."""

    version: str
    training_algorithms: tuple[str, ...]
    errors: pd.DataFrame         # ERROR_COLUMNS: held-out agents and leave-one-paper-out, every subset
    nested: NestedResult | None  # select-then-fit, Atari-5 size (None when skipped)
    in_sample_rel_err: dict      # subset -> the version's own (non-nested) CV relative error, in %
    coverage: pd.DataFrame       # subset, kind, n, covered, coverage at LEVEL
    subset_games: dict           # subset -> its games


def _training_matrix(dataset, version: str, reads=None):
    from atari5_spec.method.pinned_reads import pinned_training_matrix

    return pinned_training_matrix(dataset, version, reads)


def version_errors(dataset, version: str, agents: Agents | None = None, reads=None
                   ) -> tuple[tuple[str, ...], pd.DataFrame]:
    """(training algorithms, errors): held-out and leave-one-paper-out errors of every subset of a version
    (``reads``: a :class:`~atari5_spec.method.pinned_reads.PinnedReads` the version's tables are read through)."""
    agents = agents if agents is not None else agent_scores(dataset)
    manifest, X, y = _training_matrix(dataset, version, reads)
    trained = tuple(manifest["training"]["algorithms"])
    info = algorithm_info(dataset.algorithms, X.index)
    model_set = load_coefficient_set(version, dataset.root)
    frames = []
    # learning-curve checkpoints of training algorithms: judged by the refit that left their paper out
    checkpoints = agents.info[agents.info["algorithm_id"].isin(set(trained)) & agents.info["is_budget_checkpoint"]]
    extra = (agents.phi().loc[checkpoints.index], checkpoints)
    for name, model in model_set.subsets.items():
        frames.append(heldout_errors(agents, name, model.games, model.coefficients, trained))
        frames.append(loso_errors(X, y, info, name, model.games, extra))
    errors = pd.concat(frames, ignore_index=True)
    return trained, errors.sort_values(["subset", "kind", "agent"], kind="stable").reset_index(drop=True)


def coverage_table(errors: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """How often the prediction interval at ``level`` holds the true median, measured leave-one-paper-out.

    Each agent's interval is built from the errors of every *other* paper (its
    own paper's agents never calibrate its interval), around its point estimate.
    With the runs (algorithm entries: a run's learning-curve checkpoints are one)
    and papers behind each figure, and exact 95% bounds of the share of runs
    wholly covered (:mod:`atari5_spec.method.claims`).
    """
    from atari5_spec.method.claims import evidence

    columns = ["subset", "kind", "n", "covered", "coverage", "runs", "papers", "runs_covered", "runs_low", "runs_high"]
    rows = []
    for subset, same_subset in errors.groupby("subset", sort=True):
        flags = pd.Series([abs(e) <= conformal_quantile(same_subset.loc[same_subset["paper"] != p, "log_error"], level)
                           for e, p in zip(same_subset["log_error"], same_subset["paper"])], index=same_subset.index)
        for kind, group in [*same_subset.groupby("kind", sort=True), ("all", same_subset)]:
            e = evidence(flags[group.index].tolist(), group["algorithm_id"].tolist(), group["paper"].tolist())
            rows.append(dict(subset=subset, kind=kind, n=e.n, covered=e.covered,
                             coverage=e.coverage if e.n else math.nan, runs=e.runs, papers=e.papers,
                             runs_covered=e.runs_covered, runs_low=e.runs_low, runs_high=e.runs_high))
    return (pd.DataFrame(rows, columns=columns).sort_values(["subset", "kind"], kind="stable")
            .reset_index(drop=True))


def group_summary(errors: pd.DataFrame, subset: str = "Atari-5") -> pd.DataFrame:
    """Error by group (how the agent was held out, sticky actions, budget): n, relative error, ratios."""
    chosen = errors[errors["subset"] == subset].copy()
    chosen["budget"] = chosen["budget"].astype(float).fillna(math.inf)  # inf: the source does not say
    rows = []
    for keys in (["kind"], ["kind", "sticky"], ["kind", "budget"]):
        for values, group in chosen.groupby(keys, sort=True):
            values = values if isinstance(values, tuple) else (values,)
            label = dict(zip(keys, values))
            ratios = group["ratio"].to_numpy(float)
            text = {k: (("not stated" if math.isinf(v) else _frames(v)) if k == "budget" else str(v))
                    for k, v in label.items()}
            rows.append(dict(kind=label["kind"], by=" ".join(keys[1:]) or "all",
                             group=" ".join(text[k] for k in keys[1:]) or "all", n=len(group),
                             rel_err_percent=relative_error_percent(group["log_error"]),
                             mean_ratio=float(np.exp(np.mean(np.log(ratios)))), min_ratio=float(ratios.min()),
                             max_ratio=float(ratios.max())))
    return pd.DataFrame(rows)


def _frames(value) -> str:
    from atari5_spec.data.frames import format_frames

    return format_frames(int(value))


def evaluate_version(dataset, version: str, agents: Agents | None = None, nested: bool = True,
                     level: float = LEVEL, progress=None) -> VersionEvaluation:
    """Held-out, leave-one-paper-out and (``nested``) nested-CV errors of ``version``, and interval coverage."""
    agents = agents if agents is not None else agent_scores(dataset)
    trained, errors = version_errors(dataset, version, agents)
    model_set = load_coefficient_set(version, dataset.root)
    nested_result = None
    if nested:
        _, X, y = _training_matrix(dataset, version)
        nested_result = nested_cv(X, y, k=len(model_set.subsets["Atari-5"].games), progress=progress)
    in_sample = {name: m.rel_err_percent for name, m in model_set.subsets.items()}
    games = {name: m.games for name, m in model_set.subsets.items()}
    return VersionEvaluation(version, trained, errors, nested_result, in_sample, coverage_table(errors, level), games)
