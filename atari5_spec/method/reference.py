"""The reference implementation of SPEC.md (the Atari-5 scoring specification): numpy and the standard library only.

Everything that makes a number ``atari5-spec score`` prints is here, once, in
the order of SPEC.md: normalisation (section 2), the transform (3), seed means
before normalising and clipping below random (4), a subset's estimate from a
pinned coefficient version's weights and constants (5), the range edge (6),
the prediction interval from a pinned interval table's half-width combined
with the seed part (7), when it is withheld (8), the ratio and same-setup
intervals (9), printed precision (10) and the seed bootstrap, whose random
stream is implementation-defined (11). ``score``, ``predict``, the
leaderboard, the site and conformance/vectors.json build on it; nothing else
computes these numbers. Reading a coefficient version (with its hash checks)
is :mod:`.pinned`; writing an interval table is :mod:`.interval_table`.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zlib
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

import numpy as np

__all__ = ["SPEC_VERSION", "IN_RANGE_MIN", "human_normalised", "log_transform", "inverse_log_transform",
           "seed_means", "subset_estimate", "range_of", "IntervalRow", "IntervalTable", "read_interval_table",
           "interval_row", "combine_half_widths", "interval_half_widths", "prediction_interval", "seed_half_widths", "ratio_interval",
           "same_setup_ratio_interval", "printed", "bootstrap_means", "percentile_interval", "PRINTED_FORMATS", "ratio_decision",
           "PLAIN_NUMBER", "REFUSALS", "read_score", "refusal"]

SPEC_VERSION = "1.1"          # SPEC.md's version; the signature names it (``spec:``)
IN_RANGE_MIN = 40.0           # the range edge: the paper's inclusion rule (a median of 40), applied to the estimate
PLAIN_NUMBER = r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"  # section 1: a score; anything else is refused
PRINTED_FORMATS = {"estimate": ",.1f", "interval": ",.1f", "ratio": ".3f", "ratio interval": ".3f"}  # ratios ungrouped
REFUSALS = ("not-a-plain-number", "unknown-game", "missing-game", "baseline-at-random")  # sections 1, 4, 9: reasons


# --- sections 1 and 4: what is refused ----------------------------------------------------------------------------

def read_score(value) -> float | None:
    """A score as a float, or None when section 1 refuses it: text that is not a plain decimal number, a value that
    is not a number, or one that is not finite (``-inf``, ``1e999``)."""
    if isinstance(value, str):
        if re.fullmatch(PLAIN_NUMBER, value) is None:
            return None
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def refusal(scores: Mapping[str, Sequence], known, games: Sequence[str]) -> tuple[str, list[str]] | None:
    """(reason, games) when ``scores`` must be refused, the first that applies of: a score section 1 refuses
    (not-a-plain-number), a game outside ``known`` (unknown-game), a game of ``games`` without a score
    (missing-game); None when they can be scored. A known game outside ``games`` is not used, not refused."""
    for reason, found in (("not-a-plain-number", sorted(g for g, v in scores.items()
                                                        if any(read_score(x) is None for x in v))),
                          ("unknown-game", sorted(g for g in scores if g not in known)),
                          ("missing-game", [g for g in games if not scores.get(g)])):
        if found:
            return reason, found
    return None


# --- sections 2-5: the estimate ---------------------------------------------------------------------------------

def human_normalised(raw, random, human):
    """Z = 100 (x - random) / (human - random): 0 = random policy, 100 = average human (array-valued)."""
    raw, random, human = np.asarray(raw, float), np.asarray(random, float), np.asarray(human, float)
    return 100.0 * (raw - random) / (human - random)


def log_transform(normalised):
    """phi(z) = log10(1 + max(0, z)): a score below random is clipped to random play."""
    return np.log10(1.0 + np.maximum(0.0, np.asarray(normalised, float)))


def inverse_log_transform(log_score):
    """phi^-1(s) = 10^s - 1."""
    return 10.0 ** np.asarray(log_score, float) - 1.0


def seed_means(runs: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Per game, the arithmetic mean of its per-seed raw scores (seeds are averaged before normalising)."""
    return {game: float(np.mean(np.asarray(values, float))) for game, values in runs.items()}


def subset_estimate(raw_means: Mapping[str, object], games: Sequence[str], weights: Sequence[float],
                    constants: Mapping[str, tuple[float, float]]):
    """phi^-1(sum_i c_i phi(Z_i)) over the subset's games, in order; array-valued when the means are arrays."""
    total = 0.0
    for game, weight in zip(games, weights):
        random, human = constants[game]
        total = total + weight * log_transform(human_normalised(raw_means[game], random, human))
    return inverse_log_transform(total)


