"""Aggregates of several agents' per-seed runs, with stratified bootstrap intervals, as rliable.

Input: one ``(n_seeds, n_games)`` matrix of human-normalised scores per agent
(fractions: 1.0 = the average human), e.g. from
:func:`atari5_spec_research.analyses.runs_input.normalised_runs`. Output
(:func:`aggregate_runs`):

* per agent the mean, median, interquartile mean (IQM) and optimality gap
  (gamma = 1, human level) with percentile stratified-bootstrap intervals
  (Agarwal et al. 2021, rliable: seeds resampled with replacement within
  each game, 2,000 resamples by default);
* for every pair of agents the probability of improvement P(X > Y)
  (per game, the Mann-Whitney U statistic divided by ``n_x n_y``, averaged
  over games) with an interval from resampling both agents' seeds
  independently within each game;
* performance profiles: the run-score distribution (fraction of all runs x
  games scoring above tau) with bootstrap bands;
* the score distribution of Bellemare et al. (2013), section 4.2.3: the
  fraction of games whose mean score over seeds is at least tau;
* the paired comparison of Bellemare et al. (2013), section 4.3: per game a
  two-sided Welch t-test at alpha = 0.01, counted as wins, losses and ties.

Point estimates use the formulas of :mod:`atari5_spec_research.analyses.aggregates`, written
as rliable writes them, so they equal ``rliable.metrics`` to the last bit.
Resampled statistics are computed in chunks of resamples (no Python loop
per resample; memory independent of the number of resamples and linear in
the seeds), the probability of improvement from sorted scores and counts
(Mann-Whitney from ranks, never a seeds x seeds array), and all randomness
comes from
``numpy.random.default_rng(seed)``: the same input and seed give the same
output.
"""

from __future__ import annotations

import warnings
from itertools import combinations
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.stats

from atari5_spec.data.limits import escaped
from atari5_spec_research.analyses import aggregates

__all__ = ["METRICS", "RunAggregates", "aggregate_runs", "default_thresholds", "batch_statistics",
           "improvement_probability", "improvement_probability_ranked", "improvement_replicates",
           "bootstrap_agent", "AgentBootstrap", "performance_profile", "welch_win_loss", "format_run_aggregates",
           "run_aggregates_as_dict"]

METRICS = ("iqm", "median", "mean", "optimality_gap")
WELCH_ALPHA = 0.01  # Bellemare et al. (2013), section 4.3


# --------------------------------------------------------------------------
# Statistics of a batch of resampled (n_resamples, n_seeds, n_games) arrays
# --------------------------------------------------------------------------


def batch_statistics(resampled: np.ndarray) -> dict[str, np.ndarray]:
    """IQM, median, mean and optimality gap of each resample: arrays of shape (n_resamples,).

    The same definitions as :mod:`atari5_spec_research.analyses.aggregates` (and rliable),
    vectorised over the first axis.
    """
    n_resamples = resampled.shape[0]
    per_game = resampled.mean(axis=1)  # mean over seeds
    return {
        "iqm": scipy.stats.trim_mean(resampled.reshape(n_resamples, -1), 0.25, axis=1),
        "median": np.median(per_game, axis=1),
        "mean": per_game.mean(axis=1),
        "optimality_gap": 1.0 - np.mean(np.minimum(resampled, 1.0), axis=(1, 2)),
    }


def point_statistics(scores: np.ndarray) -> dict[str, float]:
    """The four aggregates of one ``(n_seeds, n_games)`` matrix (the point estimates)."""
    return {
        "iqm": aggregates.interquartile_mean(scores),
        "median": aggregates.median_score(scores),
        "mean": aggregates.mean_score(scores),
        "optimality_gap": aggregates.optimality_gap(scores, gamma=1.0),
    }


