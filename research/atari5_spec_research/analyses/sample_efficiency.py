"""Sample-efficiency curves: IQM and median human-normalised score against frames, with bootstrap bands.

rliable's sample-efficiency plots (Agarwal et al. 2021): for each agent an
array of shape ``(n_runs, n_games, n_points)`` of human-normalised scores as
fractions (1.0 = the average human), one slice per point of the learning
curve (frames of training). :func:`curve_intervals` is rliable's
``get_interval_estimates(score_dict, func, reps)`` with ``func`` the per-point
IQM or median: array in, array out.

* Point estimates at each frames value are :func:`atari5_spec_research.analyses.aggregates.interquartile_mean`
  and :func:`~atari5_spec_research.analyses.aggregates.median_score` of that slice, which equal ``rliable.metrics``
  to the last bit.
* Bands are percentile stratified-bootstrap intervals. As rliable's
  ``StratifiedBootstrap`` over a ``(runs, games, points)`` array, a run
  index is drawn independently for every game and every point (runs are
  resampled within each game, at each frames value), so each point's band
  is that point's interval, not a band over whole curves.
* Randomness comes only from ``numpy.random.default_rng(seed)``, agents in
  their given order, resamples in chunks (the same numbers as one draw), so
  the same input and seed give byte-identical output.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

import numpy as np
import pandas as pd
import scipy.stats

from atari5_spec.data.frames import format_frames
from atari5_spec.data.limits import escaped
from atari5_spec_research.analyses import aggregates

__all__ = ["CURVE_METRICS", "curve_point_estimates", "curve_statistics", "curve_intervals", "CurveAggregates",
           "aggregate_curves_of", "format_curves", "curves_as_dict"]

CURVE_METRICS = ("iqm", "median")
_TITLES = {"iqm": "IQM", "median": "median"}
# Resampled numbers held at once per agent (16 MiB of float64), as run_aggregates.CHUNK_ELEMENTS.
CHUNK_ELEMENTS = 1 << 21


def _as_curves(x, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 3 or 0 in arr.shape:
        raise ValueError(f"{name}: expected a non-empty array of shape (n_runs, n_games, n_points), got shape "
                         f"{arr.shape}")
    if not np.isfinite(arr).all():
        run, game, point = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name}[{run}, {game}, {point}] is not finite; every run needs a score for every game "
                         "at every point (nothing is interpolated)")
    return arr


def curve_point_estimates(scores: np.ndarray) -> dict[str, np.ndarray]:
    """IQM and median of each point of one ``(n_runs, n_games, n_points)`` array: metric -> (n_points,)."""
    x = _as_curves(scores, "scores")
    return {"iqm": np.array([aggregates.interquartile_mean(x[:, :, p]) for p in range(x.shape[2])]),
            "median": np.array([aggregates.median_score(x[:, :, p]) for p in range(x.shape[2])])}


def curve_statistics(resampled: np.ndarray) -> dict[str, np.ndarray]:
    """IQM and median of a batch ``(n_resamples, n_runs, n_games, n_points)``: metric -> (n_resamples, n_points).

    The definitions of :func:`curve_point_estimates`, vectorised over resamples and points.
    """
    n_resamples, n_runs, n_games, n_points = resampled.shape
    flat = np.moveaxis(resampled, 3, 1).reshape(n_resamples, n_points, n_runs * n_games)
    return {"iqm": scipy.stats.trim_mean(flat, 0.25, axis=2),
            "median": np.median(resampled.mean(axis=1), axis=1)}


def _chunk_size(cells: int) -> int:
    """Resamples per chunk: even (numpy draws bounded integers in pairs of 32-bit halves, so even chunks draw
    exactly the numbers one large draw would), at least 2."""
    return max(2, (CHUNK_ELEMENTS // max(1, cells)) // 2 * 2)


def _replicates(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each metric over ``n_resamples`` stratified resamples of ``x``: metric -> (n_resamples, n_points)."""
    n_runs, n_games, n_points = x.shape
    games, points = np.arange(n_games)[:, None], np.arange(n_points)[None, :]
    result = {metric: np.empty((n_resamples, n_points)) for metric in CURVE_METRICS}
    step = _chunk_size(x.size)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        # One run index per resample, run slot, game and point: runs resampled within each game at each point.
        index = rng.integers(0, n_runs, size=(stop - start, n_runs, n_games, n_points))
        for metric, value in curve_statistics(x[index, games, points]).items():
            result[metric][start:stop] = value
    return result


