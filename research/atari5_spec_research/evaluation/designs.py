"""How the prediction interval's design was chosen: designs compared by leave-one-paper-out coverage and width.

Every design turns a version's pinned out-of-sample errors into a 95% interval
for the 57-game median. Each is measured the same way: every pinned agent gets
the interval calibrated on the errors of the *other* papers, around its point
estimate; coverage = how often the true median falls inside, width = the
median of high / low (plain 57-game medians) over the agents of a group.

Single agents:

* ``pooled``: split-conformal on every |error| (the first calibration);
* ``in-range``: in range (estimate >= 40) on the in-range errors only, below
  it (extrapolation) on every error;
* ``normalised b=<beta>``: locally weighted conformal, |error| / (d + beta),
  with d the agent's own difficulty: the spread (standard deviation) of the
  subset's five one-game predictions of phi(median) (each game's no-intercept
  fit on the version's training rows); the interval is q (d + beta);
  ``normalised, b chosen inside``: beta picked without the agent's paper (the
  narrowest that keeps 95% in-range coverage on the other papers), the honest
  measure of tuning beta;
* ``signed``: separate 2.5% and 97.5% quantiles of the signed in-range errors.

Pairs of agents (the ratio of two true medians):

* ``sum of singles`` / ``root-sum-square of singles``: the two single in-range
  half-widths added, or combined as sqrt(qa^2 + qb^2);
* ``pairs``: split-conformal on pair errors over pairs of agents from two
  different papers, each pair calibrated on the pairs neither of whose papers
  is its own.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from atari5_spec.method.calibration import IN_RANGE_MIN, conformal_quantile

__all__ = ["difficulty", "single_designs", "pair_designs", "designs_markdown", "GROUPS", "NORMALISED_BETAS"]

NORMALISED_BETAS = (0.1, 0.2, 0.5, 1.0)
LEVEL = 0.95


def difficulty(dataset, version: str, rows: pd.DataFrame) -> pd.Series:
    """Per row (subset, agent): the spread of the subset's one-game predictions of phi(median)."""
    from atari5_spec.method import coefficients as coef
    from atari5_spec.method import training
    from atari5_spec.method.pinned import load_coefficient_set
    from atari5_spec_research.evaluation.agents import agent_scores

    _, tables = coef.read_version_tables(dataset.root / "coefficients", version)
    X, y = training.training_matrix(tables["training_rows"], dataset.games, dataset.algorithms)
    phi = agent_scores(dataset).phi()
    every = pd.concat([X, phi.loc[~phi.index.isin(X.index), X.columns]])
    out = pd.Series(np.nan, index=rows.index)
    for subset, model in load_coefficient_set(version, dataset.root).subsets.items():
        games = list(model.games)
        slopes = []
        for game in games:
            ok = (X[game].notna() & y.notna()).to_numpy()
            x = X[game].to_numpy()[ok]
            slopes.append(float(x @ y.to_numpy()[ok] / (x @ x)))
        mine = (rows["subset"] == subset).to_numpy()
        predictions = every.loc[rows.loc[mine, "agent"], games].to_numpy() * np.array(slopes)
        out[mine] = predictions.std(axis=1) if len(games) > 1 else 0.0
    return out


def _groups(rows: pd.DataFrame) -> dict[str, np.ndarray]:
    estimate = rows["estimate"].to_numpy(float)
    budget = pd.to_numeric(rows["budget"]).to_numpy(float)
    return {
        "all": np.ones(len(rows), bool),
        "in range": estimate >= IN_RANGE_MIN, "extrapolation": estimate < IN_RANGE_MIN,
        "in range, held-out": (estimate >= IN_RANGE_MIN) & (rows["kind"] == "held-out").to_numpy(),
        "in range, sticky": (estimate >= IN_RANGE_MIN) & (rows["sticky"] == "sticky").to_numpy(),
        "in range, not sticky or not stated": (estimate >= IN_RANGE_MIN) & (rows["sticky"] != "sticky").to_numpy(),
        "in range, 200M frames": (estimate >= IN_RANGE_MIN) & (budget == 2e8),
        "in range, other stated budget": (estimate >= IN_RANGE_MIN) & ~np.isnan(budget) & (budget != 2e8),
        "in range, budget not stated": (estimate >= IN_RANGE_MIN) & np.isnan(budget),
    }


GROUPS = tuple(_groups(pd.DataFrame({"estimate": [], "budget": [], "kind": [], "sticky": []})))


def _width(log_estimate: float, below: float, above: float) -> float:
    low, high = 10.0 ** (log_estimate - below) - 1.0, 10.0 ** (log_estimate + above) - 1.0
    return high / low if low > 0 and math.isfinite(high) else math.inf


