"""Choosing how to refit the Atari-5 weights on today's data, by out-of-sample error only.

The five games stay the benchmark's; what a refit may change is which agents
train the weights and how protocol differences enter. Candidates:

* ``finals``: the inclusion rule (at least 40 of the 57 games, median above 40)
  over every entry without an exclusion: the paper's pool plus the results
  after 2022, each with its published numbers;
* ``finals+budgets``: the same plus every learning-curve budget checkpoint that
  passes the rule, as extra agents;
* ``finals+sticky-term`` and ``finals+budgets+sticky-term``: a sticky-action
  indicator (1 when the entry states p > 0) as an extra regressor, so sticky
  agents get their own offset.

Each candidate is judged by leave-one-paper-out error over the union of its
agents: every agent is predicted by the candidate refitted without its
paper's agents. Comparisons with a pinned version (``compare_versions``) use
the same per-agent out-of-sample errors (held-out for agents outside the
version's training set, leave-one-paper-out inside it).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from atari5_spec.method.fitting import fit_no_intercept
from atari5_spec.method.reference import log_transform
from atari5_spec_research.evaluation.errors import relative_error_percent

__all__ = ["CANDIDATES", "refit_candidates", "categories", "compare_versions", "AFTER_2022_SOURCE_KIND"]

CANDIDATES = {"finals": (False, False), "finals+budgets": (True, False), "finals+sticky-term": (False, True),
              "finals+budgets+sticky-term": (True, True)}
AFTER_2022_SOURCE_KIND = "contribution"
MEDIAN_ABOVE = 40.0


def categories(agents, dataset) -> pd.Series:
    """Per agent: the comparison group ('sticky 200M after 2022', 'after 2022', 'budget checkpoint', 'paper pool',
    'other held-out')."""
    sources = dataset.sources.set_index("source_id")["kind"]
    algorithms = dataset.algorithms.set_index("algorithm_id")
    info = agents.info
    contributed = sources.reindex(algorithms.loc[info["algorithm_id"], "source_id"]).to_numpy() == AFTER_2022_SOURCE_KIND
    labels = []
    for (key, row), after in zip(info.iterrows(), contributed):
        if row["is_budget_checkpoint"]:
            labels.append("budget checkpoint")
        elif after and row["sticky"] == "sticky" and row["budget"] == 200_000_000:
            labels.append("after 2022, sticky, 200M")
        elif after:
            labels.append("after 2022, other")
        elif row["in_paper_pool"] and pd.isna(row["exclusion"]):
            labels.append("paper pool")
        else:
            labels.append("other")
    return pd.Series(labels, index=info.index, name="category")


def _eligible(agents, dataset, budgets: bool) -> pd.Index:
    info = agents.info
    ok = info["exclusion"].isna() & (info["true_median"] > MEDIAN_ABOVE)
    if not budgets:
        ok &= ~info["is_budget_checkpoint"]
    return info.index[ok.to_numpy()]


def refit_candidates(agents, dataset, games) -> pd.DataFrame:
    """Leave-one-paper-out log errors of every candidate, one row per (candidate, agent)."""
    phi = agents.phi()[list(games)]
    target = pd.Series(log_transform(agents.info["true_median"].to_numpy()), index=agents.info.index)
    sticky = (agents.info["sticky"] == "sticky").astype(float)
    papers = agents.info["paper"].astype(str)
    judged = _eligible(agents, dataset, budgets=True)
    judged = judged[phi.loc[judged].notna().all(axis=1).to_numpy()]
    rows = []
    for name, (budgets, term) in CANDIDATES.items():
        training = _eligible(agents, dataset, budgets)
        training = training[phi.loc[training].notna().all(axis=1).to_numpy()]
        for paper in sorted(papers[judged].unique()):
            test = judged[(papers[judged] == paper).to_numpy()]
            train = training[(papers[training] != paper).to_numpy()]
            X = phi.loc[train].to_numpy()
            X_test = phi.loc[test].to_numpy()
            if term:
                X, X_test = np.c_[X, sticky[train]], np.c_[X_test, sticky[test]]
            weights = fit_no_intercept(X, target[train].to_numpy())
            errors = target[test].to_numpy() - X_test @ weights
            rows += [dict(candidate=name, agent=a, log_error=float(e)) for a, e in zip(test, errors)]
    return pd.DataFrame(rows)


def _summarise(errors: pd.DataFrame, by: str, categories_: pd.Series) -> pd.DataFrame:
    frame = errors.assign(category=categories_.reindex(errors["agent"]).to_numpy())
    out = []
    for (name, category), group in frame.groupby([by, "category"], sort=True):
        out.append(dict(**{by: name}, category=category, n=len(group),
                        rel_err_percent=relative_error_percent(group["log_error"])))
    for name, group in frame.groupby(by, sort=True):
        out.append(dict(**{by: name}, category="all", n=len(group),
                        rel_err_percent=relative_error_percent(group["log_error"])))
    table = pd.DataFrame(out).pivot(index="category", columns=by, values="rel_err_percent")
    counts = frame.groupby("category")["agent"].nunique()
    counts["all"] = frame["agent"].nunique()
    return table.assign(n=counts.reindex(table.index)).reset_index()


def candidate_table(errors: pd.DataFrame, categories_: pd.Series) -> pd.DataFrame:
    """Relative error (%) per category (rows) and candidate (columns)."""
    return _summarise(errors, "candidate", categories_)


def compare_versions(results, categories_: pd.Series, subset: str = "Atari-5") -> pd.DataFrame:
    """Relative error (%) per category (rows) and version (columns), on the agents every version can judge
    out of sample: held-out errors outside a version's training set, leave-one-paper-out inside it."""
    frames = []
    for result in results:
        errors = result.errors[result.errors["subset"] == subset]
        frames.append(errors.assign(version=result.version)[["version", "agent", "log_error"]])
    frame = pd.concat(frames, ignore_index=True)
    common = set.intersection(*(set(f["agent"]) for f in frames))
    frame = frame[frame["agent"].isin(common)]
    return _summarise(frame, "version", categories_)


def format_table(table: pd.DataFrame, title: str) -> str:
    columns = [c for c in table.columns if c not in ("category", "n")]
    header = ["category", "n"] + columns
    rows = [[r["category"], str(int(r["n"]))] + [("" if (isinstance(r[c], float) and math.isnan(r[c]))
                                                   else f"{r[c]:.1f}%") for c in columns]
            for r in table.to_dict("records")]
    widths = [max(len(x) for x in column) for column in zip(header, *rows)]
    lines = [title, "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
              for row in rows]
    return "\n".join(lines)
