"""One agent relative to a baseline: the ratio of their Atari-5 scores and a calibrated interval for it.

The ratio is the plain ratio of the two estimates (paper Table 5), both made
with the same coefficients and settings (:func:`atari5_spec.score`). Two
intervals come with it: the seed interval (the agent's bootstrap resamples
over the baseline's: seed noise only) and the prediction interval, where the
ratio of the two agents' *true* 57-game medians lies: each agent's own
prediction-interval half-widths combined as the root of the sum of squares,
with its coverage measured on pairs of agents the version did not see. "A is
higher than B" is said only when that interval excludes 1.

A direction is stated only where the pair coverage was measured: both
estimates inside the range of the agents behind it (in range, estimate 40 up
to the highest estimate among them), neither evaluated with a non-standard
episode cap, neither with a game of the subset below random play. Otherwise
the interval is printed with "cannot be decided here" and the reasons.

``same_setup=True`` (``--same-setup``): both agents ran in one codebase and
protocol, so the error they share cancels in the ratio; the model part of the
interval comes from the same-setup model of :mod:`atari5_spec.method.pairs`
(a paper effect that cancels, plus run-level error that does not), measured
leave-one-paper-out on pairs of agents from one paper.

The baseline can be an algorithm id of the package (``"rainbow-noop"``): its
published per-game numbers, with its provenance and protocol
(:mod:`.baselines`).

With 40 or more of the 57 games on both sides, ``measured`` also compares the
two agents' measured medians over the games both have, with a seed bootstrap
where both have per-seed scores (:mod:`.measured_ratio`); None otherwise.

Like :mod:`.estimate`, this module avoids pandas (``score --relative-to``
must start fast).
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple

import numpy as np

from ..data.errors import InputError
from ..method import reference
from ..method.calibration import Calibration, read_calibration, read_calibration_intervals
from ..method.calibration import SAME_SETUP_RULE, TWO_PAPER_RULE, MeasuredRange, PairEvidence
from ..method.reference import pinned_margin
from .baselines import BaselineEntry, algorithm_baseline
from .protocol_conditions import below_random_games, check_episode_frames, episode_cap_reason, with_conditions
from .estimate import (
    BootstrapSettings,
    ScoreResult,
    as_coefficient_set,
    bootstrap_estimates,
    check_settings,
    implausible_scores,
    load_aliases,
    percentile_interval,
    published_extremes,
    runs_from,
    score_runs,
    with_gate_allowed,
)
from .display import result_html
from .intervals import RATIO_DEFINITION, RatioInterval, SeedInterval, interval_text, within_margin_statement
from .signature import Signature, parse_signature, signature

__all__ = ["relative_score", "relative_scores", "ratio_interval", "RelativeResult", "RelativeScores",
           "RatioInterval", "RATIO_DEFINITION"]

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
    baseline_entry: BaselineEntry | None = None  # the package's entry when the baseline was an algorithm id
    same_setup: bool = False
    measured: Any = None  # MeasuredComparison (measured_ratio): both sides' measured medians, 40+ games each

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
        m = self.measured
        measured = "" if m is None or m.ratio is None else (
            f", measured_ratio={m.ratio:.3f} [{m.label}, measured]"
            + (f" {m.level:.0%} seed interval={m.interval[0]:.3f} to {m.interval[1]:.3f}, decision={m.decision!r}"
               if m.interval else ""))
        return (f"RelativeResult(ratio={self.ratio:.3f}, {predicted}, seed_interval={seeds}, "
                f"agent={self.agent.estimate:.1f}, baseline={self.baseline.estimate:.1f}{measured})")

    def _repr_html_(self) -> str:
        return result_html(self)

    @property
    def parsed_signature(self) -> Signature | None:
        """The signature as a parsed :class:`~atari5_spec.scoring.signature.Signature` (None without one)."""
        return parse_signature(self.signature) if self.signature else None


def _baseline(baseline: Any) -> tuple[Any, BaselineEntry | None]:
    """The baseline's scores, and its package entry when it is an algorithm id."""
    if isinstance(baseline, str):
        entry = algorithm_baseline(baseline.strip())
        return entry.scores, entry
    if isinstance(baseline, BaselineEntry):
        return baseline.scores, baseline
    return baseline, None