def _single(rows: pd.DataFrame, design: str, level: float) -> tuple[np.ndarray, np.ndarray]:
    error = rows["log_error"].to_numpy(float)
    estimate = rows["estimate"].to_numpy(float)
    log_estimate = np.log10(1.0 + estimate)
    paper = rows["paper"].to_numpy()
    in_range = estimate >= IN_RANGE_MIN
    spread = rows["difficulty"].to_numpy(float) if "difficulty" in rows else None
    covered, width = [], []
    for i in range(len(rows)):
        other = paper != paper[i]
        pool = other & in_range if (design != "pooled" and in_range[i]) else other
        if design in ("pooled", "in-range"):
            below = above = conformal_quantile(error[pool], level)
        elif design.startswith("normalised b="):
            beta = float(design.split("=")[1])
            scale = spread + beta
            below = above = conformal_quantile(error[pool] / scale[pool], level) * scale[i]
        elif design == "normalised, b chosen inside":
            below = above = _nested_half(i, error, in_range, paper, spread, level)
        elif design == "signed":
            ordered = np.sort(error[pool])
            k = math.ceil((len(ordered) + 1) * (1 - (1 - level) / 2))
            above = ordered[k - 1] if k <= len(ordered) else math.inf
            below = -ordered[len(ordered) - k] if k <= len(ordered) else math.inf
        else:
            raise ValueError(design)
        covered.append(-below <= error[i] <= above)
        width.append(_width(log_estimate[i], below, above))
    return np.array(covered), np.array(width)


def _normalised_half(i: int, beta: float, allowed: np.ndarray, error, in_range, paper, spread, level) -> float:
    pool = allowed & (paper != paper[i]) & (in_range if in_range[i] else True)
    scale = spread + beta
    return conformal_quantile(error[pool] / scale[pool], level) * scale[i]


def _nested_half(i: int, error, in_range, paper, spread, level) -> float:
    """The normalised half-width for agent i with b chosen without i's paper: among NORMALISED_BETAS and no
    normalisation, the narrowest median in-range width whose in-range leave-one-paper-out coverage, measured on the
    other papers only, reaches ``level``."""
    allowed = paper != paper[i]
    inner = np.flatnonzero(allowed & in_range)
    best = (math.inf, math.inf)
    for beta in (*NORMALISED_BETAS, 1e9):  # 1e9: a constant scale, i.e. the in-range design
        halves = np.array([_normalised_half(j, beta, allowed, error, in_range, paper, spread, level) for j in inner])
        if np.mean(np.abs(error[inner]) <= halves) >= level and np.median(halves) < best[1]:
            best = (beta, float(np.median(halves)))
    beta = best[0] if math.isfinite(best[0]) else 1e9
    return _normalised_half(i, beta, np.ones(len(error), bool), error, in_range, paper, spread, level)