def curve_intervals(scores: Mapping[str, np.ndarray], n_resamples: int = 2000, confidence: float = 0.95,
                    seed: int = 0) -> dict[str, dict[str, aggregates.ConfidenceInterval]]:
    """Per agent and metric, the curve's point estimates and percentile bootstrap band, arrays of (n_points,).

    ``scores`` maps agent -> ``(n_runs, n_games, n_points)`` fractions (rliable's shape with the points last).
    Returns ``{agent: {"iqm": ConfidenceInterval(estimate, low, high), "median": ...}}``.
    """
    if not scores:
        raise ValueError("no agents")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    arrays = {agent: _as_curves(x, f"scores[{agent!r}]") for agent, x in scores.items()}
    rng = np.random.default_rng(seed)
    tail = 100.0 * (1.0 - confidence) / 2.0
    result = {}
    for agent, x in arrays.items():  # in the given order, from one generator
        point = curve_point_estimates(x)
        replicates = _replicates(x, int(n_resamples), rng)
        result[agent] = {}
        for metric in CURVE_METRICS:
            low, high = np.percentile(replicates[metric], [tail, 100.0 - tail], axis=0)
            result[agent][metric] = aggregates.ConfidenceInterval(point[metric], low, high)
    return result


# --------------------------------------------------------------------------
# The result of `atari5-spec aggregate` on a runs file with a frames column
# --------------------------------------------------------------------------


class CurveAggregates(NamedTuple):
    """IQM and median against frames, per agent, with stratified-bootstrap bands."""

    curves: pd.DataFrame     # agent, frames, metric, estimate, low, high (agents in input order, frames increasing)
    games: list
    seeds: dict              # agent -> number of runs
    x: str                   # what the frames axis was read from ("column 'frames'", or steps x frame skip)
    n_resamples: int
    confidence: float
    seed: int
    notes: tuple = ()

    def to_frame(self) -> pd.DataFrame:
        """One row per agent and frames value; (metric, estimate|low|high) columns."""
        table = self.curves.pivot(index=["agent", "frames"], columns="metric", values=["estimate", "low", "high"])
        table = table.swaplevel(axis=1).reindex(columns=[(m, part) for m in CURVE_METRICS
                                                         for part in ("estimate", "low", "high")])
        return table.reindex(list(self.seeds), level=0)

    def __repr__(self) -> str:
        return (f"CurveAggregates({len(self.seeds)} agents x {len(self.games)} games, IQM and median at "
                f"{self.curves.groupby('agent')['frames'].nunique().max()} frames points at most, "
                f"{self.confidence:.0%} stratified bootstrap, {self.n_resamples} resamples, seed {self.seed}; "
                ".to_frame() for the curves)")


def curve_notes(scores: Mapping[str, np.ndarray], frames: Mapping[str, np.ndarray]) -> list[str]:
    """Notes: one run per game (zero-width bands), agents on different frames points."""
    notes = []
    single = [agent for agent, x in scores.items() if x.shape[0] == 1]
    if single:
        notes.append(f"{', '.join(map(escaped, single))}: one run per game, so the bands have zero width: a "
                     "bootstrap over runs cannot vary a single run (give 3 or more runs per game; rliable "
                     "recommends 5 or more)")
    grids = {tuple(f.tolist()) for f in frames.values()}
    if len(grids) > 1:
        notes.append("the agents were evaluated at different frames points: each curve is drawn at its own "
                     "points, none is interpolated onto another's")
    return notes


