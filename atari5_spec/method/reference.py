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
           "interval_row", "pinned_margin", "DIRECTION_INTERVALS", "combine_half_widths", "interval_half_widths", "prediction_interval", "seed_half_widths", "ratio_interval",
           "same_setup_ratio_interval", "printed", "bootstrap_means", "percentile_interval", "PRINTED_FORMATS", "ratio_decision",
           "PLAIN_NUMBER", "REFUSALS", "read_score", "refusal",
           "BOUND_FACTOR", "FRACTION_LIMIT", "MIN_GAMES_FOR_FRACTIONS", "upper_bounds", "games_above_bounds",
           "normalised_looking"]

SPEC_VERSION = "1.2"          # SPEC.md's version; the signature names it (``spec:``)
IN_RANGE_MIN = 40.0           # the range edge: the paper's inclusion rule (a median of 40), applied to the estimate
PLAIN_NUMBER = r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"  # section 1: a score; anything else is refused
PRINTED_FORMATS = {"estimate": ",.1f", "interval": ",.1f", "ratio": ".3f", "ratio interval": ".3f"}  # ratios ungrouped
REFUSALS = ("not-a-plain-number", "unknown-game", "above-game-bound", "looks-normalised", "missing-game",
            "baseline-at-random")  # sections 1, 1.1 (input rules), 4, 9: reasons, in the order they are checked
# Section 1.1, the input rules: what cannot be a raw game score. No published agent comes near a game's bound, and
# raw scores of a real agent look nothing like fractions in [-2, 2] mostly at or below random play (random play
# scores 2,360 at Battle Zone), while human-normalised fractions (0 = random, 1 = human) look exactly like that.
BOUND_FACTOR = 3.0            # a game's bound: random + 3 x the larger of (best published - random), (human - random)
FRACTION_LIMIT = 2.0          # every given game's mean within 2 of zero, more than half at or below random play
MIN_GAMES_FOR_FRACTIONS = 3   # fewer games say too little to call them fractions


# --- sections 1, 1.1 and 4: what is refused ----------------------------------------------------------------------------

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


def upper_bounds(constants: Mapping[str, tuple[float, float]], best: Mapping[str, float]) -> dict[str, float]:
    """Section 1.1: per game with constants (random, human) and a best published raw score, the largest raw score
    taken as plausible, ``random + BOUND_FACTOR * max(best - random, human - random)``."""
    return {game: float(random + BOUND_FACTOR * max(best[game] - random, human - random))
            for game, (random, human) in constants.items() if game in best and math.isfinite(best[game])}


def games_above_bounds(scores: Mapping[str, Sequence], bounds: Mapping[str, float]) -> list[str]:
    """Section 1.1: the games (sorted) with a score above their bound; a game without a bound has none."""
    return sorted(g for g, values in scores.items() if g in bounds
                  and any((read_score(x) or 0.0) > bounds[g] for x in values))


def normalised_looking(means: Mapping[str, float], constants: Mapping[str, tuple[float, float]]) -> list[str]:
    """Section 1.1: the games at or below random play (sorted) when the per-game means look like human-normalised
    fractions (at least MIN_GAMES_FOR_FRACTIONS games with constants, every mean within FRACTION_LIMIT of zero, more
    than half at or below random play); otherwise empty."""
    usable = {g: v for g, v in means.items() if g in constants}
    if len(usable) < MIN_GAMES_FOR_FRACTIONS or any(abs(v) > FRACTION_LIMIT for v in usable.values()):
        return []
    below = sorted(g for g, v in usable.items() if v <= constants[g][0])
    return below if 2 * len(below) > len(usable) else []


def refusal(scores: Mapping[str, Sequence], known, games: Sequence[str],
            constants: Mapping[str, tuple[float, float]] | None = None,
            bounds: Mapping[str, float] | None = None) -> tuple[str, list[str]] | None:
    """(reason, games) when ``scores`` must be refused, the first that applies of: a score section 1 refuses
    (not-a-plain-number), a game outside ``known`` (unknown-game), with ``bounds`` a score above its game's bound
    (above-game-bound) and with ``constants`` means that look like fractions (looks-normalised) (section 1.1), a
    game of ``games`` without a score (missing-game); None when they can be scored. A known game outside ``games``
    is not used, not refused, but the input rules see it."""
    for reason, rule in (("not-a-plain-number", lambda: sorted(g for g, v in scores.items()
                                                                if any(read_score(x) is None for x in v))),
                          ("unknown-game", lambda: sorted(g for g in scores if g not in known)),
                          ("above-game-bound", lambda: games_above_bounds(scores, bounds) if bounds else []),
                          ("looks-normalised", lambda: normalised_looking(
                              seed_means({g: [read_score(x) for x in v] for g, v in scores.items() if v}),
                              constants) if constants else []),
                          ("missing-game", lambda: [g for g in games if not scores.get(g)])):
        found = rule()
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