def single_designs(rows: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """design, group, covered, n, median width: each design measured leave-one-paper-out on the pinned rows of one
    subset (``rows`` with a ``difficulty`` column for the normalised designs)."""
    designs = ["pooled", "in-range"] + ([f"normalised b={b:g}" for b in NORMALISED_BETAS]
                                        + ["normalised, b chosen inside"] if "difficulty" in rows else []) + ["signed"]
    groups = _groups(rows)
    out = []
    for design in designs:
        covered, width = _single(rows, design, level)
        for group, mask in groups.items():
            if mask.any():
                out.append(dict(design=design, group=group, covered=int(covered[mask].sum()), n=int(mask.sum()),
                                median_width=float(np.median(width[mask]))))
    return pd.DataFrame(out)


def _pairs(rows: pd.DataFrame):
    chosen = rows[(rows["estimate"] >= IN_RANGE_MIN) & (rows["true_median"] > 0)].reset_index(drop=True)
    error = np.log10(chosen["true_median"].to_numpy(float)) - np.log10(chosen["estimate"].to_numpy(float))
    first, second = np.triu_indices(len(chosen), 1)
    paper = chosen["paper"].to_numpy()
    return chosen, first, second, error[first] - error[second], paper[first] == paper[second]


def pair_designs(rows: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """design, pairs, covered, n, median width, decided / n of pairs whose true medians differ by 30% or more,
    wrong-way decisions: pairs of in-range agents, each design measured leave-both-papers-out."""
    chosen, first, second, pair_error, same = _pairs(rows)
    paper = chosen["paper"].to_numpy()
    single_error = (np.log10(1 + chosen["true_median"].to_numpy(float))
                    - np.log10(1 + chosen["estimate"].to_numpy(float)))
    true_log = np.log10(chosen["true_median"].to_numpy(float))
    estimate_log = np.log10(chosen["estimate"].to_numpy(float))
    true_ratio, estimated_ratio = true_log[first] - true_log[second], estimate_log[first] - estimate_log[second]
    single_q = {p: conformal_quantile(single_error[paper != p], level) for p in set(paper)}
    names = sorted(set(paper))
    code = np.array([names.index(p) for p in paper])
    pi, pj = code[first], code[second]
    pair_q = {}
    for a in range(len(names)):
        for b in range(a, len(names)):
            pool = (pi != a) & (pi != b) & (pj != a) & (pj != b) & ~same
            pair_q[a, b] = conformal_quantile(pair_error[pool], level)
    halves = {
        "sum of singles": np.array([single_q[paper[i]] + single_q[paper[j]] for i, j in zip(first, second)]),
        "root-sum-square of singles": np.array([math.hypot(single_q[paper[i]], single_q[paper[j]])
                                                for i, j in zip(first, second)]),
        "pairs": np.array([pair_q[min(a, b), max(a, b)] for a, b in zip(pi, pj)]),
    }
    big = np.abs(true_ratio) >= math.log10(1.3)
    out = []
    for design, half in halves.items():
        covered = np.abs(pair_error) <= half
        decided = np.abs(estimated_ratio) > half
        wrong = decided & (np.sign(estimated_ratio) != np.sign(true_ratio))
        for label, mask in (("all pairs", np.ones(len(half), bool)), ("two papers", ~same), ("one paper", same)):
            out.append(dict(design=design, pairs=label, covered=int(covered[mask].sum()), n=int(mask.sum()),
                            median_width=float(np.median(10.0 ** (2 * half[mask]))),
                            decided=int(decided[mask & big].sum()), differ_30=int((mask & big).sum()),
                            wrong_way=int(wrong[mask].sum())))
    return pd.DataFrame(out)


def pair_error_summary(rows: pd.DataFrame, level: float = LEVEL) -> dict:
    """Do pairs from one paper share their error? Median |pair error| and its 95% quantile, one paper vs two."""
    _, _, _, pair_error, same = _pairs(rows)
    return {label: dict(n=int(mask.sum()), median=float(np.median(np.abs(pair_error[mask]))),
                        q=conformal_quantile(pair_error[mask], level))
            for label, mask in (("one paper", same), ("two papers", ~same))}


def _percent(covered: int, n: int) -> str:
    return f"{covered}/{n} ({covered / n:.1%})"


def designs_markdown(dataset, version: str, subset: str = "Atari-5", level: float = LEVEL) -> str:
    """The comparison as markdown tables (what docs/out-of-sample.md shows between its design markers)."""
    from atari5_spec.method.calibration import read_calibration

    calibration = read_calibration(dataset.root / "coefficients" / version, "pooled")
    rows = pd.DataFrame([r for r in calibration.rows if r["subset"] == subset])
    for column in ("estimate", "true_median", "log_error", "ratio"):
        rows[column] = pd.to_numeric(rows[column])
    rows["difficulty"] = difficulty(dataset, version, rows)
    single = single_designs(rows, level)
    groups = list(dict.fromkeys(single["group"]))
    lines = [f"Single agents, {version} {subset}, {level:.0%} intervals, leave-one-paper-out: covered / n "
             "(coverage) and median width (high / low)", "",
             "| design | " + " | ".join(groups) + " |", "|---|" + "---:|" * len(groups)]
    for design, table in single.groupby("design", sort=False):
        cells = table.set_index("group")
        lines.append(f"| {design} | " + " | ".join(
            f"{_percent(cells.at[g, 'covered'], cells.at[g, 'n'])}, {cells.at[g, 'median_width']:.2f}"
            for g in groups) + " |")
    masks = _groups(rows)
    lines += ["", "Behind each column (every design is measured on the same agents): "
              + "; ".join(f"{g}: {int(masks[g].sum())} agents, {rows.loc[masks[g], 'algorithm_id'].nunique()} runs, "
                          f"{rows.loc[masks[g], 'paper'].nunique()} papers" for g in groups) + "."]
    pairs = pair_designs(rows, level)
    lines += ["", f"Pairs of in-range agents, {version} {subset}, {level:.0%} ratio intervals, each pair calibrated "
              "without either of its papers: covered / n, median width (high / low), pairs whose true medians differ "
              "by 30% or more that the interval decides (excludes 1), wrong-way decisions", "",
              "| design | pairs | covered | median width | decided (differ by 30% or more) | wrong way |",
              "|---|---|---:|---:|---:|---:|"]
    for r in pairs.itertuples():
        decided = f"{r.decided}/{r.differ_30} ({r.decided / r.differ_30:.1%})" if r.differ_30 else "-"
        lines.append(f"| {r.design} | {r.pairs} | {_percent(r.covered, r.n)} | {r.median_width:.2f} | {decided} | "
                     f"{r.wrong_way} |")
    shared = pair_error_summary(rows, level)
    lines += ["", "Do pairs from one paper share their error? | pairs | median \\|pair error\\| (log10) | 95% quantile |",
              "|---|---:|---:|---:|"]
    lines += [f"| {label} | {v['n']} | {v['median']:.3f} | {v['q']:.3f} |" for label, v in shared.items()]
    return "\n".join(lines) + "\n"