def aggregate_curves_of(scores: Mapping[str, np.ndarray], frames: Mapping[str, np.ndarray], games: list,
                        x: str = "column 'frames'", n_resamples: int = 2000, confidence: float = 0.95,
                        seed: int = 0) -> CurveAggregates:
    """:func:`curve_intervals` of ``scores`` (agent -> (n_runs, n_games, n_points)) as a :class:`CurveAggregates`.

    ``frames`` maps agent -> the increasing frames values of its points (the arrays' last axis).
    """
    for agent, x_values in scores.items():
        points = np.asarray(frames.get(agent, ()))
        if np.ndim(x_values) != 3 or np.shape(x_values)[1] != len(games) or points.shape != (np.shape(x_values)[2],):
            raise ValueError(f"agent {agent!r}: expected scores of shape (n_runs, {len(games)}, n_points) and one "
                             "frames value per point")
        if np.any(np.diff(points) <= 0):
            raise ValueError(f"agent {agent!r}: frames values must increase")
    bands = curve_intervals(scores, n_resamples=n_resamples, confidence=confidence, seed=seed)
    records = []
    for agent, metrics in bands.items():
        for metric in CURVE_METRICS:
            band = metrics[metric]
            for i, frame in enumerate(np.asarray(frames[agent], dtype=np.int64)):
                records.append((agent, int(frame), metric, float(band.estimate[i]), float(band.low[i]),
                                float(band.high[i])))
    curves = pd.DataFrame.from_records(records, columns=["agent", "frames", "metric", "estimate", "low", "high"])
    return CurveAggregates(curves, list(games), {agent: int(np.shape(s)[0]) for agent, s in scores.items()}, x,
                           int(n_resamples), float(confidence), int(seed), tuple(curve_notes(scores, frames)))


# --------------------------------------------------------------------------
# Output (rendered here, at the edge, from the numbers; never parsed back)
# --------------------------------------------------------------------------

_UNIT = "human-normalised score as a fraction (0 = random, 1.0 = average human)"
BAND_METHOD = ("percentile, stratified: runs resampled with replacement within each game, independently at each "
               "frames point (as rliable)")


def format_curves(result: CurveAggregates) -> str:
    """``atari5-spec aggregate`` on learning curves: one table per agent, a row per frames value."""
    level = f"{100 * result.confidence:g}%"
    lines = [f"{len(result.seeds)} agent(s) x {len(result.games)} games; {_UNIT}; x: emulator frames ({result.x})",
             f"bands: {level} {BAND_METHOD}, {result.n_resamples} resamples, seed {result.seed}; no interpolation"]
    table = result.to_frame()
    for agent, n_runs in result.seeds.items():
        lines += ["", f"{escaped(agent)} ({n_runs} runs per game)",
                  f"{'frames':>20}  {'IQM [' + level + ']':>26}  {'median [' + level + ']':>26}"]
        for frames, row in table.loc[agent].iterrows():
            cells = [f"{row[(m, 'estimate')]:.3f} [{row[(m, 'low')]:.3f}, {row[(m, 'high')]:.3f}]".rjust(26)
                     for m in CURVE_METRICS]
            lines.append(f"{int(frames):>12} {'(' + format_frames(int(frames)) + ')':>7}  " + "  ".join(cells))
    return "\n".join(lines)


def curves_as_dict(result: CurveAggregates) -> dict:
    """``atari5-spec aggregate --format json`` on learning curves (schemas/aggregate-curves.schema.json)."""
    agents = {}
    for agent, n_runs in result.seeds.items():
        own = result.curves[result.curves["agent"] == agent]
        entry = {"runs": n_runs, "frames": [int(f) for f in own.loc[own["metric"] == CURVE_METRICS[0], "frames"]]}
        for metric in CURVE_METRICS:
            rows = own[own["metric"] == metric]
            entry[metric] = {part: [float(v) for v in rows[part]] for part in ("estimate", "low", "high")}
        agents[agent] = entry
    return {
        "kind": "sample-efficiency curves",
        "scale": _UNIT,
        "x": {"unit": "emulator frames", "read_from": result.x, "interpolation": "none"},
        "games": list(result.games),
        "bootstrap": {"method": BAND_METHOD, "resamples": result.n_resamples, "confidence": result.confidence,
                      "seed": result.seed},
        "agents": agents,
        "notes": list(result.notes),
    }