# --- what a claim's pinned evidence reads as (built at pinning time: method/claims.py) ---

FACTORS = (1.1, 1.25, 1.5, 2.0)  # widening factors a claim tries, smallest first (fixed before any error was looked at)


def conformal_quantile(errors: Sequence[float], level: float) -> float:
    """The ceil((n + 1) level)-th smallest |error| (infinite when n is too small for the level)."""
    absolute = sorted(map(abs, errors))
    rank = math.ceil((len(absolute) + 1) * level)
    return absolute[rank - 1] if 1 <= rank <= len(absolute) else math.inf


class Evidence(NamedTuple):
    """A measured coverage and what stands behind it."""

    covered: int          # agents whose true median fell inside
    n: int                # agents (learning-curve checkpoints count one each)
    runs: int             # distinct runs (algorithm entries) among them
    papers: int
    runs_covered: int     # runs every one of whose agents was covered
    runs_low: float       # exact 95% interval of the run coverage
    runs_high: float

    @property
    def coverage(self) -> float:
        return self.covered / self.n if self.n else math.nan

    def text(self) -> str:
        """'71 of 74 agents (95.9%) from 40 runs and 25 papers; 37 of 40 runs wholly covered (exact 95% bounds
        80%-98%)'."""
        if not self.n:
            return "not measured (no agents)"
        return (f"{self.covered} of {self.n} agents ({self.coverage:.1%}) from {self.runs} run"
                f"{'s' if self.runs != 1 else ''} and {self.papers} paper{'s' if self.papers != 1 else ''}; "
                f"{self.runs_covered} of {self.runs} runs wholly covered (exact 95% bounds "
                f"{self.runs_low:.0%}-{self.runs_high:.0%})")

    def as_dict(self) -> dict:
        return dict(self._asdict(), coverage=self.coverage)



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
    # every further number score prints, pinned with the row (issue 44 item 2; None where the row has none): the
    # as-calibrated coverage behind a claim's reason, the second evidence line (``also_*``), the coverage by
    # sticky-action group, where the pair coverage was measured, the same-setup model's runs, papers and df
    plain_agents_covered: int | None = None
    plain_agents: int | None = None
    plain_coverage_high: float | None = None
    also_population: str = ""
    also_agents_covered: int | None = None
    also_agents: int | None = None
    also_runs_covered: int | None = None
    also_runs: int | None = None
    also_papers: int | None = None
    also_coverage_low: float | None = None
    also_coverage_high: float | None = None
    also_effective_n: float | None = None
    sticky_agents_covered: int | None = None
    sticky_agents: int | None = None
    sticky_runs_covered: int | None = None
    sticky_runs: int | None = None
    sticky_papers: int | None = None
    sticky_coverage_low: float | None = None
    sticky_coverage_high: float | None = None
    unsticky_agents_covered: int | None = None
    unsticky_agents: int | None = None
    unsticky_runs_covered: int | None = None
    unsticky_runs: int | None = None
    unsticky_papers: int | None = None
    unsticky_coverage_low: float | None = None
    unsticky_coverage_high: float | None = None
    measured_low: float | None = None
    measured_high: float | None = None
    measured_agents: int | None = None
    model_runs: int | None = None
    model_papers: int | None = None
    model_df: int | None = None

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


_TEXT_CELLS = {"interval", "subset", "range", "status", "population", "reason", "also_population"}
_WHOLE_CELLS = {"errors", "agents_covered", "agents", "runs_covered", "runs", "papers", "sources", "plain_agents_covered",
                "plain_agents", "measured_agents", "model_runs", "model_papers", "model_df"} | {
    f"{prefix}_{count}" for prefix in ("also", "sticky", "unsticky")
    for count in ("agents_covered", "agents", "runs_covered", "runs", "papers")}


def _typed(row: dict) -> IntervalRow:
    """A CSV row, typed: codes stay text, counts are whole numbers, the rest floats; an empty number is None. A
    column the row lacks (a table pinned before it) keeps its default."""
    cells = {}
    for field in IntervalRow._fields:
        if field not in row:
            continue
        text = row[field]
        cells[field] = (text if field in _TEXT_CELLS else None if text == "" else
                        int(text) if field in _WHOLE_CELLS else float(text))
    return IntervalRow(**cells)


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


# the interval table's rows that carry a ratio design's chosen margin (docs/design/interval-tables.md)
DIRECTION_INTERVALS = {"ratio-two-papers": "direction-two-papers", "ratio-same-setup": "direction-same-setup"}


def pinned_margin(table, kind: str, subset: str, level: float) -> float | None:
    """The ``factor`` of ratio design ``kind``'s direction row in a pinned interval table (subset, in range, level);
    None (no direction is stated) when the table has none or it is withheld (SPEC.md section 9)."""
    row = None if table is None else table.rows.get((DIRECTION_INTERVALS[kind], subset, "in range", level))
    return None if row is None or row.status == "withheld" else row.factor


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