def relative_score(scores: Any, baseline: Any, subset: str = "Atari-5", coefficients=None,
                   n_bootstrap: int = 10000, confidence: float = 0.95, seed: int = 0, same_setup: bool = False,
                   max_episode_frames: int | None = None, baseline_max_episode_frames: int | None = None,
                   allow_implausible: bool = False) -> RelativeResult:
    """The agent's score divided by a baseline's, both scored with the same settings (paper Table 5).

    ``baseline``: scores in any form :func:`atari5_spec.score` takes, or an algorithm id of the package
    (``"rainbow-noop"``: its published per-game numbers; ``baseline_entry`` then holds its provenance and
    protocol). The ratio's seed interval (when both have two or more seeds for every game) comes from the agent's
    bootstrap resamples divided by the baseline's, the baseline being resampled from its own random stream.

    ``same_setup``: both agents ran in one codebase and protocol; the ratio interval then uses the same-setup model
    (shared error cancels). ``max_episode_frames``: the agent's evaluation episode cap (with ``same_setup``, also
    the baseline's unless ``baseline_max_episode_frames`` says otherwise; an algorithm id brings its recorded cap).
    A direction is stated only where the pair coverage was measured (see the module docstring).

    Both sides' scores go through ``score``'s input gate (SPEC.md section 1.1; a package entry's published numbers
    define the bounds, so only given scores are checked): InputError naming the place (``baseline:`` first for
    the baseline's); ``allow_implausible`` lets them through, and the signature records it.
    """
    check_settings(n_bootstrap, confidence, seed)
    coefficient_set = as_coefficient_set(coefficients)
    baseline_scores, entry = _baseline(baseline)
    agent_cap = check_episode_frames(max_episode_frames)
    base_cap = check_episode_frames(baseline_max_episode_frames)
    if base_cap is None:
        base_cap = entry.max_episode_frames if entry is not None else (agent_cap if same_setup else None)
    aliases, extremes = load_aliases(), published_extremes()
    agent_runs, baseline_runs = runs_from(scores, aliases), runs_from(baseline_scores, aliases)
    agent_allowed = _gated(scores, agent_runs, aliases, coefficient_set.constants, extremes, allow_implausible)
    base_allowed = () if entry is not None else _gated(baseline_scores, baseline_runs, aliases,
                                                       coefficient_set.constants, extremes, allow_implausible,
                                                       "baseline: ")
    allowed = agent_allowed + base_allowed
    agent = score_runs(agent_runs, subset, coefficient_set, n_bootstrap, confidence, seed, extremes)
    base = score_runs(baseline_runs, subset, coefficient_set, n_bootstrap, confidence, seed, extremes)
    agent = with_conditions(agent, (), None, agent_cap, coefficient_set)
    base = with_conditions(base, (), None, base_cap, coefficient_set)
    agent = with_gate_allowed(agent, agent_allowed) if agent_allowed else agent
    base = with_gate_allowed(base, tuple(a.removeprefix("baseline: ") for a in base_allowed)) if base_allowed else base
    measured = _measured(agent, base, agent_runs, baseline_runs, entry, coefficient_set.constants, confidence)
    if agent.estimate is None or base.estimate is None:
        return RelativeResult(agent, base, None, None, None, None, entry, bool(same_setup), measured)
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
    table = read_calibration_intervals(coefficient_set.path, calibration) if calibration is not None else None
    ratio = ratio_interval(agent, base, calibration, confidence, same_setup=same_setup, seed_interval=interval,
                           agent_cap=agent_cap, baseline_cap=base_cap, table=table)
    text = signature(agent.subset, coefficient_set, n_seeds, settings, relative=True,
                     calibration=ratio.calibration if ratio else None, kind="same-setup ratio" if same_setup else None)
    if allowed:  # a ratio scored past the gate is never cited as one that passed it
        from dataclasses import replace

        from .signature import GATE_ALLOWED

        text = str(replace(parse_signature(text), gate=GATE_ALLOWED))
    measured = measured._replace(atari5_ratio=agent.estimate / base.estimate) if measured is not None else None
    return RelativeResult(agent, base, agent.estimate / base.estimate, interval, text, ratio, entry, bool(same_setup),
                          measured)


def _measured(agent: ScoreResult, base: ScoreResult, agent_runs, baseline_runs, entry: BaselineEntry | None,
              constants, confidence: float):
    """The measured comparison of the two sides' medians (:mod:`.measured_ratio`), or None below 40 games; a
    package entry's seeds come from data/seed_scores.csv."""
    from .measured_ratio import MIN_GAMES, canonical_games, entry_seed_runs, measured_comparison

    if min(len(agent.normalised), len(base.normalised)) < MIN_GAMES:  # cheap: no file read below 40 games
        return None
    canonical = canonical_games()
    games = [g for g in canonical if g in agent.normalised and g in base.normalised]
    base_seeds, no_seeds = "its given scores", ""
    if entry is not None:
        baseline_runs, no_seeds = entry_seed_runs(entry, games) if len(games) >= MIN_GAMES else (None, "")
        base_seeds = f"data/seed_scores.csv ({entry.algorithm_id})"
    return measured_comparison(agent.normalised, base.normalised, canonical, constants, agent_runs, baseline_runs,
                               confidence, agent_seeds="its given scores", baseline_seeds=base_seeds,
                               no_seeds=no_seeds)