def range_of(estimate: float, pooled: bool = False) -> str:
    """'in range' (estimate >= 40), 'extrapolation' (below), or 'pooled' (a calibration without ranges)."""
    if pooled:
        return "pooled"
    return "in range" if estimate >= IN_RANGE_MIN else "extrapolation"


# --- sections 7-8: the pinned interval table ---------------------------------------------------------------------

class IntervalRow(NamedTuple):
    """One row of calibration/intervals/<name>.csv (schemas/calibration-intervals.schema.json), typed."""

    interval: str                 # agent, ratio-two-papers, ratio-same-setup, direction-two-papers, ...
    subset: str
    range: str                    # in range, extrapolation, pooled
    level: float
    status: str                   # shown, widened, withheld
    half_width: float | None      # model part, log10, after widening; None when withheld
    factor: float
    errors: int
    population: str
    agents_covered: int
    agents: int
    runs_covered: int
    runs: int
    papers: int
    sources: int
    coverage_low: float | None
    coverage_high: float | None
    reason: str

    @property
    def coverage(self) -> float:
        """agents_covered / agents (nan without agents)."""
        return self.agents_covered / self.agents if self.agents else math.nan


class IntervalTable(NamedTuple):
    """A calibration's interval table: its name (``<version>[.<method>][.<edition>]``) and rows by key."""

    name: str
    rows: dict[tuple[str, str, str, float], IntervalRow]

    @property
    def pooled(self) -> bool:
        return any(key[2] == "pooled" for key in self.rows)


def _typed(row: dict) -> IntervalRow:
    number = {f: (float(row[f]) if row[f] != "" else None) for f in ("half_width", "coverage_low", "coverage_high")}
    counts = {f: int(row[f]) for f in ("errors", "agents_covered", "agents", "runs_covered", "runs", "papers",
                                       "sources")}
    return IntervalRow(row["interval"], row["subset"], row["range"], float(row["level"]), row["status"],
                       factor=float(row["factor"]), population=row["population"], reason=row["reason"],
                       **number, **counts)


def read_interval_table(source: Path | str | bytes, name: str | None = None) -> IntervalTable:
    """An interval table from its file (a path) or its bytes; ``name`` defaults to the file's stem."""
    if isinstance(source, bytes):
        text = source.decode("utf-8")
    else:
        text, name = Path(source).read_text(encoding="utf-8"), name or Path(source).name.removesuffix(".csv")
    rows = {}
    for raw in csv.DictReader(io.StringIO(text, newline="")):
        row = _typed(raw)
        rows[(row.interval, row.subset, row.range, row.level)] = row
    return IntervalTable(name or "", rows)


def interval_row(table: IntervalTable, interval: str, subset: str, estimate: float, level: float
                 ) -> IntervalRow | None:
    """The row that applies to ``estimate`` (its range, or 'pooled'); None when the table has no such row."""
    return table.rows.get((interval, subset, range_of(estimate, table.pooled), level))


def combine_half_widths(model: float, seed: float) -> float:
    """sqrt(model^2 + seed^2): independent errors' half-widths at one level (variances add). A negative seed
    half-width (the seed interval does not reach past the estimate on that side) counts as 0 (SPEC.md section 7)."""
    return math.hypot(model, max(seed, 0.0))


def seed_half_widths(estimate: float, seed_interval: tuple[float, float] | None) -> tuple[float, float]:
    """(below, above): the seed interval's half-widths in phi around the estimate (0, 0 without one)."""
    if seed_interval is None:
        return 0.0, 0.0
    centre = float(log_transform(estimate))
    return centre - float(log_transform(seed_interval[0])), float(log_transform(seed_interval[1])) - centre


