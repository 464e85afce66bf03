"""One agent relative to a baseline: the ratio of their Atari-5 scores and a calibrated interval for it.

The ratio is the plain ratio of the two estimates (paper Table 5), both made
with the same coefficients and settings (:func:`atari5_spec.score`). Two
intervals come with it: the seed interval (the agent's bootstrap resamples
over the baseline's: seed noise only) and the prediction interval, where the
ratio of the two agents' *true* 57-game medians lies: each agent's own
prediction-interval half-widths combined as the root of the sum of squares,
with its coverage measured on pairs of agents the version did not see. "A is
higher than B" is said only when that interval excludes 1.

Like :mod:`.estimate`, this module avoids pandas (``score --relative-to``
must start fast).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple

import numpy as np

from ..data.errors import InputError
from ..method.calibration import Calibration, combine_half_widths, read_calibration
from .estimate import (
    BootstrapSettings,
    ScoreResult,
    as_coefficient_set,
    bootstrap_estimates,
    check_settings,
    load_aliases,
    percentile_interval,
    published_extremes,
    runs_from,
    score_runs,
)
from .display import result_html
from .intervals import RATIO_DEFINITION, RatioInterval, SeedInterval, interval_text
from .signature import Signature, parse_signature, signature

__all__ = ["relative_score", "relative_scores", "ratio_interval", "RelativeResult", "RatioInterval",
           "RATIO_DEFINITION"]

class RelativeResult(NamedTuple):
    """An agent's score divided by a baseline's under the same settings (paper Table 5).

    ``ratio`` is the plain ratio of the two estimates; ``interval`` covers seed noise only;
    ``prediction_interval`` is where the ratio of the two true 57-game medians lies."""

    agent: ScoreResult
    baseline: ScoreResult
    ratio: float | None
    interval: SeedInterval | None       # the ratio's seed interval (seed noise only)
    signature: str | None
    prediction_interval: RatioInterval | None = None

    @property
    def seed_interval(self) -> SeedInterval | None:
        return self.interval

    def __repr__(self) -> str:
        """One line: the ratio, its prediction interval (what it covers, what it decides), the seed interval."""
        if self.ratio is None:
            return f"RelativeResult(ratio=None, agent={self.agent!r}, baseline={self.baseline!r})"
        pi = self.prediction_interval
        predicted = (f"{pi.level:.0%} prediction_interval={interval_text(pi, 3)} [ratio of 57-game medians], "
                     f"decision={pi.decision!r}" if pi else "prediction_interval=unknown (no calibration)")
        seeds = (f"{interval_text(self.interval, 3)} [seed noise only]" if self.interval
                 else "unknown (needs 2+ seeds per game for both)")
        return (f"RelativeResult(ratio={self.ratio:.3f}, {predicted}, seed_interval={seeds}, "
                f"agent={self.agent.estimate:.1f}, baseline={self.baseline.estimate:.1f})")

    def _repr_html_(self) -> str:
        return result_html(self)

    @property
    def parsed_signature(self) -> Signature | None:
        """The signature as a parsed :class:`~atari5_spec.scoring.signature.Signature` (None without one)."""
        return parse_signature(self.signature) if self.signature else None


def relative_score(scores: Any, baseline: Any, subset: str = "Atari-5", coefficients=None,
                   n_bootstrap: int = 10000, confidence: float = 0.95, seed: int = 0) -> RelativeResult:
    """The agent's score divided by a baseline's, both scored with the same settings (paper Table 5).

    The ratio's interval (when both have two or more seeds for every game)
    comes from the agent's bootstrap resamples divided by the baseline's, the
    baseline being resampled from its own random stream.
    """
    check_settings(n_bootstrap, confidence, seed)
    coefficient_set = as_coefficient_set(coefficients)
    aliases, extremes = load_aliases(), published_extremes()
    agent_runs, baseline_runs = runs_from(scores, aliases), runs_from(baseline, aliases)
    agent = score_runs(agent_runs, subset, coefficient_set, n_bootstrap, confidence, seed, extremes)
    base = score_runs(baseline_runs, subset, coefficient_set, n_bootstrap, confidence, seed, extremes)
    if agent.estimate is None or base.estimate is None:
        return RelativeResult(agent, base, None, None, None)
    if base.estimate <= 0:
        raise InputError(f"the baseline's {base.subset} score is {base.estimate:g}: "
                         "a ratio to a baseline at or below random is meaningless")
    model = coefficient_set.subsets[agent.subset]
    constants = coefficient_set.constants
    agent_samples = bootstrap_estimates(model, agent_runs, constants, n_bootstrap, seed, stream=0)
    base_samples = bootstrap_estimates(model, baseline_runs, constants, n_bootstrap, seed, stream=1)
    interval = None
    if agent_samples is not None and base_samples is not None and np.all(base_samples > 0):
        interval = SeedInterval(*percentile_interval(agent_samples / base_samples, confidence), confidence,
                                "seed-to-seed variation of the ratio only (both agents' seeds resampled), NOT where "
                                "the ratio of the 57-game medians lies")
    n_seeds = [agent.n_seeds[g] for g in model.games]
    settings = BootstrapSettings(int(n_bootstrap), int(seed), float(confidence)) if interval else None
    calibration = read_calibration(coefficient_set.path)
    ratio = ratio_interval(agent, base, calibration, confidence)
    return RelativeResult(agent, base, agent.estimate / base.estimate, interval,
                          signature(agent.subset, coefficient_set, n_seeds, settings, relative=True,
                                    calibration=ratio.calibration if ratio else None),
                          ratio)


def ratio_interval(agent: ScoreResult, baseline: ScoreResult, calibration: Calibration | None,
                   level: float) -> RatioInterval | None:
    """The interval for the plain ratio of two agents' true 57-game medians, from their prediction intervals."""
    a, b = agent.prediction_interval, baseline.prediction_interval
    if a is None or b is None or calibration is None or agent.estimate <= 0 or baseline.estimate <= 0:
        return None
    a_below, a_above = a.half_widths(agent.estimate)
    b_below, b_above = b.half_widths(baseline.estimate)
    centre = math.log10(agent.estimate / baseline.estimate)
    below, above = combine_half_widths(a_below, b_above), combine_half_widths(a_above, b_below)
    low = 10.0 ** (centre - below) if math.isfinite(below) else 0.0
    high = 10.0 ** (centre + above) if math.isfinite(above) else math.inf
    percent = f"{level * 100:g}%"
    if low > 1.0:
        decision, statement = "higher", f"the agent's 57-game median is higher than the baseline's ({percent})"
    elif high < 1.0:
        decision, statement = "lower", f"the agent's 57-game median is lower than the baseline's ({percent})"
    else:
        decision, statement = "cannot tell", (f"the {percent} interval holds 1: the data cannot tell which agent's "
                                              "57-game median is higher")
    covered, n = calibration.pair_coverage(agent.subset, level)
    extrapolation = [who for who, p in (("the agent", a), ("the baseline", b)) if p.range == "extrapolation"]
    coverage = (f"measured on {n} pairs of in-range agents from two different papers, each half-width calibrated "
                f"without its own paper: {covered} of {n} ({covered / n:.1%})" if n else "not measured")
    if extrapolation:
        coverage = f"{' and '.join(extrapolation)} below the range (EXTRAPOLATION): not measured there; " + coverage
    seeds = ("both seed intervals included" if agent.interval and baseline.interval else
             "unknown: seed-to-seed variation is not in the interval (one of the two has a single seed per game, "
             "or no bootstrap)")
    return RatioInterval(low, high, level, decision, statement, coverage, a.calibration, seeds)


def relative_scores(agents: Mapping[str, Any], baseline: Any, subset: str = "Atari-5", coefficients=None,
                    n_bootstrap: int = 10000, confidence: float = 0.95, seed: int = 0) -> dict[str, RelativeResult]:
    """One baseline against many agents: name -> :func:`relative_score` of that agent against the baseline.

    Each ratio interval carries the per-pair guarantee (its measured coverage on pairs); the intervals are not
    simultaneous: with many agents, expect about 5% of the 95% intervals to miss.
    """
    return {name: relative_score(scores, baseline, subset, coefficients, n_bootstrap, confidence, seed)
            for name, scores in sorted(agents.items())}