def _gated(scores: Any, runs, aliases, constants, extremes, allow: bool, side: str = "") -> tuple[str, ...]:
    """``score``'s input gate on one side's scores; its refusal (or, with ``allow``, what it let through) begins
    with ``side``."""
    from .estimate import _observations

    observations = [] if isinstance(scores, Mapping) and not scores else _observations(scores)
    try:
        return tuple(side + a for a in implausible_scores(observations, runs, aliases, constants, extremes, allow))
    except InputError as error:
        raise InputError(f"{side}{error}") from None


def measured_span(row: reference.IntervalRow | None) -> MeasuredRange | None:
    """Where a ratio row's pair coverage was measured (its pinned ``measured_*`` cells); None without pairs."""
    if row is None or not row.measured_agents:
        return None
    return MeasuredRange(row.measured_low, row.measured_high, row.measured_agents)


def pair_evidence(row: reference.IntervalRow | None) -> PairEvidence | None:
    """A ratio row's design evidence as ``score --relative-to`` prints it (its pinned ``also_*`` cells)."""
    if row is None or row.also_agents is None:
        return None
    return PairEvidence(row.also_agents_covered, row.also_agents, row.also_runs, row.also_papers,
                        row.also_coverage_low, row.also_coverage_high, row.also_effective_n)


def _reasons(agent: ScoreResult, baseline: ScoreResult, span: MeasuredRange | None, agent_cap: int | None,
             baseline_cap: int | None) -> list[str]:
    """Why a direction cannot be stated for this pair: the conditions its coverage was not measured under."""
    reasons = []
    for who, result in (("the agent", agent), ("the baseline", baseline)):
        if span is None:
            reasons.append("no pairs of agents measured in this calibration")
            break
        if result.estimate < span.low:
            reasons.append(f"{who}'s estimate {result.estimate:,.1f} is below the range where the pair coverage was "
                           f"measured ({span.text()}): an EXTRAPOLATION")
        elif result.estimate > span.high:
            reasons.append(f"{who}'s estimate {result.estimate:,.1f} is above the range where the pair coverage was "
                           f"measured ({span.text()})")
    for who, cap in (("the agent", agent_cap), ("the baseline", baseline_cap)):
        reason = episode_cap_reason(cap, who)
        if reason:
            reasons.append(reason)
    for who, result in (("the agent", agent), ("the baseline", baseline)):
        below = below_random_games(result.normalised, result.games)
        if below:
            reasons.append(f"{who} is below random play on {', '.join(below)}: the formula clips those games to "
                           "random play, and the pair coverage was not measured for such agents")
    return reasons