def prediction_interval(estimate: float, row: IntervalRow | None,
                        seed_interval: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """phi^-1(phi(estimate) -+ sqrt(h^2 + s^2)) per side (s the seed part); pooled rows add h to the seed
    interval's ends instead. None when the row is missing or withheld."""
    if row is None or row.status == "withheld" or row.half_width is None:
        return None
    h = row.half_width
    if row.range == "pooled":
        low, high = (estimate, estimate) if seed_interval is None else seed_interval
        return (float(inverse_log_transform(log_transform(low) - h)),
                float(inverse_log_transform(log_transform(high) + h)))
    centre = float(log_transform(estimate))
    below, above = seed_half_widths(estimate, seed_interval)
    return (float(inverse_log_transform(centre - combine_half_widths(h, below))),
            float(inverse_log_transform(centre + combine_half_widths(h, above))))


# --- section 9: ratios ------------------------------------------------------------------------------------------

def interval_half_widths(estimate: float, interval: tuple[float, float]) -> tuple[float, float]:
    """(below, above): an interval's half-widths in phi around the estimate (inf for an unbounded side)."""
    centre = float(log_transform(estimate))
    below = centre - math.log10(1.0 + interval[0]) if interval[0] > -1.0 else math.inf
    above = math.log10(1.0 + interval[1]) - centre if math.isfinite(interval[1]) else math.inf
    return below, above


def ratio_interval(agent: float, baseline: float, agent_interval: tuple[float, float],
                   baseline_interval: tuple[float, float]) -> tuple[float, float]:
    """Two papers: (agent / baseline) x 10^(-+ sqrt(a^2 + b^2)), a and b the two prediction intervals' own
    half-widths in phi; the lower side takes the agent's lower and the baseline's upper half-width."""
    a_below, a_above = interval_half_widths(agent, agent_interval)
    b_below, b_above = interval_half_widths(baseline, baseline_interval)
    centre = math.log10(agent / baseline)
    below, above = math.hypot(a_below, b_above), math.hypot(a_above, b_below)
    return (10.0 ** (centre - below) if math.isfinite(below) else 0.0,
            10.0 ** (centre + above) if math.isfinite(above) else math.inf)


def same_setup_ratio_interval(agent: float, baseline: float, row: IntervalRow,
                              seed_interval: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """Same setup: (agent / baseline) x 10^(-+ sqrt(h^2 + s^2)), h the table's ratio-same-setup half-width, s the
    ratio's own seed interval's half-widths in log10 (0 without one; a lower end r_lo <= 0 gives a lower end 0)."""
    if row is None or row.status == "withheld" or row.half_width is None:
        return None
    centre = math.log10(agent / baseline)
    below = above = 0.0
    if seed_interval is not None:  # r_lo <= 0: the seed part below is infinite, the lower end 0 (SPEC.md section 9)
        below = centre - math.log10(seed_interval[0]) if seed_interval[0] > 0 else math.inf
        above = math.log10(seed_interval[1]) - centre if math.isfinite(seed_interval[1]) else math.inf
    below, above = combine_half_widths(row.half_width, below), combine_half_widths(row.half_width, above)
    return (10.0 ** (centre - below) if math.isfinite(below) else 0.0,
            10.0 ** (centre + above) if math.isfinite(above) else math.inf)


def ratio_decision(interval: tuple[float, float], ratio: float | None = None, margin: float | None = 1.0) -> str:
    """'higher' / 'lower' when the interval, its log half-widths around ``ratio`` times ``margin``, excludes 1
    above / below, else 'cannot tell' (always when ``margin`` is None)."""
    low, high = interval
    if margin is not None and margin != 1.0 and ratio is not None:
        c = math.log10(ratio)
        low = 10.0 ** (c - margin * (c - math.log10(low))) if low > 0 else 0.0
        high = 10.0 ** (c + margin * (math.log10(high) - c)) if math.isfinite(high) else math.inf
    return "cannot tell" if margin is None else "higher" if low > 1.0 else "lower" if high < 1.0 else "cannot tell"


# --- section 10: printed precision --------------------------------------------------------------------------------

def printed(value: float, what: str = "estimate") -> str:
    """The number as printed (PRINTED_FORMATS: decimals, thousands grouping), correctly rounded from binary64."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return format(value, PRINTED_FORMATS[what])


# --- section 11: the seed bootstrap (its random stream is implementation-defined) ---------------------------------

def bootstrap_means(values: Sequence[float], n_resamples: int, seed: int, game: str, stream: int = 0) -> np.ndarray:
    """``n_resamples`` means of ``values`` resampled with replacement, from numpy's PCG64 seeded with
    (seed, crc32(game), stream): a game's resamples do not change when other games are added or removed."""
    values = np.asarray(list(values), float)
    rng = np.random.default_rng([seed, zlib.crc32(game.encode("utf-8")), stream])
    picks = rng.integers(0, len(values), size=(n_resamples, len(values)))
    return values[picks].mean(axis=1)


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """The (1 - confidence) / 2 and 1 - (1 - confidence) / 2 quantiles of the resampled estimates (numpy's
    default linear interpolation)."""
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(samples, [tail, 1.0 - tail])
    return float(low), float(high)