def _resample_seeds(scores: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Stratified bootstrap: ``n_seeds`` seeds drawn with replacement independently within every game."""
    n_seeds, n_games = scores.shape
    index = rng.integers(0, n_seeds, size=(n_resamples, n_seeds, n_games))
    return scores[index, np.arange(n_games)]


# Resampled numbers held at once per agent (16 MiB of float64): memory does not grow with the resamples, and
# grows with the seeds only linearly (the probability of improvement never builds seeds x seeds arrays).
CHUNK_ELEMENTS = 1 << 21


class AgentBootstrap(NamedTuple):
    """One agent's stratified bootstrap, kept compact: its replicates and, for the probability of improvement,
    how many resampled seeds fall at or below each of the game's sorted scores."""

    replicates: dict            # metric -> (n_resamples,)
    profiles: np.ndarray        # (n_resamples, n_thresholds)
    sorted_scores: np.ndarray   # (n_games, n_seeds): each game's scores in increasing order
    cumulative: np.ndarray      # (n_resamples, n_games, n_seeds + 1): resampled seeds among the k lowest
    counts: np.ndarray | None   # (n_resamples, n_games, n_seeds): draws of each sorted seed (kept when small)


def _chunk_size(n_seeds: int, n_games: int) -> int:
    """Resamples per chunk: an even number (numpy's bounded integers come in pairs of 32-bit halves, so even
    chunks draw exactly the numbers one large draw would), at least 2."""
    return max(2, (CHUNK_ELEMENTS // max(1, n_seeds * n_games)) // 2 * 2)


def bootstrap_agent(scores: np.ndarray, n_resamples: int, rng: np.random.Generator,
                    thresholds: np.ndarray) -> AgentBootstrap:
    """The stratified bootstrap of one ``(n_seeds, n_games)`` matrix, streamed in chunks of resamples."""
    n_seeds, n_games = scores.shape
    games = np.arange(n_games)
    order = np.argsort(scores, axis=0, kind="stable")                 # (n_seeds, n_games)
    rank = np.empty_like(order)
    rank[order, games] = np.arange(n_seeds)[:, None]                  # position of each seed in its game's order
    small = np.uint8 if n_seeds < 255 else np.uint16 if n_seeds < 65535 else np.uint32
    cumulative = np.zeros((n_resamples, n_games, n_seeds + 1), dtype=small)
    # Counts are the differences of the cumulative counts; kept as well only where they are small (few seeds),
    # so that memory stays linear in the seeds and the pairwise loop does not recompute them.
    kept = np.zeros((n_resamples, n_games, n_seeds), dtype=small) if n_seeds < 255 else None
    replicates = {metric: np.empty(n_resamples) for metric in METRICS}
    profiles = np.empty((n_resamples, len(thresholds)))
    step = _chunk_size(n_seeds, n_games)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        index = rng.integers(0, n_seeds, size=(stop - start, n_seeds, n_games))
        values = scores[index, games]
        for metric, value in batch_statistics(values).items():
            replicates[metric][start:stop] = value
        profiles[start:stop] = performance_profile(values, thresholds)
        del values
        # Counts of each sorted position per (resample, game), by one bincount over flat cells.
        cells = (np.arange(stop - start)[:, None, None] * n_games + games) * n_seeds + rank[index, games]
        counts = np.bincount(cells.ravel(), minlength=(stop - start) * n_games * n_seeds)
        if kept is not None:
            kept[start:stop] = counts.reshape(stop - start, n_games, n_seeds)
        np.cumsum(counts.reshape(stop - start, n_games, n_seeds), axis=2, out=counts.reshape(stop - start, n_games,
                                                                                             n_seeds))
        cumulative[start:stop, :, 1:] = counts.reshape(stop - start, n_games, n_seeds)
    return AgentBootstrap(replicates, profiles, np.take_along_axis(scores, order, axis=0).T.copy(), cumulative, kept)


def _positions(x_sorted: np.ndarray, y_sorted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game, how many of Y's scores lie below (and at or below) each of X's sorted scores: (n_games, n_x).

    One stable merge per side for all games at once: with Y placed first, a tie sorts Y before X (counts
    'at or below'); with X first, X before Y (counts 'below')."""
    n_x, n_y = x_sorted.shape[1], y_sorted.shape[1]

    def y_before_x(first: np.ndarray, second: np.ndarray, y_is_first: bool) -> np.ndarray:
        order = np.argsort(np.concatenate([first, second], axis=1), axis=1, kind="stable")
        is_y = (order < n_y) if y_is_first else (order >= n_x)
        seen = np.cumsum(is_y, axis=1)
        x_slots = ~is_y
        x_index = (order - n_y) if y_is_first else order
        result = np.empty((x_sorted.shape[0], n_x), dtype=np.int64)
        rows = np.nonzero(x_slots)[0]
        result[rows, x_index[x_slots]] = seen[x_slots]
        return result

    return y_before_x(x_sorted, y_sorted, False), y_before_x(y_sorted, x_sorted, True)


def improvement_probability_ranked(x: np.ndarray, y: np.ndarray) -> float:
    """:func:`improvement_probability` of two ``(n_seeds, n_games)`` matrices from sorted scores: O(n log n) per
    game instead of n_x n_y. Equal to it to the last bit (both count 2U = 2 wins + ties exactly)."""
    below, at_or_below = _positions(np.sort(x, axis=0).T, np.sort(y, axis=0).T)
    twice_u = (below + at_or_below).sum(axis=1)
    return float((twice_u / (2.0 * x.shape[0] * y.shape[0])).mean())


def improvement_replicates(x: AgentBootstrap, y: AgentBootstrap) -> np.ndarray:
    """P(X > Y) in every resample (X's and Y's resamples paired by number), from the compact bootstraps.

    Per resample and game, 2U = sum over X's resampled seeds of (#Y below + #Y at or below): read from Y's
    cumulative counts at X's positions. Linear in the seeds; the same numbers as
    :func:`improvement_probability` on the resampled arrays.
    """
    n_resamples, n_games, width_x = x.cumulative.shape
    n_x, n_y = width_x - 1, y.cumulative.shape[2] - 1
    below, at_or_below = _positions(x.sorted_scores, y.sorted_scores)
    offsets = (np.arange(n_games) * (n_y + 1))[:, None]
    flat_below, flat_at = (below + offsets).ravel(), (at_or_below + offsets).ravel()
    ties = not np.array_equal(below, at_or_below)
    result = np.empty(n_resamples)
    step = _chunk_size(max(n_x, n_y), n_games)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        y_cumulative = y.cumulative[start:stop].reshape(stop - start, -1)
        weight = np.take(y_cumulative, flat_below, axis=1).astype(np.int32)
        if ties:
            weight += np.take(y_cumulative, flat_at, axis=1)
        else:
            weight <<= 1
        weight *= (x.counts[start:stop] if x.counts is not None else
                   np.diff(x.cumulative[start:stop].astype(np.int32), axis=2)).reshape(stop - start, -1)
        # einsum sums the short last axis several times faster than .sum(axis=2); int32 holds 2U <= 2 n_x n_y.
        twice_u = np.einsum("rgi->rg", weight.reshape(stop - start, n_games, n_x))
        result[start:stop] = (twice_u / (2.0 * n_x * n_y)).mean(axis=1)
    return result


def _interval(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over the first axis (as rliable's default, arch's ``method='percentile'``)."""
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(replicates, [tail, 100.0 - tail], axis=0)
    return low, high


# --------------------------------------------------------------------------
# Probability of improvement and profiles
# --------------------------------------------------------------------------


def improvement_probability(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(X > Y) averaged over games, for arrays (..., n_x, n_games) and (..., n_y, n_games).

    Per game, (#{x_i > y_j} + #{x_i = y_j} / 2) / (n_x n_y): the Mann-Whitney
    U statistic of X divided by ``n_x n_y``, rliable's
    ``probability_of_improvement`` (which also gives 0.5 to identical runs).
    """
    # sign(x_i - y_j) is +1, 0 or -1: (sign + 1) / 2 counts a win as 1 and a tie as 1/2. The sums are
    # multiples of 1/2, exact in floating point, so this equals U / (n_x n_y) to the last bit.
    signs = np.sign(x[..., :, None, :] - y[..., None, :, :]).sum(axis=(-3, -2))
    per_game = (signs + x.shape[-2] * y.shape[-2]) / (2.0 * x.shape[-2] * y.shape[-2])
    return per_game.mean(axis=-1)


def welch_win_loss(x: np.ndarray, y: np.ndarray, alpha: float = WELCH_ALPHA) -> aggregates.WinLoss:
    """Bellemare et al. (2013), section 4.3, for complete (n_seeds, n_games) matrices: one Welch test per game.

    The same rules as :func:`atari5_spec_research.analyses.aggregates.paired_win_loss` (equal
    means tie; two constant samples with different means are decided without
    a test), with all games' t-tests in one vectorised call.
    """
    difference = x.mean(axis=0) - y.mean(axis=0)
    constant = (np.ptp(x, axis=0) == 0) & (np.ptp(y, axis=0) == 0)
    # A game where every seed of one agent scored the same (Pong at 21) has variance exactly 0:
    # scipy warns about "catastrophic cancellation", but Welch's test is then still right, and
    # games where both agents are constant are decided above without it.
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p_value = scipy.stats.ttest_ind(x, y, axis=0, equal_var=False).pvalue
    decided = (difference != 0) & (constant | (p_value < alpha))
    wins = int(np.sum(decided & (difference > 0)))
    losses = int(np.sum(decided & (difference < 0)))
    return aggregates.WinLoss(wins, losses, x.shape[1] - wins - losses)


def welch_all_pairs(scores: dict, pairs: list) -> list:
    """:func:`welch_win_loss` of every pair at once: per-agent means and variances computed once, one
    vectorised Student t survival call for all pairs and games (the per-pair scipy call dominated 50 agents)."""
    if not pairs:
        return []
    stats = {agent: (m.mean(axis=0), m.var(axis=0, ddof=1), np.ptp(m, axis=0) == 0, float(len(m)))
             for agent, m in scores.items() if len(m) >= 2}

    def side(k: int, which: int) -> np.ndarray:
        return np.stack([np.atleast_1d(stats[pair[which]][k]) for pair in pairs])

    mean_x, var_x, constant_x, n_x = (side(k, 0) for k in range(4))
    mean_y, var_y, constant_y, n_y = (side(k, 1) for k in range(4))
    difference = mean_x - mean_y
    with np.errstate(divide="ignore", invalid="ignore"):
        share_x, share_y = var_x / n_x, var_y / n_y
        df = (share_x + share_y) ** 2 / (share_x ** 2 / (n_x - 1) + share_y ** 2 / (n_y - 1))
        df = np.where(np.isnan(df), 1.0, df)  # as scipy's ttest_ind
        t = difference / np.sqrt(share_x + share_y)
        p_value = 2.0 * scipy.stats.t.sf(np.abs(t), df)
    decided = (difference != 0) & ((constant_x & constant_y) | (p_value < WELCH_ALPHA))
    wins = np.sum(decided & (difference > 0), axis=1)
    losses = np.sum(decided & (difference < 0), axis=1)
    games = difference.shape[1]
    return [aggregates.WinLoss(int(w), int(lo), games - int(w) - int(lo)) for w, lo in zip(wins, losses)]


def performance_profile(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Fraction of runs x games scoring above each threshold (rliable's run-score distribution, ``>``).

    ``scores`` is (n_seeds, n_games) or a batch (n_resamples, n_seeds, n_games).
    """
    flat = np.sort(scores.reshape(*scores.shape[:-2], -1), axis=-1)
    n = flat.shape[-1]
    if flat.ndim == 1:
        return (n - np.searchsorted(flat, thresholds, side="right")) / n
    return np.stack([(n - np.searchsorted(row, thresholds, side="right")) / n for row in flat])


def default_thresholds(scores: dict, n_points: int = 101) -> np.ndarray:
    """Thresholds tau from 0 to the 95th percentile of all normalised scores (at least 1, human level).

    Very high scores on a few games would otherwise stretch the axis; the top
    rounds up to a multiple of 0.5.
    """
    everything = np.concatenate([s.ravel() for s in scores.values()])
    top = max(1.0, np.ceil(2.0 * np.quantile(everything, 0.95)) / 2.0)
    return np.linspace(0.0, top, n_points)


# --------------------------------------------------------------------------
# Everything at once
# --------------------------------------------------------------------------


class RunAggregates(NamedTuple):
    """The result of :func:`aggregate_runs`."""

    metrics: pd.DataFrame        # agent, metric, estimate, low, high
    improvement: pd.DataFrame    # agent_x, agent_y, probability, low, high
    thresholds: np.ndarray       # tau
    profiles: dict               # agent -> DataFrame(tau, fraction, low, high)
    score_distribution: dict     # agent -> np.ndarray over thresholds (Bellemare et al., >=, per-game means)
    welch: pd.DataFrame          # agent_x, agent_y, wins, losses, ties (x against y)
    games: list
    seeds: dict                  # agent -> number of seeds
    n_resamples: int
    confidence: float
    seed: int
    notes: tuple = ()            # games left out, degenerate intervals (one run per game), ...

    def to_frame(self) -> pd.DataFrame:
        """Every agent's metrics with their intervals: one row per agent, (metric, estimate|low|high) columns."""
        table = self.metrics.pivot(index="agent", columns="metric", values=["estimate", "low", "high"])
        table = table.swaplevel(axis=1).reindex(columns=[(m, part) for m in METRICS
                                                         for part in ("estimate", "low", "high")])
        table = table.reindex(list(self.seeds))
        table[("seeds", "")] = pd.Series(self.seeds)
        return table

    def __repr__(self) -> str:
        iqm = self.metrics[self.metrics["metric"] == "iqm"]
        shown = ", ".join(f"{r.agent}: IQM {r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}]" for r in iqm.itertuples())
        notes = f"; {len(self.notes)} note(s) in .notes" if self.notes else ""
        return (f"RunAggregates({len(self.seeds)} agents x {len(self.games)} games, {self.confidence:.0%} "
                f"stratified bootstrap, {self.n_resamples} resamples, seed {self.seed}; {shown}; .to_frame() "
                f"for every metric{notes})")

    def _repr_html_(self) -> str:
        """Every agent's metrics with their intervals (to_frame()), and the notes, for Jupyter."""
        import html

        notes = "".join(f"<p>note: {html.escape(n)}</p>" for n in self.notes)
        return (f"<p><b>RunAggregates</b>: {len(self.seeds)} agents x {len(self.games)} games, {self.confidence:.0%} "
                f"stratified bootstrap over seeds, {self.n_resamples} resamples, seed {self.seed}</p>"
                + self.to_frame()._repr_html_() + notes)


def degenerate_interval_notes(scores: dict) -> list[str]:
    """A note for each agent with one run per game: a bootstrap over one run cannot vary, its intervals are points."""
    single = [agent for agent, matrix in scores.items() if matrix.shape[0] == 1]
    if not single:
        return []
    return [f"{', '.join(map(escaped, single))}: one run per game, so {'its' if len(single) == 1 else 'their'} "
            "intervals have zero width: a bootstrap over seeds cannot vary a single run, and says nothing about "
            "run-to-run variation (give 3 or more runs per game; rliable recommends 5 or more)"]


def aggregate_runs(scores: dict, games: list, n_resamples: int = 2000, confidence: float = 0.95,
                   seed: int = 0, thresholds=None) -> RunAggregates:
    """Every aggregate of the module docstring for ``scores`` (agent -> (n_seeds, n_games) fractions).

    Agents are resampled in their given order from one generator, so adding
    an agent at the end does not change the others' intervals.
    """
    if not scores:
        raise ValueError("no agents to aggregate")
    if not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    agents = list(scores)
    for agent in agents:
        if scores[agent].shape[1] != len(games) or not np.isfinite(scores[agent]).all():
            raise ValueError(f"agent {agent!r}: expected finite scores of shape (n_seeds, {len(games)})")
    taus = default_thresholds(scores) if thresholds is None else np.asarray(thresholds, float)
    rng = np.random.default_rng(seed)
    # Agents are resampled in order from one generator, in chunks: memory stays independent of seeds squared.
    boots = {agent: bootstrap_agent(scores[agent], n_resamples, rng, taus) for agent in agents}

    metric_rows, profiles, distributions = [], {}, {}
    for agent in agents:
        point = point_statistics(scores[agent])
        for metric in METRICS:
            low, high = _interval(boots[agent].replicates[metric], confidence)
            metric_rows.append((agent, metric, point[metric], float(low), float(high)))
        low, high = _interval(boots[agent].profiles, confidence)
        profiles[agent] = pd.DataFrame({"tau": taus, "fraction": performance_profile(scores[agent], taus),
                                        "low": low, "high": high})
        distributions[agent] = aggregates.score_distribution(scores[agent].mean(axis=0), taus)

    improvement_rows = []
    for x, y in combinations(agents, 2):
        # Independent resamples of both agents (rliable's StratifiedIndependentBootstrap).
        low, high = _interval(improvement_replicates(boots[x], boots[y]), confidence)
        improvement_rows.append((x, y, improvement_probability_ranked(scores[x], scores[y]), float(low),
                                 float(high)))
    tested = [(x, y) for x, y in combinations(agents, 2) if min(len(scores[x]), len(scores[y])) >= 2]
    welch_rows = [(x, y, *counts) for (x, y), counts in zip(tested, welch_all_pairs(scores, tested))]
    return RunAggregates(
        metrics=pd.DataFrame.from_records(metric_rows, columns=["agent", "metric", "estimate", "low", "high"]),
        improvement=pd.DataFrame.from_records(improvement_rows,
                                              columns=["agent_x", "agent_y", "probability", "low", "high"]),
        thresholds=taus, profiles=profiles, score_distribution=distributions,
        welch=pd.DataFrame.from_records(welch_rows, columns=["agent_x", "agent_y", "wins", "losses", "ties"]),
        games=list(games), seeds={agent: int(scores[agent].shape[0]) for agent in agents},
        n_resamples=int(n_resamples), confidence=float(confidence), seed=int(seed),
        notes=tuple(degenerate_interval_notes(scores)),
    )


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

_UNIT = "human-normalised score as a fraction (0 = random, 1.0 = average human)"


def format_run_aggregates(result: RunAggregates) -> str:
    """``atari5-spec aggregate``: a plain-text summary."""
    level = f"{100 * result.confidence:g}%"
    lines = [f"{len(result.seeds)} agent(s) x {len(result.games)} games; {_UNIT}",
             f"intervals: {level} percentile stratified bootstrap over seeds within each game, "
             f"{result.n_resamples} resamples, seed {result.seed}",
             "",
             f"{'agent':<24} {'seeds':>5}  " + "  ".join(f"{m:>24}" for m in METRICS)]
    table = result.metrics.set_index(["agent", "metric"])
    for agent, n_seeds in result.seeds.items():
        cells = []
        for metric in METRICS:
            row = table.loc[(agent, metric)]
            cells.append(f"{row['estimate']:>8.3f} [{row['low']:.3f}, {row['high']:.3f}]".rjust(24))
        lines.append(f"{escaped(agent):<24} {n_seeds:>5}  " + "  ".join(cells))
    lines.append("optimality gap: mean shortfall below human level (lower is better)")
    if len(result.improvement):
        lines += ["", f"probability of improvement P(X > Y) ({level} interval)"]
        for row in result.improvement.itertuples(index=False):
            lines.append(f"  P({escaped(row.agent_x)} > {escaped(row.agent_y)}) = {row.probability:.3f} "
                         f"[{row.low:.3f}, {row.high:.3f}]")
    if len(result.welch):
        lines += ["", f"paired Welch t-tests per game (Bellemare et al. 2013, alpha = {WELCH_ALPHA}): "
                      "X against Y, wins / losses / ties"]
        for row in result.welch.itertuples(index=False):
            lines.append(f"  {escaped(row.agent_x)} vs {escaped(row.agent_y)}: {row.wins} / {row.losses} / {row.ties}")
    human = int(np.argmin(np.abs(result.thresholds - 1.0)))
    lines += ["", f"at human level (tau = {result.thresholds[human]:.2f}): share of runs x games above tau "
                  "(performance profile) / share of games whose mean is at least tau (score distribution)"]
    for agent in result.seeds:
        profile = result.profiles[agent].iloc[human]
        lines.append(f"  {escaped(agent):<24} {profile['fraction']:.3f} [{profile['low']:.3f}, {profile['high']:.3f}]"
                     f" / {result.score_distribution[agent][human]:.3f}")
    return "\n".join(lines)


def _floats(values) -> list:
    return [float(v) for v in np.asarray(values, float)]


def run_aggregates_as_dict(result: RunAggregates) -> dict:
    """``atari5-spec aggregate --json``: plain JSON types, one entry per agent in input order."""
    table = result.metrics.set_index(["agent", "metric"])
    agents = {}
    for agent, n_seeds in result.seeds.items():
        entry = {"seeds": n_seeds}
        for metric in METRICS:
            row = table.loc[(agent, metric)]
            entry[metric] = {"estimate": float(row["estimate"]), "low": float(row["low"]),
                             "high": float(row["high"])}
        profile = result.profiles[agent]
        entry["performance_profile"] = {"fraction": _floats(profile["fraction"]), "low": _floats(profile["low"]),
                                        "high": _floats(profile["high"])}
        entry["score_distribution"] = _floats(result.score_distribution[agent])
        agents[agent] = entry
    return {
        "scale": _UNIT,
        "games": result.games,
        "bootstrap": {"method": "percentile, stratified over seeds within each game",
                      "resamples": result.n_resamples, "confidence": result.confidence, "seed": result.seed},
        "thresholds": _floats(result.thresholds),
        "agents": agents,
        "probability_of_improvement": [
            {"x": row.agent_x, "y": row.agent_y, "probability": float(row.probability), "low": float(row.low),
             "high": float(row.high)} for row in result.improvement.itertuples(index=False)],
        "notes": list(result.notes),
        "welch_tests": {"alpha": WELCH_ALPHA, "pairs": [
            {"x": row.agent_x, "y": row.agent_y, "wins": int(row.wins), "losses": int(row.losses),
             "ties": int(row.ties)} for row in result.welch.itertuples(index=False)]},
    }