def ratio_interval(agent: ScoreResult, baseline: ScoreResult, calibration: Calibration | None,
                   level: float, same_setup: bool = False, seed_interval: tuple[float, float] | None = None,
                   agent_cap: int | None = None, baseline_cap: int | None = None,
                   table: reference.IntervalTable | None = None) -> RatioInterval | None:
    """The interval for the plain ratio of two agents' true 57-game medians.

    Two papers (default): from the two agents' prediction intervals. Same setup: the same-setup model's half-width
    combined with the seed part of the ratio (``seed_interval``, its bootstrap interval)."""
    a, b = agent.prediction_interval, baseline.prediction_interval
    if a is None or b is None or calibration is None or agent.estimate <= 0 or baseline.estimate <= 0:
        return None
    kind = "ratio-same-setup" if same_setup else "ratio-two-papers"
    row = table.rows.get((kind, agent.subset, "in range", level)) if table is not None else None
    if same_setup:  # the pinned same-setup half-width (SPEC.md section 9) and the model's pinned description
        pair = reference.same_setup_ratio_interval(agent.estimate, baseline.estimate, row, seed_interval)
        if pair is None or row.model_df is None:
            return None
        low, high = pair
    else:
        low, high = reference.ratio_interval(agent.estimate, baseline.estimate, (a.low, a.high), (b.low, b.high))
    percent = f"{level * 100:g}%"
    reasons = tuple(_reasons(agent, baseline, measured_span(row), agent_cap, baseline_cap))
    margin = pinned_margin(table, kind, agent.subset, level)
    ratio_value = agent.estimate / baseline.estimate
    if low <= 1.0 <= high:
        decision, statement = "cannot tell", (f"the {percent} interval holds 1: the data cannot tell which agent's "
                                              "57-game median is higher")
    elif reasons:
        decision, statement = "cannot be decided here", (
            f"cannot be decided here: the {percent} interval excludes 1, but no direction is stated because "
            + "; ".join(reasons))
    elif reference.ratio_decision((low, high), ratio_value, margin) == "cannot tell":
        decision, statement = "cannot tell", within_margin_statement(percent, margin)
    elif low > 1.0:
        decision, statement = "higher", f"the agent's 57-game median is higher than the baseline's ({percent})"
    else:
        decision, statement = "lower", f"the agent's 57-game median is lower than the baseline's ({percent})"
    if same_setup:
        evidence = pair_evidence(row)
        coverage = ("same setup: measured leave-one-paper-out on pairs of in-range agents from one paper, each "
                    f"paper's pairs calibrated without that paper: {evidence.text()}; the model from "
                    f"{row.model_runs} runs in {row.model_papers} papers with two or more runs (t on {row.model_df} degrees "
                    "of freedom)" if evidence else "same setup: not measured (no paper with two in-range agents)")
        seeds = ("the ratio's seed interval included (bootstrap over both agents' seeds)" if seed_interval else
                 "unknown: seed-to-seed variation is not in the interval (one of the two has a single seed per game, "
                 "or no bootstrap)")
    else:
        evidence = pair_evidence(row)
        coverage = ("measured on pairs of in-range agents from two different papers, each half-width calibrated "
                    f"without its own paper: {evidence.text()}" if evidence else "not measured")
        seeds = ("both seed intervals included" if agent.interval and baseline.interval else
                 "unknown: seed-to-seed variation is not in the interval (one of the two has a single seed per game, "
                 "or no bootstrap)")
    if reasons:
        coverage = "; ".join(reasons) + ": NOT MEASURED there; " + coverage
    if decision in ("higher", "lower") and evidence is not None and evidence.coverage < level:
        statement += (f"; but this interval held the true ratio for only {evidence.coverage:.1%} of the measured "
                      f"pairs, less than {percent}")
    return RatioInterval(low, high, level, decision, statement, coverage, a.calibration, seeds,
                         rule=SAME_SETUP_RULE if same_setup else TWO_PAPER_RULE, reasons=reasons,
                         design="same setup" if same_setup else "two papers", evidence=evidence, row=row)


def relative_scores(agents: Mapping[str, Any], baseline: Any, subset: str = "Atari-5", coefficients=None,
                    n_bootstrap: int = 10000, confidence: float = 0.95, seed: int = 0, same_setup: bool = False,
                    max_episode_frames: int | None = None, baseline_max_episode_frames: int | None = None
                    ) -> "RelativeScores":
    """One baseline against many agents: name -> :func:`relative_score` of that agent against the baseline.

    Each ratio interval carries the per-pair guarantee (its measured coverage on pairs); the intervals are not
    simultaneous: with many agents, expect about 5% of the 95% intervals to miss. The result is a dict with
    :meth:`RelativeScores.to_frame` (one row per agent).
    """
    baseline = _baseline(baseline)[1] or baseline  # an algorithm id is read once
    return RelativeScores({name: relative_score(scores, baseline, subset, coefficients, n_bootstrap, confidence,
                                                seed, same_setup, max_episode_frames, baseline_max_episode_frames)
                           for name, scores in sorted(agents.items())})


class RelativeScores(dict):
    """:func:`relative_scores`' result: agent name -> :class:`RelativeResult`, and :meth:`to_frame`."""

    COLUMNS = ("estimate", "baseline_estimate", "ratio", "low", "high", "level", "decision", "seed_low",
               "seed_high", "signature", "measured_ratio", "measured_low", "measured_high", "measured_games",
               "measured_decision")

    def to_frame(self):
        """One row per agent (index ``agent``): its estimate, the baseline's, the ratio, the ratio's prediction
        interval (``low``, ``high`` at ``level``; NaN when there is none) and its ``decision``, the seed-only
        interval (``seed_low``, ``seed_high``), the ratio's signature and, where both sides have 40 or more
        of the 57 games, the measured ratio of medians (``measured_*``: its seed interval, the games compared and
        its decision; NaN / None otherwise)."""
        import pandas as pd

        nan = float("nan")
        rows = []
        for name, r in self.items():
            pi, seeds, m = r.prediction_interval, r.interval, r.measured
            mi = m.interval if m is not None else None
            rows.append((name, r.agent.estimate, r.baseline.estimate, nan if r.ratio is None else r.ratio,
                         pi.low if pi else nan, pi.high if pi else nan, pi.level if pi else nan,
                         pi.decision if pi else None, seeds[0] if seeds else nan, seeds[1] if seeds else nan,
                         r.signature, nan if m is None or m.ratio is None else m.ratio, mi[0] if mi else nan,
                         mi[1] if mi else nan, m.n_games if m is not None else 0,
                         m.decision if m is not None else None))
        return pd.DataFrame.from_records(rows, columns=("agent",) + self.COLUMNS).set_index("agent")
